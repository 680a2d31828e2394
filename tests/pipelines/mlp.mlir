// MLP: three dense layers (matmul + bias + relu), 8x16 -> 32 -> 32 -> 8.
// @mlp is the kernel; @init_1d and @main only build inputs and print.
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

func.func @dense_relu(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m, %b : tensor<8x32xf32>, tensor<32xf32>) outs(%e2 : tensor<8x32xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %s = arith.addf %a, %bb : f32
    %y = arith.maximumf %s, %zero : f32
    linalg.yield %y : f32
  } -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

func.func @mlp(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %b1: tensor<32xf32>,
               %w2: tensor<32x32xf32>, %b2: tensor<32xf32>,
               %w3: tensor<32x8xf32>, %b3: tensor<8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %h1 = call @dense_relu(%x, %w1, %b1) : (tensor<8x16xf32>, tensor<16x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  // layer 2 inline
  %e = tensor.empty() : tensor<8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%h1, %w2 : tensor<8x32xf32>, tensor<32x32xf32>) outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x32xf32>
  %h2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%m, %b2 : tensor<8x32xf32>, tensor<32xf32>) outs(%e2 : tensor<8x32xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %s = arith.addf %a, %bb : f32
    %y = arith.maximumf %s, %zero : f32
    linalg.yield %y : f32
  } -> tensor<8x32xf32>
  // output layer: matmul + bias, no relu
  %e3 = tensor.empty() : tensor<8x8xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m3 = linalg.matmul ins(%h2, %w3 : tensor<8x32xf32>, tensor<32x8xf32>) outs(%z3 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e4 = tensor.empty() : tensor<8x8xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                         iterator_types = ["parallel", "parallel"]}
      ins(%m3, %b3 : tensor<8x8xf32>, tensor<8xf32>) outs(%e4 : tensor<8x8xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %s = arith.addf %a, %bb : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %out : tensor<8x8xf32>
}

func.func @main() {
  %s = arith.constant 0.125 : f32
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c11 = arith.constant 11 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %c1024 = arith.constant 1024 : index
  %xd = call @init_1d(%c128, %c3, %s) : (index, index, f32) -> tensor<?xf32>
  %xf = tensor.cast %xd : tensor<?xf32> to tensor<128xf32>
  %x = tensor.expand_shape %xf [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  %w1d = call @init_1d(%c512, %c5, %s) : (index, index, f32) -> tensor<?xf32>
  %w1f = tensor.cast %w1d : tensor<?xf32> to tensor<512xf32>
  %w1 = tensor.expand_shape %w1f [[0, 1]] output_shape [16, 32] : tensor<512xf32> into tensor<16x32xf32>
  %w2d = call @init_1d(%c1024, %c7, %s) : (index, index, f32) -> tensor<?xf32>
  %w2f = tensor.cast %w2d : tensor<?xf32> to tensor<1024xf32>
  %w2 = tensor.expand_shape %w2f [[0, 1]] output_shape [32, 32] : tensor<1024xf32> into tensor<32x32xf32>
  %w3d = call @init_1d(%c256, %c11, %s) : (index, index, f32) -> tensor<?xf32>
  %w3f = tensor.cast %w3d : tensor<?xf32> to tensor<256xf32>
  %w3 = tensor.expand_shape %w3f [[0, 1]] output_shape [32, 8] : tensor<256xf32> into tensor<32x8xf32>
  %b1d = call @init_1d(%c32, %c5, %s) : (index, index, f32) -> tensor<?xf32>
  %b1 = tensor.cast %b1d : tensor<?xf32> to tensor<32xf32>
  %b2d = call @init_1d(%c32, %c3, %s) : (index, index, f32) -> tensor<?xf32>
  %b2 = tensor.cast %b2d : tensor<?xf32> to tensor<32xf32>
  %b3d = call @init_1d(%c8, %c1, %s) : (index, index, f32) -> tensor<?xf32>
  %b3 = tensor.cast %b3d : tensor<?xf32> to tensor<8xf32>
  %y = call @mlp(%x, %w1, %b1, %w2, %b2, %w3, %b3)
      : (tensor<8x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32xf32>, tensor<32x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
  %u = tensor.cast %y : tensor<8x8xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
