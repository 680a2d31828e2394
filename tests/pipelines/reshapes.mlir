// Reshape-heavy kernel: expand_shape / collapse_shape between 2-D, 3-D and 4-D views, tensor.reshape
// with a shape tensor built by tensor.from_elements (memref.reshape reads that shape buffer),
// linalg.transpose, tensor.pad, insert_slice / extract_slice. @reshapes is the kernel.
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

#id3 = affine_map<(i, j, k) -> (i, j, k)>
#id2 = affine_map<(i, j) -> (i, j)>

func.func @reshapes(%x: tensor<8x16xf32>, %w: tensor<16x8xf32>, %r0: index, %r1: index) -> (tensor<4x32xf32>, tensor<10x10xf32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  // the shape of the later tensor.reshape, built early (so it must stay intact until then)
  %ir0 = arith.index_cast %r0 : index to i64
  %ir1 = arith.index_cast %r1 : index to i64
  %shape = tensor.from_elements %ir0, %ir1 : tensor<2xi64>
  // 8x16 -> 2x4x16 -> scale per "head" -> 8x16
  %x3 = tensor.expand_shape %x [[0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32> into tensor<2x4x16xf32>
  %e3 = tensor.empty() : tensor<2x4x16xf32>
  %s3 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x3 : tensor<2x4x16xf32>) outs(%e3 : tensor<2x4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %h = linalg.index 0 : index
    %hi = arith.index_cast %h : index to i32
    %hf = arith.sitofp %hi : i32 to f32
    %f = arith.addf %hf, %two : f32
    %y = arith.mulf %a, %f : f32
    linalg.yield %y : f32
  } -> tensor<2x4x16xf32>
  %s2 = tensor.collapse_shape %s3 [[0, 1], [2]] : tensor<2x4x16xf32> into tensor<8x16xf32>
  // transpose 8x16 -> 16x8, add w
  %et = tensor.empty() : tensor<16x8xf32>
  %t = linalg.transpose ins(%s2 : tensor<8x16xf32>) outs(%et : tensor<16x8xf32>) permutation = [1, 0]
  %ea = tensor.empty() : tensor<16x8xf32>
  %tw = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%t, %w : tensor<16x8xf32>, tensor<16x8xf32>) outs(%ea : tensor<16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.addf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<16x8xf32>
  // tensor.reshape 16x8 -> r0 x r1 (runtime shape 4 x 32) through a shape tensor
  %flat = tensor.collapse_shape %tw [[0, 1]] : tensor<16x8xf32> into tensor<128xf32>
  %rd = tensor.reshape %flat(%shape) : (tensor<128xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %r = tensor.cast %rd : tensor<?x?xf32> to tensor<4x32xf32>
  // 4-D round trip: 4x32 -> 4x2x4x4, relu, -> 4x32
  %r4 = tensor.expand_shape %r [[0], [1, 2, 3]] output_shape [4, 2, 4, 4] : tensor<4x32xf32> into tensor<4x2x4x4xf32>
  %e4 = tensor.empty() : tensor<4x2x4x4xf32>
  %q4 = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r4 : tensor<4x2x4x4xf32>) outs(%e4 : tensor<4x2x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.maximumf %a, %zero : f32
    linalg.yield %y : f32
  } -> tensor<4x2x4x4xf32>
  %out1 = tensor.collapse_shape %q4 [[0], [1, 2, 3]] : tensor<4x2x4x4xf32> into tensor<4x32xf32>
  // pad the 8x8 top-left block of w^T with 1 on each side, overwrite a 4x4 corner via insert_slice
  %blk = tensor.extract_slice %t[0, 0] [8, 8] [1, 1] : tensor<16x8xf32> to tensor<8x8xf32>
  %p = tensor.pad %blk low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %two : f32
  } : tensor<8x8xf32> to tensor<10x10xf32>
  %corner = tensor.extract_slice %out1[0, 0] [4, 4] [1, 1] : tensor<4x32xf32> to tensor<4x4xf32>
  %out2 = tensor.insert_slice %corner into %p[6, 6] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<10x10xf32>
  return %out1, %out2 : tensor<4x32xf32>, tensor<10x10xf32>
}

func.func @main() {
  %s = arith.constant 0.125 : f32
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %xd = call @init_1d(%c128, %c3, %s) : (index, index, f32) -> tensor<?xf32>
  %xf = tensor.cast %xd : tensor<?xf32> to tensor<128xf32>
  %x = tensor.expand_shape %xf [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  %wd = call @init_1d(%c128, %c5, %s) : (index, index, f32) -> tensor<?xf32>
  %wf = tensor.cast %wd : tensor<?xf32> to tensor<128xf32>
  %w = tensor.expand_shape %wf [[0, 1]] output_shape [16, 8] : tensor<128xf32> into tensor<16x8xf32>
  %y:2 = call @reshapes(%x, %w, %c4, %c32) : (tensor<8x16xf32>, tensor<16x8xf32>, index, index) -> (tensor<4x32xf32>, tensor<10x10xf32>)
  %u = tensor.cast %y#0 : tensor<4x32xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  %v = tensor.cast %y#1 : tensor<10x10xf32> to tensor<*xf32>
  call @printMemrefF32(%v) : (tensor<*xf32>) -> ()
  return
}
