// affine.if guards (then and else regions), equality conditions.
#s1 = affine_set<(d0) : (d0 - 10 >= 0)>
#s2 = affine_set<(d0, d1)[s0] : (d0 - d1 == 0, s0 - d0 - 1 >= 0)>
func.func @ifs(%A: memref<64xf32>, %n: index) {
  affine.for %i = 0 to 20 {
    affine.if #s1(%i) {
      %a = affine.load %A[%i - 10] : memref<64xf32>
      affine.store %a, %A[%i] : memref<64xf32>
    } else {
      %b = affine.load %A[%i + 20] : memref<64xf32>
      affine.store %b, %A[%i + 30] : memref<64xf32>
    }
  }
  affine.for %i = 0 to 8 {
    affine.for %j = 0 to 8 {
      affine.if #s2(%i, %j)[%n] {
        %c = affine.load %A[%i + %j] : memref<64xf32>
        affine.store %c, %A[%j] : memref<64xf32>
      }
    }
  }
  return
}
