// Multi-head attention: an scf.for over 2 heads slices Q/K/V per head, computes softmax(Q K^T) V
// with per-head temporaries, and inserts each head's 8x8 output into a loop-carried 8x16 tensor;
// then an scf.forall over row blocks applies the output projection, with an inner scf.for over
// the block's rows doing a per-row scaling. @mha is the kernel.
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

func.func @mha(%q: tensor<8x16xf32>, %k: tensor<8x16xf32>, %v: tensor<8x16xf32>, %wo: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant -1.0e30 : f32
  %scale = arith.constant 0.35 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %init = tensor.empty() : tensor<8x16xf32>
  %heads = scf.for %h = %c0 to %c2 step %c1 iter_args(%acc = %init) -> (tensor<8x16xf32>) {
    %off = arith.muli %h, %c8 : index
    %qh = tensor.extract_slice %q[0, %off] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32>
    %kh = tensor.extract_slice %k[0, %off] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32>
    %vh = tensor.extract_slice %v[0, %off] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32>
    %es = tensor.empty() : tensor<8x8xf32>
    %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<8x8xf32>) -> tensor<8x8xf32>
    %s = linalg.generic {indexing_maps = [affine_map<(i, j, d) -> (i, d)>, affine_map<(i, j, d) -> (j, d)>, affine_map<(i, j, d) -> (i, j)>],
                         iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%qh, %kh : tensor<8x8xf32>, tensor<8x8xf32>) outs(%zs : tensor<8x8xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %m = arith.mulf %a, %b : f32
      %ms = arith.mulf %m, %scale : f32
      %r = arith.addf %ms, %o : f32
      linalg.yield %r : f32
    } -> tensor<8x8xf32>
    %em = tensor.empty() : tensor<8xf32>
    %mi = linalg.fill ins(%ninf : f32) outs(%em : tensor<8xf32>) -> tensor<8xf32>
    %mx = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
        ins(%s : tensor<8x8xf32>) outs(%mi : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = arith.maximumf %a, %o : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    %ee = tensor.empty() : tensor<8x8xf32>
    %ex = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%s, %mx : tensor<8x8xf32>, tensor<8xf32>) outs(%ee : tensor<8x8xf32>) {
    ^bb0(%a: f32, %m: f32, %o: f32):
      %d = arith.subf %a, %m : f32
      %e = math.exp %d : f32
      linalg.yield %e : f32
    } -> tensor<8x8xf32>
    %esum = tensor.empty() : tensor<8xf32>
    %zsum = linalg.fill ins(%zero : f32) outs(%esum : tensor<8xf32>) -> tensor<8xf32>
    %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
        ins(%ex : tensor<8x8xf32>) outs(%zsum : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = arith.addf %a, %o : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    %ea = tensor.empty() : tensor<8x8xf32>
    %za = linalg.fill ins(%zero : f32) outs(%ea : tensor<8x8xf32>) -> tensor<8x8xf32>
    %av = linalg.matmul ins(%ex, %vh : tensor<8x8xf32>, tensor<8x8xf32>) outs(%za : tensor<8x8xf32>) -> tensor<8x8xf32>
    %eo = tensor.empty() : tensor<8x8xf32>
    %oh = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%av, %sum : tensor<8x8xf32>, tensor<8xf32>) outs(%eo : tensor<8x8xf32>) {
    ^bb0(%a: f32, %t: f32, %o: f32):
      %r = arith.divf %a, %t : f32
      linalg.yield %r : f32
    } -> tensor<8x8xf32>
    %ins = tensor.insert_slice %oh into %acc[0, %off] [8, 8] [1, 1] : tensor<8x8xf32> into tensor<8x16xf32>
    scf.yield %ins : tensor<8x16xf32>
  }
  // output projection per block of 4 rows, then a per-row scaling loop inside the block
  %out0 = tensor.empty() : tensor<8x16xf32>
  %out = scf.forall (%b) in (2) shared_outs(%o = %out0) -> (tensor<8x16xf32>) {
    %r0 = affine.apply affine_map<(d) -> (d * 4)>(%b)
    %hb = tensor.extract_slice %heads[%r0, 0] [4, 16] [1, 1] : tensor<8x16xf32> to tensor<4x16xf32>
    %ep = tensor.empty() : tensor<4x16xf32>
    %zp = linalg.fill ins(%zero : f32) outs(%ep : tensor<4x16xf32>) -> tensor<4x16xf32>
    %p = linalg.matmul ins(%hb, %wo : tensor<4x16xf32>, tensor<16x16xf32>) outs(%zp : tensor<4x16xf32>) -> tensor<4x16xf32>
    %c4 = arith.constant 4 : index
    %scaled = scf.for %i = %c0 to %c4 step %c1 iter_args(%t = %p) -> (tensor<4x16xf32>) {
      %rw = tensor.extract_slice %t[%i, 0] [1, 16] [1, 1] : tensor<4x16xf32> to tensor<16xf32>
      %er = tensor.empty() : tensor<16xf32>
      %ii = arith.index_cast %i : index to i32
      %fi = arith.sitofp %ii : i32 to f32
      %one = arith.constant 1.0 : f32
      %fac = arith.addf %fi, %one : f32
      %sr = linalg.generic {indexing_maps = [affine_map<(j) -> (j)>, affine_map<(j) -> (j)>], iterator_types = ["parallel"]}
          ins(%rw : tensor<16xf32>) outs(%er : tensor<16xf32>) {
      ^bb0(%a: f32, %oo: f32):
        %y = arith.mulf %a, %fac : f32
        linalg.yield %y : f32
      } -> tensor<16xf32>
      %t2 = tensor.insert_slice %sr into %t[%i, 0] [1, 16] [1, 1] : tensor<16xf32> into tensor<4x16xf32>
      scf.yield %t2 : tensor<4x16xf32>
    }
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %scaled into %o[%r0, 0] [4, 16] [1, 1] : tensor<4x16xf32> into tensor<8x16xf32>
    }
  }
  return %out : tensor<8x16xf32>
}

func.func @main() {
  %s = arith.constant 0.125 : f32
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %qd = call @init_1d(%c128, %c3, %s) : (index, index, f32) -> tensor<?xf32>
  %qf = tensor.cast %qd : tensor<?xf32> to tensor<128xf32>
  %q = tensor.expand_shape %qf [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  %kd = call @init_1d(%c128, %c5, %s) : (index, index, f32) -> tensor<?xf32>
  %kf = tensor.cast %kd : tensor<?xf32> to tensor<128xf32>
  %k = tensor.expand_shape %kf [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  %vd = call @init_1d(%c128, %c7, %s) : (index, index, f32) -> tensor<?xf32>
  %vf = tensor.cast %vd : tensor<?xf32> to tensor<128xf32>
  %v = tensor.expand_shape %vf [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  %wd = call @init_1d(%c256, %c11, %s) : (index, index, f32) -> tensor<?xf32>
  %wf = tensor.cast %wd : tensor<?xf32> to tensor<256xf32>
  %wo = tensor.expand_shape %wf [[0, 1]] output_shape [16, 16] : tensor<256xf32> into tensor<16x16xf32>
  %y = call @mha(%q, %k, %v, %wo) : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %u = tensor.cast %y : tensor<8x16xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
