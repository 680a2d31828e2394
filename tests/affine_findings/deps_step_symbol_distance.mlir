// affgen seed 174 (shrunk): distance range with a step and a symbol in the index.
func.func @f(%a: memref<66xf32>, %n: index) {
  %c = arith.constant 1.0 : f32
  affine.for %i0 = 4 to 62 step 2 {
    %v = affine.load %a[%i0 + symbol(%n) - 13] : memref<66xf32>
    affine.store %c, %a[%i0] : memref<66xf32>
  }
  return
}
