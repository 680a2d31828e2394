// More named linalg ops as real models use them: conv_2d_nchw_fchw, conv_1d_nwc_wcf,
// pooling_nhwc_sum, batch_matmul, linalg.elementwise and linalg.contract (a transposed-B matmul),
// with temporaries between them. @features is the kernel.
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

func.func @features(%img: tensor<1x2x6x6xf32>, %f: tensor<4x2x3x3xf32>, %seq: tensor<1x8x4xf32>,
                    %f1: tensor<3x4x4xf32>, %w: tensor<4x6xf32>) -> (tensor<1x2x2x4xf32>, tensor<6x4xf32>) {
  %zero = arith.constant 0.0 : f32
  // NCHW conv: 1x2x6x6 * 4x2x3x3 -> 1x4x4x4
  %e1 = tensor.empty() : tensor<1x4x4x4xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%img, %f : tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) outs(%z1 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  // exp(-|x|) via linalg.elementwise on a 4-D tensor
  %e2 = tensor.empty() : tensor<1x4x4x4xf32>
  %ab = linalg.elementwise kind=#linalg.elementwise_kind<abs>
      ins(%c : tensor<1x4x4x4xf32>) outs(%e2 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %e3 = tensor.empty() : tensor<1x4x4x4xf32>
  %ng = linalg.elementwise kind=#linalg.elementwise_kind<negf>
      ins(%ab : tensor<1x4x4x4xf32>) outs(%e3 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %e4 = tensor.empty() : tensor<1x4x4x4xf32>
  %ex = linalg.elementwise kind=#linalg.elementwise_kind<exp>
      ins(%ng : tensor<1x4x4x4xf32>) outs(%e4 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  // NCHW -> NHWC, sum-pool 2x2 stride 2
  %e5 = tensor.empty() : tensor<1x4x4x4xf32>
  %nhwc = linalg.transpose ins(%ex : tensor<1x4x4x4xf32>) outs(%e5 : tensor<1x4x4x4xf32>) permutation = [0, 2, 3, 1]
  %win = tensor.empty() : tensor<2x2xf32>
  %e6 = tensor.empty() : tensor<1x2x2x4xf32>
  %z6 = linalg.fill ins(%zero : f32) outs(%e6 : tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  %pool = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%nhwc, %win : tensor<1x4x4x4xf32>, tensor<2x2xf32>) outs(%z6 : tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  // 1-D conv over a sequence: 1x8x4 * 3x4x4 -> 1x6x4
  %e7 = tensor.empty() : tensor<1x6x4xf32>
  %z7 = linalg.fill ins(%zero : f32) outs(%e7 : tensor<1x6x4xf32>) -> tensor<1x6x4xf32>
  %s1 = linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>}
      ins(%seq, %f1 : tensor<1x8x4xf32>, tensor<3x4x4xf32>) outs(%z7 : tensor<1x6x4xf32>) -> tensor<1x6x4xf32>
  // batch_matmul of the sequence with itself transposed: 1x6x4 * 1x4x6 -> 1x6x6
  %e8 = tensor.empty() : tensor<1x4x6xf32>
  %st = linalg.transpose ins(%s1 : tensor<1x6x4xf32>) outs(%e8 : tensor<1x4x6xf32>) permutation = [0, 2, 1]
  %e9 = tensor.empty() : tensor<1x6x6xf32>
  %z9 = linalg.fill ins(%zero : f32) outs(%e9 : tensor<1x6x6xf32>) -> tensor<1x6x6xf32>
  %g = linalg.batch_matmul ins(%s1, %st : tensor<1x6x4xf32>, tensor<1x4x6xf32>) outs(%z9 : tensor<1x6x6xf32>) -> tensor<1x6x6xf32>
  %g2 = tensor.collapse_shape %g [[0, 1], [2]] : tensor<1x6x6xf32> into tensor<6x6xf32>
  // contract with w^T: out[i, j] = sum_k g2[i, k] * w[j, k]
  %e10 = tensor.empty() : tensor<6x4xf32>
  %z10 = linalg.fill ins(%zero : f32) outs(%e10 : tensor<6x4xf32>) -> tensor<6x4xf32>
  %o = linalg.contract indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>,
                                        affine_map<(i, j, k) -> (i, j)>]
      ins(%g2, %w : tensor<6x6xf32>, tensor<4x6xf32>) outs(%z10 : tensor<6x4xf32>) -> tensor<6x4xf32>
  return %pool, %o : tensor<1x2x2x4xf32>, tensor<6x4xf32>
}

func.func @main() {
  %s = arith.constant 0.125 : f32
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c13 = arith.constant 13 : index
  %c24 = arith.constant 24 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %c72 = arith.constant 72 : index
  %id = call @init_1d(%c72, %c3, %s) : (index, index, f32) -> tensor<?xf32>
  %if = tensor.cast %id : tensor<?xf32> to tensor<72xf32>
  %img = tensor.expand_shape %if [[0, 1, 2, 3]] output_shape [1, 2, 6, 6] : tensor<72xf32> into tensor<1x2x6x6xf32>
  %fd = call @init_1d(%c72, %c5, %s) : (index, index, f32) -> tensor<?xf32>
  %ff = tensor.cast %fd : tensor<?xf32> to tensor<72xf32>
  %f = tensor.expand_shape %ff [[0, 1, 2, 3]] output_shape [4, 2, 3, 3] : tensor<72xf32> into tensor<4x2x3x3xf32>
  %qd = call @init_1d(%c32, %c7, %s) : (index, index, f32) -> tensor<?xf32>
  %qf = tensor.cast %qd : tensor<?xf32> to tensor<32xf32>
  %seq = tensor.expand_shape %qf [[0, 1, 2]] output_shape [1, 8, 4] : tensor<32xf32> into tensor<1x8x4xf32>
  %gd = call @init_1d(%c48, %c11, %s) : (index, index, f32) -> tensor<?xf32>
  %gf = tensor.cast %gd : tensor<?xf32> to tensor<48xf32>
  %f1 = tensor.expand_shape %gf [[0, 1, 2]] output_shape [3, 4, 4] : tensor<48xf32> into tensor<3x4x4xf32>
  %wd = call @init_1d(%c24, %c13, %s) : (index, index, f32) -> tensor<?xf32>
  %wf = tensor.cast %wd : tensor<?xf32> to tensor<24xf32>
  %w = tensor.expand_shape %wf [[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
  %y:2 = call @features(%img, %f, %seq, %f1, %w)
      : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>, tensor<1x8x4xf32>, tensor<3x4x4xf32>, tensor<4x6xf32>)
        -> (tensor<1x2x2x4xf32>, tensor<6x4xf32>)
  %u = tensor.cast %y#0 : tensor<1x2x2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  %v = tensor.cast %y#1 : tensor<6x4xf32> to tensor<*xf32>
  call @printMemrefF32(%v) : (tensor<*xf32>) -> ()
  return
}
