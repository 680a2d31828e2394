// A data-dependent loop: scf.while carries a 4x16 state tensor and a step count; every step does
// (matmul + bias) * 0.1, clamped, into fresh temporaries and stops when the state's sum of squares falls
// under a threshold or after 12 steps. An inner scf.for over rows accumulates a running maximum.
// @iterate is the kernel.
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
#none = affine_map<(i, j) -> ()>

func.func @iterate(%x: tensor<4x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>) -> (tensor<4x16xf32>, tensor<16xf32>, i32) {
  %zero = arith.constant 0.0 : f32
  %lo = arith.constant -1.5 : f32
  %hi = arith.constant 1.5 : f32
  %q = arith.constant 0.1 : f32
  %thr = arith.constant 8.3 : f32
  %c0i = arith.constant 0 : i32
  %c1i = arith.constant 1 : i32
  %c12 = arith.constant 12 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r:2 = scf.while (%h = %x, %k = %c0i) : (tensor<4x16xf32>, i32) -> (tensor<4x16xf32>, i32) {
    // sum of squares of the state, in a 0-d tensor
    %e0 = tensor.empty() : tensor<f32>
    %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
    %ss = linalg.generic {indexing_maps = [#id2, #none], iterator_types = ["reduction", "reduction"]}
        ins(%h : tensor<4x16xf32>) outs(%z0 : tensor<f32>) {
    ^bb0(%v: f32, %acc: f32):
      %m = arith.mulf %v, %v : f32
      %s = arith.addf %m, %acc : f32
      linalg.yield %s : f32
    } -> tensor<f32>
    %sv = tensor.extract %ss[] : tensor<f32>
    %big = arith.cmpf ogt, %sv, %thr : f32
    %few = arith.cmpi slt, %k, %c12 : i32
    %go = arith.andi %big, %few : i1
    scf.condition(%go) %h, %k : tensor<4x16xf32>, i32
  } do {
  ^bb0(%h: tensor<4x16xf32>, %k: i32):
    %e = tensor.empty() : tensor<4x16xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
    %m = linalg.matmul ins(%h, %w : tensor<4x16xf32>, tensor<16x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
    %e2 = tensor.empty() : tensor<4x16xf32>
    %n = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%m, %b : tensor<4x16xf32>, tensor<16xf32>) outs(%e2 : tensor<4x16xf32>) {
    ^bb0(%a: f32, %bb: f32, %o: f32):
      %s = arith.addf %a, %bb : f32
      %t = arith.mulf %s, %q : f32
      %u = arith.minimumf %t, %hi : f32
      %v = arith.maximumf %u, %lo : f32
      linalg.yield %v : f32
    } -> tensor<4x16xf32>
    %k1 = arith.addi %k, %c1i : i32
    scf.yield %n, %k1 : tensor<4x16xf32>, i32
  }
  // running column maximum over the rows of the final state
  %em = tensor.empty() : tensor<16xf32>
  %ninf = arith.constant -1.0e30 : f32
  %m0 = linalg.fill ins(%ninf : f32) outs(%em : tensor<16xf32>) -> tensor<16xf32>
  %mx = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %m0) -> (tensor<16xf32>) {
    %row = tensor.extract_slice %r#0[%i, 0] [1, 16] [1, 1] : tensor<4x16xf32> to tensor<16xf32>
    %et = tensor.empty() : tensor<16xf32>
    %nx = linalg.generic {indexing_maps = [affine_map<(j) -> (j)>, affine_map<(j) -> (j)>, affine_map<(j) -> (j)>],
                          iterator_types = ["parallel"]}
        ins(%row, %acc : tensor<16xf32>, tensor<16xf32>) outs(%et : tensor<16xf32>) {
    ^bb0(%a: f32, %c: f32, %o: f32):
      %y = arith.maximumf %a, %c : f32
      linalg.yield %y : f32
    } -> tensor<16xf32>
    scf.yield %nx : tensor<16xf32>
  }
  return %r#0, %mx, %r#1 : tensor<4x16xf32>, tensor<16xf32>, i32
}

func.func @main() {
  %s = arith.constant 0.25 : f32
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %xd = call @init_1d(%c64, %c3, %s) : (index, index, f32) -> tensor<?xf32>
  %xf = tensor.cast %xd : tensor<?xf32> to tensor<64xf32>
  %x = tensor.expand_shape %xf [[0, 1]] output_shape [4, 16] : tensor<64xf32> into tensor<4x16xf32>
  %wd = call @init_1d(%c256, %c5, %s) : (index, index, f32) -> tensor<?xf32>
  %wf = tensor.cast %wd : tensor<?xf32> to tensor<256xf32>
  %w = tensor.expand_shape %wf [[0, 1]] output_shape [16, 16] : tensor<256xf32> into tensor<16x16xf32>
  %bd = call @init_1d(%c16, %c7, %s) : (index, index, f32) -> tensor<?xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<16xf32>
  %y:3 = call @iterate(%x, %w, %b) : (tensor<4x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> (tensor<4x16xf32>, tensor<16xf32>, i32)
  %u = tensor.cast %y#0 : tensor<4x16xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  %v = tensor.cast %y#1 : tensor<16xf32> to tensor<*xf32>
  call @printMemrefF32(%v) : (tensor<*xf32>) -> ()
  %kf = arith.sitofp %y#2 : i32 to f32
  %e = tensor.empty() : tensor<1xf32>
  %c0 = arith.constant 0 : index
  %kt = tensor.insert %kf into %e[%c0] : tensor<1xf32>
  %kc = tensor.cast %kt : tensor<1xf32> to tensor<*xf32>
  call @printMemrefF32(%kc) : (tensor<*xf32>) -> ()
  return
}
