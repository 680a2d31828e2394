// Steps > 1 with constant and symbolic lower bounds.
func.func @steps(%A: memref<128xf32>, %lo: index) {
  affine.for %i = 0 to 64 step 2 {
    %a = affine.load %A[%i + 1] : memref<128xf32>
    affine.store %a, %A[%i] : memref<128xf32>
  }
  affine.for %i = 1 to 64 step 4 {
    %b = affine.load %A[%i + 2] : memref<128xf32>
    affine.store %b, %A[%i] : memref<128xf32>
  }
  affine.for %i = %lo to 64 step 3 {
    %c = affine.load %A[%i + 1] : memref<128xf32>
    affine.store %c, %A[%i] : memref<128xf32>
  }
  return
}
