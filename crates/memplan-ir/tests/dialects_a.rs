//! Custom-form parse/print/verify tests for the memref, scf, cf, affine and bufferization
//! dialects: custom text must re-print identically (mlir-opt-22's form), carry the
//! properties mlir-opt sets (checked through the generic print), and invalid IR must be
//! rejected at the right op.

mod common;
use common::{generic, rejected, roundtrip};

/// Asserts every line of `body` re-prints unchanged inside a function.
fn assert_stable(args: &str, body: &str) {
    let src = format!("func.func @f({args}) {{\n{body}  return\n}}\n");
    let out = roundtrip(&src);
    for line in body.lines() {
        assert!(
            out.contains(line.trim()),
            "missing line {line:?} in output:\n{out}"
        );
    }
    // Printing is a fixed point.
    assert_eq!(roundtrip(&out), out);
}

#[test]
fn memref_ops_print_like_mlir_opt() {
    assert_stable(
        "%n: index, %b: memref<2048xi8>, %i: index",
        "    %alloc = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf32>
    %view = memref.view %b[%i][%n] : memref<2048xi8> to memref<?xf32>
    %subview = memref.subview %alloc[%i] [4] [1] : memref<?xf32> to memref<4xf32, strided<[1], offset: ?>>
    %0 = memref.load %view[%i] : memref<?xf32>
    memref.store %0, %alloc[%i] : memref<?xf32>
    %cast = memref.cast %alloc : memref<?xf32> to memref<4xf32>
    %dim = memref.dim %alloc, %i : memref<?xf32>
    %reinterpret_cast = memref.reinterpret_cast %b to offset: [0], sizes: [%n], strides: [1] : memref<2048xi8> to memref<?xi8>
    memref.copy %cast, %cast : memref<4xf32> to memref<4xf32>
    %1 = memref.atomic_rmw addf %0, %alloc[%i] : (f32, memref<?xf32>) -> f32
    memref.prefetch %alloc[%i], read, locality<3>, data : memref<?xf32>
    memref.dealloc %alloc : memref<?xf32>
",
    );
}

#[test]
fn memref_custom_forms_set_mlir_properties() {
    let g = generic(
        "func.func @f(%n: index, %a: memref<8x8xf32>) {
  %0 = memref.alloc(%n) : memref<?xf32>
  %1 = memref.subview %a[0, %n] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1], offset: ?>>
  return
}
memref.global \"private\" constant @g : memref<2xf32> = dense<1.0>
",
    );
    assert!(g.contains("operandSegmentSizes = array<i32: 1, 0>"), "{g}");
    assert!(
        g.contains("operandSegmentSizes = array<i32: 1, 1, 0, 0>"),
        "{g}"
    );
    assert!(
        g.contains("static_offsets = array<i64: 0, -9223372036854775808>"),
        "{g}"
    );
    assert!(g.contains("static_sizes = array<i64: 4, 4>"), "{g}");
    assert!(
        g.contains("initial_value = dense<1.0> : tensor<2xf32>"),
        "{g}"
    );
    assert!(g.contains("sym_visibility = \"private\""), "{g}");
}

#[test]
fn memref_verifier_rules() {
    // view needs a 1-D i8 source.
    let e = rejected(
        "func.func @f(%b: memref<16xf32>, %i: index) {
  %v = memref.view %b[%i][] : memref<16xf32> to memref<4xf32>
  return
}",
    );
    assert!(e.contains("1D memref of 8-bit signless integer"), "{e}");
    // view result must have an identity layout and one size operand per `?`.
    let e = rejected(
        "func.func @f(%b: memref<16xi8>, %i: index) {
  %v = memref.view %b[%i][] : memref<16xi8> to memref<?xf32>
  return
}",
    );
    assert!(e.contains("incorrect number of size operands"), "{e}");
    let e = rejected(
        "func.func @f(%n: index) {
  %a = memref.alloc() : memref<?xf32>
  return
}",
    );
    assert!(e.contains("dynamic dimension count"), "{e}");
    let e = rejected(
        "func.func @f(%a: memref<4x4xf32>, %i: index) {
  %x = memref.load %a[%i] : memref<4x4xf32>
  return
}",
    );
    assert!(e.contains("incorrect number of indices"), "{e}");
    let e = rejected(
        "func.func @f(%a: i32) {
  \"memref.dealloc\"(%a) : (i32) -> ()
  return
}",
    );
    assert!(e.contains("memref"), "{e}");
}

#[test]
fn scf_ops_roundtrip_with_implicit_terminators() {
    let src = "func.func @f(%lb: index, %ub: index, %s: index, %c: i1, %x: f32) -> f32 {
  %0 = scf.for %i = %lb to %ub step %s iter_args(%acc = %x) -> (f32) {
    %1 = scf.if %c -> (f32) {
      scf.yield %acc : f32
    } else {
      scf.yield %x : f32
    }
    scf.yield %1 : f32
  }
  scf.for %j = %lb to %ub step %s {
    scf.if %c {
      \"foo\"() : () -> ()
    }
  }
  scf.parallel (%p) = (%lb) to (%ub) step (%s) {
    scf.reduce 
  }
  %w = scf.while (%a = %x) : (f32) -> f32 {
    scf.condition(%c) %a : f32
  } do {
  ^bb0(%b: f32):
    scf.yield %b : f32
  }
  return %0 : f32
}
";
    let out = roundtrip(src);
    assert!(out.contains("scf.for %j = %lb to %ub step %s {"), "{out}");
    assert!(
        !out.contains("scf.yield\n"),
        "empty yields are elided: {out}"
    );
    assert!(out.contains("scf.yield %1 : f32"), "{out}");
    assert!(out.contains("} else {"), "{out}");
    assert!(
        out.contains("scf.while (%a = %x) : (f32) -> f32 {"),
        "{out}"
    );
    // The implicit terminator exists in the IR (generic form shows it).
    let g = generic(src);
    assert!(g.contains("\"scf.yield\"() : () -> ()"), "{g}");
    assert!(g.contains("\"scf.reduce\"() : () -> ()"), "{g}");
}

#[test]
fn scf_verifier_rules() {
    let e = rejected(
        "func.func @f(%a: f32, %i: index) {
  \"scf.for\"(%a, %i, %i) ({
  ^bb0(%iv: f32):
    scf.yield
  }) : (f32, index, index) -> ()
  return
}",
    );
    assert!(
        e.contains("operand #0 must be signless integer or index"),
        "{e}"
    );
    let e = rejected(
        "func.func @f(%c: i1, %x: i32) {
  %0 = scf.if %c -> (i32) {
    scf.yield %x : i32
  }
  return
}",
    );
    assert!(e.contains("must have an else block"), "{e}");
    let e = rejected(
        "func.func @f(%i: index, %x: f32, %y: i32) {
  %0 = scf.for %k = %i to %i step %i iter_args(%a = %x) -> (f32) {
    scf.yield %y : i32
  }
  return
}",
    );
    assert!(e.contains("have different type"), "{e}");
    let e = rejected("func.func @f() {\n  scf.yield\n}");
    assert!(e.contains("expects parent op"), "{e}");
}

#[test]
fn cf_ops_roundtrip_and_verify() {
    let src = "func.func @f(%c: i1, %x: i32) {
  cf.cond_br %c weights([1, 3]), ^bb1(%x : i32), ^bb2
^bb1(%a: i32):
  cf.switch %a : i32, [
    default: ^bb2,
    42: ^bb3(%a : i32)
  ]
^bb2:
  cf.assert %c, \"boom\"
  return
^bb3(%b: i32):
  cf.br ^bb2
}
";
    let out = roundtrip(src);
    assert!(
        out.contains("cf.cond_br %c weights([1, 3]), ^bb1(%x : i32), ^bb2"),
        "{out}"
    );
    assert!(out.contains("42: ^bb3(%a : i32)"), "{out}");
    let g = generic(src);
    assert!(
        g.contains("case_values = dense<[42]> : vector<1xi32>"),
        "{g}"
    );
    assert!(g.contains("case_operand_segments = array<i32: 1>"), "{g}");
    let e = rejected(
        "func.func @f(%x: i32) {
  cf.br ^bb1(%x : i32)
^bb1(%y: f32):
  return
}",
    );
    assert!(e.contains("type mismatch"), "{e}");
}

#[test]
fn affine_ops_roundtrip_and_maps() {
    let src = "func.func @f(%A: memref<100x100xf32>, %n: index) {
  affine.for %i = 0 to %n step 2 {
    affine.for %j = max affine_map<(d0) -> (d0, 4)>(%i) to 100 {
      %0 = affine.load %A[%i + 1, %j] : memref<100x100xf32>
      affine.store %0, %A[%j, symbol(%n)] : memref<100x100xf32>
      %1 = affine.min affine_map<(d0)[s0] -> (d0, s0)>(%i)[%n]
    }
  }
  affine.parallel (%x, %y) = (0, max(%n, 2)) to (%n, 100) step (1, 4) {
  }
  affine.if affine_set<(d0) : (d0 - 10 >= 0)>(%n) {
  }
  return
}
";
    let out = roundtrip(src);
    assert!(out.contains("affine.for %i = 0 to %n step 2 {"), "{out}");
    assert!(
        out.contains("affine.for %j = max affine_map<(d0) -> (d0, 4)>(%i) to 100 {"),
        "{out}"
    );
    assert!(out.contains("affine.load %A[%i + 1, %j]"), "{out}");
    assert!(out.contains("affine.store %0, %A[%j, symbol(%n)]"), "{out}");
    assert!(
        out.contains("affine.parallel (%x, %y) = (0, max(%n, 2)) to (%n, 100) step (1, 4)"),
        "{out}"
    );
    let g = generic(src);
    assert!(
        g.contains("upperBoundMap = affine_map<()[s0] -> (s0)>"),
        "{g}"
    );
    assert!(g.contains("step = 2 : index"), "{g}");
    assert!(
        g.contains("lowerBoundsGroups = dense<[1, 2]> : tensor<2xi32>"),
        "{g}"
    );
    assert!(g.contains("map = affine_map<(d0)[s0] -> (d0, s0)>"), "{g}");
}

#[test]
fn affine_rejects_non_affine_dims() {
    let e = rejected(
        "func.func @f(%A: memref<10xf32>, %i: index) {
  scf.for %k = %i to %i step %i {
    %0 = affine.load %A[%k] : memref<10xf32>
  }
  return
}",
    );
    assert!(e.contains("cannot be used as a dimension id"), "{e}");
    let e = rejected(
        "func.func @f() {
  affine.for %i = 0 to 10 {
    affine.for %j = 0 to %i {
    }
  }
  return
}",
    );
    assert!(e.contains("cannot be used as a symbol"), "{e}");
}

#[test]
fn bufferization_ops_roundtrip() {
    assert_stable(
        "%m: memref<2xi32>, %c: i1, %t: tensor<?xf32>, %n: index",
        "    %0 = bufferization.to_tensor %m restrict writable : memref<2xi32> to tensor<2xi32>
    %1 = bufferization.dealloc (%m : memref<2xi32>) if (%c) retain (%m : memref<2xi32>)
    %2 = bufferization.alloc_tensor(%n) : tensor<?xf32>
    %3 = bufferization.alloc_tensor() copy(%t) : tensor<?xf32>
    %4 = bufferization.to_buffer %t read_only : tensor<?xf32> to memref<?xf32>
",
    );
    let e = rejected(
        "func.func @f(%n: index) {
  %0 = bufferization.alloc_tensor(%n) : tensor<?x?xf32>
  return
}",
    );
    assert!(e.contains("incorrect number of dynamic sizes"), "{e}");
}
