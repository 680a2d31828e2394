// G1 (affreal): what one-shot-bufferize leaves for a tensor.extract_slice (memref.subview +
// memref.copy) made memplan leave the whole function alone ("a view or cast of a buffer");
// mlir-opt-22 --affine-loop-fusion still fuses t's producer into its consumer and shrinks t to
// memref<1x1xf32>. memplan now models views with a static layout as aliases of their buffer.
func.func @kernel(%a: memref<2x3xf32>, %b: memref<2x3xf32>) -> (memref<1x1xf32>, memref<2x3xf32>) {
  %t = memref.alloc() {alignment = 64 : i64} : memref<2x3xf32>
  affine.for %i = 0 to 2 {
    affine.for %j = 0 to 3 {
      %0 = affine.load %a[%i, %j] : memref<2x3xf32>
      %1 = affine.load %b[%i, %j] : memref<2x3xf32>
      %2 = arith.mulf %0, %1 : f32
      affine.store %2, %t[%i, %j] : memref<2x3xf32>
    }
  }
  %u = memref.alloc() {alignment = 64 : i64} : memref<2x3xf32>
  affine.for %i = 0 to 2 {
    affine.for %j = 0 to 3 {
      %0 = affine.load %t[%i, %j] : memref<2x3xf32>
      %1 = arith.negf %0 : f32
      affine.store %1, %u[%i, %j] : memref<2x3xf32>
    }
  }
  %sv = memref.subview %u[1, 2] [1, 1] [1, 1] : memref<2x3xf32> to memref<1x1xf32, strided<[3, 1], offset: 5>>
  %r = memref.alloc() {alignment = 64 : i64} : memref<1x1xf32>
  memref.copy %sv, %r : memref<1x1xf32, strided<[3, 1], offset: 5>> to memref<1x1xf32>
  return %r, %u : memref<1x1xf32>, memref<2x3xf32>
}
func.func @main() {
  %p = arith.constant 5 : index
  %q = arith.constant 7 : index
  %s = arith.constant 0.5 : f32
  %o = arith.constant -1.5 : f32
  %a = memref.alloc() : memref<2x3xf32>
  %b = memref.alloc() : memref<2x3xf32>
  %af = memref.collapse_shape %a [[0, 1]] : memref<2x3xf32> into memref<6xf32>
  %bf = memref.collapse_shape %b [[0, 1]] : memref<2x3xf32> into memref<6xf32>
  %ad = memref.cast %af : memref<6xf32> to memref<?xf32>
  %bd = memref.cast %bf : memref<6xf32> to memref<?xf32>
  call @fill(%ad, %p, %s, %o) : (memref<?xf32>, index, f32, f32) -> ()
  call @fill(%bd, %q, %s, %s) : (memref<?xf32>, index, f32, f32) -> ()
  %r:2 = call @kernel(%a, %b) : (memref<2x3xf32>, memref<2x3xf32>) -> (memref<1x1xf32>, memref<2x3xf32>)
  %u0 = memref.cast %r#0 : memref<1x1xf32> to memref<*xf32>
  call @printMemrefF32(%u0) : (memref<*xf32>) -> ()
  %u1 = memref.cast %r#1 : memref<2x3xf32> to memref<*xf32>
  call @printMemrefF32(%u1) : (memref<*xf32>) -> ()
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
