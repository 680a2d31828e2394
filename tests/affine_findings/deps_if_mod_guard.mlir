// affgen seed 147 (shrunk): mlir-opt-22 proves "false" at depth 3 under a `d0 mod 2 == 0` guard.
func.func @f(%a: memref<14x13xf32>) {
  %c = arith.constant 1.0 : f32
  affine.for %i0 = 2 to 9 {
    affine.for %i1 = 1 to 11 {
      %v = affine.load %a[(%i0 + 1) mod 5, %i1 + 2] : memref<14x13xf32>
      affine.if affine_set<(d0) : (d0 mod 2 == 0)>(%i0) {
        affine.store %c, %a[%i1 + 2, %i0 + 2] : memref<14x13xf32>
      }
    }
  }
  return
}
