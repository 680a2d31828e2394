// Two per-iteration temporaries of an outer loop, each between its own lifetime markers
// inside the loop body. The analysis alone keeps both live over the whole loop (the next
// iteration could read what this one wrote); the markers say the contents die at the end,
// so they share one slot. %acc (no markers) is carried across iterations and keeps its own.
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }
func.func @kernel(%x: memref<64xf32>, %out: memref<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  %acc = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    memref.store %zero, %acc[%i] : memref<64xf32>
  }
  scf.for %k = %c0 to %c4 step %c1 {
    %ki = arith.index_cast %k : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    %la = "memplan.lifetime_start"(%a) : (memref<64xf32>) -> memref<64xf32>
    scf.for %i = %c0 to %c64 step %c1 {
      %v = memref.load %x[%i] : memref<64xf32>
      %w = arith.mulf %v, %kf : f32
      memref.store %w, %la[%i] : memref<64xf32>
    }
    scf.for %i = %c0 to %c64 step %c1 {
      %j = arith.subi %c63, %i : index
      %v = memref.load %la[%j] : memref<64xf32>
      memref.store %v, %out[%k, %i] : memref<4x64xf32>
    }
    "memplan.lifetime_end"(%la) : (memref<64xf32>) -> ()
    %lb = "memplan.lifetime_start"(%b) : (memref<64xf32>) -> memref<64xf32>
    scf.for %i = %c0 to %c64 step %c1 {
      %v = memref.load %out[%k, %i] : memref<4x64xf32>
      %w = arith.addf %v, %kf : f32
      memref.store %w, %lb[%i] : memref<64xf32>
    }
    scf.for %i = %c0 to %c64 step %c1 {
      %v = memref.load %lb[%i] : memref<64xf32>
      %u = memref.load %acc[%i] : memref<64xf32>
      %s = arith.addf %v, %u : f32
      memref.store %s, %acc[%i] : memref<64xf32>
      memref.store %s, %out[%k, %i] : memref<4x64xf32>
    }
    "memplan.lifetime_end"(%lb) : (memref<64xf32>) -> ()
  }
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %acc : memref<64xf32>
  return
}
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %x = memref.alloc() : memref<64xf32>
  %out = memref.alloc() : memref<4x64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    memref.store %f, %x[%i] : memref<64xf32>
  }
  call @kernel(%x, %out) : (memref<64xf32>, memref<4x64xf32>) -> ()
  %u = memref.cast %out : memref<4x64xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %x : memref<64xf32>
  memref.dealloc %out : memref<4x64xf32>
  return
}
