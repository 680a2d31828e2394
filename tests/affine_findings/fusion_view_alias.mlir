// G2 (affreal): a write through a view (memref.expand_shape of t) between t's producer and its
// consumer. Fusing the producer into the consumer would read the producer's values where the
// view's nest overwrote them; memplan's exact check sees through views with a static layout and
// must not fuse across it (mlir-opt-22 treats the view as another buffer).
func.func @kernel(%in: memref<12xf32>, %out: memref<12xf32>) {
  %c3 = arith.constant 3.0 : f32
  %t = memref.alloc() : memref<12xf32>
  affine.for %i = 0 to 12 {
    %0 = affine.load %in[%i] : memref<12xf32>
    %1 = arith.addf %0, %c3 : f32
    affine.store %1, %t[%i] : memref<12xf32>
  }
  %tv = memref.expand_shape %t [[0, 1]] output_shape [3, 4] : memref<12xf32> into memref<3x4xf32>
  affine.for %j = 0 to 4 {
    affine.store %c3, %tv[1, %j] : memref<3x4xf32>
  }
  affine.for %i = 0 to 12 {
    %0 = affine.load %t[%i] : memref<12xf32>
    %1 = arith.mulf %0, %0 : f32
    affine.store %1, %out[%i] : memref<12xf32>
  }
  memref.dealloc %t : memref<12xf32>
  return
}
func.func @main() {
  %p = arith.constant 5 : index
  %s = arith.constant 0.5 : f32
  %o = arith.constant -1.5 : f32
  %in = memref.alloc() : memref<12xf32>
  %out = memref.alloc() : memref<12xf32>
  %ind = memref.cast %in : memref<12xf32> to memref<?xf32>
  %outd = memref.cast %out : memref<12xf32> to memref<?xf32>
  call @fill(%ind, %p, %s, %o) : (memref<?xf32>, index, f32, f32) -> ()
  call @fill(%outd, %p, %o, %s) : (memref<?xf32>, index, f32, f32) -> ()
  call @kernel(%in, %out) : (memref<12xf32>, memref<12xf32>) -> ()
  %u = memref.cast %out : memref<12xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }
// fill: m[i] = ((i * p) mod 17) * s + b (scf loops: no affine ops, no remarks)
func.func @fill(%m: memref<?xf32>, %p: index, %s: f32, %b: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c17 = arith.constant 17 : index
  %n = memref.dim %m, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %ip = arith.muli %i, %p : index
    %r = arith.remui %ip, %c17 : index
    %ri = arith.index_cast %r : index to i64
    %rf = arith.sitofp %ri : i64 to f32
    %m1 = arith.mulf %rf, %s : f32
    %v = arith.addf %m1, %b : f32
    memref.store %v, %m[%i] : memref<?xf32>
  }
  return
}
