//! C++ verifier and parser rules of the core dialects found missing by the verifier inventory
//! (`scripts/verifier_inventory.py`, BENCHMARKS.md section 4.2) and by the fourth upstream
//! sample: `func.func`'s FunctionOpInterface / SymbolOpInterface rules, `vector.scan`,
//! `vector.load`/`store` strides, `tensor.gather`/`scatter` result types, `affine.prefetch`,
//! and redefined `distinct[N]` ids. Each entry is a module of our own with MLIR 22's verdict;
//! with `mlir-opt-22` installed the table itself is checked against it (required with
//! MEMPLAN_REQUIRE_MLIR=1), so an entry with a wrong verdict fails instead of locking a
//! mistake in.

mod common;

use common::{memplan_verdict, mlir_verdict};
use memplan_ir::*;
use std::io::Write;
use std::process::{Command, Stdio};

/// `None`: MLIR accepts the module; `Some(needle)`: MLIR rejects it and memplan's message
/// must contain `needle`.
const CASES: &[(&str, Option<&str>)] = &[
    // ---- func.func: what the signature says may not be repeated in the attribute dict ----
    (
        "func.func @f() attributes {sym_visibility = \"private\"}",
        Some("'sym_visibility' is an inferred attribute"),
    ),
    (
        "func.func private @f() attributes {sym_name = \"g\"}",
        Some("'sym_name' is an inferred attribute"),
    ),
    (
        "func.func private @f() attributes {function_type = () -> ()}",
        Some("'function_type' is an inferred attribute"),
    ),
    ("func.func private @f() attributes {foo = 1, a.b}", None),
    // ---- func.func: one dictionary of dialect attributes per argument and result ----
    (
        "func.func private @f(i32, i32) attributes {arg_attrs = [{}]}",
        Some("argument attribute array to have the same number of elements"),
    ),
    (
        "func.func private @f() -> i32 attributes {res_attrs = [{}, {}]}",
        Some("result attribute array to have the same number of elements"),
    ),
    ("func.func private @f(i32 {foo})", Some("arguments may only have dialect attributes")),
    ("func.func private @f() -> (i32 {foo})", Some("results may only have dialect attributes")),
    ("func.func private @f(i32 {a.b}, i8) -> (i32 {c.d})", None),
    // ---- func.func: an external function must not be public ----
    ("func.func @f(i32)", Some("symbol declaration cannot have public visibility")),
    ("func.func public @f()", Some("symbol declaration cannot have public visibility")),
    ("func.func nested @f(i32)\nfunc.func private @g()", None),
    ("func.func @f() {\n  return\n}", None),
    // ---- vector.scan ----
    (
        "func.func @f(%a: vector<2x3xf32>, %b: vector<3xf32>) {\n  %0:2 = vector.scan <add>, %a, %b {inclusive = true, reduction_dim = 0} : vector<2x3xf32>, vector<3xf32>\n  %1:2 = vector.scan <maximumf>, %a, %b {inclusive = false, reduction_dim = 0} : vector<2x3xf32>, vector<3xf32>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: vector<2x3xindex>, %b: vector<2xindex>) {\n  %0:2 = vector.scan <xor>, %a, %b {inclusive = true, reduction_dim = 1} : vector<2x3xindex>, vector<2xindex>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%a: vector<2x3xi32>, %b: vector<3xi32>) {\n  %0:2 = vector.scan <add>, %a, %b {inclusive = true, reduction_dim = 2} : vector<2x3xi32>, vector<3xi32>\n  return\n}",
        Some("reduction dimension 2 has to be less than 2"),
    ),
    (
        "func.func @f(%a: vector<2x3xi32>, %b: vector<1x3xi32>) {\n  %0:2 = vector.scan <add>, %a, %b {inclusive = true, reduction_dim = 0} : vector<2x3xi32>, vector<1x3xi32>\n  return\n}",
        Some("initial value rank 2 has to be equal to 1"),
    ),
    (
        "func.func @f(%a: vector<2x3xi32>, %b: vector<3xi32>) {\n  %0:2 = vector.scan <add>, %a, %b {inclusive = true, reduction_dim = 1} : vector<2x3xi32>, vector<3xi32>\n  return\n}",
        Some("incompatible input/initial value shapes"),
    ),
    (
        "func.func @f(%a: vector<2x3xf32>, %b: vector<3xf32>) {\n  %0:2 = vector.scan <maxsi>, %a, %b {inclusive = true, reduction_dim = 0} : vector<2x3xf32>, vector<3xf32>\n  return\n}",
        Some("unsupported reduction type 'f32' for kind 'maxsi'"),
    ),
    (
        "func.func @f(%a: vector<2x3xi32>, %b: vector<3xi32>) {\n  %0:2 = vector.scan <minnumf>, %a, %b {inclusive = true, reduction_dim = 0} : vector<2x3xi32>, vector<3xi32>\n  return\n}",
        Some("unsupported reduction type 'i32' for kind 'minnumf'"),
    ),
    // ---- vector.load / vector.store: unit innermost stride beyond one element ----
    (
        "func.func @f(%m: memref<200x100xf32, strided<[200, 2]>>, %i: index, %v: vector<8xf32>) {\n  vector.store %v, %m[%i, %i] : memref<200x100xf32, strided<[200, 2]>>, vector<8xf32>\n  return\n}",
        Some("most minor memref dim must have unit stride"),
    ),
    (
        "func.func @f(%m: memref<4x4xf32, affine_map<(d0, d1) -> (d0 + d1 * 4)>>, %i: index) {\n  %0 = vector.load %m[%i, %i] : memref<4x4xf32, affine_map<(d0, d1) -> (d0 + d1 * 4)>>, vector<2xf32>\n  return\n}",
        Some("most minor memref dim must have unit stride"),
    ),
    (
        "func.func @f(%m: memref<200x100xf32, strided<[200, 2]>>, %n: memref<4x4xf32, affine_map<(d0, d1) -> (d0 * 8 + d1)>>, %i: index, %v: vector<1xf32>, %w: vector<f32>) {\n  vector.store %v, %m[%i, %i] : memref<200x100xf32, strided<[200, 2]>>, vector<1xf32>\n  vector.store %w, %m[%i, %i] : memref<200x100xf32, strided<[200, 2]>>, vector<f32>\n  %0 = vector.load %n[%i, %i] : memref<4x4xf32, affine_map<(d0, d1) -> (d0 * 8 + d1)>>, vector<4xf32>\n  return\n}",
        None,
    ),
    // ---- tensor.gather / tensor.scatter: the gathered type, full or rank-reduced ----
    (
        "func.func @f(%s: tensor<4x5x6xf32>, %i: tensor<1x2x2xindex>) {\n  %0 = tensor.gather %s[%i] gather_dims([0, 2]) : (tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<1x2x1x5x1xf32>\n  %1 = tensor.gather %s[%i] gather_dims([0, 2]) unique : (tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<1x2x5xf32>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%s: tensor<4x5x6xf32>, %i: tensor<1x2x2xindex>) {\n  %0 = tensor.gather %s[%i] gather_dims([0, 2]) : (tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<1x2x1xf32>\n  return\n}",
        Some("result type mismatch"),
    ),
    (
        "func.func @f(%s: tensor<4x5x6xf32>, %i: tensor<1x2x2xindex>) {\n  %0 = tensor.gather %s[%i] gather_dims([0, 2]) : (tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<1x2x5xf64>\n  return\n}",
        Some("result type mismatch"),
    ),
    (
        "func.func @f(%s: tensor<1x2x5xf32>, %d: tensor<4x5x6xf32>, %i: tensor<1x2x2xindex>) {\n  %0 = tensor.scatter %s into %d[%i] scatter_dims([0, 2]) unique : (tensor<1x2x5xf32>, tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<4x5x6xf32>\n  return\n}",
        None,
    ),
    (
        "func.func @f(%s: tensor<1x2x5xf32>, %d: tensor<4x5x6xf32>, %i: tensor<1x2x2xindex>) {\n  %0 = tensor.scatter %s into %d[%i] scatter_dims([0, 2]) : (tensor<1x2x5xf32>, tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<4x5x6xf32>\n  return\n}",
        Some("requires 'unique' attribute to be set"),
    ),
    (
        "func.func @f(%s: tensor<f32>, %d: tensor<4x5x6xf32>, %i: tensor<1x2x2xindex>) {\n  %0 = tensor.scatter %s into %d[%i] scatter_dims([0, 2]) unique : (tensor<f32>, tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<4x5x6xf32>\n  return\n}",
        Some("source type mismatch"),
    ),
    // ---- affine.prefetch (custom form written in C++ upstream) ----
    (
        "func.func @f(%m: memref<400x400xi32>, %j: index) {\n  affine.for %a = 0 to 10 {\n    affine.prefetch %m[%a, %j + 5], read, locality<3>, data : memref<400x400xi32>\n    affine.prefetch %m[%a, symbol(%j)], write, locality<0>, instr {foo = 1} : memref<400x400xi32>\n  }\n  return\n}",
        None,
    ),
    (
        "func.func @f(%m: memref<400xi32>, %i: index) {\n  affine.prefetch %m[%i], rw, locality<1>, data : memref<400xi32>\n  return\n}",
        Some("rw specifier has to be 'read' or 'write'"),
    ),
    (
        "func.func @f(%m: memref<400xi32>, %i: index) {\n  affine.prefetch %m[%i], read, locality<1>, false : memref<400xi32>\n  return\n}",
        Some("cache type has to be 'data' or 'instr'"),
    ),
    (
        "func.func @f(%m: memref<400xi32>, %i: index) {\n  affine.prefetch %m[%i], read, locality<4>, data : memref<400xi32>\n  return\n}",
        Some("'localityHint' failed to satisfy constraint"),
    ),
    (
        "func.func @f(%m: memref<4x4xi32>, %i: index) {\n  affine.prefetch %m[%i], read, locality<1>, data : memref<4x4xi32>\n  return\n}",
        Some("affine map num results must equal memref rank"),
    ),
    (
        "func.func @f(%m: memref<400xi32>, %i: index) {\n  affine.for %a = 0 to 10 {\n    %x = arith.muli %a, %i : index\n    affine.prefetch %m[%x], read, locality<1>, data : memref<400xi32>\n  }\n  return\n}",
        Some("index must be a dimension or symbol identifier"),
    ),
    // ---- distinct[N]<attr>: an id used again names the same attribute ----
    (
        "\"test.op\"() {a = distinct[0]<42 : i32>} : () -> ()\n\"test.op\"() {a = distinct[0]<43 : i32>} : () -> ()",
        Some("referenced attribute does not match previous definition"),
    ),
    (
        "#a = distinct[7]<42 : i32>\n\"test.op\"() {a = #a, b = distinct[7]<42 : i64>} : () -> ()",
        Some("referenced attribute does not match previous definition"),
    ),
    (
        "\"test.op\"() {a = distinct[0]<42 : i32>, b = distinct[0]< 42:i32 >} : () -> ()\n\"test.op\"() {a = distinct[1]<array<i32: 10, 42>>, b = distinct[1]<array<i32: 10, 42>>} : () -> ()\n\"test.op\"() {a = distinct[2]<0x7FC00000 : f32>, b = distinct[2]<0x7FC00000 : f32>} : () -> ()",
        None,
    ),
];

/// Modules memplan must print (custom and generic form) so that both read back the same; with
/// `mlir-opt-22` installed, both prints must also normalise to what it prints for the input.
const ROUND_TRIPS: &[&str] = &[
    "func.func @f(%m: memref<400x400xi32>, %i: index, %j: index) {\n  affine.for %a = 0 to 10 {\n    affine.prefetch %m[%a, %j + 5], read, locality<3>, data : memref<400x400xi32>\n    affine.prefetch %m[%i, symbol(%j)], write, locality<0>, instr {foo = 1} : memref<400x400xi32>\n  }\n  \"affine.prefetch\"(%m, %i, %j) <{isDataCache = true, isWrite = false, localityHint = 2 : i32, map = affine_map<(d0, d1) -> (d0 + 1, d1)>}> : (memref<400x400xi32>, index, index) -> ()\n  return\n}",
    "func.func @f(%s: tensor<4x5x6xf32>, %i: tensor<1x2x2xindex>, %d: tensor<4x5x6xf32>) -> tensor<4x5x6xf32> {\n  %0 = tensor.gather %s[%i] gather_dims([0, 2]) unique : (tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<1x2x5xf32>\n  %1 = tensor.scatter %0 into %d[%i] scatter_dims([0, 2]) unique : (tensor<1x2x5xf32>, tensor<4x5x6xf32>, tensor<1x2x2xindex>) -> tensor<4x5x6xf32>\n  return %1 : tensor<4x5x6xf32>\n}",
    "func.func private @f(i32 {a.b}, i8) -> (i32 {c.d})\nfunc.func nested @g()",
];

fn print(src: &str, generic: bool) -> String {
    let reg = Registry::with_all_dialects();
    let m = parse_module(src, &reg, ParseOptions::default())
        .unwrap_or_else(|e| panic!("{}: {src}", e.message));
    verify(&m, &reg).unwrap_or_else(|e| panic!("{}: {src}", e.message));
    print_module(
        &m,
        &reg,
        PrintOptions {
            generic,
            ..PrintOptions::default()
        },
    )
}

/// `mlir-opt-22`'s generic, local-scope print of `src` (`None` without the tool or when it
/// rejects the input).
fn mlir_normalised(src: &str) -> Option<String> {
    let mut child = Command::new("mlir-opt-22")
        .args([
            "--allow-unregistered-dialect",
            "--mlir-print-op-generic",
            "--mlir-print-local-scope",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(src.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn round_trips_read_back_the_same() {
    for src in ROUND_TRIPS {
        let g = print(src, true);
        for form in [print(src, false), g.clone()] {
            assert_eq!(
                print(&form, true),
                g,
                "print does not read back the same:\n{form}"
            );
            if let Some(want) = mlir_normalised(src) {
                assert_eq!(
                    mlir_normalised(&form).as_deref(),
                    Some(want.as_str()),
                    "{form}"
                );
            }
        }
    }
}

#[test]
fn memplan_agrees_with_mlir_22_on_each_case() {
    let require = std::env::var("MEMPLAN_REQUIRE_MLIR").as_deref() == Ok("1");
    let mut oracle_used = false;
    let mut bad = Vec::new();
    for (src, want) in CASES {
        match (memplan_verdict(src), want) {
            (Ok(()), None) => {}
            (Err(e), Some(needle)) if e.contains(needle) => {}
            (Err(e), Some(needle)) => bad.push(format!("message {e:?} lacks {needle:?}:\n{src}")),
            (Ok(()), Some(_)) => bad.push(format!("memplan accepts what MLIR rejects:\n{src}")),
            (Err(e), None) => bad.push(format!("memplan rejects what MLIR accepts ({e}):\n{src}")),
        }
        if let Some(ok) = mlir_verdict(src) {
            oracle_used = true;
            if ok != want.is_none() {
                bad.push(format!("mlir-opt-22 disagrees with the table:\n{src}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    assert!(
        oracle_used || !require,
        "MEMPLAN_REQUIRE_MLIR=1 but mlir-opt-22 did not run"
    );
}
