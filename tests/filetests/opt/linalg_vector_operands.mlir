// RUN: memplan opt %s
// A vector operand of a linalg op is scalar-like: its block argument is the vector itself, as in
// mlir-opt-22 (found by the random-program oracle: `linalg.fill` of a `memref<NxVector<4xf32>>`).

func.func @fill_vector(%b: memref<2xvector<4xf32>>) {
  %c = arith.constant dense<1.0> : vector<4xf32>
  linalg.fill ins(%c : vector<4xf32>) outs(%b : memref<2xvector<4xf32>>)
  return
}
// CHECK-LABEL: func.func @fill_vector
// CHECK: linalg.fill ins({{%\w+}} : vector<4xf32>) outs({{%\w+}} : memref<2xvector<4xf32>>)

// -----

#m = affine_map<(d0) -> ()>
#i = affine_map<(d0) -> (d0)>
func.func @generic_vector_in(%b: memref<2xvector<4xf32>>) {
  %c = arith.constant dense<1.0> : vector<4xf32>
  linalg.generic {indexing_maps = [#m, #i], iterator_types = ["parallel"]} ins(%c : vector<4xf32>) outs(%b : memref<2xvector<4xf32>>) {
  ^bb0(%a: vector<4xf32>, %o: vector<4xf32>):
    %s = arith.addf %a, %o : vector<4xf32>
    linalg.yield %s : vector<4xf32>
  }
  return
}
// CHECK-LABEL: func.func @generic_vector_in
// CHECK: ^bb0([[A:%\w+]]: vector<4xf32>, [[O:%\w+]]: vector<4xf32>):
// CHECK-NEXT: [[S:%\w+]] = arith.addf [[A]], [[O]] : vector<4xf32>
// CHECK-NEXT: linalg.yield [[S]] : vector<4xf32>

