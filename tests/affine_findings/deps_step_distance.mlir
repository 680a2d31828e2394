// affgen seed 151 (shrunk): distance range of a stepped inner loop.
func.func @f(%a: memref<14x12xf32>) {
  %c = arith.constant 1.0 : f32
  affine.for %i0 = 0 to 1 {
    affine.for %i1 = 0 to 10 {
      affine.for %i2 = 1 to 12 step 3 {
        %v = affine.load %a[11, %i0] : memref<14x12xf32>
        affine.store %c, %a[%i2 + 1, %i1] : memref<14x12xf32>
      }
    }
  }
  return
}
