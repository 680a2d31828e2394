// Symbolic bounds and offsets: unbounded distances print as -inf / +inf.
func.func @syms(%A: memref<?xf32>, %n: index, %k: index) {
  affine.for %i = 0 to %n {
    %a = affine.load %A[%i + symbol(%k)] : memref<?xf32>
    affine.store %a, %A[%i] : memref<?xf32>
  }
  affine.for %i = 0 to %n {
    affine.for %j = 0 to %n {
      %b = affine.load %A[%i + %j] : memref<?xf32>
      affine.store %b, %A[%i] : memref<?xf32>
    }
  }
  affine.for %i = 0 to 100 {
    %c = affine.load %A[%i + symbol(%n)] : memref<?xf32>
    affine.store %c, %A[%i + symbol(%k)] : memref<?xf32>
  }
  return
}
