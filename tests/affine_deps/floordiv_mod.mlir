// floordiv / mod / ceildiv subscripts, tiled loops.
func.func @fdm(%A: memref<64xf32>, %T: memref<8x8xf32>) {
  affine.for %i = 0 to 64 {
    %a = affine.load %A[%i] : memref<64xf32>
    affine.store %a, %T[%i floordiv 8, %i mod 8] : memref<8x8xf32>
    %b = affine.load %T[(%i + 3) floordiv 8, (%i + 3) mod 8] : memref<8x8xf32>
    affine.store %b, %A[(%i * 3) mod 64] : memref<64xf32>
  }
  affine.for %t = 0 to 64 step 16 {
    affine.for %i = affine_map<(d0) -> (d0)>(%t) to affine_map<(d0) -> (d0 + 16)>(%t) {
      %c = affine.load %A[%i ceildiv 2] : memref<64xf32>
      affine.store %c, %A[%i] : memref<64xf32>
    }
  }
  return
}
