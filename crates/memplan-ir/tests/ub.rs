//! The `ub` dialect: `ub.poison` as mlir-opt-22 prints it after `--affine-super-vectorize` (the
//! padding of `vector.transfer_read`), its default `#ub.poison` value property and the `<...>`
//! form for another value (issue 9: vectorised pipeline outputs could not be read).

mod common;
use common::{generic, rejected, roundtrip};
use memplan_ir::{parse_module, verify, ParseOptions, Registry};

#[test]
fn poison_prints_like_mlir_opt() {
    let src = "func.func @f(%m: memref<8xf32>, %i: index) -> (vector<4xf32>, i1, index) {
  %0 = ub.poison : f32
  %1 = vector.transfer_read %m[%i], %0 : memref<8xf32>, vector<4xf32>
  %2 = ub.poison {tag = 1 : i64} : i1
  %3 = ub.poison <#other.poison> : index
  return %1, %2, %3 : vector<4xf32>, i1, index
}
";
    let out = roundtrip(src);
    for line in [
        "%0 = ub.poison : f32",
        "%2 = ub.poison {tag = 1 : i64} : i1",
        "%3 = ub.poison <#other.poison> : index",
    ] {
        assert!(out.contains(line), "missing {line:?} in:\n{out}");
    }
    assert_eq!(roundtrip(&out), out);
    // the value property is always set, as mlir-opt-22's generic print shows
    let g = generic(src);
    assert!(
        g.contains("\"ub.poison\"() <{value = #ub.poison}> : () -> f32"),
        "{g}"
    );
    assert!(
        g.contains("\"ub.poison\"() <{value = #other.poison}> : () -> index"),
        "{g}"
    );
    // mlir-opt-22's generic form reads back
    let back = roundtrip("func.func @g() -> f32 {\n  %0 = \"ub.poison\"() <{value = #ub.poison}> : () -> f32\n  return %0 : f32\n}\n");
    assert!(back.contains("%0 = ub.poison : f32"), "{back}");
}

#[test]
fn poison_verifier_rules() {
    let e = rejected(
        "func.func @f(%x: f32) {\n  %0 = \"ub.poison\"(%x) <{value = #ub.poison}> : (f32) -> f32\n  return\n}\n",
    );
    assert!(e.contains("requires 0 operands"), "{e}");
    let e = rejected(
        "func.func @f() {\n  \"ub.poison\"() <{value = #ub.poison}> : () -> ()\n  return\n}\n",
    );
    assert!(e.contains("requires one result"), "{e}");
    // `value` is default-valued in MLIR: the op without it verifies (as in mlir-opt-22)
    let reg = Registry::with_all_dialects();
    let m = parse_module(
        "func.func @f() {\n  %0 = \"ub.poison\"() : () -> f32\n  return\n}\n",
        &reg,
        ParseOptions::default(),
    )
    .unwrap();
    verify(&m, &reg).unwrap();
}
