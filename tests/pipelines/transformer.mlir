// Transformer block on an 8x16 sequence: single-head attention (Q/K/V matmuls, scaled scores
// with a transposed contraction, softmax as linalg.generic reductions), output projection,
// residual, layernorm, then a ReLU feed-forward with a second residual. @block is the kernel.
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
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>

func.func @matmul_8x16x16(%a: tensor<8x16xf32>, %b: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %m : tensor<8x16xf32>
}

// row-wise softmax of an 8x8 score matrix
func.func @softmax(%s: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %ninf = arith.constant -1.0e30 : f32
  %zero = arith.constant 0.0 : f32
  %em = tensor.empty() : tensor<8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%em : tensor<8xf32>) -> tensor<8xf32>
  %mx = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<8x8xf32>) outs(%mi : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %ee = tensor.empty() : tensor<8x8xf32>
  %ex = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%s, %mx : tensor<8x8xf32>, tensor<8xf32>) outs(%ee : tensor<8x8xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<8x8xf32>
  %es = tensor.empty() : tensor<8xf32>
  %si = linalg.fill ins(%zero : f32) outs(%es : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<8x8xf32>) outs(%si : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %eo = tensor.empty() : tensor<8x8xf32>
  %p = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<8x8xf32>, tensor<8xf32>) outs(%eo : tensor<8x8xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %q = arith.divf %a, %t : f32
    linalg.yield %q : f32
  } -> tensor<8x8xf32>
  return %p : tensor<8x8xf32>
}

// y = (x - mean) / sqrt(var + eps) * gamma + beta, per row
func.func @layernorm(%x: tensor<8x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 16.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e1 = tensor.empty() : tensor<8xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x16xf32>) outs(%z1 : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  %sq = linalg.generic {indexing_maps = [#id2, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %sum : tensor<8x16xf32>, tensor<8xf32>) outs(%z2 : tensor<8xf32>) {
  ^bb0(%a: f32, %s: f32, %acc: f32):
    %mean = arith.divf %s, %n : f32
    %d = arith.subf %a, %mean : f32
    %d2 = arith.mulf %d, %d : f32
    %r = arith.addf %d2, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e3 = tensor.empty() : tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row, #row, #col, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %sq, %g, %b : tensor<8x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<16xf32>, tensor<16xf32>)
      outs(%e3 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %s: f32, %v: f32, %gg: f32, %bb: f32, %o: f32):
    %mean = arith.divf %s, %n : f32
    %var = arith.divf %v, %n : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %d = arith.subf %a, %mean : f32
    %nrm = arith.mulf %d, %rs : f32
    %sc = arith.mulf %nrm, %gg : f32
    %r = arith.addf %sc, %bb : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

func.func @block(%x: tensor<8x16xf32>, %wq: tensor<16x16xf32>, %wk: tensor<16x16xf32>, %wv: tensor<16x16xf32>,
                 %wo: tensor<16x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x16xf32>,
                 %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.25 : f32
  %q = call @matmul_8x16x16(%x, %wq) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %k = call @matmul_8x16x16(%x, %wk) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %v = call @matmul_8x16x16(%x, %wv) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  // scores = q k^T * scale
  %es = tensor.empty() : tensor<8x8xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<8x8xf32>) -> tensor<8x8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j, d) -> (i, d)>, affine_map<(i, j, d) -> (j, d)>, affine_map<(i, j, d) -> (i, j)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<8x16xf32>, tensor<8x16xf32>) outs(%zs : tensor<8x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %m = arith.mulf %a, %bb : f32
    %ms = arith.mulf %m, %scale : f32
    %r = arith.addf %ms, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  %p = call @softmax(%s) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %ea = tensor.empty() : tensor<8x16xf32>
  %za = linalg.fill ins(%zero : f32) outs(%ea : tensor<8x16xf32>) -> tensor<8x16xf32>
  %att = linalg.matmul ins(%p, %v : tensor<8x8xf32>, tensor<8x16xf32>) outs(%za : tensor<8x16xf32>) -> tensor<8x16xf32>
  %o = call @matmul_8x16x16(%att, %wo) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %er = tensor.empty() : tensor<8x16xf32>
  %res = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %o : tensor<8x16xf32>, tensor<8x16xf32>) outs(%er : tensor<8x16xf32>) {
  ^bb0(%a: f32, %bb: f32, %oo: f32):
    %r = arith.addf %a, %bb : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %n = call @layernorm(%res, %g, %b) : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  // feed-forward: relu(n w1) w2 + n
  %e1 = tensor.empty() : tensor<8x32xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul ins(%n, %w1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%z1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %hr = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%h : tensor<8x32xf32>) {
  ^bb0(%a: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %f = linalg.matmul ins(%hr, %w2 : tensor<8x32xf32>, tensor<32x16xf32>) outs(%z2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %e3 = tensor.empty() : tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%f, %n : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e3 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %bb: f32, %oo: f32):
    %r = arith.addf %a, %bb : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

func.func @main() {
  %s = arith.constant 0.0625 : f32
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c9 = arith.constant 9 : index
  %c11 = arith.constant 11 : index
  %c13 = arith.constant 13 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %xd = call @init_1d(%c128, %c3, %s) : (index, index, f32) -> tensor<?xf32>
  %xf = tensor.cast %xd : tensor<?xf32> to tensor<128xf32>
  %x = tensor.expand_shape %xf [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  %qd = call @init_1d(%c256, %c5, %s) : (index, index, f32) -> tensor<?xf32>
  %qf = tensor.cast %qd : tensor<?xf32> to tensor<256xf32>
  %wq = tensor.expand_shape %qf [[0, 1]] output_shape [16, 16] : tensor<256xf32> into tensor<16x16xf32>
  %kd = call @init_1d(%c256, %c7, %s) : (index, index, f32) -> tensor<?xf32>
  %kf = tensor.cast %kd : tensor<?xf32> to tensor<256xf32>
  %wk = tensor.expand_shape %kf [[0, 1]] output_shape [16, 16] : tensor<256xf32> into tensor<16x16xf32>
  %vd = call @init_1d(%c256, %c9, %s) : (index, index, f32) -> tensor<?xf32>
  %vf = tensor.cast %vd : tensor<?xf32> to tensor<256xf32>
  %wv = tensor.expand_shape %vf [[0, 1]] output_shape [16, 16] : tensor<256xf32> into tensor<16x16xf32>
  %od = call @init_1d(%c256, %c11, %s) : (index, index, f32) -> tensor<?xf32>
  %of = tensor.cast %od : tensor<?xf32> to tensor<256xf32>
  %wo = tensor.expand_shape %of [[0, 1]] output_shape [16, 16] : tensor<256xf32> into tensor<16x16xf32>
  %ad = call @init_1d(%c512, %c13, %s) : (index, index, f32) -> tensor<?xf32>
  %af = tensor.cast %ad : tensor<?xf32> to tensor<512xf32>
  %w1 = tensor.expand_shape %af [[0, 1]] output_shape [16, 32] : tensor<512xf32> into tensor<16x32xf32>
  %bd = call @init_1d(%c512, %c3, %s) : (index, index, f32) -> tensor<?xf32>
  %bf = tensor.cast %bd : tensor<?xf32> to tensor<512xf32>
  %w2 = tensor.expand_shape %bf [[0, 1]] output_shape [32, 16] : tensor<512xf32> into tensor<32x16xf32>
  %gd = call @init_1d(%c16, %c7, %s) : (index, index, f32) -> tensor<?xf32>
  %g = tensor.cast %gd : tensor<?xf32> to tensor<16xf32>
  %hd = call @init_1d(%c16, %c1, %s) : (index, index, f32) -> tensor<?xf32>
  %b = tensor.cast %hd : tensor<?xf32> to tensor<16xf32>
  %y = call @block(%x, %wq, %wk, %wv, %wo, %w1, %w2, %g, %b)
      : (tensor<8x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>,
         tensor<16x32xf32>, tensor<32x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %u = tensor.cast %y : tensor<8x16xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
