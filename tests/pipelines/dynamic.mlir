// Dynamic shapes and the linalg structured ops beside generic: the kernel takes a ?x16 batch, so
// some temporaries are dynamic (they must stay) and others static (mergeable); linalg.map,
// linalg.reduce, linalg.broadcast, tensor.generate, tensor.splat, tensor.concat and tensor.dim.
// @dyn is the kernel.
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

func.func @dyn(%x: tensor<?x16xf32>, %w: tensor<16x16xf32>) -> (tensor<?x16xf32>, tensor<16xf32>, tensor<?x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  // dynamic: h = relu(x w)
  %e = tensor.empty(%n) : tensor<?x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<?x16xf32>, tensor<16x16xf32>) outs(%z : tensor<?x16xf32>) -> tensor<?x16xf32>
  %er = tensor.empty(%n) : tensor<?x16xf32>
  %h = linalg.map { arith.maximumf } ins(%m, %z : tensor<?x16xf32>, tensor<?x16xf32>) outs(%er : tensor<?x16xf32>)
  // static: column sums of w (reduce), a splat and a generated ramp, combined with linalg.map
  %ec = tensor.empty() : tensor<16xf32>
  %zc = linalg.fill ins(%zero : f32) outs(%ec : tensor<16xf32>) -> tensor<16xf32>
  %cs = linalg.reduce { arith.addf } ins(%w : tensor<16x16xf32>) outs(%zc : tensor<16xf32>) dimensions = [0]
  %half = arith.constant 0.5 : f32
  %sp = tensor.splat %half : tensor<16xf32>
  %ramp = tensor.generate {
  ^bb0(%i: index):
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    tensor.yield %f : f32
  } : tensor<16xf32>
  %e1 = tensor.empty() : tensor<16xf32>
  %t1 = linalg.map { arith.mulf } ins(%cs, %sp : tensor<16xf32>, tensor<16xf32>) outs(%e1 : tensor<16xf32>)
  %e2 = tensor.empty() : tensor<16xf32>
  %col = linalg.map { arith.addf } ins(%t1, %ramp : tensor<16xf32>, tensor<16xf32>) outs(%e2 : tensor<16xf32>)
  // dynamic again: broadcast the static column vector over the batch and add it
  %eb = tensor.empty(%n) : tensor<?x16xf32>
  %b = linalg.broadcast ins(%col : tensor<16xf32>) outs(%eb : tensor<?x16xf32>) dimensions = [0]
  %eo = tensor.empty(%n) : tensor<?x16xf32>
  %o = linalg.map { arith.addf } ins(%h, %b : tensor<?x16xf32>, tensor<?x16xf32>) outs(%eo : tensor<?x16xf32>)
  // concat the first two rows of o with the last two rows of h along the batch
  %top = tensor.extract_slice %o[0, 0] [2, 16] [1, 1] : tensor<?x16xf32> to tensor<2x16xf32>
  %c2 = arith.constant 2 : index
  %last = arith.subi %n, %c2 : index
  %bot = tensor.extract_slice %h[%last, 0] [2, 16] [1, 1] : tensor<?x16xf32> to tensor<2x16xf32>
  %cat = tensor.concat dim(0) %top, %bot : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<4x16xf32>
  %catd = tensor.cast %cat : tensor<4x16xf32> to tensor<?x16xf32>
  return %o, %col, %catd : tensor<?x16xf32>, tensor<16xf32>, tensor<?x16xf32>
}

func.func @main() {
  %s = arith.constant 0.125 : f32
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c96 = arith.constant 96 : index
  %c256 = arith.constant 256 : index
  %xd = call @init_1d(%c96, %c3, %s) : (index, index, f32) -> tensor<?xf32>
  %x = tensor.expand_shape %xd [[0, 1]] output_shape [6, 16] : tensor<?xf32> into tensor<?x16xf32>
  %wd = call @init_1d(%c256, %c5, %s) : (index, index, f32) -> tensor<?xf32>
  %wf = tensor.cast %wd : tensor<?xf32> to tensor<256xf32>
  %w = tensor.expand_shape %wf [[0, 1]] output_shape [16, 16] : tensor<256xf32> into tensor<16x16xf32>
  %y:3 = call @dyn(%x, %w) : (tensor<?x16xf32>, tensor<16x16xf32>) -> (tensor<?x16xf32>, tensor<16xf32>, tensor<?x16xf32>)
  %u = tensor.cast %y#0 : tensor<?x16xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  %v = tensor.cast %y#1 : tensor<16xf32> to tensor<*xf32>
  call @printMemrefF32(%v) : (tensor<*xf32>) -> ()
  %t = tensor.cast %y#2 : tensor<?x16xf32> to tensor<*xf32>
  call @printMemrefF32(%t) : (tensor<*xf32>) -> ()
  return
}
