// A loop over 6 layers: scf.for carries the 8x16 activation tensor; each iteration slices its
// weight out of a 6x16x16 stack, does matmul + bias + tanh-like clamp, and adds the residual.
// A second loop accumulates a running sum of every layer's output (two iter_args).
// @layers is the kernel.
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
#col = affine_map<(i, j) -> (j)>

func.func @layers(%x: tensor<8x16xf32>, %ws: tensor<6x16x16xf32>, %bs: tensor<6x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %mone = arith.constant -1.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %ea = tensor.empty() : tensor<8x16xf32>
  %acc0 = linalg.fill ins(%zero : f32) outs(%ea : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r:2 = scf.for %l = %c0 to %c6 step %c1 iter_args(%h = %x, %acc = %acc0) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
    %w = tensor.extract_slice %ws[%l, 0, 0] [1, 16, 16] [1, 1, 1] : tensor<6x16x16xf32> to tensor<16x16xf32>
    %b = tensor.extract_slice %bs[%l, 0] [1, 16] [1, 1] : tensor<6x16xf32> to tensor<16xf32>
    %e = tensor.empty() : tensor<8x16xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
    %m = linalg.matmul ins(%h, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
    %e2 = tensor.empty() : tensor<8x16xf32>
    %a = linalg.generic {indexing_maps = [#id2, #col, #id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%m, %b, %h : tensor<8x16xf32>, tensor<16xf32>, tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) {
    ^bb0(%mm: f32, %bb: f32, %hh: f32, %o: f32):
      %s = arith.addf %mm, %bb : f32
      %c = arith.minimumf %s, %one : f32
      %d = arith.maximumf %c, %mone : f32
      %y = arith.addf %d, %hh : f32
      linalg.yield %y : f32
    } -> tensor<8x16xf32>
    %acc2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%a : tensor<8x16xf32>) outs(%acc : tensor<8x16xf32>) {
    ^bb0(%v: f32, %o: f32):
      %s = arith.addf %v, %o : f32
      linalg.yield %s : f32
    } -> tensor<8x16xf32>
    scf.yield %a, %acc2 : tensor<8x16xf32>, tensor<8x16xf32>
  }
  return %r#0, %r#1 : tensor<8x16xf32>, tensor<8x16xf32>
}

func.func @main() {
  %s = arith.constant 0.0625 : f32
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c96 = arith.constant 96 : index
  %c128 = arith.constant 128 : index
  %c1536 = arith.constant 1536 : index
  %xd = call @init_1d(%c128, %c3, %s) : (index, index, f32) -> tensor<?xf32>
  %xf = tensor.cast %xd : tensor<?xf32> to tensor<128xf32>
  %x = tensor.expand_shape %xf [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  %wd = call @init_1d(%c1536, %c5, %s) : (index, index, f32) -> tensor<?xf32>
  %wf = tensor.cast %wd : tensor<?xf32> to tensor<1536xf32>
  %ws = tensor.expand_shape %wf [[0, 1, 2]] output_shape [6, 16, 16] : tensor<1536xf32> into tensor<6x16x16xf32>
  %bd = call @init_1d(%c96, %c7, %s) : (index, index, f32) -> tensor<?xf32>
  %bf = tensor.cast %bd : tensor<?xf32> to tensor<96xf32>
  %bs = tensor.expand_shape %bf [[0, 1]] output_shape [6, 16] : tensor<96xf32> into tensor<6x16xf32>
  %y:2 = call @layers(%x, %ws, %bs) : (tensor<8x16xf32>, tensor<6x16x16xf32>, tensor<6x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>)
  %u = tensor.cast %y#0 : tensor<8x16xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  %v = tensor.cast %y#1 : tensor<8x16xf32> to tensor<*xf32>
  call @printMemrefF32(%v) : (tensor<*xf32>) -> ()
  return
}
