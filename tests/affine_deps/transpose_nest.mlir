// Transposed in-place accesses in a 2-D nest, and a shifted 2-D stencil.
func.func @transpose(%A: memref<16x16xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      %a = affine.load %A[%j, %i] : memref<16x16xf32>
      affine.store %a, %A[%i, %j] : memref<16x16xf32>
    }
  }
  affine.for %i = 1 to 15 {
    affine.for %j = 1 to 15 {
      %a = affine.load %A[%i - 1, %j + 1] : memref<16x16xf32>
      %b = affine.load %A[%i + 1, %j - 1] : memref<16x16xf32>
      %c = arith.addf %a, %b : f32
      affine.store %c, %A[%i, %j] : memref<16x16xf32>
    }
  }
  return
}
