//! Rules found missing by the fifth upstream sample and by the two open fuzz classes of seed 41
//! (BENCHMARKS.md section 4.2): a `loc(...)` after a region argument name (`affine.for %i
//! loc("x") = ...`, as MLIR's `parseArgument` allows), `linalg.transpose` /
//! `linalg.broadcast` verifiers, the LinalgOp "pure tensor or buffer semantics" rule,
//! `vector.reduction`'s rank and combining kind vs result type, and the `Elementwise` trait
//! verifier driven by the op table. Each entry is a module of our own with MLIR 22's verdict;
//! with `mlir-opt-22` installed the table itself is checked against it (required with
//! MEMPLAN_REQUIRE_MLIR=1).

mod common;

/// `None`: MLIR accepts the module; `Some(needle)`: MLIR rejects it and memplan's message
/// must contain `needle`.
const CASES: &[(&str, Option<&str>)] = &[
    // ---- locations after region argument names ----
    (
        "func.func @f() {\n  affine.for %i loc(\"iv\") = 0 to 8 {\n  }\n  return\n}",
        None,
    ),
    (
        "func.func @f(%n: index, %x: f32) -> f32 {\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a loc(\"acc\") = %x) -> (f32) {\n    scf.yield %a : f32\n  }\n  return %r : f32\n}",
        None,
    ),
    (
        "func.func @f(%n: index) {\n  %c0 = arith.constant 0 : index\n  scf.for %i loc(\"iv\") = %c0 to %n step %n {\n  }\n  return\n}",
        Some("expected '='"),
    ),
    (
        "func.func @f(%x: i32) -> i32 {\n  %r = scf.while (%a loc(\"w\") = %x) : (i32) -> i32 {\n    %c = arith.constant true\n    scf.condition(%c) %a : i32\n  } do {\n  ^bb0(%b: i32):\n    scf.yield %b : i32\n  }\n  return %r : i32\n}",
        None,
    ),
    (
        "func.func @f(%t: tensor<4xf32>) -> tensor<4xf32> {\n  %r = scf.forall (%i loc(\"i\")) in (4) shared_outs(%o loc(\"o\") = %t) -> (tensor<4xf32>) {\n  }\n  return %r : tensor<4xf32>\n}",
        None,
    ),
    (
        "func.func @f(%v: !async.value<f32>) {\n  %t = async.execute (%v as %x loc(\"x\"): !async.value<f32>) {\n    async.yield\n  }\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: index) {\n  scf.parallel (%i loc(\"p\")) = (%a) to (%a) step (%a) {\n  }\n  affine.parallel (%j loc(\"q\")) = (0) to (4) {\n  }\n  return\n}",
        None,
    ),
    // ---- linalg.transpose ----
    (
        "func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {\n  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) permutation = [1, 0]\n  return %t : tensor<3x2xf32>\n}",
        None,
    ),
    (
        "func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {\n  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) permutation = [0, 0]\n  return %t : tensor<3x2xf32>\n}",
        Some("permutation is not valid"),
    ),
    (
        "func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x2x1xf32>) -> tensor<3x2x1xf32> {\n  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2x1xf32>) permutation = [1, 0, 2]\n  return %t : tensor<3x2x1xf32>\n}",
        Some("input rank (2) does not match init rank (3)"),
    ),
    (
        "func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<3x2x4xf32>) -> tensor<3x2x4xf32> {\n  %t = linalg.transpose ins(%a : tensor<2x3x4xf32>) outs(%b : tensor<3x2x4xf32>) permutation = [1, 0]\n  return %t : tensor<3x2x4xf32>\n}",
        Some("size of permutation 2 does not match the argument rank 3"),
    ),
    (
        "func.func @f(%a: tensor<?x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {\n  %t = linalg.transpose ins(%a : tensor<?x4xf32>) outs(%b : tensor<4x4xf32>) permutation = [1, 0]\n  return %t : tensor<4x4xf32>\n}",
        Some("dim(result, 1) = 4 doesn't match dim(input, permutation[1])"),
    ),
    // ---- linalg.broadcast (dimensions need not be sorted) ----
    (
        "func.func @f(%a: tensor<4xf32>, %b: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {\n  %t = linalg.broadcast ins(%a : tensor<4xf32>) outs(%b : tensor<2x4x8xf32>) dimensions = [2, 0]\n  return %t : tensor<2x4x8xf32>\n}",
        None,
    ),
    (
        "func.func @f(%a: tensor<4xf32>, %b: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {\n  %t = linalg.broadcast ins(%a : tensor<4xf32>) outs(%b : tensor<2x4x8xf32>) dimensions = [0]\n  return %t : tensor<2x4x8xf32>\n}",
        Some("input rank plus added dimensions does not match init rank"),
    ),
    (
        "func.func @f(%a: tensor<4xf32>, %b: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {\n  %t = linalg.broadcast ins(%a : tensor<4xf32>) outs(%b : tensor<2x4x8xf32>) dimensions = [0, 3]\n  return %t : tensor<2x4x8xf32>\n}",
        Some("dimension 1 is out of range. expected range: [0, 2], got: 3"),
    ),
    (
        "func.func @f(%a: tensor<4xf32>, %b: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {\n  %t = linalg.broadcast ins(%a : tensor<4xf32>) outs(%b : tensor<2x4x8xf32>) dimensions = [0, 1]\n  return %t : tensor<2x4x8xf32>\n}",
        Some("input dim 0 should match init dim 2. input: 4, init: 8"),
    ),
    // ---- LinalgOp: no mix of tensors and memrefs (a vector operand is not a tensor) ----
    (
        "func.func @f(%a: memref<4x8xf32>, %b: tensor<8x4xf32>) {\n  %t = linalg.transpose ins(%a : memref<4x8xf32>) outs(%b : tensor<8x4xf32>) permutation = [1, 0]\n  return\n}",
        Some("expected to have pure tensor or buffer semantics"),
    ),
    (
        "func.func @f(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: memref<4x4xf32>) {\n  linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : memref<4x4xf32>)\n  return\n}",
        Some("expected to have pure tensor or buffer semantics"),
    ),
    (
        "func.func @f(%a: vector<4xf32>, %b: memref<4xf32>) {\n  linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]} ins(%a : vector<4xf32>) outs(%b : memref<4xf32>) {\n  ^bb0(%x: vector<4xf32>, %y: f32):\n    linalg.yield %y : f32\n  }\n  return\n}",
        None,
    ),
    // ---- vector.reduction: rank and combining kind vs result type ----
    (
        "func.func @f(%a: vector<f32>, %b: vector<8xi32>) -> (f32, i32) {\n  %0 = vector.reduction <maximumf>, %a : vector<f32> into f32\n  %1 = vector.reduction <minsi>, %b : vector<8xi32> into i32\n  return %0, %1 : f32, i32\n}",
        None,
    ),
    (
        "func.func @f(%a: vector<f32>) -> f32 {\n  %0 = vector.reduction <minsi>, %a : vector<f32> into f32\n  return %0 : f32\n}",
        Some("unsupported reduction type 'f32' for kind 'minsi'"),
    ),
    (
        "func.func @f(%a: vector<8xi32>) -> i32 {\n  %0 = vector.reduction <maxnumf>, %a : vector<8xi32> into i32\n  return %0 : i32\n}",
        Some("unsupported reduction type 'i32' for kind 'maxnumf'"),
    ),
    (
        "func.func @f(%a: vector<2x4xf32>) -> f32 {\n  %0 = vector.reduction <add>, %a : vector<2x4xf32> into f32\n  return %0 : f32\n}",
        Some("unsupported reduction rank: 2"),
    ),
    // ---- Elementwise trait (op table) ----
    (
        "func.func @f(%c: i1, %a: vector<4xf32>, %b: vector<4xf32>, %s: vector<4xf32>) -> (vector<4xf32>, vector<4xf64>) {\n  %0 = arith.select %c, %a, %b : vector<4xf32>\n  %1 = arith.scaling_extf %a, %s : vector<4xf32>, vector<4xf32> to vector<4xf64>\n  return %0, %1 : vector<4xf32>, vector<4xf64>\n}",
        None,
    ),
    (
        "func.func @f(%a: f32, %s: vector<4xf32>) -> f64 {\n  %0 = \"arith.scaling_extf\"(%a, %s) : (f32, vector<4xf32>) -> f64\n  return %0 : f64\n}",
        Some("if an operand is non-scalar, then there must be at least one non-scalar result"),
    ),
    (
        "func.func @f(%a: tensor<4xf32>, %s: vector<4xf32>) -> tensor<4xf64> {\n  %0 = \"arith.scaling_extf\"(%a, %s) : (tensor<4xf32>, vector<4xf32>) -> tensor<4xf64>\n  return %0 : tensor<4xf64>\n}",
        Some("all non-scalar operands/results must have the same shape and base type"),
    ),
    // ---- fuzz seed 61: vector.gather (GatherOp::verify) and vector.maskedload pass_thru ----
    ("func.func @f(%b: memref<16xf32>, %i: index, %v: vector<16xi32>, %m: vector<16xi1>, %p: vector<16xf32>) {\n  %0 = vector.gather %b[%i] [%v], %m, %p : memref<16xf32>, vector<16xi32>, vector<16xi1>, vector<16xf32> into vector<16xf32>\n  return\n}", None),
    ("func.func @f(%b: tensor<16xf32>, %i: index, %v: vector<16xindex>, %m: vector<16xi1>, %p: vector<16xf32>) {\n  %0 = vector.gather %b[%i] [%v], %m, %p : tensor<16xf32>, vector<16xindex>, vector<16xi1>, vector<16xf32> into vector<16xf32>\n  return\n}", None),
    ("func.func @f(%b: memref<16xf32>, %i: index, %v: vector<16xi32>, %m: vector<16xi1>, %p: vector<8xf32>) {\n  %0 = vector.gather %b[%i] [%v], %m, %p : memref<16xf32>, vector<16xi32>, vector<16xi1>, vector<8xf32> into vector<16xf32>\n  return\n}", Some("expected pass_thru of same type as result type")),
    ("func.func @f(%b: memref<16xf32>, %i: index, %v: vector<8xi32>, %m: vector<16xi1>, %p: vector<16xf32>) {\n  %0 = vector.gather %b[%i] [%v], %m, %p : memref<16xf32>, vector<8xi32>, vector<16xi1>, vector<16xf32> into vector<16xf32>\n  return\n}", Some("expected result dim to match indices dim")),
    ("func.func @f(%b: memref<16xf32>, %i: index, %v: vector<16xi32>, %m: vector<8xi1>, %p: vector<16xf32>) {\n  %0 = vector.gather %b[%i] [%v], %m, %p : memref<16xf32>, vector<16xi32>, vector<8xi1>, vector<16xf32> into vector<16xf32>\n  return\n}", Some("expected result dim to match mask dim")),
    ("func.func @f(%b: memref<16xi32>, %i: index, %v: vector<16xi32>, %m: vector<16xi1>, %p: vector<16xf32>) {\n  %0 = vector.gather %b[%i] [%v], %m, %p : memref<16xi32>, vector<16xi32>, vector<16xi1>, vector<16xf32> into vector<16xf32>\n  return\n}", Some("base and result element type should match")),
    ("func.func @f(%b: memref<16xf32>, %i: index, %m: vector<16xi1>, %p: vector<16xf32>) {\n  %0 = vector.maskedload %b[%i], %m, %p : memref<16xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>\n  return\n}", None),
    ("func.func @f(%b: memref<16xf32>, %i: index, %m: vector<16xi1>, %p: vector<16xi32>) {\n  %0 = vector.maskedload %b[%i], %m, %p : memref<16xf32>, vector<16xi1>, vector<16xi32> into vector<16xf32>\n  return\n}", Some("expected pass_thru of same type as result type")),
];

/// Modules whose print must read back the same (region arguments with locations).
const ROUND_TRIPS: &[&str] = &[
    "func.func @f() {\n  affine.for %i loc(\"iv\") = 0 to 8 {\n  }\n  return\n}",
    "func.func @f(%n: index, %x: f32) -> f32 {\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a loc(\"acc\") = %x) -> (f32) {\n    scf.yield %a : f32\n  }\n  return %r : f32\n}",
];

#[test]
fn round_trips_read_back_the_same() {
    common::assert_round_trips(ROUND_TRIPS);
}

#[test]
fn memplan_agrees_with_mlir_22_on_each_case() {
    common::assert_verdicts(CASES);
}
