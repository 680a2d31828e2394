//! Rules found missing by the sixth upstream sample of the core dialects (BENCHMARKS.md section
//! 4.2.7): the complex dialect (its ops were not in the op table at all, so every `complex.*` op
//! was rejected as unknown), `complex.constant` / `complex.bitcast` verifiers, the user-map rules
//! of `linalg.batch_matmul` / `linalg.batch_reduce_matmul`
//! (`verifyExtendedBatchVariantMatmulSemantic`), `async.func`'s result rules, and named ops whose
//! maps come from `linalg.memoized_indexing_maps` (the convolution map rules), the matmul family's
//! projected-permutation rule and the structured ops' invertible-maps rule. Each entry is a module
//! of our own with MLIR 22's verdict; with `mlir-opt-22` installed the table itself is checked
//! against it (required with MEMPLAN_REQUIRE_MLIR=1).

mod common;

/// `None`: MLIR accepts the module; `Some(needle)`: MLIR rejects it and memplan's message
/// must contain `needle`.
const CASES: &[(&str, Option<&str>)] = &[
    // ---- complex dialect ----
    (
        "func.func @f(%a: complex<f32>, %b: complex<f32>) -> (f32, complex<f32>, i1) {\n  %0 = complex.abs %a : complex<f32>\n  %1 = complex.add %a, %b fastmath<nnan,ninf> : complex<f32>\n  %2 = complex.eq %a, %b : complex<f32>\n  return %0, %1, %2 : f32, complex<f32>, i1\n}",
        None,
    ),
    (
        "func.func @f(%x: f64, %y: f64) -> (f64, f64) {\n  %c = complex.create %x, %y : complex<f64>\n  %r = complex.re %c : complex<f64>\n  %i = complex.im %c fastmath<fast> : complex<f64>\n  return %r, %i : f64, f64\n}",
        None,
    ),
    (
        "func.func @f(%a: complex<f32>, %n: i32) -> complex<f32> {\n  %0 = complex.powi %a, %n : complex<f32>, i32\n  return %0 : complex<f32>\n}",
        None,
    ),
    (
        "func.func @f() -> (complex<f32>, complex<i32>) {\n  %0 = complex.constant [1.0 : f32, -2.5 : f32] : complex<f32>\n  %1 = complex.constant [1 : i32, 2 : i32] : complex<i32>\n  return %0, %1 : complex<f32>, complex<i32>\n}",
        None,
    ),
    (
        "func.func @f() {\n  %0 = complex.constant [1.0 : f32] : complex<f32>\n  return\n}",
        Some("requires 'value' to be a complex constant, represented as array of two values"),
    ),
    (
        "func.func @f() {\n  %0 = complex.constant [1.0 : f32, 2.0 : f64] : complex<f64>\n  return\n}",
        Some("requires attribute's element types ('f32', 'f64') to match the element type of the op's return type ('f64')"),
    ),
    (
        "func.func @f() {\n  %0 = complex.constant [1.0 : f32, \"x\"] : complex<f32>\n  return\n}",
        Some("requires attribute's elements to be float or integer attributes"),
    ),
    (
        "func.func @f(%a: complex<f32>, %b: i64) -> (i64, complex<f32>, complex<f32>) {\n  %0 = complex.bitcast %a : complex<f32> to i64\n  %1 = complex.bitcast %b : i64 to complex<f32>\n  %2 = complex.bitcast %a : complex<f32> to complex<f32>\n  return %0, %1, %2 : i64, complex<f32>, complex<f32>\n}",
        None,
    ),
    (
        "func.func @f(%a: i64) {\n  %0 = complex.bitcast %a : i64 to f64\n  return\n}",
        Some("requires that either input or output has a complex type"),
    ),
    (
        "func.func @f(%a: complex<f32>) {\n  %0 = complex.bitcast %a : complex<f32> to i32\n  return\n}",
        Some("casting bitwidths do not match"),
    ),
    (
        "func.func @f(%a: vector<2xf32>) {\n  %0 = complex.bitcast %a : vector<2xf32> to complex<f32>\n  return\n}",
        Some("operand must be int/float/complex"),
    ),
    (
        "func.func @f(%a: complex<i32>) {\n  %0 = complex.neg %a : complex<i32>\n  return\n}",
        Some("complex type with floating-point elements"),
    ),
    (
        "func.func @f(%a: complex<f32>) {\n  %0 = complex.frobnicate %a : complex<f32>\n  return\n}",
        Some("complex.frobnicate"),
    ),
    // ---- async.func results (FuncOp::verify of the async dialect) ----
    (
        "async.func @f(%a: f32) -> (!async.token, !async.value<f32>) {\n  return %a : f32\n}\nasync.func @g() -> !async.token {\n  return\n}",
        None,
    ),
    (
        "async.func @f(%a: f32) {\n  return\n}",
        Some("result is expected to be at least of size 1, but got 0"),
    ),
    (
        "async.func @f(%a: f32) -> f32 {\n  return %a : f32\n}",
        Some("result type must be async value type or async token type, but got 'f32'"),
    ),
    (
        "async.func @f(%a: f32) -> (!async.value<f32>, !async.token) {\n  return %a : f32\n}",
        Some("async token type is expected to appear as the 1st return value, but got 2"),
    ),
    // ---- named ops with `linalg.memoized_indexing_maps` (getIndexingMaps returns them) ----
    (
        "#i = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d6)>\n#f = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>\n#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>\nfunc.func @f(%a: tensor<?x?x?x?xf32>, %f: tensor<?x?x?x?xf32>, %o: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {\n    %0 = \"linalg.conv_2d_nhwc_hwcf\"(%a, %f, %o) ({\n    ^bb0(%x: f32, %y: f32, %z: f32):\n      %1 = arith.mulf %x, %y : f32\n      %2 = arith.addf %z, %1 : f32\n      linalg.yield %2 : f32\n    }) {dilations = dense<1> : tensor<2xi64>, linalg.memoized_indexing_maps = [#i, #f, #o], operandSegmentSizes = array<i32: 2, 1>, strides = dense<2> : tensor<2xi64>} : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>\n    return %0 : tensor<?x?x?x?xf32>\n}",
        None,
    ),
    (
        "#i = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2, d2 * 2 + d5, d6)>\n#f = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>\n#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>\nfunc.func @f(%a: tensor<?x?x?x?xf32>, %f: tensor<?x?x?x?xf32>, %o: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {\n    %0 = \"linalg.conv_2d_nhwc_hwcf\"(%a, %f, %o) ({\n    ^bb0(%x: f32, %y: f32, %z: f32):\n      %1 = arith.mulf %x, %y : f32\n      %2 = arith.addf %z, %1 : f32\n      linalg.yield %2 : f32\n    }) {dilations = dense<1> : tensor<2xi64>, linalg.memoized_indexing_maps = [#i, #f, #o], operandSegmentSizes = array<i32: 2, 1>, strides = dense<2> : tensor<2xi64>} : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>\n    return %0 : tensor<?x?x?x?xf32>\n}",
        Some("unexpected input index map for convolutions"),
    ),
    (
        "#i = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d1, d2 + d5, d6)>\n#f = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>\n#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>\nfunc.func @f(%a: tensor<?x?x?x?xf32>, %f: tensor<?x?x?x?xf32>, %o: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {\n    %0 = \"linalg.conv_2d_nhwc_hwcf\"(%a, %f, %o) ({\n    ^bb0(%x: f32, %y: f32, %z: f32):\n      %1 = arith.mulf %x, %y : f32\n      %2 = arith.addf %z, %1 : f32\n      linalg.yield %2 : f32\n    }) {dilations = dense<1> : tensor<2xi64>, linalg.memoized_indexing_maps = [#i, #f, #o], operandSegmentSizes = array<i32: 2, 1>, strides = dense<1> : tensor<2xi64>} : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>\n    return %0 : tensor<?x?x?x?xf32>\n}",
        Some("unexpected input index map for convolutions"),
    ),
    (
        "#i = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>\n#f = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3 + d4)>\n#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>\nfunc.func @f(%a: tensor<?x?x?x?xf32>, %f: tensor<?x?x?x?xf32>, %o: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {\n    %0 = \"linalg.conv_2d_nhwc_hwcf\"(%a, %f, %o) ({\n    ^bb0(%x: f32, %y: f32, %z: f32):\n      %1 = arith.mulf %x, %y : f32\n      %2 = arith.addf %z, %1 : f32\n      linalg.yield %2 : f32\n    }) {dilations = dense<1> : tensor<2xi64>, linalg.memoized_indexing_maps = [#i, #f, #o], operandSegmentSizes = array<i32: 2, 1>, strides = dense<1> : tensor<2xi64>} : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>\n    return %0 : tensor<?x?x?x?xf32>\n}",
        Some("expected output/filter indexing maps to be projected permutations"),
    ),
    (
        "#i = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>\n#f = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>\n#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>\nfunc.func @f(%a: tensor<1x4x4x2xf32>, %f: tensor<3x3x2x5xf32>, %o: tensor<1x3x3x5xf32>) -> tensor<1x3x3x5xf32> {\n  %0 = \"linalg.conv_2d_nhwc_hwcf\"(%a, %f, %o) ({\n  ^bb0(%x: f32, %y: f32, %z: f32):\n    %1 = arith.mulf %x, %y : f32\n    %2 = arith.addf %z, %1 : f32\n    linalg.yield %2 : f32\n  }) {dilations = dense<1> : tensor<2xi64>, linalg.memoized_indexing_maps = [#i, #f, #o], operandSegmentSizes = array<i32: 2, 1>, strides = dense<1> : tensor<2xi64>} : (tensor<1x4x4x2xf32>, tensor<3x3x2x5xf32>, tensor<1x3x3x5xf32>) -> tensor<1x3x3x5xf32>\n  return %0 : tensor<1x3x3x5xf32>\n}",
        Some("to be greater than or equal to 5, but found 4"),
    ),
    // ---- linalg.batch_matmul / batch_reduce_matmul user maps ----
    (
        "func.func @f(%a: memref<2x5x3xf32>, %b: memref<2x5x7xf32>, %c: memref<2x3x7xf32>) {\n  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a, %b : memref<2x5x3xf32>, memref<2x5x7xf32>) outs(%c : memref<2x3x7xf32>)\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: memref<3x5xf32>, %b: memref<5xf32>, %c: memref<2x3x7xf32>) {\n  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a, %b : memref<3x5xf32>, memref<5xf32>) outs(%c : memref<2x3x7xf32>)\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: memref<?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {\n  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a, %b : memref<?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>)\n  return\n}",
        Some("Invalid broadcast requested."),
    ),
    (
        "func.func @f(%a: memref<?x?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?x?xf32>) {\n  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a, %b : memref<?x?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?x?xf32>)\n  return\n}",
        Some("Invalid broadcast requested."),
    ),
    (
        "func.func @f(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {\n  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d0, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>)\n  return\n}",
        Some("Invalid batch dimension expression."),
    ),
    (
        "func.func @f(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {\n  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>)\n  return\n}",
        Some("Unexpected result dim expression (outside the set of default result dims)."),
    ),
    (
        "func.func @f(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {\n  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d1)>] ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>)\n  return\n}",
        Some("Invalid output map result dimension."),
    ),
    (
        "func.func @f(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?xf32>) {\n  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d2)>] ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?xf32>)\n  return\n}",
        Some("expects 3 dims, but got (2)."),
    ),
    (
        "func.func @f(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?x?xf32>) {\n  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?x?xf32>)\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: memref<?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {\n  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a, %b : memref<?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>)\n  return\n}",
        Some("Invalid broadcast requested."),
    ),
    (
        "func.func @f(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {\n  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + d3)>] ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>)\n  return\n}",
        Some("expected indexing maps to be projected permutations"),
    ),
    (
        "func.func @f(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {\n  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1 + d0)>] ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)\n  return\n}",
        Some("expected indexing maps to be projected permutations"),
    ),
    (
        "func.func @f(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {\n  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d1, d0)>] ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: memref<?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?xf32>) {\n  linalg.batch_reduce_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d1 + d0, d2)>] ins(%a, %b : memref<?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?xf32>)\n  return\n}",
        // MLIR reports the non-invertible maps first, memplan the projected-permutation rule
        Some("'linalg.batch_reduce_matmul' op"),
    ),
    // ---- structured ops: the loops-to-shapes map must be invertible ----
    (
        "func.func @f(%a: memref<?xf32>, %c: memref<?xf32>) {\n  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0 + d1)>], iterator_types = [\"parallel\", \"parallel\"]} ins(%a : memref<?xf32>) outs(%c : memref<?xf32>) {\n  ^bb0(%x: f32, %y: f32):\n    linalg.yield %x : f32\n  }\n  return\n}",
        Some("invalid indexing maps are non-invertible: ((d0, d1) -> (d0, d0 + d1))"),
    ),
    (
        "func.func @f(%a: f32, %c: memref<f32>) {\n  linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = [\"parallel\"]} ins(%a : f32) outs(%c : memref<f32>) {\n  ^bb0(%x: f32, %y: f32):\n    linalg.yield %x : f32\n  }\n  return\n}",
        Some("invalid indexing maps are non-invertible"),
    ),
    (
        "func.func @f(%a: f32, %c: memref<f32>) {\n  linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%a : f32) outs(%c : memref<f32>) {\n  ^bb0(%x: f32, %y: f32):\n    linalg.yield %x : f32\n  }\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: memref<2x3x5xf32>, %b: memref<2x5x7xf32>, %c: memref<3x7xf32>) {\n  linalg.batch_reduce_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d2)>] ins(%a, %b : memref<2x3x5xf32>, memref<2x5x7xf32>) outs(%c : memref<3x7xf32>)\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?xf32>) {\n  linalg.batch_reduce_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d2)>] ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?xf32>)\n  return\n}",
        Some("Unexpected result dim expression (outside the set of default result dims)."),
    ),
    (
        "func.func @f(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?xf32>) {\n  linalg.batch_reduce_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d2, d1)>] ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?xf32>)\n  return\n}",
        Some("Invalid output map result dimension."),
    ),
];

/// Modules whose print must read back the same (complex ops in custom form).
const ROUND_TRIPS: &[&str] = &[
    "func.func @f(%a: complex<f32>, %b: complex<f32>, %n: i32) -> (f32, complex<f32>, complex<f32>, i1) {\n  %0 = complex.abs %a fastmath<nnan> : complex<f32>\n  %1 = complex.div %a, %b fastmath<fast> : complex<f32>\n  %2 = complex.powi %a, %n : complex<f32>, i32\n  %3 = complex.neq %a, %b : complex<f32>\n  return %0, %1, %2, %3 : f32, complex<f32>, complex<f32>, i1\n}",
    "func.func @f(%x: f32) -> (complex<f32>, i64) {\n  %0 = complex.constant [0.5 : f32, 2.0 : f32] : complex<f32>\n  %1 = complex.create %x, %x : complex<f32>\n  %2 = complex.bitcast %1 : complex<f32> to i64\n  %3 = complex.mul %0, %1 : complex<f32>\n  return %3, %2 : complex<f32>, i64\n}",
];

#[test]
fn round_trips_read_back_the_same() {
    common::assert_round_trips(ROUND_TRIPS);
}

#[test]
fn memplan_agrees_with_mlir_22_on_each_case() {
    common::assert_verdicts(CASES);
}
