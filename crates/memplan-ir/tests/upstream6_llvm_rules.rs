//! Rules found missing by the sixth upstream sample of the LLVM-family dialects and by the
//! leftovers of BENCHMARKS.md section 4.2.6 (section 4.2.8): the LLVM dialect's type
//! constraints on intrinsic operands (`LLVM_ScalarOrVectorOf`, `LLVM_VectorOf`,
//! `LLVM_AnyVector`), `llvm.module_flags` values, `NVVMRequiresSM` / `NVVMRequiresSMa`
//! against a `gpu.module`'s `#nvvm.target` chip, the kinds of inherent attributes in generic
//! form (constrained-intrinsic rounding / exception behaviour, `llvm.mlir.global`,
//! `llvm.mlir.addressof`) and the `llvm.data_layout` string. Each entry is a module of our
//! own with MLIR 22's verdict; with `mlir-opt-22` installed the table itself is checked
//! against it (required with MEMPLAN_REQUIRE_MLIR=1).

mod common;

/// `None`: MLIR accepts the module; `Some(needle)`: MLIR rejects it and memplan's message
/// must contain `needle`.
const CASES: &[(&str, Option<&str>)] = &[
    // ---- LLVM type constraints on operands (generic form) ----
    (
        "llvm.func @f(%a: f32, %v: vector<[4]xf32>) {\n  %0 = \"llvm.intr.exp\"(%a) : (f32) -> f32\n  %1 = \"llvm.intr.exp\"(%v) : (vector<[4]xf32>) -> vector<[4]xf32>\n  llvm.return\n}",
        None,
    ),
    (
        "llvm.func @f(%a: i32) {\n  %0 = \"llvm.intr.exp\"(%a) : (i32) -> i32\n  llvm.return\n}",
        Some("operand #0 must be floating point LLVM type or LLVM dialect-compatible vector of floating point LLVM type, but got 'i32'"),
    ),
    (
        "func.func @f(%a: vector<2x2xf32>) {\n  %0 = \"llvm.intr.exp\"(%a) : (vector<2x2xf32>) -> vector<2x2xf32>\n  return\n}",
        Some("operand #0 must be floating point LLVM type"),
    ),
    (
        "func.func @f(%a: tf32) {\n  %0 = \"llvm.intr.exp\"(%a) : (tf32) -> tf32\n  return\n}",
        Some("operand #0 must be floating point LLVM type"),
    ),
    (
        "llvm.func @f(%a: f32) {\n  %0 = \"llvm.intr.ctpop\"(%a) : (f32) -> f32\n  llvm.return\n}",
        Some("operand #0 must be signless integer or LLVM dialect-compatible vector of signless integer, but got 'f32'"),
    ),
    (
        "llvm.func @f(%a: vector<4xi32>) -> f32 {\n  %0 = llvm.intr.vector.reduce.fmax(%a) : (vector<4xi32>) -> i32\n  %1 = llvm.mlir.constant(0.0 : f32) : f32\n  llvm.return %1 : f32\n}",
        Some("operand #0 must be LLVM dialect-compatible vector of floating-point, but got 'vector<4xi32>'"),
    ),
    (
        "llvm.func @f(%v: vector<7xf32>, %p: !llvm.ptr, %m: vector<7xi32>) {\n  llvm.intr.masked.store %v, %p, %m {alignment = 1 : i32} : vector<7xf32>, vector<7xi32> into !llvm.ptr\n  llvm.return\n}",
        Some("operand #2 must be LLVM dialect-compatible vector of 1-bit signless integer, but got 'vector<7xi32>'"),
    ),
    (
        "llvm.func @f(%p: vector<7xf32>, %m: vector<7xi1>) {\n  %0 = llvm.intr.masked.gather %p, %m {alignment = 1 : i32} : (vector<7xf32>, vector<7xi1>) -> vector<7xf32>\n  llvm.return\n}",
        Some("operand #0 must be LLVM dialect-compatible vector of LLVM pointer type, but got 'vector<7xf32>'"),
    ),
    (
        "llvm.func @f(%a: vector<64xf32>, %b: f32) {\n  %0 = llvm.intr.matrix.multiply %a, %b {lhs_rows = 4 : i32, lhs_columns = 16 : i32, rhs_columns = 3 : i32} : (vector<64xf32>, f32) -> vector<12xf32>\n  llvm.return\n}",
        Some("operand #1 must be LLVM dialect-compatible vector type, but got 'f32'"),
    ),
    (
        "llvm.func @f(%a: !llvm.ppc_fp128) {\n  %0 = \"llvm.intr.fabs\"(%a) : (!llvm.ppc_fp128) -> !llvm.ppc_fp128\n  llvm.return\n}",
        None,
    ),
    // ---- llvm.module_flags values (ModuleFlagAttr::verify) ----
    (
        "llvm.module_flags [#llvm.mlir.module_flag<error, \"wchar_size\", 4 : i32>, #llvm.mlir.module_flag<override, \"probe-stack\", \"inline-asm\">, #llvm.mlir.module_flag<max, \"x\", true>]",
        None,
    ),
    (
        "llvm.func @foo()\nllvm.module_flags [#llvm.mlir.module_flag<error, \"yolo\", @foo>]",
        Some("only integer and string values are currently supported for unknown key '\"yolo\"'"),
    ),
    (
        "llvm.module_flags [#llvm.mlir.module_flag<error, \"yolo\", [\"a\"]>]",
        Some("only integer and string values are currently supported"),
    ),
    (
        "llvm.module_flags [#llvm.mlir.module_flag<append, \"CG Profile\", 3 : i64>]",
        Some("'CG Profile' key expects an array of '#llvm.cgprofile_entry'"),
    ),
    (
        "llvm.func @foo()\nllvm.module_flags [#llvm.mlir.module_flag<append, \"CG Profile\", [#llvm.cgprofile_entry<from = @foo, count = 2>]>]",
        None,
    ),
    (
        "llvm.module_flags [#llvm.mlir.module_flag<error, \"ProfileSummary\", 1 : i32>]",
        Some("'ProfileSummary' key expects a '#llvm.profile_summary' attribute"),
    ),
    // ---- NVVMRequiresSM / NVVMRequiresSMa against the #nvvm.target chip ----
    (
        "gpu.module @m [#nvvm.target<chip = \"sm_90\">] {\n  llvm.func @f() {\n    nvvm.cluster.wait\n    llvm.return\n  }\n}",
        None,
    ),
    (
        "gpu.module @m [#nvvm.target<chip = \"sm_80\">] {\n  llvm.func @f() {\n    nvvm.cluster.wait\n    llvm.return\n  }\n}",
        Some("'nvvm.cluster.wait' op is not supported on sm_80"),
    ),
    (
        "gpu.module @m [#nvvm.target] {\n  llvm.func @f() {\n    %0 = nvvm.read.ptx.sreg.clusterid.x : i32\n    llvm.return\n  }\n}",
        Some("is not supported on sm_50"),
    ),
    (
        "gpu.module @m [#nvvm.target<chip = \"sm_90a\">] {\n  llvm.func @f() {\n    nvvm.wgmma.fence.aligned\n    llvm.return\n  }\n}",
        None,
    ),
    (
        "gpu.module @m [#nvvm.target<chip = \"sm_100\">] {\n  llvm.func @f() {\n    nvvm.wgmma.fence.aligned\n    llvm.return\n  }\n}",
        Some("'nvvm.wgmma.fence.aligned' op is not supported on sm_100"),
    ),
    (
        "gpu.module @m [#nvvm.target<chip = \"sm_101a\">] {\n  llvm.func @f() {\n    nvvm.tcgen05.relinquish_alloc_permit\n    llvm.return\n  }\n}",
        None,
    ),
    (
        "gpu.module @m [#nvvm.target<chip = \"sm_80\", verifyTarget = false>] {\n  llvm.func @f() {\n    nvvm.cluster.wait\n    llvm.return\n  }\n}",
        None,
    ),
    (
        "gpu.module @m [#nvvm.target<chip = \"sm_90\">, #nvvm.target<chip = \"sm_70\">] {\n  llvm.func @f(%i: i32) {\n    %0 = nvvm.redux.sync add %i, %i : i32 -> i32\n    llvm.return\n  }\n}",
        Some("'nvvm.redux.sync' op is not supported on sm_70"),
    ),
    (
        "gpu.module @m [#nvvm.target<chip = \"sm_10\">] {\n}",
        Some("Minimum NVVM target SM version is sm_20"),
    ),
    (
        "gpu.module @m [#nvvm.target<O = 4, chip = \"sm_90\">] {\n}",
        Some("The optimization level must be a number between 0 and 3."),
    ),
    (
        "gpu.module @m [#nvvm.target<chip = \"\">] {\n}",
        Some("The target chip cannot be empty."),
    ),
    // ---- inherent attribute kinds in generic form ----
    (
        "llvm.func @f(%x: f64) {\n  %0 = \"llvm.intr.experimental.constrained.fptrunc\"(%x) <{fpExceptionBehavior = 1 : i64, roundingmode = 0 : i64}> : (f64) -> f32\n  llvm.return\n}",
        None,
    ),
    (
        "llvm.func @f(%x: f64) {\n  %0 = \"llvm.intr.experimental.constrained.fptrunc\"(%x) <{fpExceptionBehavior = 3 : i64, roundingmode = 0 : i64}> : (f64) -> f32\n  llvm.return\n}",
        Some("in property conversion"),
    ),
    (
        "llvm.func @f(%x: f32) {\n  %0 = \"llvm.intr.experimental.constrained.fpext\"(%x) <{fpExceptionBehavior = 1 : i32}> : (f32) -> f64\n  llvm.return\n}",
        Some("in property conversion"),
    ),
    (
        "\"llvm.mlir.global\"() <{addr_space = 1.0 : f32, global_type = i32, linkage = #llvm.linkage<external>, sym_name = \"g\"}> ({\n}) : () -> ()",
        Some("in property conversion"),
    ),
    (
        "\"llvm.mlir.global\"() <{addr_space = 1 : i32, global_type = i32, linkage = #llvm.linkage<external>, sym_name = \"g\"}> ({\n}) : () -> ()",
        None,
    ),
    (
        "llvm.mlir.global external @foo() : i32\nllvm.func @f() {\n  %0 = \"llvm.mlir.addressof\"() <{global_name = \"foo\"}> : () -> !llvm.ptr\n  llvm.return\n}",
        Some("in property conversion"),
    ),
    // ---- the LLVM, NVVM and ROCDL dialects allow unknown ops (generic form) ----
    (
        "func.func @f(%a: vector<[4]xf16>) {\n  %0 = \"llvm.intr.experimental.vector.interleave2\"(%a, %a) : (vector<[4]xf16>, vector<[4]xf16>) -> vector<[8]xf16>\n  \"nvvm.not_an_op\"() : () -> ()\n  \"rocdl.not_an_op\"() : () -> ()\n  return\n}",
        None,
    ),
    (
        "func.func @f() {\n  \"nvgpu.not_an_op\"() : () -> ()\n  return\n}",
        Some("unregistered operation 'nvgpu.not_an_op' found in dialect ('nvgpu')"),
    ),
    // ---- llvm.alloca's custom parser: integer alignment, zero dropped ----
    (
        "llvm.func @f(%n: i64) {\n  %0 = llvm.alloca %n x i32 {alignment = 1.0 : f32} : (i64) -> !llvm.ptr\n  llvm.return\n}",
        Some("expected integer alignment"),
    ),
    // ---- llvm.data_layout ----
    (
        "module attributes {llvm.data_layout = \"e-m:e-p270:32:32-p:64:64:64:32-i64:64-f80:128-n8:16:32:64-S128-ni:1:2-Fi8-A5-G1\"} {\n}",
        None,
    ),
    (
        "module attributes {llvm.data_layout = \"e-S-8\"} {\n}",
        Some("invalid data layout descriptor: malformed specification, must be of the form \"S<size>\""),
    ),
    (
        "module attributes {llvm.data_layout = \"i8:16\"} {\n}",
        Some("i8 must be 8-bit aligned"),
    ),
    (
        "module attributes {llvm.data_layout = \"e--p:64:64\"} {\n}",
        Some("empty specification is not allowed"),
    ),
    (
        "module attributes {llvm.data_layout = \"p:32:64:32\"} {\n}",
        Some("preferred alignment cannot be less than the ABI alignment"),
    ),
    (
        "module attributes {llvm.data_layout = \"pe:64:64\"} {\n}",
        Some("address space 0 cannot be unstable or have external state"),
    ),
    (
        "func.func @f() attributes {llvm.data_layout = \"x\"} {\n  return\n}",
        Some("unknown specifier 'x'"),
    ),
    (
        "module attributes {llvm.data_layout = 1 : i32} {\n}",
        Some("expected 'llvm.data_layout' to be a string attributes"),
    ),
    // ---- nvvm.grid_constant on kernel arguments, rocdl.kernel on LLVM functions only ----
    (
        "llvm.func @k(%a: !llvm.ptr {llvm.byval = i32, nvvm.grid_constant}) {\n  llvm.return\n}",
        Some("attribute must be present only on kernel arguments"),
    ),
    (
        "llvm.func @k(%a: !llvm.ptr {nvvm.grid_constant}) attributes {nvvm.kernel} {\n  llvm.return\n}",
        Some("attribute requires the argument to also have attribute 'llvm.byval'"),
    ),
    (
        "llvm.func @k(%a: !llvm.ptr {llvm.byval = i32, nvvm.grid_constant = true}) attributes {nvvm.kernel} {\n  llvm.return\n}",
        Some("must be a unit attribute"),
    ),
    (
        "llvm.func @k(%a: !llvm.ptr {llvm.byval = i32, nvvm.grid_constant}) attributes {nvvm.kernel} {\n  llvm.return\n}",
        None,
    ),
    (
        "func.func private @f() attributes {rocdl.kernel}",
        Some("attribute attached to unexpected op"),
    ),
    (
        "llvm.func @f() attributes {rocdl.kernel} {\n  llvm.return\n}",
        None,
    ),
];

/// Modules whose prints must read back the same (and normalise like mlir-opt-22's).
const ROUND_TRIPS: &[&str] = &[
    "llvm.func @f(%n: i64) {\n  %0 = llvm.alloca %n x i32 {alignment = 0} : (i64) -> !llvm.ptr\n  %1 = llvm.alloca %n x i32 {alignment = 8} : (i64) -> !llvm.ptr\n  llvm.return\n}",
    "func.func @f(%a: vector<[4]xf16>) {\n  %0 = \"llvm.intr.experimental.vector.interleave2\"(%a, %a) : (vector<[4]xf16>, vector<[4]xf16>) -> vector<[8]xf16>\n  return\n}",
];

#[test]
fn round_trips_read_back_the_same() {
    common::assert_round_trips(ROUND_TRIPS);
}

#[test]
fn memplan_agrees_with_mlir_22_on_each_case() {
    common::assert_verdicts(CASES);
}
