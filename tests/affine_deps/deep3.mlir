// Depth-3 nest: distance vectors at every depth, reduction into a 2-D buffer.
func.func @deep(%A: memref<8x8xf32>, %B: memref<8x8xf32>, %C: memref<8x8xf32>) {
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      affine.for %k = 0 to 8 {
        %a = affine.load %A[%i, %k] : memref<8x8xf32>
        %b = affine.load %B[%k, %j] : memref<8x8xf32>
        %c = affine.load %C[%i, %j] : memref<8x8xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %c, %p : f32
        affine.store %s, %C[%i, %j] : memref<8x8xf32>
      }
    }
  }
  affine.for %i = 1 to 8 {
    affine.for %j = 0 to 7 {
      %x = affine.load %C[%i - 1, %j + 1] : memref<8x8xf32>
      affine.store %x, %C[%i, %j] : memref<8x8xf32>
    }
  }
  return
}
