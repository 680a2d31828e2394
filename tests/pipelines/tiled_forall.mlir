// Tiled matmul with scf.forall: C = relu(A B + bias) computed in 4x4 = 16 tiles of 4x4; each tile
// builds a zero-filled accumulator, a per-tile matmul and a bias+relu temporary, and is written back
// with tensor.parallel_insert_slice. Then a row-sum reduction over the result. @tiled is the kernel.
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
#row = affine_map<(i, j) -> (i)>

func.func @tiled(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %bias: tensor<16xf32>) -> (tensor<16x16xf32>, tensor<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<16x16xf32>
  %c = scf.forall (%i, %j) in (4, 4) shared_outs(%o = %init) -> (tensor<16x16xf32>) {
    %r = affine.apply affine_map<(d) -> (d * 4)>(%i)
    %q = affine.apply affine_map<(d) -> (d * 4)>(%j)
    %at = tensor.extract_slice %a[%r, 0] [4, 16] [1, 1] : tensor<16x16xf32> to tensor<4x16xf32>
    %bt = tensor.extract_slice %b[0, %q] [16, 4] [1, 1] : tensor<16x16xf32> to tensor<16x4xf32>
    %bb = tensor.extract_slice %bias[%q] [4] [1] : tensor<16xf32> to tensor<4xf32>
    %e = tensor.empty() : tensor<4x4xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    %m = linalg.matmul ins(%at, %bt : tensor<4x16xf32>, tensor<16x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
    %e2 = tensor.empty() : tensor<4x4xf32>
    %y = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%m, %bb : tensor<4x4xf32>, tensor<4xf32>) outs(%e2 : tensor<4x4xf32>) {
    ^bb0(%x: f32, %v: f32, %oo: f32):
      %s = arith.addf %x, %v : f32
      %t = arith.maximumf %s, %zero : f32
      linalg.yield %t : f32
    } -> tensor<4x4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %y into %o[%r, %q] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<16x16xf32>
    }
  }
  %es = tensor.empty() : tensor<16xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%c : tensor<16x16xf32>) outs(%zs : tensor<16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %c, %sum : tensor<16x16xf32>, tensor<16xf32>
}

func.func @main() {
  %s = arith.constant 0.125 : f32
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %ad = call @init_1d(%c256, %c3, %s) : (index, index, f32) -> tensor<?xf32>
  %af = tensor.cast %ad : tensor<?xf32> to tensor<256xf32>
  %a = tensor.expand_shape %af [[0, 1]] output_shape [16, 16] : tensor<256xf32> into tensor<16x16xf32>
  %bd = call @init_1d(%c256, %c5, %s) : (index, index, f32) -> tensor<?xf32>
  %bf = tensor.cast %bd : tensor<?xf32> to tensor<256xf32>
  %b = tensor.expand_shape %bf [[0, 1]] output_shape [16, 16] : tensor<256xf32> into tensor<16x16xf32>
  %vd = call @init_1d(%c16, %c7, %s) : (index, index, f32) -> tensor<?xf32>
  %v = tensor.cast %vd : tensor<?xf32> to tensor<16xf32>
  %y:2 = call @tiled(%a, %b, %v) : (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> (tensor<16x16xf32>, tensor<16xf32>)
  %u = tensor.cast %y#0 : tensor<16x16xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  %w = tensor.cast %y#1 : tensor<16xf32> to tensor<*xf32>
  call @printMemrefF32(%w) : (tensor<*xf32>) -> ()
  return
}
