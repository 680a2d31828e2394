//! `scf.forall`, `scf.forall.in_parallel`, `memref.generic_atomic_rmw` and
//! `memref.atomic_yield`: custom forms print like mlir-opt-22, the parser sets the
//! properties mlir-opt sets (checked through the generic print), printing never changes the
//! IR, and the verifier rejects malformed loops.

use memplan_ir::{parse_module, print_module, verify, ParseOptions, PrintOptions, Registry};

mod common;
use common::{generic, rejected, roundtrip};

/// Wraps `body` in a function with arguments `args`.
fn func(args: &str, body: &str) -> String {
    format!("func.func @f({args}) {{\n{body}  return\n}}\n")
}

/// Asserts every line of `body` re-prints unchanged and that printing is a fixed point,
/// for both the custom and the generic print.
fn assert_stable(args: &str, body: &str) {
    let src = func(args, body);
    let out = roundtrip(&src);
    for line in body.lines() {
        assert!(
            out.contains(line.trim()),
            "missing line {line:?} in output:\n{out}"
        );
    }
    assert_eq!(roundtrip(&out), out);
    assert_eq!(generic(&out), generic(&src));
}

#[test]
fn forall_forms_print_like_mlir_opt() {
    assert_stable(
        "%n: index, %m: memref<?x8xf32>, %lb: index, %s: index",
        "    scf.forall (%i, %j) in (%n, 8) {
      %alloc = memref.alloc() : memref<16xf32>
      %0 = memref.load %m[%i, %j] : memref<?x8xf32>
      memref.store %0, %alloc[%j] : memref<16xf32>
      memref.dealloc %alloc : memref<16xf32>
    } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
    scf.forall (%k) = (%lb) to (%n) step (%s) {
    }
    scf.forall (%a, %b) = (1, %lb) to (%n, 64) step (2, 4) {
    } {foo}
    scf.forall () in () {
    }
",
    );
}

#[test]
fn forall_shared_outs_print_the_terminator() {
    let body = "    %0:2 = scf.forall (%i) in (4) shared_outs(%o = %t, %p = %t) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
      scf.forall.in_parallel {
      }
    }
";
    assert_stable("%t: tensor<?x8xf32>", body);
    // The terminator is implicit in the input too.
    let implicit = func(
        "%t: tensor<?x8xf32>",
        "    %0 = scf.forall (%i) in (4) shared_outs(%o = %t) -> (tensor<?x8xf32>) {\n    }\n",
    );
    let out = roundtrip(&implicit);
    assert!(
        out.contains("-> (tensor<?x8xf32>) {\n      scf.forall.in_parallel {\n      }\n    }"),
        "{out}"
    );
}

#[test]
fn forall_tensor_tiles_roundtrip() {
    assert_stable(
        "%in: tensor<64x128xf32>, %init: tensor<64x128xf32>",
        "    %0 = scf.forall (%i, %j) = (0, 0) to (64, 128) step (16, 32) shared_outs(%out = %init) -> (tensor<64x128xf32>) {
      %extracted_slice = tensor.extract_slice %in[%i, %j] [16, 32] [1, 1] : tensor<64x128xf32> to tensor<16x32xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %extracted_slice into %out[%i, %j] [16, 32] [1, 1] : tensor<16x32xf32> into tensor<64x128xf32>
      }
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
",
    );
}

#[test]
fn forall_parser_sets_mlir_properties() {
    let g = generic(&func(
        "%n: index, %lb: index, %t: tensor<4xf32>",
        "    scf.forall (%i, %j) in (%n, 8) {\n    } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
    scf.forall (%i) = (%lb) to (16) step (%n) {\n    }
    %r = scf.forall (%i) = (0) to (%n) step (2) shared_outs(%o = %t) -> (tensor<4xf32>) {\n    }\n",
    ));
    for want in [
        "operandSegmentSizes = array<i32: 0, 1, 0, 0>",
        "staticLowerBound = array<i64: 0, 0>",
        "staticStep = array<i64: 1, 1>",
        "staticUpperBound = array<i64: -9223372036854775808, 8>",
        "mapping = [#gpu.thread<y>, #gpu.thread<x>]",
        "operandSegmentSizes = array<i32: 1, 0, 1, 0>",
        "staticLowerBound = array<i64: -9223372036854775808>",
        "staticUpperBound = array<i64: 16>",
        "staticStep = array<i64: -9223372036854775808>",
        "operandSegmentSizes = array<i32: 0, 1, 0, 1>",
        "staticStep = array<i64: 2>",
        "\"scf.forall.in_parallel\"() ({",
    ] {
        assert!(g.contains(want), "missing {want:?} in:\n{g}");
    }
    // Mapping is a property, not a discardable attribute.
    assert!(!g.contains("}) {mapping"), "{g}");
    // The implicit in_parallel has one empty block, as MLIR's ensureTerminator builds it.
    assert_eq!(g.matches("\"scf.forall.in_parallel\"").count(), 3, "{g}");
}

#[test]
fn forall_printing_keeps_ssa_bounds() {
    // mlir-opt would print `in (%n)` here (the bounds fold to 0 and 1) and lose two operands.
    let src = func(
        "%n: index",
        "    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index
    scf.forall (%i) = (%c0) to (%n) step (%c1) {\n    }\n",
    );
    let out = roundtrip(&src);
    assert!(
        out.contains("scf.forall (%i) = (%c0) to (%n) step (%c1) {"),
        "{out}"
    );
    assert_eq!(generic(&out), generic(&src));
}

#[test]
fn forall_keeps_non_plain_in_parallel() {
    // An in_parallel with an attribute is not the implicit one: it must be printed
    // (mlir-opt drops it, losing the attribute).
    let src = func(
        "%n: index",
        "    scf.forall (%i) in (%n) {\n      scf.forall.in_parallel {\n      } {tag}\n    }\n",
    );
    let out = roundtrip(&src);
    assert!(
        out.contains("scf.forall.in_parallel {\n      } {tag}"),
        "{out}"
    );
    assert_eq!(generic(&out), generic(&src));
}

#[test]
fn forall_generic_input_prints_custom() {
    let src = func(
        "%n: index",
        r#"    "scf.forall"(%n, %n) <{mapping = [#gpu.block<x>], operandSegmentSizes = array<i32: 0, 1, 1, 0>, staticLowerBound = array<i64: 0>, staticStep = array<i64: -9223372036854775808>, staticUpperBound = array<i64: -9223372036854775808>}> ({
    ^bb0(%i: index):
      "scf.forall.in_parallel"() ({
      ^bb0:
      }) : () -> ()
    }) : (index, index) -> ()
"#,
    );
    let out = roundtrip(&src);
    assert!(
        out.contains(
            "scf.forall (%i) = (0) to (%n) step (%n) {\n    } {mapping = [#gpu.block<x>]}"
        ),
        "{out}"
    );
    assert_eq!(generic(&out), generic(&src));
}

#[test]
fn forall_with_inconsistent_properties_prints_generic() {
    // Two dynamic upper bounds announced, one operand given: no custom form exists, the
    // verifier rejects it, and the printer falls back to the generic form.
    let src = func(
        "%n: index",
        r#"    "scf.forall"(%n) <{operandSegmentSizes = array<i32: 0, 1, 0, 0>, staticLowerBound = array<i64: 0, 0>, staticStep = array<i64: 1, 1>, staticUpperBound = array<i64: -9223372036854775808, -9223372036854775808>}> ({
    ^bb0(%i: index, %j: index):
      "scf.forall.in_parallel"() ({
      ^bb0:
      }) : () -> ()
    }) : (index) -> ()
"#,
    );
    let reg = Registry::with_all_dialects();
    let m = parse_module(&src, &reg, ParseOptions::default()).expect("parses");
    let out = print_module(&m, &reg, PrintOptions::default());
    assert!(out.contains("\"scf.forall\"(%n)"), "{out}");
    assert!(verify(&m, &reg)
        .expect_err("rejected")
        .message
        .contains("expected 2 dynamic upper bound values"),);
}

#[test]
fn forall_verifier_rules() {
    let generic_forall = |segs: &str, lb: &str, ub: &str, step: &str, args: &str, ops: &str| {
        func(
            "%n: index, %t: tensor<4xf32>, %k: i32",
            &format!(
                r#"    "scf.forall"({ops}) <{{operandSegmentSizes = array<i32: {segs}>, staticLowerBound = array<i64: {lb}>, staticStep = array<i64: {step}>, staticUpperBound = array<i64: {ub}>}}> ({{
    ^bb0({args}):
      scf.forall.in_parallel {{
      }}
    }}) : ({}) -> ()
"#,
                ops.split(", ")
                    .filter(|o| !o.is_empty())
                    .map(|o| if o == "%k" { "i32" } else { "index" })
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    };
    let cases = [
        (
            generic_forall("0, 1, 0, 0", "0, 0", "1, 1", "-9223372036854775808", "%i: index", "%n"),
            "region expects 2 arguments",
        ),
        (
            generic_forall("0, 1, 0, 0", "0", "-9223372036854775808", "1", "%i: i32", "%n"),
            "expects 0-th block argument to be an index",
        ),
        (
            generic_forall("0, 1, 0, 0", "0", "4", "1", "%i: index", "%n"),
            "expected 0 dynamic upper bound values",
        ),
        (
            generic_forall("0, 1, 0, 0", "0", "-9223372036854775808", "1, 1", "%i: index", "%n"),
            "step expected 1 elements, but got 2",
        ),
        (
            generic_forall("0, 1, 0, 0", "0", "-9223372036854775808", "1", "%i: index", "%k"),
            "operand #0 must be variadic of index, but got 'i32'",
        ),
        (
            func(
                "%n: index",
                "    scf.forall (%i) in (%n) {\n    } {mapping = [#gpu.thread<x>, #gpu.thread<y>]}\n",
            ),
            "mapping attribute size must match op rank",
        ),
        (
            func(
                "%n: index",
                "    scf.forall (%i) in (%n) {\n    } {mapping = [1]}\n",
            ),
            "Device Mapping array attribute",
        ),
        (
            func(
                "%m: memref<4xf32>",
                "    %r = scf.forall (%i) in (4) shared_outs(%o = %m) -> (memref<4xf32>) {\n    }\n",
            ),
            "operand #0 must be variadic of ranked tensor of any type values",
        ),
        (
            func(
                "%n: index",
                "    scf.forall (%i) in (%n) {\n      scf.yield\n    }\n",
            ),
            "scf.yield",
        ),
        (
            func(
                "%n: index",
                "    scf.forall (%i) in (%n) {\n      scf.forall.in_parallel {\n        %c = arith.constant 0 : index\n      }\n    }\n",
            ),
            "expected only ParallelCombiningOpInterface ops",
        ),
        (
            func(
                "%t: tensor<4xf32>, %s: tensor<1xf32>",
                "    %r = scf.forall (%i) in (4) shared_outs(%o = %t) -> (tensor<4xf32>) {
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %s into %t[%i] [1] [1] : tensor<1xf32> into tensor<4xf32>
      }
    }
",
            ),
            "may only insert into an output block argument",
        ),
        (
            func("", "    scf.forall.in_parallel {\n    }\n"),
            "scf.forall.in_parallel",
        ),
        (
            func(
                "%t: tensor<4xf32>",
                "    %r = scf.forall (%i) in (4) shared_outs(%o = %t, %p = %t) -> (tensor<4xf32>) {\n    }\n",
            ),
            "2 operands present, but expected 1",
        ),
        (
            func(
                "%t: tensor<4xf32>",
                r#"    %r:2 = "scf.forall"(%t) <{operandSegmentSizes = array<i32: 0, 0, 0, 1>, staticLowerBound = array<i64: 0>, staticStep = array<i64: 1>, staticUpperBound = array<i64: 4>}> ({
    ^bb0(%i: index, %o: tensor<4xf32>):
      scf.forall.in_parallel {
      }
    }) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
"#,
            ),
            "produces 2 results, but has only 1 outputs",
        ),
        (
            func(
                "%t: tensor<4xf32>",
                r#"    %r = "scf.forall"(%t) <{operandSegmentSizes = array<i32: 0, 0, 0, 1>, staticLowerBound = array<i64: 0>, staticStep = array<i64: 1>, staticUpperBound = array<i64: 4>}> ({
    ^bb0(%i: index, %o: tensor<8xf32>):
      scf.forall.in_parallel {
      }
    }) : (tensor<4xf32>) -> tensor<4xf32>
"#,
            ),
            "type mismatch between 0-th output and corresponding block argument",
        ),
    ];
    for (src, want) in cases {
        let msg = rejected(&src);
        assert!(msg.contains(want), "{want:?} not in {msg:?} for\n{src}");
    }
}

#[test]
fn forall_in_loops_roundtrip() {
    assert_stable(
        "%buf: memref<8x32xf32>, %steps: index",
        "    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %t = %c0 to %steps step %c1 {
      %alloc = memref.alloc() : memref<8x32xf32>
      scf.forall (%i, %j) in (8, 32) {
        scf.forall (%k) in (4) {
          %0 = memref.load %buf[%i, %j] : memref<8x32xf32>
          memref.store %0, %alloc[%i, %j] : memref<8x32xf32>
        } {mapping = [#gpu.thread<x>]}
      } {mapping = [#gpu.block<y>, #gpu.block<x>]}
      memref.dealloc %alloc : memref<8x32xf32>
    }
",
    );
}

#[test]
fn generic_atomic_rmw_roundtrip_and_generic_form() {
    let body = "    %0 = memref.generic_atomic_rmw %m[%i] : memref<10xf32> {
    ^bb0(%cur: f32):
      %1 = arith.addf %cur, %cur : f32
      memref.atomic_yield %1 : f32
    } {foo = 1 : i64}
";
    assert_stable("%m: memref<10xf32>, %i: index", body);
    let g = generic(&func("%m: memref<10xf32>, %i: index", body));
    assert!(
        g.contains("\"memref.generic_atomic_rmw\"(%m, %i) ({"),
        "{g}"
    );
    assert!(
        g.contains("}) {foo = 1 : i64} : (memref<10xf32>, index) -> f32"),
        "{g}"
    );
    assert!(
        g.contains("\"memref.atomic_yield\"(%1) : (f32) -> ()"),
        "{g}"
    );
}

#[test]
fn generic_atomic_rmw_verifier_rules() {
    let rmw = |arg: &str, body: &str| {
        func(
            "%m: memref<10xf32>, %i: index",
            &format!(
                "    %x = memref.generic_atomic_rmw %m[%i] : memref<10xf32> {{\n    ^bb0({arg}):\n{body}    }}\n"
            ),
        )
    };
    let cases = [
        (
            rmw("%a: f32, %b: f32", "      memref.atomic_yield %a : f32\n"),
            "expected single number of entry block arguments",
        ),
        (
            rmw(
                "%a: i32",
                "      %c = arith.constant 1.0 : f32\n      memref.atomic_yield %c : f32\n",
            ),
            "expected block argument of the same type result type",
        ),
        (
            rmw(
                "%a: f32",
                "      memref.store %a, %m[%i] : memref<10xf32>\n      memref.atomic_yield %a : f32\n",
            ),
            "only operations with no side effects",
        ),
        (
            rmw(
                "%a: f32",
                "      %c = arith.constant 1 : i32\n      memref.atomic_yield %c : i32\n",
            ),
            "types mismatch between yield op: 'i32' and its parent: 'f32'",
        ),
        (rmw("%a: f32", ""), "empty block"),
        (
            func("%c: f32", "    memref.atomic_yield %c : f32\n"),
            "memref.atomic_yield",
        ),
        (
            func(
                "%t: tensor<4xf32>, %i: index",
                "    %x = memref.generic_atomic_rmw %t[%i] : tensor<4xf32> {\n    ^bb0(%a: f32):\n      memref.atomic_yield %a : f32\n    }\n",
            ),
            "expected a ranked memref type",
        ),
    ];
    for (src, want) in cases {
        let msg = rejected(&src);
        assert!(msg.contains(want), "{want:?} not in {msg:?} for\n{src}");
    }
}
