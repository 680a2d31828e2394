//! Module-level rules checked against mlir-opt-22: the DLTI data-layout specification
//! (`dlti.dl_spec`) entries MLIR 22 verifies on `builtin.module` / `gpu.module` (builtin
//! integer, float and index types, `!llvm.ptr`, `!llvm.struct<()>`, the `dlti.*` names,
//! repeated keys), `builtin.module`'s dialect-prefixed attribute names, and SSA names defined
//! again in a nested region (even inside an isolated op, as MLIR's parser has it).
//! Each entry is a module of our own with MLIR 22's verdict; with `mlir-opt-22` installed
//! the table itself is checked against it (required with MEMPLAN_REQUIRE_MLIR=1).

mod common;

/// `None`: MLIR accepts the module; `Some(needle)`: MLIR rejects it and memplan's message
/// must contain `needle`.
const CASES: &[(&str, Option<&str>)] = &[
    ("module attributes { dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<!llvm.ptr, dense<[32, 32, 64]> : vector<3xi64>>, #dlti.dl_entry<!llvm.ptr<4>, dense<[32, 64, 64, 24]> : vector<4xi64>>, #dlti.dl_entry<\"dlti.endianness\", \"little\">, #dlti.dl_entry<\"dlti.stack_alignment\", 128 : i64>, #dlti.dl_entry<i32, dense<[32, 64]> : vector<2xi64>>, #dlti.dl_entry<f16, dense<16> : vector<2xi64>>, #dlti.dl_entry<index, 32 : i64>, #dlti.dl_entry<!llvm.struct<()>, dense<[32]> : vector<1xi64>>>} {\n}", None),
    ("module attributes { dlti.dl_spec = #dlti.dl_spec<i32 = dense<[32, 64]> : vector<2xi64>, \"dlti.endianness\" = \"big\", \"mine\" = 3 : i32>} {\n}", None),
    ("module attributes { dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<!llvm.ptr, dense<[64.0, 64.0, 64.0]> : vector<3xf32>>>} {\n}", Some("expected layout attribute for '!llvm.ptr' to be a dense integer elements attribute with 3 or 4 elements")),
    ("module attributes { dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<!llvm.ptr, dense<[64, 64, 32]> : vector<3xi64>>>} {\n}", Some("preferred alignment is expected to be at least as large as ABI alignment")),
    ("module attributes { dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<!llvm.ptr, dense<[32, 32, 64]> : vector<3xi32>>>} {\n}", Some("expected i64 parameters for '!llvm.ptr'")),
    ("module attributes { dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<!llvm.struct<(i8)>, dense<[64, 64]> : vector<2xi64>>>} {\n}", Some("unexpected layout attribute for struct '!llvm.struct<(i8)>'")),
    ("module attributes { dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<!llvm.struct<()>, dense<[64, 64, 64]> : vector<3xi64>>>} {\n}", Some("to be a dense integer elements attribute of 1 or 2 elements")),
    ("module attributes { dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<!llvm.struct<()>, dense<[64, 64]> : vector<2xi32>>>} {\n}", Some("expected i64 entries for '!llvm.struct<()>'")),
    ("module attributes { dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<i32, dense<[64, 32]> : vector<2xi64>>>} {\n}", Some("preferred alignment is expected to be greater than or equal to the abi alignment")),
    ("module attributes { dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<f32, dense<[32, 64, 64]> : vector<3xi64>>>} {\n}", Some("expected 1 or 2 elements in the data layout entry")),
    ("module attributes { dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<i32, 32 : i64>>} {\n}", Some("expected a dense i64 elements attribute in the data layout entry")),
    ("module attributes { dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<index, dense<[32]> : vector<1xi64>>>} {\n}", Some("expected integer attribute in the data layout entry for 'index'")),
    ("module attributes { dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<vector<4xf32>, 32 : i64>>} {\n}", Some("unexpected data layout for a built-in type")),
    ("module attributes { dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<\"dlti.index_bitwidth\", 32 : i64>>} {\n}", Some("unknown data layout entry name: dlti.index_bitwidth")),
    ("module attributes { dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<\"dlti.endianness\", \"middle\">>} {\n}", Some("'dlti.endianness' data layout entry is expected to be either 'big' or 'little'")),
    ("module attributes { dlti.dl_spec = #dlti.dl_spec<\"dlti.endianness\" = \"big\", \"dlti.endianness\" = \"big\">} {\n}", Some("repeated DLTI key: \"dlti.endianness\"")),
    ("module attributes {gpu.container_module} {\n  gpu.module @g attributes { dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<i32, dense<[64, 32]> : vector<2xi64>>>} {\n  }\n}", Some("preferred alignment is expected to be greater than or equal to the abi alignment")),
    ("func.func @f() attributes { dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<i32, dense<[64, 32]> : vector<2xi64>>>} {\n  return\n}", None),
    ("module attributes {x = 1 : i64} {\n}", Some("can only contain attributes with dialect-prefixed names, found: 'x'")),
    ("module @m attributes {test.x = 1 : i64} {\n}", None),
    ("func.func @f() {\n  %0 = arith.constant 1 : i32\n  scf.execute_region {\n    %0 = arith.constant 2 : i32\n    scf.yield\n  }\n  return\n}", Some("redefinition of SSA value '%0'")),
    ("func.func @f() {\n  scf.execute_region {\n    %0 = arith.constant 2 : i32\n    scf.yield\n  }\n  %0 = arith.constant 1 : i32\n  return\n}", None),
    ("module {\n  %0 = \"test.a\"() : () -> i32\n  func.func @f() {\n    %0 = arith.constant 1 : i32\n    return\n  }\n}", Some("redefinition of SSA value '%0'")),
    ("module {\n  %0 = \"test.a\"() : () -> i32\n  func.func @f(%0: i32) {\n    return\n  }\n}", Some("region entry argument '%0' is already in use")),
    ("module {\n  func.func @f() {\n    %0 = arith.constant 1 : i32\n    return\n  }\n  func.func @g() {\n    %0 = arith.constant 1 : i32\n    return\n  }\n}", None),
];

#[test]
fn memplan_agrees_with_mlir_22_on_each_case() {
    common::assert_verdicts(CASES);
}

/// Accepted modules print so that both forms read back the same, and mlir-opt-22 normalises
/// memplan's prints to what it makes of the input.
#[test]
fn accepted_cases_round_trip() {
    let ok: Vec<&str> = CASES
        .iter()
        .filter(|(_, want)| want.is_none())
        .map(|(src, _)| *src)
        .collect();
    common::assert_round_trips(&ok);
}
