// Vector loads/stores (not checked by upstream's test pass), affine.apply operands,
// constants as operands, iter_args reductions.
func.func @vec(%A: memref<64xf32>, %B: memref<64xf32>) -> f32 {
  %c2 = arith.constant 2 : index
  %z = arith.constant 0.0 : f32
  affine.for %i = 0 to 16 {
    %v = affine.vector_load %A[%i * 4] : memref<64xf32>, vector<4xf32>
    affine.vector_store %v, %B[%i * 4] : memref<64xf32>, vector<4xf32>
  }
  %r = affine.for %i = 0 to 30 iter_args(%acc = %z) -> (f32) {
    %p = affine.apply affine_map<(d0)[s0] -> (d0 + s0)>(%i)[%c2]
    %a = affine.load %B[%p] : memref<64xf32>
    affine.store %a, %B[%i] : memref<64xf32>
    %s = arith.addf %acc, %a : f32
    affine.yield %s : f32
  }
  %e = affine.load %B[%c2] : memref<64xf32>
  affine.store %e, %B[0] : memref<64xf32>
  return %r : f32
}
