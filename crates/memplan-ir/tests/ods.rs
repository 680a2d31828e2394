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
    let mut why: std::collections::BTreeMap<String, Vec<&str>> = Default::default();
    for o in &with_format {
        if let Err(e) = o.compiled_format() {
            why.entry(e.to_string()).or_default().push(o.name);
        }
    }
    eprintln!(
        "{} ops, {} with a declarative format, {} compiled by the engine; not compiled: {why:?}",
        t.ops.len(),
        with_format.len(),
        compiled
    );
    assert!(
        compiled * 100 >= with_format.len() * 98,
        "{compiled} of {}",
        with_format.len()
    );
}

/// `oilist` and the custom directives the engine implements (DynamicIndexList,
/// MNKDimensionList, AllReduceOperation, LLVMLinkage, ShuffleType, IndirectBrOpSucessors,
/// OpBundles), string and symbol-name attributes; each form was checked against mlir-opt-22's
/// own print of the same op.
#[test]
fn engine_oilist_and_custom_directives() {
    let out = fixed_point(
        "func.func @f(%m: memref<8xi32>, %a: i64, %b: i14, %x: f32) {\n  vector.print punctuation <comma>\n  vector.print str \"hi\"\n  vector.print %x : f32\n  %0 = amdgpu.fat_raw_buffer_cast %m resetOffset validBytes(%a) boundsCheck(false) : memref<8xi32> to memref<8xi32, #amdgpu.address_space<fat_raw_buffer>>\n  amdgpu.memory_counter_wait tensor(7) load(1)\n  amdgpu.memory_counter_wait\n  return\n}\n",
    );
    // clauses print in declaration order, whatever order they were read in
    assert!(
        out.contains("%m validBytes(%a) boundsCheck(false) resetOffset :"),
        "{out}"
    );
    assert!(
        out.contains("amdgpu.memory_counter_wait load(1) tensor(7)\n"),
        "{out}"
    );
    assert!(out.contains("vector.print str \"hi\""), "{out}");
    // each clause at most once
    let e =
        rejected("func.func @f() {\n  amdgpu.memory_counter_wait load(1) load(2)\n  return\n}\n");
    assert!(!e.is_empty());

    let out = fixed_point(
        "func.func @f(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<4xf32>, %x: f32) {\n  %0 = amdgpu.wmma 16x16x16 %a * %b + %c : vector<4xf16>, vector<4xf16>, vector<4xf32>\n  %1 = gpu.subgroup_reduce minimumf %x uniform cluster(size = 4, stride = 2) : (f32) -> f32\n  return\n}\n",
    );
    assert!(out.contains("amdgpu.wmma 16x16x16 %a * %b + %c"), "{out}");
    assert!(
        out.contains("gpu.subgroup_reduce  minimumf %x uniform"),
        "{out}"
    );
    let g = generic(&out);
    assert!(g.contains("k = 16 : i32"), "{g}");
    assert!(g.contains("op = #gpu<all_reduce_op minimumf>"), "{g}");
    let e = rejected("func.func @f(%x: f32) {\n  %1 = gpu.subgroup_reduce frobnicate %x : (f32) -> f32\n  return\n}\n");
    assert!(e.contains("invalid op kind"), "{e}");

    let out = fixed_point(
        "llvm.func @g(%p: !llvm.ptr, %a: i32, %c: i1, %v: vector<4xf32>, %w: vector<[4]xf32>) {\n  %0 = llvm.shufflevector %v, %v [0, 1, 4] : vector<4xf32>\n  %1 = llvm.shufflevector %w, %w [0, 0, 0, 0] : vector<[4]xf32>\n  llvm.intr.assume %c : i1\n  llvm.intr.assume %c [\"align\"(%p, %a : !llvm.ptr, i32), \"bar\"()] : i1\n  %2 = llvm.inline_asm has_side_effects \"nop\", \"=r\"  : () -> i32\n  llvm.indirectbr %p : !llvm.ptr, [\n  ^bb1,\n  ^bb2(%a : i32)\n  ]\n^bb1:\n  llvm.return\n^bb2(%x: i32):\n  llvm.return\n}\n",
    );
    let g = generic(&out);
    assert!(g.contains("-> vector<3xf32>"), "{g}");
    assert!(g.contains("-> vector<[4]xf32>"), "{g}");
    assert!(g.contains("op_bundle_sizes = array<i32: 2, 0>"), "{g}");
    assert!(g.contains("op_bundle_tags = [\"align\", \"bar\"]"), "{g}");
    assert!(
        g.contains("indbr_operand_segments = array<i32: 0, 1>"),
        "{g}"
    );
    assert!(g.contains("asm_string = \"nop\""), "{g}");
    // no bundles: the sizes attribute is still set, empty
    assert!(g.contains("op_bundle_sizes = array<i32>"), "{g}");

    let out = fixed_point(
        "llvm.func @r() -> !llvm.ptr {\n  %0 = llvm.mlir.zero : !llvm.ptr\n  llvm.return %0 : !llvm.ptr\n}\nllvm.mlir.ifunc @i1 : !llvm.func<void ()>, !llvm.ptr @r\nllvm.mlir.ifunc internal @i2 : !llvm.func<void ()>, !llvm.ptr @r\n",
    );
    assert!(out.contains("llvm.mlir.ifunc external @i1"), "{out}");
    let g = generic(&out);
    assert!(g.contains("linkage = #llvm.linkage<internal>"), "{g}");
    assert!(g.contains("sym_name = \"i2\""), "{g}");
}

/// Attributes whose constraint has a default are optional (MLIR fills in the default), and
/// forms MLIR cannot read back are printed generic: an empty `type($variadic)` list, a bare
/// `vector.print` (a following `%r = ...` would be read as its operand).
#[test]
fn engine_defaults_and_unreadable_forms() {
    let out = roundtrip(
        "func.func @f(%d: !gpu.sparse.spgemmop_handle, %a: !gpu.sparse.spmat_handle) {\n  gpu.spgemm_copy %a, %a, %a, %d : f32\n  return\n}\n",
    );
    assert!(
        out.contains("gpu.spgemm_copy %a, %a, %a, %d : f32"),
        "{out}"
    );
    let out = roundtrip(
        "func.func @f(%t: !gpu.async.token, %a: !gpu.sparse.spmat_handle, %b: !gpu.sparse.dntensor_handle) {\n  %0 = \"gpu.spmm\"(%t, %a, %b, %b) <{computeType = f32, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>}> : (!gpu.async.token, !gpu.sparse.spmat_handle, !gpu.sparse.dntensor_handle, !gpu.sparse.dntensor_handle) -> !gpu.async.token\n  return\n}\n",
    );
    assert!(out.contains("\"gpu.spmm\"("), "{out}");
    let out = roundtrip("func.func @f() {\n  \"vector.print\"() : () -> ()\n  return\n}\n");
    assert!(out.contains("\"vector.print\"()"), "{out}");
    let out = roundtrip(
        "func.func @f(%a: vector<2x2xf32>, %m: memref<4xf32>) {\n  %0:4 = vector.to_elements %a : vector<2x2xf32>\n  %1:2 = memref.distinct_objects %m, %m : memref<4xf32>, memref<4xf32>\n  return\n}\n",
    );
    assert!(
        out.contains("%0:4 = vector.to_elements %a : vector<2x2xf32>"),
        "{out}"
    );
}

/// C++ verifier rules (`verify_cpp_rules`): each accepted form and each rejected one was
/// checked against mlir-opt-22 (same accept/reject, same message where noted).
#[test]
fn cpp_verifier_rules_accept_and_reject() {
    let head = "func.func @f(%v: vector<4xf32>, %vi: vector<4xi32>, %m: memref<8xf32>, %mu: memref<*xf32>, %i: index, %mk: vector<4xi1>, %w: vector<2x4xf32>, %w3: vector<2x3xf32>, %x: f32, %n: i32, %t: !async.token, %av: !async.value<f32>, %tt: tensor<4xf32>) {\n";
    let ok = [
        "%0:4 = vector.to_elements %v : vector<4xf32>",
        "%1:2 = memref.distinct_objects %m, %m : memref<8xf32>, memref<8xf32>",
        "vector.store %v, %m[%i] : memref<8xf32>, vector<4xf32>",
        "%2 = vector.load %m[%i] : memref<8xf32>, vector<4xf32>",
        "%3 = vector.maskedload %m[%i], %mk, %v : memref<8xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>",
        "vector.maskedstore %m[%i], %mk, %v : memref<8xf32>, vector<4xi1>, vector<4xf32>",
        "%4 = vector.interleave %v, %v : vector<4xf32> -> vector<8xf32>",
        "%5, %6 = vector.deinterleave %w : vector<2x4xf32> -> vector<2x2xf32>",
        "%7 = index.casts %n : i32 to index",
        "%8 = index.castu %i : index to i64",
        "%9 = memref.memory_space_cast %m : memref<8xf32> to memref<8xf32, 1>",
        "%10 = memref.memory_space_cast %mu : memref<*xf32> to memref<*xf32, 1>",
        "async.await %t : !async.token",
        "%11 = async.await %av : !async.value<f32>",
        "%12 = amdgpu.permlane_swap %x 16 : f32",
        "nvvm.setmaxregister increase 256",
        "%13 = vector.reduction <add>, %v : vector<4xf32> into f32",
        "%14 = vector.broadcast %x : f32 to vector<4xf32>",
        "%15:2 = gpu.rotate %x, 1, 8 : f32",
        "vector.store %v, %m[%i] {alignment = 8 : i64} : memref<8xf32>, vector<4xf32>",
        "nvvm.fence.sync_restrict {order = #nvvm.mem_order<acquire>}",
        "amdgpu.raw_buffer_store %x -> %m[%n] : f32 -> memref<8xf32>, i32",
        "%16 = vector.create_mask %i, %i : vector<2x4xi1>",
        "%17 = vector.constant_mask [1, 2] : vector<2x4xi1>",
        "%18 = tensor.concat dim(0) %tt, %tt : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>",
        "%19 = tensor.splat %x[%i] : tensor<?xf32>",
        "%20 = gpu.subgroup_reduce and %n : (i32) -> i32",
        "%22 = llvm.zext %n : i32 to i64",
        "%23 = llvm.sext %vi : vector<4xi32> to vector<4xi64>",
        "%21 = gpu.all_reduce %x {\n  ^bb0(%a: f32, %b: f32):\n    gpu.yield %a : f32\n  } : (f32) -> f32",
    ];
    for l in ok {
        roundtrip(&format!("{head}  {l}\n  return\n}}\n"));
    }
    let _ = roundtrip("llvm.comdat @c {\n  llvm.comdat_selector @any any\n}\n");
    let bad = [
        ("%0:3 = \"vector.to_elements\"(%v) : (vector<4xf32>) -> (f32, f32, f32)", "element count and types"),
        ("%0:4 = \"vector.to_elements\"(%v) : (vector<4xf32>) -> (f32, f32, f32, i32)", "element count and types"),
        ("%1:2 = \"memref.distinct_objects\"(%m, %m) : (memref<8xf32>, memref<8xf32>) -> (memref<8xf32>, memref<4xf32>)", "operand types and result types must match"),
        ("\"vector.store\"(%vi, %m, %i) : (vector<4xi32>, memref<8xf32>, index) -> ()", "base and valueToStore element type should match"),
        ("%2 = \"vector.load\"(%m, %i) : (memref<8xf32>, index) -> vector<4xi32>", "base and result element types should match"),
        ("%3 = \"vector.maskedload\"(%m, %i, %mk, %vi) : (memref<8xf32>, index, vector<4xi1>, vector<4xi32>) -> vector<4xi32>", "base and result element type should match"),
        ("\"vector.maskedstore\"(%m, %i, %mk, %vi) : (memref<8xf32>, index, vector<4xi1>, vector<4xi32>) -> ()", "base and valueToStore element type should match"),
        ("%4 = \"vector.interleave\"(%v, %v) : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>", "double the width"),
        ("%5, %6 = \"vector.deinterleave\"(%w3) : (vector<2x3xf32>) -> (vector<2x1xf32>, vector<2x1xf32>)", "even number of elements"),
        ("%5, %6 = \"vector.deinterleave\"(%w) : (vector<2x4xf32>) -> (vector<2x4xf32>, vector<2x4xf32>)", "half the width"),
        ("%7 = \"index.casts\"(%n) : (i32) -> i32", "cast incompatible"),
        ("%7 = \"index.casts\"(%i) : (index) -> index", "cast incompatible"),
        ("%7 = \"index.castu\"(%n) : (i32) -> i64", "cast incompatible"),
        ("%9 = \"memref.memory_space_cast\"(%m) : (memref<8xf32>) -> memref<*xf32, 1>", "cast incompatible"),
        ("%9 = \"memref.memory_space_cast\"(%m) : (memref<8xf32>) -> memref<4xf32, 1>", "cast incompatible"),
        ("%11 = \"async.await\"(%t) : (!async.token) -> f32", "awaiting on a token must have empty result"),
        ("%11 = \"async.await\"(%av) : (!async.value<f32>) -> i32", "does not match async value type"),
        ("%12 = \"amdgpu.permlane_swap\"(%x) <{row_length = 8 : i32}> : (f32) -> f32", "row_length attribute must either be 16 or 32"),
        ("\"nvvm.setmaxregister\"() <{regCount = 20 : i32, action = #nvvm<action increase>}> : () -> ()", "multiple of 8"),
        ("\"nvvm.setmaxregister\"() <{regCount = 264 : i32, action = #nvvm<action increase>}> : () -> ()", "in between 24 to 256"),
        ("%13 = \"vector.reduction\"(%v) <{kind = #vector.kind<add>}> : (vector<4xf32>) -> i32", "source operand and result have same element type"),
        ("%14 = \"vector.broadcast\"(%x) : (f32) -> vector<4xi32>", "source operand and result have same element type"),
        ("\"llvm.comdat_selector\"() <{sym_name = \"c\", comdat = 0 : i64}> : () -> ()", "symbol's parent must have the SymbolTable trait"),
        ("%2 = \"vector.load\"(%m, %i, %i) : (memref<8xf32>, index, index) -> vector<4xf32>", "requires 1 indices"),
        ("\"vector.store\"(%v, %m) : (vector<4xf32>, memref<8xf32>) -> ()", "requires 1 indices"),
        ("%3 = \"vector.maskedload\"(%m, %mk, %v) : (memref<8xf32>, vector<4xi1>, vector<4xf32>) -> vector<4xf32>", "requires 1 indices"),
        ("%r:2 = \"gpu.rotate\"(%x) <{offset = 1 : i32, width = 6 : i32}> : (f32) -> (f32, i1)", "attribute 'width' failed to satisfy constraint"),
        ("\"vector.store\"(%v, %m, %i) <{alignment = 0 : i64}> : (vector<4xf32>, memref<8xf32>, index) -> ()", "attribute 'alignment' failed to satisfy constraint"),
        ("\"vector.store\"(%v, %m, %i) <{alignment = 6 : i64}> : (vector<4xf32>, memref<8xf32>, index) -> ()", "attribute 'alignment' failed to satisfy constraint"),
        ("\"nvvm.fence.sync_restrict\"() <{order = #nvvm.mem_order<acq_rel>}> : () -> ()", "only acquire and release semantics are supported"),
        ("\"amdgpu.raw_buffer_store\"(%x, %m, %n, %n) <{operandSegmentSizes = array<i32: 1, 1, 2, 0>}> : (f32, memref<8xf32>, i32, i32) -> ()", "Expected 1 indices to memref"),
        ("%c = \"vector.create_mask\"(%i) : (index) -> vector<2x4xi1>", "must specify an operand for each result vector dimension"),
        ("%c = \"vector.constant_mask\"() <{mask_dim_sizes = array<i64: 2>}> : () -> vector<2x4xi1>", "must specify array attr of size equal vector result rank"),
        ("%c = \"tensor.concat\"() <{dim = 0 : i64}> : () -> tensor<4xf32>", "requires at least one input"),
        ("%c = \"tensor.concat\"(%tt) <{dim = 0 : i64}> : (tensor<4xf32>) -> tensor<4x1xf32>", "rank of concatenated inputs must match result rank"),
        ("%c = \"tensor.concat\"(%tt) <{dim = 1 : i64}> : (tensor<4xf32>) -> tensor<4xf32>", "concatenation dim must be less than the tensor rank"),
        ("%c = \"tensor.splat\"(%x, %i) : (f32, index) -> tensor<4xf32>", "incorrect number of dynamic sizes, has 1, expected 0"),
        ("%c = gpu.subgroup_reduce and %x : (f32) -> f32", "`and` reduction operation is not compatible with type"),
        ("%c = gpu.subgroup_reduce maximumf %n : (i32) -> i32", "`maximumf` reduction operation is not compatible with type"),
        ("%c = gpu.all_reduce %x {\n  ^bb0(%a: f32):\n    gpu.yield %a : f32\n  } : (f32) -> f32", "expected two region arguments"),
        ("%c = gpu.all_reduce %x {\n  ^bb0(%a: f32, %b: f32):\n    gpu.yield %n : i32\n  } : (f32) -> f32", "incorrect gpu.yield type"),
        ("%c = \"llvm.zext\"(%n) : (i32) -> vector<4xi64>", "input type is an integer but output type is a vector"),
        ("%c = \"llvm.zext\"(%vi) : (vector<4xi32>) -> i64", "input type is a vector but output type is an integer"),
        ("%c = \"llvm.sext\"(%vi) : (vector<4xi32>) -> vector<2xi64>", "incompatible shape"),
        ("%c = \"llvm.zext\"(%n) : (i32) -> i32", "integer width of the output type is smaller or equal"),
    ];
    for (l, want) in bad {
        let e = rejected(&format!("{head}  {l}\n  return\n}}\n"));
        assert!(e.contains(want), "{l}: {e}");
    }
}
