func.func @f(%a: memref<17x12xf32>) {
  affine.for %i0 = 2 to 3 {
    affine.for %i1 = 0 to 4 {
      %v = affine.load %a[%i0 + %i1, %i1 mod 4] : memref<17x12xf32>
      affine.store %v, %a[%i0, %i1 mod 5] : memref<17x12xf32>
    }
  }
  return
}
