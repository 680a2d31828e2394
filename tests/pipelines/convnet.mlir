// Small conv net on a 1x10x10x3 NHWC image: conv_2d_nhwc_hwcf (3x3, 8 filters) + bias + relu,
// depthwise_conv_2d_nhwc_hwc (3x3), pooling_nhwc_max (2x2, stride 2), flatten, dense 72 -> 10.
// @convnet is the kernel.
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

func.func @convnet(%img: tensor<1x10x10x3xf32>, %f1: tensor<3x3x3x8xf32>, %b1: tensor<8xf32>,
                   %dw: tensor<3x3x8xf32>, %w: tensor<72x10xf32>) -> tensor<1x10xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant -1.0e30 : f32
  %e1 = tensor.empty() : tensor<1x8x8x8xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%img, %f1 : tensor<1x10x10x3xf32>, tensor<3x3x3x8xf32>) outs(%z1 : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %e2 = tensor.empty() : tensor<1x8x8x8xf32>
  %r1 = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>,
                                         affine_map<(n, h, w, c) -> (n, h, w, c)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1, %b1 : tensor<1x8x8x8xf32>, tensor<8xf32>) outs(%e2 : tensor<1x8x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %y = arith.maximumf %s, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x8x8x8xf32>
  %e3 = tensor.empty() : tensor<1x6x6x8xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%r1, %dw : tensor<1x8x8x8xf32>, tensor<3x3x8xf32>) outs(%z3 : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %e4 = tensor.empty() : tensor<1x3x3x8xf32>
  %z4 = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<1x3x3x8xf32>) -> tensor<1x3x3x8xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%d, %win : tensor<1x6x6x8xf32>, tensor<2x2xf32>) outs(%z4 : tensor<1x3x3x8xf32>) -> tensor<1x3x3x8xf32>
  %flat = tensor.collapse_shape %p [[0], [1, 2, 3]] : tensor<1x3x3x8xf32> into tensor<1x72xf32>
  %e5 = tensor.empty() : tensor<1x10xf32>
  %z5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<1x10xf32>) -> tensor<1x10xf32>
  %out = linalg.matmul ins(%flat, %w : tensor<1x72xf32>, tensor<72x10xf32>) outs(%z5 : tensor<1x10xf32>) -> tensor<1x10xf32>
  return %out : tensor<1x10xf32>
}

func.func @main() {
  %s = arith.constant 0.125 : f32
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c8 = arith.constant 8 : index
  %c72 = arith.constant 72 : index
  %c216 = arith.constant 216 : index
  %c300 = arith.constant 300 : index
  %c720 = arith.constant 720 : index
  %id = call @init_1d(%c300, %c3, %s) : (index, index, f32) -> tensor<?xf32>
  %if = tensor.cast %id : tensor<?xf32> to tensor<300xf32>
  %img = tensor.expand_shape %if [[0, 1, 2, 3]] output_shape [1, 10, 10, 3] : tensor<300xf32> into tensor<1x10x10x3xf32>
  %fd = call @init_1d(%c216, %c5, %s) : (index, index, f32) -> tensor<?xf32>
  %ff = tensor.cast %fd : tensor<?xf32> to tensor<216xf32>
  %f1 = tensor.expand_shape %ff [[0, 1, 2, 3]] output_shape [3, 3, 3, 8] : tensor<216xf32> into tensor<3x3x3x8xf32>
  %bd = call @init_1d(%c8, %c7, %s) : (index, index, f32) -> tensor<?xf32>
  %b1 = tensor.cast %bd : tensor<?xf32> to tensor<8xf32>
  %dd = call @init_1d(%c72, %c11, %s) : (index, index, f32) -> tensor<?xf32>
  %df = tensor.cast %dd : tensor<?xf32> to tensor<72xf32>
  %dw = tensor.expand_shape %df [[0, 1, 2]] output_shape [3, 3, 8] : tensor<72xf32> into tensor<3x3x8xf32>
  %wd = call @init_1d(%c720, %c7, %s) : (index, index, f32) -> tensor<?xf32>
  %wf = tensor.cast %wd : tensor<?xf32> to tensor<720xf32>
  %w = tensor.expand_shape %wf [[0, 1]] output_shape [72, 10] : tensor<720xf32> into tensor<72x10xf32>
  %y = call @convnet(%img, %f1, %b1, %dw, %w)
      : (tensor<1x10x10x3xf32>, tensor<3x3x3x8xf32>, tensor<8xf32>, tensor<3x3x8xf32>, tensor<72x10xf32>) -> tensor<1x10xf32>
  %u = tensor.cast %y : tensor<1x10xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
