// Mixed element types: an int8 two-layer network (i8 x i8 -> i32 matmuls, requantised through f64
// with clamping back to i8), odd-sized i8 / i16 temporaries (15 and 80 bytes) and f64 statistics.
// @qnet is the kernel; @main builds the i8 inputs and prints i32 and f64 results.
func.func private @printMemrefI32(tensor<*xi32>) attributes {llvm.emit_c_interface}
func.func private @printMemrefF64(tensor<*xf64>) attributes {llvm.emit_c_interface}

#id2 = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>

// m[i, j] = ((i * p + j * q) mod 13) - 6, as i8
func.func @init_i8(%r: index, %c: index, %p: index, %q: index) -> tensor<?x?xi8> {
  %e = tensor.empty(%r, %c) : tensor<?x?xi8>
  %t = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xi8>) {
  ^bb0(%o: i8):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c13 = arith.constant 13 : index
    %c6 = arith.constant 6 : i8
    %ip = arith.muli %i, %p : index
    %jq = arith.muli %j, %q : index
    %s = arith.addi %ip, %jq : index
    %m = arith.remui %s, %c13 : index
    %mi = arith.index_cast %m : index to i8
    %v = arith.subi %mi, %c6 : i8
    linalg.yield %v : i8
  } -> tensor<?x?xi8>
  return %t : tensor<?x?xi8>
}

// i32 accumulator -> f64 * scale -> round, clamp to [-127, 127] -> i8
func.func @requant(%a: tensor<8x8xi32>, %scale: f64) -> tensor<8x8xi8> {
  %lo = arith.constant -127.0 : f64
  %hi = arith.constant 127.0 : f64
  %ef = tensor.empty() : tensor<8x8xf64>
  %f = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x8xi32>) outs(%ef : tensor<8x8xf64>) {
  ^bb0(%x: i32, %o: f64):
    %d = arith.sitofp %x : i32 to f64
    %s = arith.mulf %d, %scale : f64
    %r = math.roundeven %s : f64
    %c1 = arith.maximumf %r, %lo : f64
    %c2 = arith.minimumf %c1, %hi : f64
    linalg.yield %c2 : f64
  } -> tensor<8x8xf64>
  %eq = tensor.empty() : tensor<8x8xi8>
  %q = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%f : tensor<8x8xf64>) outs(%eq : tensor<8x8xi8>) {
  ^bb0(%x: f64, %o: i8):
    %i = arith.fptosi %x : f64 to i8
    linalg.yield %i : i8
  } -> tensor<8x8xi8>
  return %q : tensor<8x8xi8>
}

func.func @qnet(%x: tensor<8x16xi8>, %w1: tensor<16x8xi8>, %w2: tensor<8x8xi8>) -> (tensor<8x8xi32>, tensor<8xf64>) {
  %z32 = arith.constant 0 : i32
  %z64 = arith.constant 0.0 : f64
  %s1 = arith.constant 0.0625 : f64
  %e1 = tensor.empty() : tensor<8x8xi32>
  %a1i = linalg.fill ins(%z32 : i32) outs(%e1 : tensor<8x8xi32>) -> tensor<8x8xi32>
  %a1 = linalg.matmul ins(%x, %w1 : tensor<8x16xi8>, tensor<16x8xi8>) outs(%a1i : tensor<8x8xi32>) -> tensor<8x8xi32>
  %h1 = call @requant(%a1, %s1) : (tensor<8x8xi32>, f64) -> tensor<8x8xi8>
  // an odd-sized i8 temporary: the 3x5 top-left corner, doubled, written back
  %c = tensor.extract_slice %h1[0, 0] [3, 5] [1, 1] : tensor<8x8xi8> to tensor<3x5xi8>
  %ec = tensor.empty() : tensor<3x5xi8>
  %c2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<3x5xi8>) outs(%ec : tensor<3x5xi8>) {
  ^bb0(%v: i8, %o: i8):
    %d = arith.addi %v, %v : i8
    linalg.yield %d : i8
  } -> tensor<3x5xi8>
  %h1b = tensor.insert_slice %c2 into %h1[0, 0] [3, 5] [1, 1] : tensor<3x5xi8> into tensor<8x8xi8>
  // an i16 temporary of 40 elements (80 bytes): squares of the first 5 columns, widened
  %r0 = tensor.extract_slice %x[0, 0] [8, 5] [1, 1] : tensor<8x16xi8> to tensor<8x5xi8>
  %e16 = tensor.empty() : tensor<8x5xi16>
  %p16 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%r0 : tensor<8x5xi8>) outs(%e16 : tensor<8x5xi16>) {
  ^bb0(%v: i8, %o: i16):
    %w = arith.extsi %v : i8 to i16
    %m = arith.muli %w, %w : i16
    linalg.yield %m : i16
  } -> tensor<8x5xi16>
  %e2 = tensor.empty() : tensor<8x8xi32>
  %a2i = linalg.fill ins(%z32 : i32) outs(%e2 : tensor<8x8xi32>) -> tensor<8x8xi32>
  %a2 = linalg.matmul ins(%h1b, %w2 : tensor<8x8xi8>, tensor<8x8xi8>) outs(%a2i : tensor<8x8xi32>) -> tensor<8x8xi32>
  // add the i16 row sums to column 0..4 of the result
  %e3 = tensor.empty() : tensor<8x8xi32>
  %a3 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a2 : tensor<8x8xi32>) outs(%e3 : tensor<8x8xi32>) {
  ^bb0(%v: i32, %o: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c5 = arith.constant 5 : index
    %lt = arith.cmpi ult, %j, %c5 : index
    %c0 = arith.constant 0 : index
    %jj = arith.select %lt, %j, %c0 : index
    %pv = tensor.extract %p16[%i, %jj] : tensor<8x5xi16>
    %pw = arith.extsi %pv : i16 to i32
    %z = arith.constant 0 : i32
    %add = arith.select %lt, %pw, %z : i32
    %r = arith.addi %v, %add : i32
    linalg.yield %r : i32
  } -> tensor<8x8xi32>
  // f64 row statistics of the result
  %es = tensor.empty() : tensor<8xf64>
  %zs = linalg.fill ins(%z64 : f64) outs(%es : tensor<8xf64>) -> tensor<8xf64>
  %st = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a3 : tensor<8x8xi32>) outs(%zs : tensor<8xf64>) {
  ^bb0(%v: i32, %acc: f64):
    %d = arith.sitofp %v : i32 to f64
    %sq = arith.mulf %d, %d : f64
    %r = arith.addf %sq, %acc : f64
    linalg.yield %r : f64
  } -> tensor<8xf64>
  return %a3, %st : tensor<8x8xi32>, tensor<8xf64>
}

func.func @main() {
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c11 = arith.constant 11 : index
  %c16 = arith.constant 16 : index
  %xd = call @init_i8(%c8, %c16, %c3, %c5) : (index, index, index, index) -> tensor<?x?xi8>
  %x = tensor.cast %xd : tensor<?x?xi8> to tensor<8x16xi8>
  %w1d = call @init_i8(%c16, %c8, %c7, %c3) : (index, index, index, index) -> tensor<?x?xi8>
  %w1 = tensor.cast %w1d : tensor<?x?xi8> to tensor<16x8xi8>
  %w2d = call @init_i8(%c8, %c8, %c11, %c5) : (index, index, index, index) -> tensor<?x?xi8>
  %w2 = tensor.cast %w2d : tensor<?x?xi8> to tensor<8x8xi8>
  %y:2 = call @qnet(%x, %w1, %w2) : (tensor<8x16xi8>, tensor<16x8xi8>, tensor<8x8xi8>) -> (tensor<8x8xi32>, tensor<8xf64>)
  %u = tensor.cast %y#0 : tensor<8x8xi32> to tensor<*xi32>
  call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  %v = tensor.cast %y#1 : tensor<8xf64> to tensor<*xf64>
  call @printMemrefF64(%v) : (tensor<*xf64>) -> ()
  return
}
