//! Every named linalg op of MLIR 22 (the generated OpDSL table plus the hand-written
//! structured ops) in custom and generic form, on tensors and memrefs, over several element
//! types:
//!
//! * memplan reads each instance, prints it, re-reads its print (custom and generic) and
//!   reaches a fixpoint;
//! * with `mlir-opt-22` available: memplan accepts exactly the instances mlir-opt-22 accepts
//!   (element types a body cannot be built for are errors in both), memplan's custom and
//!   generic prints normalise (`--mlir-print-op-generic --mlir-print-local-scope`) to what
//!   mlir-opt-22 makes of the instance (so the implicit bodies are MLIR's, op for op), and the
//!   indexing maps memplan computes from the table equal the `linalg.memoized_indexing_maps`
//!   mlir-opt-22 attaches;
//! * the generated table is current when MLIR's ODS files are installed.
//!
//! Without `mlir-opt-22` the comparisons are skipped, unless `MEMPLAN_REQUIRE_MLIR=1`.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use memplan_ir::dialects::linalg_named::{self, Attrs, NAMED_OPS};
use memplan_ir::*;

const MLIR_OPT: &str = "mlir-opt-22";
const ODS_DIR: &str = "/usr/lib/llvm-22/include/mlir/Dialect/Linalg/IR";

fn reg() -> Registry {
    Registry::with_all_dialects()
}

fn print(m: &Module, reg: &Registry, generic: bool) -> String {
    print_module(
        m,
        reg,
        PrintOptions {
            generic,
            debug_info: false,
        },
    )
}

/// One test instance: the op it exercises and a module holding it.
struct Case {
    op: String,
    label: String,
    src: String,
}

/// Element types of one instance: the inputs' and the outputs'.
struct Elems {
    label: &'static str,
    input: &'static str,
    output: &'static str,
}

const ELEMS: &[Elems] = &[
    Elems {
        label: "f32",
        input: "f32",
        output: "f32",
    },
    Elems {
        label: "i8->i32",
        input: "i8",
        output: "i32",
    },
    Elems {
        label: "f16->f32",
        input: "f16",
        output: "f32",
    },
    Elems {
        label: "i32",
        input: "i32",
        output: "i32",
    },
    Elems {
        label: "i1",
        input: "i1",
        output: "i1",
    },
];

/// Largest value of a non-negative affine expression over `0..sizes[d]` for each dim.
fn max_value(e: &AffineExpr, sizes: &[i64]) -> i64 {
    match e {
        AffineExpr::Dim(d) => sizes[*d as usize] - 1,
        AffineExpr::Const(c) => *c,
        AffineExpr::Add(a, b) => max_value(a, sizes) + max_value(b, sizes),
        AffineExpr::Mul(a, b) => max_value(a, sizes) * max_value(b, sizes),
        other => panic!("unexpected map result {other}"),
    }
}

fn shaped(container: &str, shape: &[i64], elem: &str, output: bool) -> String {
    if shape.is_empty() {
        return if output {
            format!("{container}<{elem}>")
        } else {
            elem.to_string()
        };
    }
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("{container}<{}x{elem}>", dims.join("x"))
}

/// A function holding one instance of `op` (`attrs` is the custom form's attribute dictionary).
fn instance(
    op: &linalg_named::NamedOp,
    attrs: &str,
    container: &str,
    el: &Elems,
) -> Option<String> {
    let n_in = usize::from(op.inputs);
    let n = n_in + usize::from(op.outputs);
    let elem_of = |i: usize| -> &str {
        if i >= n_in {
            el.output
        } else if op.name == "linalg.select" && i == 0 {
            "i1"
        } else if op.name == "linalg.fill_rng_2d" {
            // min, max, seed.
            ["f64", "f64", "i32"][i]
        } else {
            el.input
        }
    };
    let shapes: Vec<Vec<i64>> = if op.maps.is_empty() {
        // Element-wise: rank 2; `fill` takes a scalar.
        (0..n)
            .map(|i| {
                if op.name == "linalg.fill" && i == 0 {
                    vec![]
                } else {
                    vec![2, 3]
                }
            })
            .collect()
    } else {
        let mut d = Dict::new();
        if let Attrs::Window(k) = op.attrs {
            if attrs.contains("strides") {
                // Parse the values back out of our own attribute text.
                let m = parse_module(
                    &format!("\"t.t\"() {attrs} : () -> ()"),
                    &reg(),
                    ParseOptions::default(),
                )
                .ok()?;
                let o = m.first_op(m.body())?;
                for a in m.op(o).attrs.iter() {
                    d.set(a.name.clone(), a.value.clone());
                }
            }
            let _ = k;
        }
        let ranks: Vec<usize> = op.maps.iter().map(|m| m.len()).collect();
        let maps = linalg_named::indexing_maps(op, &d, &ranks)?;
        let sizes: Vec<i64> = (0..op.iterators.len() as i64).map(|i| 2 + i % 3).collect();
        maps.iter()
            .map(|m| m.results.iter().map(|e| max_value(e, &sizes) + 1).collect())
            .collect()
    };
    let tys: Vec<String> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| shaped(container, s, elem_of(i), i >= n_in))
        .collect();
    let names: Vec<String> = (0..n).map(|i| format!("%a{i}")).collect();
    let args: Vec<String> = names
        .iter()
        .zip(&tys)
        .map(|(a, t)| format!("{a}: {t}"))
        .collect();
    let ins = format!(
        "ins({} : {})",
        names[..n_in].join(", "),
        tys[..n_in].join(", ")
    );
    let outs = format!(
        "outs({} : {})",
        names[n_in..].join(", "),
        tys[n_in..].join(", ")
    );
    let results: Vec<&String> = tys[n_in..]
        .iter()
        .filter(|t| t.starts_with("tensor"))
        .collect();
    let arrow = match results.len() {
        0 => String::new(),
        1 => format!(" -> {}", results[0]),
        _ => format!(
            " -> ({})",
            results
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let attrs = if attrs.is_empty() {
        String::new()
    } else {
        format!(" {attrs}")
    };
    let res = if results.is_empty() { "" } else { "%r = " };
    Some(format!(
        "func.func @f({}) {{\n  {res}{}{attrs} {ins} {outs}{arrow}\n  return\n}}\n",
        args.join(", "),
        op.name
    ))
}

/// The instances of every table op.
fn table_cases() -> Vec<Case> {
    let mut out = Vec::new();
    for op in NAMED_OPS {
        let mut attr_sets = vec![String::new()];
        match op.attrs {
            Attrs::Window(k) => {
                let k = usize::from(k);
                let strides: Vec<String> = (0..k).map(|i| (2 + i % 2).to_string()).collect();
                let dil: Vec<String> = (0..k).map(|i| (1 + i % 2).to_string()).collect();
                attr_sets.push(format!(
                    "{{dilations = dense<[{}]> : tensor<{k}xi64>, strides = dense<[{}]> : tensor<{k}xi64>}}",
                    dil.join(", "),
                    strides.join(", ")
                ));
            }
            Attrs::Cast => attr_sets.push("{cast = #linalg.type_fn<cast_unsigned>}".into()),
            Attrs::None => {}
        }
        for (ai, attrs) in attr_sets.iter().enumerate() {
            for el in ELEMS {
                for container in ["tensor", "memref"] {
                    if ai > 0 && container == "tensor" {
                        continue;
                    }
                    let Some(src) = instance(op, attrs, container, el) else {
                        panic!("{}: cannot build an instance", op.name);
                    };
                    out.push(Case {
                        op: op.name.to_string(),
                        label: format!(
                            "{} {container} {}{}",
                            op.name,
                            el.label,
                            if ai > 0 { " attrs" } else { "" }
                        ),
                        src,
                    });
                }
            }
        }
    }
    out
}

/// Instances of the hand-written structured ops and the other linalg ops.
fn hand_cases() -> Vec<Case> {
    let mm = "affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>";
    let srcs: &[(&str, &str, &str)] = &[
        ("linalg.matmul", "f32", "%r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>"),
        ("linalg.matmul", "i8 memref", "linalg.matmul ins(%ma, %mb : memref<4x8xi8>, memref<8x2xi8>) outs(%mc : memref<4x2xi32>)"),
        ("linalg.matmul", "cast unsigned", "linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%ma, %mb : memref<4x8xi8>, memref<8x2xi8>) outs(%mc : memref<4x2xi32>)"),
        ("linalg.matmul", "transposed", "%r = linalg.matmul indexing_maps = [MM] ins(%at, %b : tensor<8x4xf32>, tensor<8x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>"),
        ("linalg.batch_matmul", "f32", "%r = linalg.batch_matmul ins(%ba, %bb : tensor<3x4x8xf32>, tensor<3x8x2xf32>) outs(%bc : tensor<3x4x2xf32>) -> tensor<3x4x2xf32>"),
        ("linalg.batch_matmul", "broadcast", "%r = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a, %bb : tensor<4x8xf32>, tensor<3x8x2xf32>) outs(%bc : tensor<3x4x2xf32>) -> tensor<3x4x2xf32>"),
        ("linalg.batch_reduce_matmul", "f32", "%r = linalg.batch_reduce_matmul ins(%ba, %bb : tensor<3x4x8xf32>, tensor<3x8x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>"),
        ("linalg.contract", "f32", "%r = linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>"),
        ("linalg.contract", "i8 memref", "linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%ma, %mb : memref<4x8xi8>, memref<8x2xi8>) outs(%mc : memref<4x2xi32>)"),
        ("linalg.elementwise", "exp", "%r = linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%c : tensor<4x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>"),
        ("linalg.elementwise", "add maps", "%r = linalg.elementwise kind=#linalg.elementwise_kind<add> indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>] ins(%c, %v : tensor<4x2xf32>, tensor<4xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>"),
        ("linalg.elementwise", "select", "%r = linalg.elementwise kind=#linalg.elementwise_kind<select> ins(%p, %c, %c : tensor<4x2xi1>, tensor<4x2xf32>, tensor<4x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>"),
        ("linalg.elementwise", "max memref", "linalg.elementwise kind=#linalg.elementwise_kind<max_signed> {foo} ins(%mc, %mc : memref<4x2xi32>, memref<4x2xi32>) outs(%mc : memref<4x2xi32>)"),
        ("linalg.transpose", "f32", "%r = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%at : tensor<8x4xf32>) permutation = [1, 0]"),
        ("linalg.broadcast", "f32", "%r = linalg.broadcast ins(%v : tensor<4xf32>) outs(%c : tensor<4x2xf32>) dimensions = [1]"),
        ("linalg.map", "f32", "%r = linalg.map { math.exp } ins(%c : tensor<4x2xf32>) outs(%c : tensor<4x2xf32>)"),
        ("linalg.reduce", "f32", "%r = linalg.reduce { arith.addf } ins(%c : tensor<4x2xf32>) outs(%v : tensor<4xf32>) dimensions = [1]"),
        ("linalg.generic", "index", "%r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]} ins(%c : tensor<4x2xf32>) outs(%c : tensor<4x2xf32>) attrs = {foo} {\n  ^bb0(%x: f32, %y: f32):\n    %i = linalg.index 1 : index\n    linalg.yield %x : f32\n  } -> tensor<4x2xf32>"),
        ("linalg.fill", "tensor", "%r = linalg.fill ins(%s : f32) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>"),
        ("linalg.softmax", "tensor", "%r = linalg.softmax dimension(1) ins(%c : tensor<4x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>"),
        ("linalg.softmax", "memref", "linalg.softmax {foo} dimension(0) ins(%mf : memref<4x2xf32>) outs(%mf : memref<4x2xf32>)"),
        ("linalg.winograd_filter_transform", "F_4_3", "%r = linalg.winograd_filter_transform fmr(F_4_3) ins(%wf : tensor<4x3x3x3xf32>) outs(%wfo : tensor<6x6x3x4xf32>) -> tensor<6x6x3x4xf32>"),
        ("linalg.winograd_input_transform", "F_4_3", "%r = linalg.winograd_input_transform fmr(F_4_3) ins(%wi : tensor<2x10x10x5xf32>) outs(%wv : tensor<6x6x2x2x2x5xf32>) -> tensor<6x6x2x2x2x5xf32>"),
        ("linalg.winograd_output_transform", "F_4_3", "%r = linalg.winograd_output_transform fmr(F_4_3) ins(%wv : tensor<6x6x2x2x2x5xf32>) outs(%wo : tensor<2x8x8x5xf32>) -> tensor<2x8x8x5xf32>"),
        ("linalg.pack", "padded", "%r = linalg.pack %ps padding_value(%s : f32) outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %pd {foo} : tensor<16x8xf32> -> tensor<2x4x4x4xf32>"),
        ("linalg.pack", "dynamic", "%r = linalg.pack %ps inner_dims_pos = [0, 1] inner_tiles = [%n, 4] into %pdd : tensor<16x8xf32> -> tensor<?x2x?x4xf32>"),
        ("linalg.unpack", "static", "%r = linalg.unpack %pu outer_dims_perm = [0, 1] inner_dims_pos = [1] inner_tiles = [4] into %ps : tensor<16x2x4xf32> -> tensor<16x8xf32>"),
    ];
    let args = "%a: tensor<4x8xf32>, %at: tensor<8x4xf32>, %b: tensor<8x2xf32>, %c: tensor<4x2xf32>, %v: tensor<4xf32>, %p: tensor<4x2xi1>, %ba: tensor<3x4x8xf32>, %bb: tensor<3x8x2xf32>, %bc: tensor<3x4x2xf32>, %ma: memref<4x8xi8>, %mb: memref<8x2xi8>, %mc: memref<4x2xi32>, %mf: memref<4x2xf32>, %s: f32, %n: index, %wf: tensor<4x3x3x3xf32>, %wfo: tensor<6x6x3x4xf32>, %wi: tensor<2x10x10x5xf32>, %wv: tensor<6x6x2x2x2x5xf32>, %wo: tensor<2x8x8x5xf32>, %ps: tensor<16x8xf32>, %pd: tensor<2x4x4x4xf32>, %pdd: tensor<?x2x?x4xf32>, %pu: tensor<16x2x4xf32>";
    srcs.iter()
        .map(|(op, label, body)| Case {
            op: op.to_string(),
            label: format!("{op} {label}"),
            src: format!(
                "func.func @f({args}) {{\n  {}\n  return\n}}\n",
                body.replace("MM", mm)
            ),
        })
        .collect()
}

/// Edge cases of the ops with shape rules (pack/unpack, winograd, softmax): most are invalid,
/// some valid; the test requires memplan to accept exactly those mlir-opt-22 accepts.
const EDGE_CASES: &str = r#"func.func @f(%s: tensor<16x8xf32>, %d: tensor<4x2x4x4xf32>) -> tensor<4x2x4x4xf32> {
  %0 = linalg.pack %s inner_dims_pos = [0, 1] inner_tiles = [4, 0] into %d : tensor<16x8xf32> -> tensor<4x2x4x4xf32>
  return %0 : tensor<4x2x4x4xf32>
}
// -----
func.func @f(%s: tensor<16x8xf32>, %d: tensor<4x2x4x4xf32>) -> tensor<4x2x4x4xf32> {
  %0 = linalg.pack %s inner_dims_pos = [0, 0] inner_tiles = [4, 4] into %d : tensor<16x8xf32> -> tensor<4x2x4x4xf32>
  return %0 : tensor<4x2x4x4xf32>
}
// -----
func.func @f(%s: tensor<16x8xf32>, %d: tensor<4x2x4x4xf32>) -> tensor<4x2x4x4xf32> {
  %0 = linalg.pack %s inner_dims_pos = [0, 2] inner_tiles = [4, 4] into %d : tensor<16x8xf32> -> tensor<4x2x4x4xf32>
  return %0 : tensor<4x2x4x4xf32>
}
// -----
func.func @f(%s: tensor<16x8xf32>, %d: tensor<4x2x4x4xf32>) -> tensor<4x2x4x4xf32> {
  %0 = linalg.pack %s outer_dims_perm = [0] inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %d : tensor<16x8xf32> -> tensor<4x2x4x4xf32>
  return %0 : tensor<4x2x4x4xf32>
}
// -----
func.func @f(%s: tensor<16x8xf32>, %d: tensor<4x2x4xf32>) -> tensor<4x2x4xf32> {
  %0 = linalg.pack %s inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %d : tensor<16x8xf32> -> tensor<4x2x4xf32>
  return %0 : tensor<4x2x4xf32>
}
// -----
func.func @f(%s: tensor<16x8xf32>, %d: tensor<4x2x4x2xf32>) -> tensor<4x2x4x2xf32> {
  %0 = linalg.pack %s inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %d : tensor<16x8xf32> -> tensor<4x2x4x2xf32>
  return %0 : tensor<4x2x4x2xf32>
}
// -----
func.func @f(%s: tensor<16x8xf32>, %d: tensor<3x2x4x4xf32>) -> tensor<3x2x4x4xf32> {
  %0 = linalg.pack %s inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %d : tensor<16x8xf32> -> tensor<3x2x4x4xf32>
  return %0 : tensor<3x2x4x4xf32>
}
// -----
func.func @f(%s: tensor<16x8xf32>, %d: tensor<5x2x4x4xf32>) -> tensor<5x2x4x4xf32> {
  %0 = linalg.pack %s inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %d : tensor<16x8xf32> -> tensor<5x2x4x4xf32>
  return %0 : tensor<5x2x4x4xf32>
}
// -----
func.func @f(%s: tensor<15x8xf32>, %d: tensor<4x2x4x4xf32>) -> tensor<4x2x4x4xf32> {
  %0 = linalg.pack %s inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %d : tensor<15x8xf32> -> tensor<4x2x4x4xf32>
  return %0 : tensor<4x2x4x4xf32>
}
// -----
func.func @f(%s: tensor<16x8xf32>, %d: tensor<4x2x4x4xf32>, %p: f16) -> tensor<4x2x4x4xf32> {
  %0 = linalg.pack %s padding_value(%p : f16) inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %d : tensor<16x8xf32> -> tensor<4x2x4x4xf32>
  return %0 : tensor<4x2x4x4xf32>
}
// -----
func.func @f(%s: tensor<16x8xf32>, %d: tensor<4x2x4x4xf16>) -> tensor<4x2x4x4xf16> {
  %0 = linalg.pack %s inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %d : tensor<16x8xf32> -> tensor<4x2x4x4xf16>
  return %0 : tensor<4x2x4x4xf16>
}
// -----
func.func @f(%s: tensor<4x2x4x4xf32>, %d: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = linalg.unpack %s inner_dims_pos = [0, 1] inner_tiles = [4, 2] into %d : tensor<4x2x4x4xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
// -----
func.func @f(%s: tensor<4x2x4x4xf32>, %d: tensor<17x8xf32>) -> tensor<17x8xf32> {
  %0 = linalg.unpack %s inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %d : tensor<4x2x4x4xf32> -> tensor<17x8xf32>
  return %0 : tensor<17x8xf32>
}
// -----
func.func @f(%s: tensor<4x2x4x4xf32>, %d: tensor<13x8xf32>) -> tensor<13x8xf32> {
  %0 = linalg.unpack %s inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %d : tensor<4x2x4x4xf32> -> tensor<13x8xf32>
  return %0 : tensor<13x8xf32>
}
// -----
func.func @f(%s: tensor<4x2x4x4xf32>, %d: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = linalg.unpack %s outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %d : tensor<4x2x4x4xf32> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
// -----
func.func @f(%s: tensor<?x8xf32>, %d: tensor<?x2x4x4xf32>) -> tensor<?x2x4x4xf32> {
  %0 = linalg.pack %s inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %d : tensor<?x8xf32> -> tensor<?x2x4x4xf32>
  return %0 : tensor<?x2x4x4xf32>
}
// -----
func.func @f(%s: tensor<16x8xf32>, %d: tensor<?x2x4x4xf32>) -> tensor<?x2x4x4xf32> {
  %0 = linalg.pack %s inner_dims_pos = [0, 1] inner_tiles = [4, 4] into %d : tensor<16x8xf32> -> tensor<?x2x4x4xf32>
  return %0 : tensor<?x2x4x4xf32>
}
// -----
func.func @f(%s: tensor<16x8xf32>, %d: tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32> {
  %0 = linalg.pack %s inner_dims_pos = [1, 0] inner_tiles = [4, 4] into %d : tensor<16x8xf32> -> tensor<2x4x4x4xf32>
  return %0 : tensor<2x4x4x4xf32>
}
// -----
func.func @f(%s: tensor<16x8xf32>, %d: tensor<4x8x4xf32>) -> tensor<4x8x4xf32> {
  %0 = linalg.pack %s inner_dims_pos = [0] inner_tiles = [4] into %d : tensor<16x8xf32> -> tensor<4x8x4xf32>
  return %0 : tensor<4x8x4xf32>
}
// -----
func.func @f(%w: tensor<4x3x3x3xf32>, %o: tensor<6x6x3x5xf32>) {
  %0 = linalg.winograd_filter_transform fmr(F_4_3) ins(%w : tensor<4x3x3x3xf32>) outs(%o : tensor<6x6x3x5xf32>) -> tensor<6x6x3x5xf32>
  return
}
// -----
func.func @f(%w: tensor<4x3x3x3xf32>, %o: tensor<6x6x3x4xf32>) {
  %0 = linalg.winograd_filter_transform fmr(F_2_3) ins(%w : tensor<4x3x3x3xf32>) outs(%o : tensor<6x6x3x4xf32>) -> tensor<6x6x3x4xf32>
  return
}
// -----
func.func @f(%w: tensor<4x5x5x3xf32>, %o: tensor<6x6x3x4xf32>) {
  %0 = linalg.winograd_filter_transform fmr(F_2_3) ins(%w : tensor<4x5x5x3xf32>) outs(%o : tensor<6x6x3x4xf32>) -> tensor<6x6x3x4xf32>
  return
}
// -----
func.func @f(%w: tensor<4x1x3x3xf32>, %o: tensor<1x6x3x4xf32>) {
  %0 = linalg.winograd_filter_transform fmr(F_4_3) ins(%w : tensor<4x1x3x3xf32>) outs(%o : tensor<1x6x3x4xf32>) -> tensor<1x6x3x4xf32>
  return
}
// -----
func.func @f(%w: tensor<4x3x3x3xf32>, %o: tensor<6x6x3x4xf16>) {
  %0 = linalg.winograd_filter_transform fmr(F_4_3) ins(%w : tensor<4x3x3x3xf32>) outs(%o : tensor<6x6x3x4xf16>) -> tensor<6x6x3x4xf16>
  return
}
// -----
func.func @f(%i: tensor<2x10x10x5xf32>, %o: tensor<6x6x2x3x2x5xf32>) {
  %0 = linalg.winograd_input_transform fmr(F_4_3) ins(%i : tensor<2x10x10x5xf32>) outs(%o : tensor<6x6x2x3x2x5xf32>) -> tensor<6x6x2x3x2x5xf32>
  return
}
// -----
func.func @f(%i: tensor<2x11x10x5xf32>, %o: tensor<6x6x2x2x2x5xf32>) {
  %0 = linalg.winograd_input_transform fmr(F_4_3) ins(%i : tensor<2x11x10x5xf32>) outs(%o : tensor<6x6x2x2x2x5xf32>) -> tensor<6x6x2x2x2x5xf32>
  return
}
// -----
func.func @f(%i: tensor<?x10x10x?xf32>, %o: tensor<6x6x2x2x?x?xf32>) {
  %0 = linalg.winograd_input_transform fmr(F_4_3) ins(%i : tensor<?x10x10x?xf32>) outs(%o : tensor<6x6x2x2x?x?xf32>) -> tensor<6x6x2x2x?x?xf32>
  return
}
// -----
func.func @f(%v: tensor<6x6x2x2x2x5xf32>, %o: tensor<2x8x9x5xf32>) {
  %0 = linalg.winograd_output_transform fmr(F_4_3) ins(%v : tensor<6x6x2x2x2x5xf32>) outs(%o : tensor<2x8x9x5xf32>) -> tensor<2x8x9x5xf32>
  return
}
// -----
func.func @f(%v: tensor<6x6x2x2x2x5xf32>, %o: tensor<2x8x8x5xf32>) {
  %0 = linalg.winograd_output_transform fmr(F_4_3) ins(%v : tensor<6x6x2x2x2x5xf32>) outs(%o : tensor<2x8x8x5xf32>) -> tensor<2x8x8x6xf32>
  return
}
// -----
func.func @f(%s: tensor<16x8xf32>, %o: tensor<16x8xf16>) {
  %0 = linalg.softmax dimension(1) ins(%s : tensor<16x8xf32>) outs(%o : tensor<16x8xf16>) -> tensor<16x8xf16>
  return
}
// -----
func.func @f(%s: tensor<16x8xf32>, %o: tensor<16x9xf32>) {
  %0 = linalg.softmax dimension(1) ins(%s : tensor<16x8xf32>) outs(%o : tensor<16x9xf32>) -> tensor<16x9xf32>
  return
}
// -----
func.func @f(%s: tensor<16x8xf32>) {
  %0 = linalg.softmax dimension(2) ins(%s : tensor<16x8xf32>) outs(%s : tensor<16x8xf32>) -> tensor<16x8xf32>
  return
}
// -----
func.func @f(%s: tensor<16x8xf32>, %m: memref<16x8xf32>) {
  linalg.softmax dimension(1) ins(%s : tensor<16x8xf32>) outs(%m : memref<16x8xf32>)
  return
}
// -----
func.func @f(%s: tensor<16x8xf32>, %m: memref<16x8xf32>) {
  %0 = linalg.softmax dimension(-1) ins(%s : tensor<16x8xf32>) outs(%s : tensor<16x8xf32>) -> tensor<16x8xf32>
  return
}
// -----
func.func @f(%s: tensor<16x8xi32>) {
  %0 = linalg.softmax dimension(1) ins(%s : tensor<16x8xi32>) outs(%s : tensor<16x8xi32>) -> tensor<16x8xi32>
  return
}
// -----
func.func @f(%s: tensor<16x?xf32>, %o: tensor<?x8xf32>) {
  %0 = linalg.softmax dimension(1) ins(%s : tensor<16x?xf32>) outs(%o : tensor<?x8xf32>) -> tensor<?x8xf32>
  return
}
// -----
func.func @f(%a: memref<4x8xf32>, %b: memref<7x2xf32>, %c: memref<4x2xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<7x2xf32>) outs(%c : memref<4x2xf32>)
  return
}
// -----
#m = affine_map<(d0, d1) -> (d0 - d1)>
func.func @f(%a: memref<4xf32>, %c: memref<4x3xf32>) {
  linalg.generic {indexing_maps = [#m, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4xf32>) outs(%c : memref<4x3xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}
// -----
func.func @f(%a: memref<2x3xf32>, %c: memref<2x4xf32>) {
  linalg.exp ins(%a : memref<2x3xf32>) outs(%c : memref<2x4xf32>)
  return
}
// -----
func.func @f(%a: memref<1x8x8x3xf32>, %b: memref<3x3x3x4xf32>, %c: memref<1x7x6x4xf32>) {
  linalg.conv_2d_nhwc_hwcf ins(%a, %b : memref<1x8x8x3xf32>, memref<3x3x3x4xf32>) outs(%c : memref<1x7x6x4xf32>)
  return
}
// -----
func.func @f(%a: memref<0x3xf32>, %c: memref<2x3xf32>) {
  linalg.exp ins(%a : memref<0x3xf32>) outs(%c : memref<2x3xf32>)
  return
}
// -----
func.func @f(%a: memref<?x3xf32>, %c: memref<2x4xf32>) {
  linalg.exp ins(%a : memref<?x3xf32>) outs(%c : memref<2x4xf32>)
  return
}
// -----
func.func @f(%a: memref<4x0xf32>, %b: memref<0x2xf32>, %c: memref<4x2xf32>) {
  linalg.matmul ins(%a, %b : memref<4x0xf32>, memref<0x2xf32>) outs(%c : memref<4x2xf32>)
  return
}
// -----
func.func @f(%a: memref<1x9x9x3xf32>, %b: memref<3x3x3x4xf32>, %c: memref<1x3x3x4xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<3> : tensor<2xi64>} ins(%a, %b : memref<1x9x9x3xf32>, memref<3x3x3x4xf32>) outs(%c : memref<1x3x3x4xf32>)
  return
}
// -----
func.func @f(%a: memref<1x9x9x3xf32>, %b: memref<3x3x3x4xf32>, %c: memref<1x4x3x4xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<3> : tensor<2xi64>} ins(%a, %b : memref<1x9x9x3xf32>, memref<3x3x3x4xf32>) outs(%c : memref<1x4x3x4xf32>)
  return
}
// -----
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %c: tensor<4x2xf32>) {
  %0 = linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<4x8xf32>, tensor<8x3xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}
// -----
func.func @f(%a: tensor<4x8xf32>, %c: tensor<4x8xf32>) {
  %0 = linalg.elementwise kind=#linalg.elementwise_kind<exp> indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>] ins(%a : tensor<4x8xf32>) outs(%c : tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}
// -----
func.func @f(%a: tensor<4x2xf32>) {
  %0 = linalg.elementwise kind=#linalg.elementwise_kind<add> ins(%a : tensor<4x2xf32>) outs(%a : tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}
// -----
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<4x2xf32>) {
  %0 = linalg.contract ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}
// -----
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<4x2xf32>) {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>] ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}
// -----
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<4x2xf32>) {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1) -> (d0, d1)>] ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}
// -----
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<2x4xf32>) {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d1, d0)>] ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}
// -----
func.func @f(%a: tensor<32xf32>, %b: tensor<8x2xf32>, %c: tensor<4x2xf32>) {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0 + d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<32xf32>, tensor<8x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}
// -----
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<4x8xf32>) {
  %0 = linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>] ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>) outs(%c : tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}
// -----
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<4x2xf32>) {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x2xf32>) outs(%c : tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}
// -----
func.func @f(%a: tensor<4x2xf32>) {
  %0 = linalg.elementwise kind=#linalg.elementwise_kind<exp> indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>] ins(%a : tensor<4x2xf32>) outs(%a : tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}
// -----
func.func @f(%a: tensor<4x2xf32>, %v: tensor<4xf32>) {
  %0 = linalg.elementwise kind=#linalg.elementwise_kind<exp> indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>] ins(%v : tensor<4xf32>) outs(%a : tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}
"#;

fn edge_cases() -> Vec<Case> {
    EDGE_CASES
        .split("// -----\n")
        .enumerate()
        .map(|(i, src)| {
            let op = src
                .split_whitespace()
                .find(|w| w.starts_with("linalg."))
                .unwrap_or("linalg.?")
                .to_string();
            Case {
                label: format!("{op} edge case #{i}"),
                op,
                src: src.to_string(),
            }
        })
        .collect()
}

/// memplan's view of one case: the custom and generic prints, or the error.
fn memplan(case: &Case, reg: &Registry) -> Result<(String, String), String> {
    let m = parse_module(&case.src, reg, ParseOptions::default()).map_err(|d| d.message)?;
    verify(&m, reg).map_err(|d| d.message)?;
    let custom = print(&m, reg, false);
    let generic = print(&m, reg, true);
    // Fixpoints: both prints re-read and re-print identically.
    for (text, g) in [(&custom, false), (&generic, true)] {
        let m2 = parse_module(text, reg, ParseOptions::default()).unwrap_or_else(|d| {
            panic!(
                "{}: re-reading its print: {}\n{text}",
                case.label, d.message
            )
        });
        verify(&m2, reg).unwrap_or_else(|d| {
            panic!(
                "{}: re-verifying its print: {}\n{text}",
                case.label, d.message
            )
        });
        assert_eq!(
            *text,
            print(&m2, reg, g),
            "{}: the print is not a fixpoint",
            case.label
        );
    }
    Ok((custom, generic))
}

fn mlir_available() -> bool {
    let ok = Command::new(MLIR_OPT)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("MEMPLAN_REQUIRE_MLIR").as_deref() != Ok("1"),
            "{MLIR_OPT} not found but MEMPLAN_REQUIRE_MLIR=1"
        );
        eprintln!("{MLIR_OPT} not found: comparisons skipped (set MEMPLAN_REQUIRE_MLIR=1 to make this an error)");
    }
    ok
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("memplan-linalg-named-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

/// Runs mlir-opt-22 on chunks (`--split-input-file`), normalised; one entry per chunk,
/// `None` where mlir-opt-22 rejected it.
fn mlir_normalise(chunks: &[&str], file: &Path) -> Vec<Option<String>> {
    std::fs::write(file, chunks.join("\n// -----\n")).expect("write");
    let out = Command::new(MLIR_OPT)
        .args([
            "--split-input-file",
            "--mlir-print-op-generic",
            "--mlir-print-local-scope",
        ])
        .arg(file)
        .output()
        .expect("mlir-opt-22 runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut pieces = vec![String::new()];
    for line in text.lines() {
        if line == "// -----" {
            pieces.push(String::new());
        } else {
            let last = pieces.last_mut().expect("non-empty");
            last.push_str(line);
            last.push('\n');
        }
    }
    assert_eq!(
        pieces.len(),
        chunks.len(),
        "mlir-opt-22 output has {} chunks for {} inputs\n{}",
        pieces.len(),
        chunks.len(),
        String::from_utf8_lossy(&out.stderr)
    );
    pieces
        .into_iter()
        .map(|p| {
            let p = p.trim().to_string();
            (!p.is_empty()).then_some(p)
        })
        .collect()
}

/// memplan reads and verifies mlir-opt-22's generic print `normalised`, and the memoized
/// indexing maps mlir-opt-22 attached to each named op equal memplan's computation from the
/// table.
fn reads_mlir_print(normalised: &str, reg: &Registry) -> Result<(), String> {
    let m = parse_module(normalised, reg, ParseOptions::default()).map_err(|d| d.message)?;
    verify(&m, reg).map_err(|d| format!("memplan rejects mlir-opt-22's print: {}", d.message))?;
    for o in m.walk_ops(m.top) {
        let d = m.op(o);
        let Some(named) = linalg_named::lookup(d.name.as_str()) else {
            continue;
        };
        if named.maps.is_empty() {
            // Element-wise ops compute their maps afresh each time: nothing memoized.
            continue;
        }
        let Some(want) = d.attrs.get("linalg.memoized_indexing_maps") else {
            return Err(format!("{}: no memoized maps in mlir-opt's print", d.name));
        };
        let ranks: Vec<usize> = m
            .operands(o)
            .iter()
            .map(|&v| m.value_type(v).shape().map_or(0, |s| s.len()))
            .collect();
        let got = linalg_named::indexing_maps(named, &d.props, &ranks)
            .ok_or_else(|| format!("{}: memplan cannot compute the maps", d.name))?;
        let got = Attribute::Array(got.into_iter().map(Attribute::AffineMap).collect());
        if got.to_string() != want.to_string() {
            return Err(format!("{}: memplan maps {got}, mlir-opt {want}", d.name));
        }
    }
    Ok(())
}

#[test]
fn every_named_op_round_trips() {
    let reg = reg();
    let mut cases = table_cases();
    cases.extend(hand_cases());
    cases.extend(edge_cases());
    let results: Vec<Result<(String, String), String>> =
        cases.iter().map(|c| memplan(c, &reg)).collect();
    // Every op reads in at least one instance.
    let all_ops: BTreeSet<&str> = cases.iter().map(|c| c.op.as_str()).collect();
    let read: BTreeSet<&str> = cases
        .iter()
        .zip(&results)
        .filter(|(_, r)| r.is_ok())
        .map(|(c, _)| c.op.as_str())
        .collect();
    let unread: Vec<String> = all_ops
        .difference(&read)
        .map(|op| {
            let errs: Vec<String> = cases
                .iter()
                .zip(&results)
                .filter(|(c, _)| c.op == *op)
                .filter_map(|(c, r)| r.as_ref().err().map(|e| format!("{}: {e}", c.label)))
                .collect();
            errs.join("\n")
        })
        .collect();
    assert!(
        unread.is_empty(),
        "ops memplan reads in no instance: {unread:?}"
    );
    assert!(NAMED_OPS.len() >= 81, "the table lost ops");

    if !mlir_available() {
        return;
    }
    let srcs: Vec<&str> = cases.iter().map(|c| c.src.as_str()).collect();
    let reference = mlir_normalise(&srcs, &scratch("ref.mlir"));
    let ok_idx: Vec<usize> = (0..cases.len())
        .filter(|&i| results[i].is_ok() && reference[i].is_some())
        .collect();
    let customs: Vec<&str> = ok_idx
        .iter()
        .map(|&i| results[i].as_ref().map(|r| r.0.as_str()).unwrap_or(""))
        .collect();
    let generics: Vec<&str> = ok_idx
        .iter()
        .map(|&i| results[i].as_ref().map(|r| r.1.as_str()).unwrap_or(""))
        .collect();
    let norm_custom = mlir_normalise(&customs, &scratch("custom.mlir"));
    let norm_generic = mlir_normalise(&generics, &scratch("generic.mlir"));
    // mlir-opt-22's own generic print (memoized maps included), read by memplan and printed in
    // custom form.
    let from_generic: Vec<String> = ok_idx
        .iter()
        .map(|&i| {
            let g = reference[i].as_deref().unwrap_or("");
            match parse_module(g, &reg, ParseOptions::default()) {
                Ok(m) => print(&m, &reg, false),
                Err(d) => format!("// memplan cannot read mlir-opt's print: {}", d.message),
            }
        })
        .collect();
    let from_generic_refs: Vec<&str> = from_generic.iter().map(String::as_str).collect();
    let norm_from_generic = mlir_normalise(&from_generic_refs, &scratch("from_generic.mlir"));
    let _ = std::fs::remove_dir_all(scratch("x").parent().expect("dir"));

    let mut failures = String::new();
    for (i, c) in cases.iter().enumerate() {
        match (&results[i], &reference[i]) {
            (Ok(_), None) => {
                let _ = writeln!(
                    failures,
                    "{}: accepted by memplan, rejected by mlir-opt-22",
                    c.label
                );
            }
            (Err(e), Some(_)) => {
                let _ = writeln!(
                    failures,
                    "{}: rejected by memplan ({e}), accepted by mlir-opt-22",
                    c.label
                );
            }
            _ => {}
        }
    }
    let both: BTreeSet<&str> = ok_idx.iter().map(|&i| cases[i].op.as_str()).collect();
    for op in all_ops.difference(&both) {
        let _ = writeln!(failures, "{op}: no instance accepted by both tools");
    }
    let mut custom_ok: BTreeSet<&str> = both.clone();
    let mut generic_ok: BTreeSet<&str> = both.clone();
    for (k, &i) in ok_idx.iter().enumerate() {
        let c = &cases[i];
        let want = reference[i].as_deref();
        if norm_custom[k].as_deref() != want {
            custom_ok.remove(c.op.as_str());
            let _ = writeln!(
                failures,
                "{}: custom print differs after normalisation\n--- memplan\n{}\n--- mlir-opt-22\n{}",
                c.label,
                norm_custom[k].as_deref().unwrap_or("(rejected)"),
                want.unwrap_or("")
            );
        }
        if norm_generic[k].as_deref() != want {
            generic_ok.remove(c.op.as_str());
            let _ = writeln!(
                failures,
                "{}: generic print differs after normalisation\n--- memplan\n{}\n--- mlir-opt-22\n{}",
                c.label,
                norm_generic[k].as_deref().unwrap_or("(rejected)"),
                want.unwrap_or("")
            );
        }
        if norm_from_generic[k].as_deref() != want {
            custom_ok.remove(c.op.as_str());
            let _ = writeln!(
                failures,
                "{}: mlir-opt's generic print, read and printed in custom form by memplan, differs\n--- memplan\n{}\n--- mlir-opt-22\n{}",
                c.label,
                from_generic[k],
                want.unwrap_or("")
            );
        }
        if let Some(w) = want {
            if let Err(e) = reads_mlir_print(w, &reg) {
                let _ = writeln!(failures, "{}: {e}", c.label);
            }
        }
    }
    eprintln!(
        "{} instances of {} ops; {} accepted by both; ops round-tripping vs mlir-opt-22: custom {}/{}, generic {}/{}",
        cases.len(),
        all_ops.len(),
        ok_idx.len(),
        custom_ok.len(),
        all_ops.len(),
        generic_ok.len(),
        all_ops.len()
    );
    assert!(failures.is_empty(), "{failures}");
}

/// The checked-in table equals a fresh generation from MLIR's ODS files (skipped when
/// libmlir-22-dev or python3 is missing).
#[test]
fn linalg_named_table_is_current() {
    let ods = Path::new(ODS_DIR).join("LinalgNamedStructuredOps.yamlgen.cpp.inc");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/gen_linalg_named.py");
    let required = std::env::var("MEMPLAN_REQUIRE_MLIR").as_deref() == Ok("1");
    if !ods.exists() {
        assert!(
            !required,
            "{} not installed (libmlir-22-dev) but MEMPLAN_REQUIRE_MLIR=1",
            ods.display()
        );
        eprintln!("{} not installed (libmlir-22-dev): skipped", ods.display());
        return;
    }
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

/// Invalid named ops are rejected with MLIR's messages.
#[test]
fn invalid_named_ops_are_rejected() {
    let reg = reg();
    let err = |body: &str, args: &str| -> String {
        let src = format!("func.func @f({args}) {{\n  {body}\n  return\n}}\n");
        match parse_module(&src, &reg, ParseOptions::default()) {
            Err(d) => d.message,
            Ok(m) => verify(&m, &reg).expect_err(&src).message,
        }
    };
    let m = "%a: memref<4xi32>, %b: memref<4x4xf32>, %c: memref<4xf32>";
    assert!(err(
        "linalg.exp ins(%a : memref<4xi32>) outs(%a : memref<4xi32>)",
        m
    )
    .contains("unsupported non numeric type"));
    assert!(err(
        "linalg.exp ins(%c : memref<4xf32>) outs(%b : memref<4x4xf32>)",
        m
    )
    .contains("expected operand rank (1) to match the result rank of indexing_map #0 (2)"));
    assert!(err(
        "linalg.exp ins(%c, %c : memref<4xf32>, memref<4xf32>) outs(%c : memref<4xf32>)",
        m
    )
    .contains("region expects 2 args, got 3"));
    // (mlir-opt-22 crashes on this one instead of reporting the error.)
    assert!(err(
        "linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%a : memref<4xi32>) outs(%a : memref<4xi32>)",
        m
    )
    .contains("unsupported non numeric type"));
    // Generic form: the body must match the operands, linalg.index the loops.
    let generic = |arg: &str, dim: u32| {
        format!(
            "\"linalg.exp\"(%d, %d) <{{operandSegmentSizes = array<i32: 1, 1>}}> ({{\n  ^bb0({arg}, %y: f64):\n    %i = linalg.index {dim} : index\n    linalg.yield %y : f64\n  }}) : (memref<3xf64>, memref<3xf64>) -> ()"
        )
    };
    assert!(err(&generic("%x: f32", 0), "%d: memref<3xf64>").contains(
        "expected type of bb argument #0 ('f32') to match element or self type of the corresponding operand ('f64')"
    ));
    assert!(err(&generic("%x: f64", 1), "%d: memref<3xf64>")
        .contains("expected dim (1) to be lower than the number of loops (1)"));
    let conv = "%i: memref<1x8x8x3xf32>, %k: memref<3x3x3x4xf32>, %o: memref<1x6x6x4xf32>";
    assert!(err(
        "linalg.conv_2d_nhwc_hwcf {strides = dense<1> : tensor<3xi64>} ins(%i, %k : memref<1x8x8x3xf32>, memref<3x3x3x4xf32>) outs(%o : memref<1x6x6x4xf32>)",
        conv
    )
    .contains("incorrect shape for index attribute 'strides'"));
    assert!(err(
        "linalg.conv_2d_nhwc_hwcf ins(%k, %k : memref<3x3x3x4xf32>, memref<3x3x3x4xf32>) outs(%c : memref<4xf32>)",
        "%k: memref<3x3x3x4xf32>, %c: memref<4xf32>"
    )
    .contains("expected operand rank (1) to match the result rank of indexing_map #2 (4)"));
}

/// Every prefix of the hand-written and edge instances, and of one instance per table op, in
/// custom and generic form, is read (and verified when it parses) without a panic; so is every
/// instance with one digit changed.
#[test]
fn truncated_named_ops_never_panic() {
    let reg = reg();
    let mut srcs: Vec<String> = Vec::new();
    let mut seen = BTreeSet::new();
    for c in table_cases() {
        if seen.insert(c.op.clone()) {
            srcs.push(c.src);
        }
    }
    srcs.extend(hand_cases().into_iter().map(|c| c.src));
    srcs.extend(edge_cases().into_iter().map(|c| c.src));
    let generic: Vec<String> = srcs
        .iter()
        .filter_map(|s| {
            let m = parse_module(s, &reg, ParseOptions::default()).ok()?;
            Some(print(&m, &reg, true))
        })
        .collect();
    srcs.extend(generic);
    for src in &srcs {
        for (cut, _) in src.char_indices().step_by(3) {
            if let Ok(m) = parse_module(&src[..cut], &reg, ParseOptions::default()) {
                let _ = verify(&m, &reg);
            }
        }
        // Digits changed one at a time (zero tiles, out-of-range dims, mismatched shapes,
        // segment sizes): verify and print (both forms, verified or not) never panic.
        for (at, c) in src
            .char_indices()
            .filter(|(_, c)| c.is_ascii_digit())
            .step_by(2)
        {
            for with in ["0", "7"] {
                if with.starts_with(c) {
                    continue;
                }
                let mutated = format!("{}{with}{}", &src[..at], &src[at + 1..]);
                if let Ok(m) = parse_module(&mutated, &reg, ParseOptions::default()) {
                    let _ = verify(&m, &reg);
                    let _ = print(&m, &reg, false);
                    let _ = print(&m, &reg, true);
                }
            }
        }
    }
}
