// affgen seed 228 (shrunk): distance range under a symbolic guard, with a step and a symbol in the index.
func.func @f(%a: memref<15x14xf32>, %n0: index, %n1: index) {
  %c = arith.constant 1.0 : f32
  affine.for %i0 = 4 to 11 {
    affine.for %i1 = 2 to 14 step 3 {
      %v = affine.load %a[%i0 - 1, %i1 + symbol(%n0) - 10] : memref<15x14xf32>
      affine.if affine_set<(d0)[s0] : (s0 - d0 - 1 >= 0)>(%i0)[%n1] {
        affine.store %c, %a[%i0, %i1] : memref<15x14xf32>
      }
    }
  }
  return
}
