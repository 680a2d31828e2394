// Independent branches for --reorder-for-memory (issue 15): @kernel computes two large
// expansions of the same activation before reducing either, and a small shortcut last, so in
// the written order both 16x256 temporaries and the input activation are live at once. Any
// order that runs each expansion right before its reduction, and the shortcut first, computes
// the same values with about half the live bytes. @main builds the input and prints the result.
func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

#id = affine_map<(i) -> (i)>
#col = affine_map<(i, j) -> (j)>
#ij = affine_map<(i, j) -> (i, j)>
#first = affine_map<(i) -> (0)>

func.func @kernel(%a: tensor<256xf32>) -> tensor<256xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %three = arith.constant 3.0 : f32
  %ex = tensor.empty() : tensor<256xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<256xf32>) outs(%ex : tensor<256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %half : f32
    linalg.yield %r : f32
  } -> tensor<256xf32>
  // two expansions of x, written before either reduction
  %e1 = tensor.empty() : tensor<16x256xf32>
  %big1 = linalg.generic {indexing_maps = [#col, #ij], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<256xf32>) outs(%e1 : tensor<16x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %r = arith.mulf %v, %f : f32
    linalg.yield %r : f32
  } -> tensor<16x256xf32>
  %e2 = tensor.empty() : tensor<16x256xf32>
  %big2 = linalg.generic {indexing_maps = [#col, #ij], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<256xf32>) outs(%e2 : tensor<16x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %g = arith.addf %f, %three : f32
    %r = arith.subf %v, %g : f32
    linalg.yield %r : f32
  } -> tensor<16x256xf32>
  %i1 = tensor.empty() : tensor<256xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%i1 : tensor<256xf32>) -> tensor<256xf32>
  %r1 = linalg.generic {indexing_maps = [#ij, #col], iterator_types = ["reduction", "parallel"]}
      ins(%big1 : tensor<16x256xf32>) outs(%z1 : tensor<256xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  %i2 = tensor.empty() : tensor<256xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%i2 : tensor<256xf32>) -> tensor<256xf32>
  %r2 = linalg.generic {indexing_maps = [#ij, #col], iterator_types = ["reduction", "parallel"]}
      ins(%big2 : tensor<16x256xf32>) outs(%z2 : tensor<256xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %m = arith.maximumf %v, %acc : f32
    linalg.yield %m : f32
  } -> tensor<256xf32>
  // the shortcut: a small sum of x, written last
  %i3 = tensor.empty() : tensor<1xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%i3 : tensor<1xf32>) -> tensor<1xf32>
  %sc = linalg.generic {indexing_maps = [#id, #first], iterator_types = ["reduction"]}
      ins(%x : tensor<256xf32>) outs(%z3 : tensor<1xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1xf32>
  %eo = tensor.empty() : tensor<256xf32>
  %out = linalg.generic {indexing_maps = [#id, #id, #first, #id], iterator_types = ["parallel"]}
      ins(%r1, %r2, %sc : tensor<256xf32>, tensor<256xf32>, tensor<1xf32>) outs(%eo : tensor<256xf32>) {
  ^bb0(%p: f32, %q: f32, %t: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %u = arith.mulf %t, %half : f32
    %w = arith.subf %s, %u : f32
    linalg.yield %w : f32
  } -> tensor<256xf32>
  return %out : tensor<256xf32>
}

func.func @main() {
  %e = tensor.empty() : tensor<256xf32>
  %a = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e : tensor<256xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %c13 = arith.constant 13 : index
    %c6 = arith.constant 6 : i32
    %r = arith.remui %i, %c13 : index
    %ri = arith.index_cast %r : index to i32
    %d = arith.subi %ri, %c6 : i32
    %f = arith.sitofp %d : i32 to f32
    linalg.yield %f : f32
  } -> tensor<256xf32>
  %y = call @kernel(%a) : (tensor<256xf32>) -> tensor<256xf32>
  %u = tensor.cast %y : tensor<256xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
