//! Classes found by the differential fuzzer (scripts/fuzz_ods.py; seed 61 and the `--wide`
//! generator, BENCHMARKS.md section 4.1): `affine.delinearize_index` bases that are statically
//! non-positive, successor operand counts and types of the LLVM dialect's branches, the block
//! counts that ODS region constraints fix (`SizedRegion<1>`, `MaxSizedRegion<1>`),
//! `vector.from_elements` element counts, the LLVM dialect's scalar-or-vector type
//! constraints, dialect enum attributes written `<case>` (`< >` and unknown cases), operand and
//! type counts of a `type($variadic)` directive, `vector.shuffle`'s verifier, the attribute
//! dictionary of `gpu.memcpy`/`gpu.memset`, integer attributes of a fixed type written with
//! another, and the custom-form print of empty blocks. Each
//! verdict was taken from mlir-opt-22; with the tool installed the table is checked against
//! it again (required with MEMPLAN_REQUIRE_MLIR=1).

mod common;

use memplan_ir::{parse_module, print_module, ParseOptions, PrintOptions, Registry};

/// `None`: MLIR accepts the module; `Some(needle)`: MLIR rejects it and memplan's message
/// must contain `needle`.
const CASES: &[(&str, Option<&str>)] = &[
    // ---- affine.delinearize_index: no basis element may be statically non-positive ----
    (
        "func.func @f(%i: index) -> (index, index) {\n  %0:2 = affine.delinearize_index %i into (0, 4) : index, index\n  return %0#0, %0#1 : index, index\n}",
        Some("no basis element may be statically non-positive"),
    ),
    (
        "func.func @f(%i: index) -> (index, index) {\n  %0:2 = affine.delinearize_index %i into (-2, 4) : index, index\n  return %0#0, %0#1 : index, index\n}",
        Some("no basis element may be statically non-positive"),
    ),
    (
        "func.func @f(%i: index, %n: index) -> (index, index) {\n  %0:2 = affine.delinearize_index %i into (%n, 4) : index, index\n  return %0#0, %0#1 : index, index\n}",
        None,
    ),
    (
        "func.func @f(%i: index) -> (index, index) {\n  %0:2 = \"affine.delinearize_index\"(%i) <{static_basis = array<i64: 0, 4, 5>}> : (index) -> (index, index)\n  return %0#0, %0#1 : index, index\n}",
        Some("should return an index for each basis element"),
    ),
    // linearize_index has no such rule
    (
        "func.func @f(%i: index, %j: index) -> index {\n  %0 = affine.linearize_index [%i, %j] by (0, 4) : index\n  return %0 : index\n}",
        None,
    ),
    (
        "func.func @f(%i: index, %j: index) -> index {\n  %0 = affine.linearize_index [%i, %j] by (-3, 4) : index\n  return %0 : index\n}",
        None,
    ),
    // ---- successor operands of llvm.br / llvm.cond_br / llvm.switch ----
    (
        "func.func @f(%c: i1, %x: i64) {\n  \"llvm.cond_br\"(%c, %x) [^bb1, ^bb1] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, i64) -> ()\n^bb1:\n  return\n}",
        Some("branch has 1 operands for successor #0, but target block has 0"),
    ),
    (
        "func.func @f(%c: i1, %x: i64) {\n  llvm.cond_br %c, ^bb1, ^bb1(%x : i64)\n^bb1:\n  return\n}",
        Some("branch has 1 operands for successor #1, but target block has 0"),
    ),
    (
        "func.func @f(%c: i1, %x: i64) {\n  llvm.cond_br %c, ^bb1(%x : i64), ^bb1(%x : i64)\n^bb1(%y: i64):\n  return\n}",
        None,
    ),
    (
        "func.func @f(%x: i64) {\n  \"llvm.br\"(%x) [^bb1] : (i64) -> ()\n^bb1:\n  return\n}",
        Some("branch has 1 operands for successor #0, but target block has 0"),
    ),
    (
        "func.func @f(%x: i64) {\n  llvm.br ^bb1(%x : i64)\n^bb1(%y: i32):\n  return\n}",
        Some("type mismatch for bb argument #0 of successor #0"),
    ),
    (
        "func.func @f(%x: i64) {\n  llvm.br ^bb1(%x : i64)\n^bb1(%y: i64):\n  return\n}",
        None,
    ),
    (
        "func.func @f(%c: i32, %x: i64) {\n  llvm.switch %c : i32, ^bb1 [\n    1: ^bb1(%x : i64)\n  ]\n^bb1:\n  return\n}",
        Some("branch has 1 operands for successor #1, but target block has 0"),
    ),
    (
        "func.func @f(%c: i32, %x: i64) {\n  llvm.switch %c : i32, ^bb1(%x : i64) [\n    1: ^bb1(%x : i64)\n  ]\n^bb1(%y: i64):\n  return\n}",
        None,
    ),
    // ---- region block counts fixed by ODS region constraints ----
    (
        "func.func @f(%m: vector<4xi1>) {\n  \"vector.mask\"(%m) ({\n  }) : (vector<4xi1>) -> ()\n  return\n}",
        Some("region #0 ('maskRegion') failed to verify constraint: region with 1 blocks"),
    ),
    (
        "func.func @f(%i: index) {\n  \"scf.index_switch\"(%i) <{cases = array<i64: 1>}> ({\n    \"scf.yield\"() : () -> ()\n  }, {\n  }) : (index) -> ()\n  return\n}",
        // (MLIR: "region #1 ('caseRegions') failed to verify constraint: region with 1 blocks")
        Some("region #1"),
    ),
    (
        "\"llvm.comdat\"() <{sym_name = \"c\"}> ({\n}) : () -> ()",
        Some("region #0 ('body') failed to verify constraint: region with 1 blocks"),
    ),
    // an else region may be empty (MaxSizedRegion<1>)
    (
        "func.func @f(%c: i1) {\n  \"scf.if\"(%c) ({\n    \"scf.yield\"() : () -> ()\n  }, {\n  }) : (i1) -> ()\n  return\n}",
        None,
    ),
    (
        "func.func @f(%c: i1) {\n  \"scf.if\"(%c) ({\n    \"scf.yield\"() : () -> ()\n  }, {\n    \"scf.yield\"() : () -> ()\n  ^bb1:\n    \"scf.yield\"() : () -> ()\n  }) : (i1) -> ()\n  return\n}",
        // (MLIR: "expects region #1 to have 0 or 1 blocks")
        Some("block"),
    ),
    // ---- vector.from_elements: element count and types ----
    (
        "func.func @f(%a: f32) {\n  %v = \"vector.from_elements\"(%a) : (f32) -> vector<4xf32>\n  return\n}",
        Some("failed to verify that shaped type 'dest' matches 'elements' element count and types"),
    ),
    (
        "func.func @f(%a: f32, %b: i32) {\n  %v = \"vector.from_elements\"(%a, %b) : (f32, i32) -> vector<2xf32>\n  return\n}",
        Some("failed to verify that shaped type 'dest' matches 'elements' element count and types"),
    ),
    (
        "func.func @f(%a: f32) {\n  %v = vector.from_elements %a : vector<f32>\n  %w = vector.from_elements %a, %a, %a, %a : vector<2x2xf32>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: f32) {\n  %v = \"tensor.from_elements\"(%a) : (f32) -> tensor<4xf32>\n  return\n}",
        // (MLIR: "failed to verify that operand types match result element type")
        Some("operands"),
    ),
    // ---- LLVM_ScalarOrVectorOf / LLVM_VectorOf operand and result constraints ----
    (
        "func.func @f(%p: !llvm.ptr) {\n  %0 = llvm.ptrtoint %p : !llvm.ptr to f64\n  return\n}",
        Some("result #0 must be signless integer or LLVM dialect-compatible vector of signless integer, but got 'f64'"),
    ),
    (
        "func.func @f(%p: i64) {\n  %0 = llvm.inttoptr %p : i64 to f64\n  return\n}",
        Some("result #0 must be LLVM pointer type or LLVM dialect-compatible vector of LLVM pointer type, but got 'f64'"),
    ),
    (
        "func.func @f(%a: vector<2x2xf32>) {\n  %0 = llvm.fadd %a, %a : vector<2x2xf32>\n  return\n}",
        Some("operand #0 must be floating point LLVM type or LLVM dialect-compatible vector of floating point LLVM type"),
    ),
    (
        "func.func @f(%a: vector<f32>) {\n  %0 = llvm.fadd %a, %a : vector<f32>\n  return\n}",
        Some("operand #0 must be floating point LLVM type"),
    ),
    (
        "func.func @f(%a: tf32) {\n  %0 = llvm.fadd %a, %a : tf32\n  return\n}",
        Some("operand #0 must be floating point LLVM type"),
    ),
    (
        "func.func @f(%a: f8E4M3FN) {\n  %0 = llvm.fadd %a, %a : f8E4M3FN\n  return\n}",
        Some("operand #0 must be floating point LLVM type"),
    ),
    (
        "func.func @f(%a: si32) {\n  %0 = llvm.add %a, %a : si32\n  return\n}",
        Some("operand #0 must be signless integer or LLVM dialect-compatible vector of signless integer, but got 'si32'"),
    ),
    (
        "func.func @f(%a: vector<4xindex>) {\n  %0 = llvm.add %a, %a : vector<4xindex>\n  return\n}",
        Some("operand #0 must be signless integer"),
    ),
    (
        "func.func @f(%a: index) {\n  %0 = llvm.add %a, %a : index\n  return\n}",
        Some("operand #0 must be signless integer"),
    ),
    (
        "func.func @f(%a: f32) {\n  %0 = llvm.fptosi %a : f32 to si32\n  return\n}",
        Some("result #0 must be signless integer"),
    ),
    (
        "func.func @f(%a: i32) {\n  %0 = llvm.sitofp %a : i32 to vector<2xf8E4M3FN>\n  return\n}",
        Some("result #0 must be floating point LLVM type"),
    ),
    (
        "func.func @f(%a: vector<2x4xi32>) {\n  %0 = llvm.sitofp %a : vector<2x4xi32> to vector<2x4xf32>\n  return\n}",
        Some("operand #0 must be signless integer"),
    ),
    (
        "func.func @f(%a: vector<[4]xf32>, %b: f80, %c: vector<4x!llvm.ptr<3>>, %d: f32, %e: vector<4xi32>) {\n  %0 = llvm.fadd %a, %a : vector<[4]xf32>\n  %1 = llvm.fadd %b, %b : f80\n  %2 = llvm.ptrtoint %c : vector<4x!llvm.ptr<3>> to vector<4xi64>\n  %3 = llvm.fptosi %d : f32 to vector<1xi32>\n  %4 = llvm.sitofp %e : vector<4xi32> to vector<[4]xf32>\n  return\n}",
        None,
    ),
    // ---- dialect enum attributes written `<case>` ----
    (
        "func.func @f() {\n  nvvm.memory.barrier < >\n  return\n}",
        Some("expected valid keyword or string"),
    ),
    (
        "func.func @f() {\n  nvvm.tcgen05.fence < >\n  return\n}",
        Some("expected valid keyword or string"),
    ),
    (
        "func.func @f() {\n  nvvm.memory.barrier <foo>\n  return\n}",
        Some("expected one of [cta, cluster, gpu, sys]"),
    ),
    (
        "func.func @f() {\n  nvvm.memory.barrier <cta, gpu>\n  return\n}",
        Some("expected one of [cta, cluster, gpu, sys]"),
    ),
    (
        "func.func @f() {\n  \"nvvm.memory.barrier\"() <{scope = #nvvm.mem_scope<>}> : () -> ()\n  return\n}",
        Some("expected valid keyword or string"),
    ),
    (
        "func.func @f() {\n  \"nvvm.memory.barrier\"() <{scope = #nvvm.mem_scope<warp>}> : () -> ()\n  return\n}",
        Some("expected one of [cta, cluster, gpu, sys]"),
    ),
    (
        "func.func @f() {\n  nvvm.memory.barrier <cta>\n  nvvm.memory.barrier <\"gpu\">\n  \"nvvm.memory.barrier\"() <{scope = #nvvm.mem_scope<sys>}> : () -> ()\n  nvvm.tcgen05.fence <before>\n  return\n}",
        None,
    ),
    // bit enums take flag lists
    (
        "func.func @f(%a: f32) {\n  %0 = arith.addf %a, %a fastmath<nnan, ninf> : f32\n  %1 = llvm.fadd %a, %a {fastmathFlags = #llvm.fastmath<nnan, afn>} : f32\n  return\n}",
        None,
    ),
    // ---- operand and type counts of a `type($variadic)` directive ----
    (
        "func.func @f(%p: i1) {\n  nvvm.inline_ptx \"x\" rw ( : i32 ) , predicate = %p\n  return\n}",
        Some("number of operands and types do not match: got 0 operands and 1 types"),
    ),
    (
        "func.func @f(%a: i32, %b: i32) {\n  nvvm.inline_ptx \"x\" ro (%a, %b : i32)\n  return\n}",
        Some("number of operands and types do not match: got 2 operands and 1 types"),
    ),
    (
        "func.func @f(%a: i32, %b: i32, %p: i1) {\n  nvvm.inline_ptx \"x\" ro (%a, %b : i32, i32) rw (%a : i32), predicate = %p\n  return\n}",
        None,
    ),
    // ---- gpu.memcpy / gpu.memset: the attribute dictionary comes after the types ----
    (
        "func.func @f(%a: memref<4xf32>, %b: memref<4xf32>) {\n  gpu.memcpy %a, %b {x.y = 1 : i32} : memref<4xf32>, memref<4xf32>\n  return\n}",
        Some("expected ':'"),
    ),
    (
        "func.func @f(%a: memref<4xf32>, %b: memref<4xf32>, %v: f32) {\n  gpu.memcpy %a, %b : memref<4xf32>, memref<4xf32> {x.y = 1 : i32}\n  %t = gpu.memset async %a, %v : memref<4xf32>, f32 {x.z}\n  return\n}",
        None,
    ),
    // ---- vector.shuffle (ShuffleOp::verify) ----
    (
        "func.func @f(%a: vector<2x2xi32>, %b: vector<2x2xi32>) {\n  %0 = \"vector.shuffle\"(%a, %b) <{mask = array<i64: 3, 0>}> : (vector<2x2xi32>, vector<2x2xi32>) -> vector<2x3xi32>\n  return\n}",
        Some("dimension mismatch"),
    ),
    (
        "func.func @f(%a: vector<2xi32>, %b: vector<2x2xi32>) {\n  %0 = \"vector.shuffle\"(%a, %b) <{mask = array<i64: 3, 0>}> : (vector<2xi32>, vector<2x2xi32>) -> vector<2x2xi32>\n  return\n}",
        Some("rank mismatch"),
    ),
    (
        "func.func @f(%a: vector<2xi32>, %b: vector<2xi32>) {\n  %0 = \"vector.shuffle\"(%a, %b) <{mask = array<i64: 3, 0, 1>}> : (vector<2xi32>, vector<2xi32>) -> vector<2xi32>\n  return\n}",
        Some("mask length mismatch"),
    ),
    (
        "func.func @f(%a: vector<2xi32>, %b: vector<2xi32>) {\n  %0 = \"vector.shuffle\"(%a, %b) <{mask = array<i64: 4, 0>}> : (vector<2xi32>, vector<2xi32>) -> vector<2xi32>\n  return\n}",
        Some("mask index #1 out of range"),
    ),
    (
        "func.func @f(%a: vector<2xi32>, %b: vector<2xi32>) {\n  %0 = \"vector.shuffle\"(%a, %b) <{mask = array<i64: -2, 0>}> : (vector<2xi32>, vector<2xi32>) -> vector<2xi32>\n  return\n}",
        Some("mask index #1 out of range"),
    ),
    (
        "func.func @f(%a: vector<i32>, %b: vector<i32>) {\n  %0 = \"vector.shuffle\"(%a, %b) <{mask = array<i64: 2, 0>}> : (vector<i32>, vector<i32>) -> vector<2xi32>\n  return\n}",
        Some("mask index #1 out of range"),
    ),
    (
        "func.func @f(%a: vector<2xi32>, %b: vector<2xi32>) {\n  %0 = \"vector.shuffle\"(%a, %b) <{mask = array<i64: -1, 0>}> : (vector<2xi32>, vector<2xi32>) -> vector<2xi32>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: vector<i32>, %b: vector<i32>) {\n  %0 = vector.shuffle %a, %b [1, 0] : vector<i32>, vector<i32>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: vector<2x3xi32>, %b: vector<4x3xi32>) {\n  %0 = vector.shuffle %a, %b [5, 0, 1] : vector<2x3xi32>, vector<4x3xi32>\n  return\n}",
        None,
    ),
    // ---- integer attributes of a fixed type written with another (upstream mutator) ----
    (
        "func.func @f(%t: !nvgpu.device.async.token) {\n  nvgpu.device_async_wait %t { numGroups = 1 : i1}\n  return\n}",
        Some("attribute 'numGroups' failed to satisfy constraint: 32-bit signless integer attribute"),
    ),
    (
        "func.func @f(%t: !nvgpu.device.async.token) {\n  nvgpu.device_async_wait %t { numGroups = 3 }\n  return\n}",
        Some("attribute 'numGroups' failed to satisfy constraint: 32-bit signless integer attribute"),
    ),
    (
        "func.func @f(%t: !nvgpu.device.async.token) {\n  nvgpu.device_async_wait %t { numGroups = 1 : i32}\n  return\n}",
        None,
    ),
    (
        "\"llvm.mlir.global\"() ({}) {sym_name = \"foo\", global_type = i64, value = 0 : i64, addr_space = 1.0 : f32, linkage = #llvm.linkage<private>} : () -> ()",
        Some("attribute 'addr_space' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative"),
    ),
    (
        "\"llvm.mlir.global\"() ({}) {sym_name = \"foo\", global_type = i64, value = 0 : i64, addr_space = 1 : i32, linkage = #llvm.linkage<private>} : () -> ()",
        None,
    ),
    (
        "func.func @f(%v: f32, %d: memref<128xf32>, %i: i32, %o: i32) {\n  amdgpu.raw_buffer_store {boundsCheck = true, indexOffset = 1 : index} %v -> %d[%i] sgprOffset %o : f32 -> memref<128xf32>, i32\n  return\n}",
        Some("attribute 'indexOffset' failed to satisfy constraint: 32-bit signless integer attribute"),
    ),
    (
        "func.func @f(%v: f32, %d: memref<128xf32>, %i: i32, %o: i32) {\n  amdgpu.raw_buffer_store {boundsCheck = true, indexOffset = 1 : i32} %v -> %d[%i] sgprOffset %o : f32 -> memref<128xf32>, i32\n  return\n}",
        None,
    ),
];

#[test]
fn fuzz_classes_verdicts() {
    common::assert_verdicts(CASES);
}

fn memplan_print(src: &str, generic: bool) -> String {
    let reg = Registry::with_all_dialects();
    let m = parse_module(src, &reg, ParseOptions::default()).expect("parses");
    print_module(
        &m,
        &reg,
        PrintOptions {
            generic,
            ..PrintOptions::default()
        },
    )
}

/// mlir-opt-22's print of `src` (custom or generic form); `None` without the tool.
fn mlir_print(src: &str, generic: bool) -> Option<String> {
    let args: &[&str] = if generic {
        &["--mlir-print-op-generic"]
    } else {
        &[]
    };
    let (ok, out) = common::run_mlir_opt(src, args)?;
    assert!(ok, "mlir-opt-22 rejects {src}");
    Some(out)
}

/// An entry block without ops and arguments keeps its `^bb0:` label only in the generic form
/// (MLIR's `printEmptyBlock`): `module {\n}`, not `module {\n^bb0:\n}`.
#[test]
fn gpu_copy_attributes_round_trip() {
    common::assert_round_trips(&[
        "func.func @f(%a: memref<4xf32>, %b: memref<4xf32>, %v: f32) {\n  gpu.memcpy %a, %b : memref<4xf32>, memref<4xf32> {x.y = 1 : i32}\n  %t = gpu.memset async %a, %v : memref<4xf32>, f32 {x.z}\n  return\n}",
    ]);
}

#[test]
fn empty_blocks_print_as_mlir_does() {
    let require = std::env::var("MEMPLAN_REQUIRE_MLIR").as_deref() == Ok("1");
    let srcs = [
        "",
        "module {\n}",
        "module {\n  module {\n  }\n  gpu.module @g {\n  }\n  module @n attributes {x.y = 1 : i32} {\n  }\n}",
        "func.func @f() {\n  \"fz.op\"() ({\n  ^bb0:\n  }) : () -> ()\n  \"fz.op\"() ({\n  }) : () -> ()\n  return\n}",
        "llvm.comdat @c {\n  llvm.comdat_selector @a any\n}",
        "func.func @f(%arg0: i1) {\n  scf.if %arg0 {\n  }\n  return\n}",
    ];
    // the custom form as MLIR prints it (checked with mlir-opt-22)
    assert_eq!(
        memplan_print("module {\n}", false).trim_end(),
        "module {\n}"
    );
    assert_eq!(
        memplan_print("module {\n}", true).trim_end(),
        "\"builtin.module\"() ({\n^bb0:\n}) : () -> ()"
    );
    let mut checked = false;
    for src in srcs {
        for generic in [false, true] {
            let mine = memplan_print(src, generic);
            // memplan's print reads back as the same module
            assert_eq!(
                memplan_print(&mine, true),
                memplan_print(src, true),
                "{mine}"
            );
            if let Some(want) = mlir_print(src, generic) {
                checked = true;
                if generic {
                    // memplan keeps the input's property order where MLIR sorts: compare the
                    // module mlir-opt-22 reads the print as
                    assert_eq!(
                        common::mlir_normalised(&mine),
                        common::mlir_normalised(&want),
                        "{mine}"
                    );
                    assert_eq!(mine.contains("^bb0:\n"), want.contains("^bb0:\n"), "{mine}");
                } else {
                    assert_eq!(mine.trim_end(), want.trim_end());
                }
            }
        }
    }
    assert!(
        checked || !require,
        "mlir-opt-22 is required (MEMPLAN_REQUIRE_MLIR=1)"
    );
}
