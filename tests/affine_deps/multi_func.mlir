// Two functions: access indices run over the whole module.
func.func @f(%A: memref<10xf32>) {
  affine.for %i = 0 to 9 {
    %a = affine.load %A[%i + 1] : memref<10xf32>
    affine.store %a, %A[%i] : memref<10xf32>
  }
  return
}
func.func @g(%A: memref<10xf32>, %x: f32) {
  affine.store %x, %A[3] : memref<10xf32>
  %b = affine.load %A[3] : memref<10xf32>
  affine.for %i = 0 to 10 {
    affine.store %b, %A[%i] : memref<10xf32>
  }
  return
}
