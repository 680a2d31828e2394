func.func @f(%t: memref<9x8xf32>, %n: index) {
  %c = arith.constant 1.0 : f32
  affine.for %i = 0 to 6 {
    affine.for %j = 0 to 4 {
      %v = affine.load %t[%i, %j * 2] : memref<9x8xf32>
    }
  }
  affine.for %i = 1 to 3 {
    affine.for %k = 0 to 1 {
      affine.store %c, %t[%i, %k + 1] : memref<9x8xf32>
    }
  }
  return
}
