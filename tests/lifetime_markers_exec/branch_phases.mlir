// Lifelines inside the branches of an scf.if nested in a loop, and a lifeline around a
// whole inner loop: per-iteration temporaries of both branches and of the tail share bytes
// with one another under the markers; without them every buffer is live over the loop.
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }
func.func @kernel(%x: memref<32xf32>, %out: memref<6x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %t = memref.alloc() : memref<32xf32>
  %e = memref.alloc() : memref<32xf32>
  %q = memref.alloc() : memref<32xf32>
  scf.for %k = %c0 to %c6 step %c1 {
    %ki = arith.index_cast %k : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    %r = arith.remui %k, %c2 : index
    %even = arith.cmpi eq, %r, %c0 : index
    scf.if %even {
      %lt = "memplan.lifetime_start"(%t) : (memref<32xf32>) -> memref<32xf32>
      scf.for %i = %c0 to %c32 step %c1 {
        %v = memref.load %x[%i] : memref<32xf32>
        %w = arith.addf %v, %kf : f32
        memref.store %w, %lt[%i] : memref<32xf32>
      }
      scf.for %i = %c0 to %c32 step %c1 {
        %j = arith.subi %c31, %i : index
        %v = memref.load %lt[%j] : memref<32xf32>
        memref.store %v, %out[%k, %i] : memref<6x32xf32>
      }
      "memplan.lifetime_end"(%lt) : (memref<32xf32>) -> ()
    } else {
      %le = "memplan.lifetime_start"(%e) : (memref<32xf32>) -> memref<32xf32>
      scf.for %i = %c0 to %c32 step %c1 {
        %v = memref.load %x[%i] : memref<32xf32>
        %w = arith.mulf %v, %kf : f32
        memref.store %w, %le[%i] : memref<32xf32>
      }
      scf.for %i = %c0 to %c32 step %c1 {
        %v = memref.load %le[%i] : memref<32xf32>
        %w = arith.subf %v, %kf : f32
        memref.store %w, %out[%k, %i] : memref<6x32xf32>
      }
      "memplan.lifetime_end"(%le) : (memref<32xf32>) -> ()
    }
    %lq = "memplan.lifetime_start"(%q) : (memref<32xf32>) -> memref<32xf32>
    scf.for %i = %c0 to %c32 step %c1 {
      %v = memref.load %out[%k, %i] : memref<6x32xf32>
      %w = arith.mulf %v, %v : f32
      memref.store %w, %lq[%i] : memref<32xf32>
    }
    scf.for %i = %c0 to %c32 step %c1 {
      %j = arith.subi %c31, %i : index
      %v = memref.load %lq[%j] : memref<32xf32>
      %u = memref.load %out[%k, %i] : memref<6x32xf32>
      %s = arith.addf %v, %u : f32
      memref.store %s, %out[%k, %i] : memref<6x32xf32>
    }
    "memplan.lifetime_end"(%lq) : (memref<32xf32>) -> ()
  }
  memref.dealloc %t : memref<32xf32>
  memref.dealloc %e : memref<32xf32>
  memref.dealloc %q : memref<32xf32>
  return
}
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %x = memref.alloc() : memref<32xf32>
  %out = memref.alloc() : memref<6x32xf32>
  scf.for %i = %c0 to %c32 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    memref.store %f, %x[%i] : memref<32xf32>
  }
  call @kernel(%x, %out) : (memref<32xf32>, memref<6x32xf32>) -> ()
  %u = memref.cast %out : memref<6x32xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %x : memref<32xf32>
  memref.dealloc %out : memref<6x32xf32>
  return
}
