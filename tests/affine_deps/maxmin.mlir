// max/min loop bounds that depend on outer IVs and symbols; triangular nests.
#lb = affine_map<(d0) -> (0, d0 - 3)>
#ub = affine_map<(d0)[s0] -> (d0 + 4, s0, 32)>
func.func @maxmin(%A: memref<64xf32>, %n: index) {
  affine.for %i = 0 to 32 {
    affine.for %j = max #lb(%i) to min #ub(%i)[%n] {
      %a = affine.load %A[%j] : memref<64xf32>
      affine.store %a, %A[%i] : memref<64xf32>
    }
  }
  affine.for %i = 0 to 16 {
    affine.for %j = affine_map<(d0) -> (d0)>(%i) to 16 {
      %b = affine.load %A[%j] : memref<64xf32>
      affine.store %b, %A[%i + 16] : memref<64xf32>
    }
  }
  return
}
