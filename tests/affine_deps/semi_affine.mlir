// A semi-affine subscript (IV times a symbol): both tools report "dependence check failed"
// for the pairs that need its access relation, after the cheap memref/read-read tests.
func.func @s(%a: memref<100xf32>, %n: index) {
  affine.for %i = 0 to 10 {
    %v = affine.load %a[%i * symbol(%n)] : memref<100xf32>
    affine.store %v, %a[%i] : memref<100xf32>
  }
  return
}
