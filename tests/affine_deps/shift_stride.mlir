// Shifted and strided accesses in one loop and across loops.
func.func @shift_stride(%A: memref<100xf32>, %B: memref<100xf32>) {
  affine.for %i = 0 to 40 {
    %a = affine.load %A[2 * %i] : memref<100xf32>
    affine.store %a, %A[%i + 3] : memref<100xf32>
    %b = affine.load %A[%i * 2 + 1] : memref<100xf32>
    affine.store %b, %B[%i] : memref<100xf32>
  }
  affine.for %j = 0 to 50 {
    %c = affine.load %B[%j floordiv 2] : memref<100xf32>
    affine.store %c, %A[3 * %j - 1 + 1] : memref<100xf32>
  }
  return
}
