// affine.parallel IVs count as loops (upstream's getAffineIVs): multi-IV bands, max/min
// bound groups, steps (not modelled by upstream), nesting inside affine.for.
func.func @par(%a: memref<64x64xf32>, %n: index) {
  affine.parallel (%i, %j) = (0, 0) to (32, 32) {
    %v = affine.load %a[%i + 1, %j] : memref<64x64xf32>
    affine.store %v, %a[%i, %j] : memref<64x64xf32>
  }
  affine.for %k = 0 to 10 {
    affine.parallel (%i) = (max(0, %k - 2)) to (min(16, %k + 8)) {
      %w = affine.load %a[%k, %i] : memref<64x64xf32>
      affine.store %w, %a[%k + 1, %i + 1] : memref<64x64xf32>
    }
  }
  affine.parallel (%i, %j) = (0, 1) to (symbol(%n), 40) step (2, 3) {
    %x = affine.load %a[%i, %j - 1] : memref<64x64xf32>
    affine.store %x, %a[%j, %i] : memref<64x64xf32>
  }
  return
}
