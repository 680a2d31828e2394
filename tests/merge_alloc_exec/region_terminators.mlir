// MIN-MERGED: 3
// OPTIONS: alignment=16
// Region-bearing terminators: the arena of an scf.forall body is freed before
// scf.forall.in_parallel; a buffer read inside scf.reduce's reduction region stays a real
// allocation (no free of the arena could follow that use), the other temporaries merge.
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }
func.func @kernel(%x: memref<8x4xf32>, %out: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) in (8) {
    %t = memref.alloc() : memref<4xf32>
    scf.for %j = %c0 to %c4 step %c1 {
      %v = memref.load %x[%i, %j] : memref<8x4xf32>
      %w = arith.mulf %v, %v : f32
      memref.store %w, %t[%j] : memref<4xf32>
    }
    %u = memref.alloc() : memref<4xf32>
    scf.for %j = %c0 to %c4 step %c1 {
      %v = memref.load %t[%j] : memref<4xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %u[%j] : memref<4xf32>
    }
    %s = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %u[%j] : memref<4xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %s, %out[%i] : memref<8xf32>
    memref.dealloc %t : memref<4xf32>
    memref.dealloc %u : memref<4xf32>
  }
  %r = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%zero) -> f32 {
    %k = memref.alloc() : memref<4xf32>
    %w0 = memref.load %out[%i] : memref<8xf32>
    memref.store %w0, %k[%c0] : memref<4xf32>
    %q = memref.alloc() : memref<4xf32>
    %w1 = memref.load %k[%c0] : memref<4xf32>
    %w2 = arith.addf %w1, %w1 : f32
    memref.store %w2, %q[%c0] : memref<4xf32>
    %w3 = memref.load %q[%c0] : memref<4xf32>
    scf.reduce(%w3 : f32) {
    ^bb0(%l: f32, %rr: f32):
      %kk = memref.load %k[%c0] : memref<4xf32>
      %sum = arith.addf %l, %rr : f32
      %z = arith.mulf %kk, %zero : f32
      %sum2 = arith.addf %sum, %z : f32
      scf.reduce.return %sum2 : f32
    }
  }
  return %r : f32
}
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %x = memref.alloc() : memref<8x4xf32>
  %out = memref.alloc() : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %ij = arith.addi %i, %j : index
      %ii = arith.index_cast %ij : index to i32
      %f = arith.sitofp %ii : i32 to f32
      memref.store %f, %x[%i, %j] : memref<8x4xf32>
    }
  }
  %r = call @kernel(%x, %out) : (memref<8x4xf32>, memref<8xf32>) -> f32
  memref.store %r, %out[%c0] : memref<8xf32>
  %u = memref.cast %out : memref<8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
