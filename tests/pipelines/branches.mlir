// Branches on tensors: scf.if picks one of two transforms (each with its own temporaries) from a
// runtime flag, and scf.index_switch dispatches on a mode (3 cases + default). @main runs the
// kernel @branchy with every mode and both flag values, and prints an extra slice from a
// result-less scf.index_switch (its default region keeps an implicit terminator).
func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

// v[i] = ((i * p) mod 17 - 8) * s
func.func @init_1d(%n: index, %p: index, %s: f32) -> tensor<?xf32> {
  %e = tensor.empty(%n) : tensor<?xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      outs(%e : tensor<?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %c17 = arith.constant 17 : index
    %c8 = arith.constant 8 : i64
    %ip = arith.muli %i, %p : index
    %r = arith.remui %ip, %c17 : index
    %ri = arith.index_cast %r : index to i64
    %rc = arith.subi %ri, %c8 : i64
    %rf = arith.sitofp %rc : i64 to f32
    %v = arith.mulf %rf, %s : f32
    linalg.yield %v : f32
  } -> tensor<?xf32>
  return %t : tensor<?xf32>
}

#id2 = affine_map<(i, j) -> (i, j)>
#tr = affine_map<(i, j) -> (j, i)>

func.func @branchy(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>, %flag: i1, %mode: index) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  // a temporary live across both constructs
  %e0 = tensor.empty() : tensor<8x8xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %xw = linalg.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z0 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %a = scf.if %flag -> (tensor<8x8xf32>) {
    %e = tensor.empty() : tensor<8x8xf32>
    %t = linalg.generic {indexing_maps = [#tr, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%xw : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
    ^bb0(%v: f32, %o: f32):
      linalg.yield %v : f32
    } -> tensor<8x8xf32>
    %e2 = tensor.empty() : tensor<8x8xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x8xf32>) -> tensor<8x8xf32>
    %m = linalg.matmul ins(%t, %xw : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
    scf.yield %m : tensor<8x8xf32>
  } else {
    %e = tensor.empty() : tensor<8x8xf32>
    %s = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%xw, %x : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %r = arith.subf %p, %q : f32
      %h = arith.mulf %r, %half : f32
      linalg.yield %h : f32
    } -> tensor<8x8xf32>
    scf.yield %s : tensor<8x8xf32>
  }
  %b = scf.index_switch %mode -> tensor<8x8xf32>
  case 0 {
    %e = tensor.empty() : tensor<8x8xf32>
    %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
    ^bb0(%p: f32, %o: f32):
      %y = arith.maximumf %p, %zero : f32
      linalg.yield %y : f32
    } -> tensor<8x8xf32>
    scf.yield %r : tensor<8x8xf32>
  }
  case 1 {
    %e = tensor.empty() : tensor<8x8xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    %m = linalg.matmul ins(%a, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
    %e2 = tensor.empty() : tensor<8x8xf32>
    %r = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%m, %xw : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e2 : tensor<8x8xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %y = arith.addf %p, %q : f32
      linalg.yield %y : f32
    } -> tensor<8x8xf32>
    scf.yield %r : tensor<8x8xf32>
  }
  case 2 {
    scf.yield %xw : tensor<8x8xf32>
  }
  default {
    %e = tensor.empty() : tensor<8x8xf32>
    %r = linalg.generic {indexing_maps = [#tr, #id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a, %xw : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %y = arith.mulf %p, %q : f32
      linalg.yield %y : f32
    } -> tensor<8x8xf32>
    scf.yield %r : tensor<8x8xf32>
  }
  // combine with the scf.if result so both stay live to the end
  %e9 = tensor.empty() : tensor<8x8xf32>
  %out = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e9 : tensor<8x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %h = arith.mulf %p, %half : f32
    %y = arith.addf %h, %q : f32
    linalg.yield %y : f32
  } -> tensor<8x8xf32>
  return %out : tensor<8x8xf32>
}

func.func @main() {
  %s = arith.constant 0.125 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c64 = arith.constant 64 : index
  %t = arith.constant true
  %f = arith.constant false
  %xd = call @init_1d(%c64, %c3, %s) : (index, index, f32) -> tensor<?xf32>
  %xf = tensor.cast %xd : tensor<?xf32> to tensor<64xf32>
  %x = tensor.expand_shape %xf [[0, 1]] output_shape [8, 8] : tensor<64xf32> into tensor<8x8xf32>
  %wd = call @init_1d(%c64, %c5, %s) : (index, index, f32) -> tensor<?xf32>
  %wf = tensor.cast %wd : tensor<?xf32> to tensor<64xf32>
  %w = tensor.expand_shape %wf [[0, 1]] output_shape [8, 8] : tensor<64xf32> into tensor<8x8xf32>
  scf.for %m = %c0 to %c5 step %c1 {
    %r1 = func.call @branchy(%x, %w, %t, %m) : (tensor<8x8xf32>, tensor<8x8xf32>, i1, index) -> tensor<8x8xf32>
    // a result-less switch: its default region keeps an implicit terminator
    scf.index_switch %m
    case 1 {
      %d = tensor.extract_slice %r1[0, 0] [2, 8] [1, 1] : tensor<8x8xf32> to tensor<2x8xf32>
      %e = tensor.empty() : tensor<2x8xf32>
      %n = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
          ins(%d : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
      ^bb0(%p: f32, %o: f32):
        %q = arith.negf %p : f32
        linalg.yield %q : f32
      } -> tensor<2x8xf32>
      %u3 = tensor.cast %n : tensor<2x8xf32> to tensor<*xf32>
      func.call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()
      scf.yield
    }
    case 3 {
      scf.yield
    }
    default {
    }
    %u1 = tensor.cast %r1 : tensor<8x8xf32> to tensor<*xf32>
    func.call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
    %r2 = func.call @branchy(%x, %w, %f, %m) : (tensor<8x8xf32>, tensor<8x8xf32>, i1, index) -> tensor<8x8xf32>
    %u2 = tensor.cast %r2 : tensor<8x8xf32> to tensor<*xf32>
    func.call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  }
  return
}
