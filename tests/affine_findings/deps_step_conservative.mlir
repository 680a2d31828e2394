func.func @f(%t: memref<3x3xf32>) {
  %c = arith.constant 1.0 : f32
  affine.for %i = 0 to 1 step 2 {
    affine.for %j = 0 to 1 step 2 {
      affine.store %c, %t[%i, %j + 2] : memref<3x3xf32>
    }
  }
  affine.for %a = 0 to 1 {
    affine.for %b = 0 to 3 step 3 {
      %v = affine.load %t[%a, %b] : memref<3x3xf32>
    }
  }
  return
}
