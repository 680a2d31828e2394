//! The op table generated from MLIR 22's ODS files and the declarative-format engine
//! (issue 10): the table is current (regenerated with llvm-tblgen-22 when installed), every op
//! of it is registered, the engine reads and re-prints custom forms idempotently, and the
//! table-driven verifier rejects what MLIR rejects (counts, exact types, unknown ops of a
//! closed dialect). The differential check against mlir-opt-22 is `scripts/fuzz_ods.py`
//! (run by memplan-cli's `ods_fuzz_smoke` test).

mod common;

use std::path::Path;
use std::process::Command;

use common::{generic, rejected, roundtrip};
use memplan_ir::{ods, Registry};

/// The checked-in table equals a fresh generation (skipped without llvm-tblgen-22 / the .td files).
#[test]
fn ods_table_is_current() {
    let td = Path::new("/usr/lib/llvm-22/include/mlir/Dialect/Index/IR/IndexOps.td");
    let required = std::env::var("MEMPLAN_REQUIRE_MLIR").as_deref() == Ok("1");
    let tblgen = Command::new("llvm-tblgen-22").arg("--version").output();
    if !td.exists() || tblgen.is_err() {
        assert!(
            !required,
            "llvm-tblgen-22 or the MLIR .td files are missing but MEMPLAN_REQUIRE_MLIR=1"
        );
        eprintln!("llvm-tblgen-22 / libmlir-22-dev not installed: skipped");
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/gen_ods_table.py");
    let Ok(out) = Command::new("python3").arg(&script).arg("--check").output() else {
        assert!(!required, "python3 not found but MEMPLAN_REQUIRE_MLIR=1");
        eprintln!("python3 not found: skipped");
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_table_op_is_registered() {
    let t = ods::table();
    assert!(t.ops.len() > 1200, "{} ops", t.ops.len());
    let reg = Registry::with_all_dialects();
    for op in &t.ops {
        assert!(reg.get(op.name).is_some(), "{} not registered", op.name);
    }
    for d in [
        "index", "async", "nvvm", "rocdl", "nvgpu", "amdgpu", "llvm", "vector",
    ] {
        assert!(t.dialects.contains(&d), "{d} missing from the table");
    }
}

/// Custom text -> print must be a fixed point, and equal the generic form's print.
fn fixed_point(src: &str) -> String {
    let once = roundtrip(src);
    assert_eq!(roundtrip(&once), once, "print is not a fixed point");
    let via_generic = roundtrip(&generic(src));
    assert_eq!(via_generic, once, "generic input prints differently");
    once
}

#[test]
fn engine_reads_and_prints_index_ops() {
    let out = fixed_point(
        "func.func @f(%a: index, %b: index) {\n  %0 = index.cmp slt(%a, %b)\n  %1 = index.add %a, %b\n  %c = index.constant 42\n  %2 = index.casts %a : index to i32\n  %t = index.bool.constant true\n  return\n}\n",
    );
    assert!(out.contains("index.cmp slt(%a, %b)"), "{out}");
    assert!(out.contains("index.constant 42"), "{out}");
    assert!(out.contains("index.casts %a : index to i32"), "{out}");
}

#[test]
fn engine_reads_and_prints_llvm_and_gpu_target_ops() {
    let out = fixed_point(
        "func.func @f(%p: !llvm.ptr, %q: !llvm.ptr<3>, %i: i32) {\n  %0 = llvm.load volatile %p atomic syncscope(\"agent\") acquire {alignment = 4 : i64} : !llvm.ptr -> i32\n  llvm.store %i, %p : i32, !llvm.ptr\n  llvm.intr.lifetime.start %p : !llvm.ptr\n  %1 = nvvm.read.ptx.sreg.tid.x : i32\n  %2 = rocdl.workitem.id.x : i32\n  nvvm.barrier0\n  %3 = rocdl.ds.read.tr6.b96 %q : <3> -> vector<3xi32>\n  return\n}\n",
    );
    assert!(out.contains("atomic syncscope(\"agent\") acquire"), "{out}");
    assert!(
        out.contains("rocdl.ds.read.tr6.b96 %q : <3> -> vector<3xi32>"),
        "{out}"
    );
    let g = generic(&out);
    assert!(g.contains("ordering = 4 : i64"), "{g}");
}

#[test]
fn table_verifier_rejects_like_mlir() {
    let e = rejected("func.func @f() {\n  \"index.foo\"() : () -> ()\n  return\n}\n");
    assert!(e.contains("does not allow unknown operations"), "{e}");
    let e = rejected(
        "func.func @f(%a: index) {\n  %0 = \"index.add\"(%a) : (index) -> index\n  return\n}\n",
    );
    assert!(e.contains("expected 2 operands"), "{e}");
    let e = rejected(
        "func.func @f(%a: i32, %b: i32) {\n  %0 = \"index.add\"(%a, %b) : (i32, i32) -> index\n  return\n}\n",
    );
    assert!(e.contains("operand #0 must be index"), "{e}");
    // unregistered dialects stay allowed in generic form
    let _ = roundtrip("func.func @f() {\n  \"foo.bar\"() : () -> ()\n  return\n}\n");
}

#[test]
fn async_custom_directives() {
    // custom<AwaitResultType> and custom<AsyncDependencies> are implemented by the engine
    let out = fixed_point(
        "func.func @f(%t: !async.token, %v: !async.value<f32>, %d: !gpu.async.token, %m: memref<4xf32>, %i: index) {\n  async.await %t : !async.token\n  %0 = async.await %v : !async.value<f32>\n  %1:2 = gpu.create_dn_tensor async [%d] %m, %i : index into memref<4xf32>\n  return\n}\n",
    );
    assert!(
        out.contains("%0 = async.await %v : !async.value<f32>"),
        "{out}"
    );
    assert!(
        out.contains("gpu.create_dn_tensor async [%d] %m, %i"),
        "{out}"
    );
}

/// How much of the table the engine covers (printed with `--nocapture`); the floor guards
/// against regressions of the format compiler.
#[test]
fn format_engine_coverage() {
    let t = ods::table();
    let with_format: Vec<_> = t.ops.iter().filter(|o| !o.format.is_empty()).collect();
    let compiled = with_format
        .iter()
        .filter(|o| o.compiled_format().is_ok())
        .count();
    let mut why = std::collections::BTreeMap::new();
    for o in &with_format {
        if let Err(e) = o.compiled_format() {
            let key = e.split(' ').take(3).collect::<Vec<_>>().join(" ");
            *why.entry(key).or_insert(0) += 1;
        }
    }
    eprintln!(
        "{} ops, {} with a declarative format, {} compiled by the engine; not compiled: {why:?}",
        t.ops.len(),
        with_format.len(),
        compiled
    );
    assert!(
        compiled * 10 >= with_format.len() * 8,
        "{compiled} of {}",
        with_format.len()
    );
}
