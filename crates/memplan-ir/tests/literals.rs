//! Number literals against their types (crates/memplan-ir/src/parser/literals.rs): integer
//! attribute ranges, hexadecimal floats, and the bodies of `dense<...>` / `sparse<...>`
//! literals. Each case is one attribute on an unregistered op with the verdict MLIR 22
//! gives; where `mlir-opt-22` is installed the table itself is checked against it (required
//! with MEMPLAN_REQUIRE_MLIR=1), so a wrong verdict fails instead of locking a mistake in.
//! A generated sweep then compares the two tools on every integer type edge.

mod common;

use common::{memplan_verdict, mlir_verdict};
use std::io::Write;
use std::process::{Command, Stdio};

/// `None`: MLIR accepts `{a = ATTR}`; `Some(needle)`: MLIR rejects it and memplan's message
/// must contain `needle`.
const CASES: &[(&str, Option<&str>)] = &[
    // ---- integer attributes: signless takes the unsigned range too, -0 is out of range ----
    ("255 : i8", None),
    ("-128 : i8", None),
    ("-129 : i8", Some("out of range for attribute")),
    ("256 : i8", Some("out of range for attribute")),
    ("-0 : i32", Some("out of range for attribute")),
    ("127 : si8", None),
    ("128 : si8", Some("out of range for attribute")),
    (
        "-1 : ui8",
        Some("negative integer literal not valid for unsigned"),
    ),
    ("255 : ui8", None),
    ("-1 : i1", None),
    ("2 : i1", Some("out of range for attribute")),
    ("0xFF : i8", None),
    ("0x100 : i8", Some("out of range for attribute")),
    ("9223372036854775807 : index", None),
    (
        "9223372036854775808 : index",
        Some("out of range for attribute"),
    ),
    ("79228162514264337593543950335 : i96", None),
    (
        "79228162514264337593543950336 : i96",
        Some("out of range for attribute"),
    ),
    ("0 : i0", None),
    // ---- float attributes: decimal integers are not floats, hex is the bit pattern ----
    ("42 : f32", Some("unexpected decimal integer literal")),
    ("0x7FC0 : bf16", None),
    (
        "0x7FC01 : bf16",
        Some("hexadecimal float constant out of range"),
    ),
    ("-0x7fff : f16", Some("should not have a leading minus")),
    // ---- dense: type, shape and element kinds ----
    ("dense<[4]> : i32", Some("must be a shaped type")),
    ("dense<[4]> : tensor<?xi32>", Some("must have static shape")),
    ("dense<1> : memref<2xi32>", None),
    (
        "dense<[4]> : tensor<5xi32>",
        Some("inferred shape of elements literal"),
    ),
    (
        "dense<[4, [5]]> : tensor<2xi32>",
        Some("ranks are not consistent"),
    ),
    ("dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>", None),
    ("dense<[[]]> : tensor<1x0xi32>", None),
    ("dense<> : tensor<0xi32>", None),
    ("dense<> : tensor<i64>", Some("parsed zero elements")),
    (
        "dense<[tf_opaque]> : tensor<1xi32>",
        Some("expected element literal of primitive type"),
    ),
    (
        "dense<[4.0]> : tensor<1xi32>",
        Some("expected integer elements, but parsed floating-point"),
    ),
    (
        "dense<[4]> : tensor<1xf32>",
        Some("unexpected decimal integer literal"),
    ),
    (
        "dense<[42.0, true]> : tensor<2xf32>",
        Some("expected floating point literal"),
    ),
    ("dense<[777]> : tensor<1xi8>", Some("out of range for type")),
    ("dense<[-0]> : tensor<1xi32>", Some("out of range for type")),
    (
        "dense<[5, -5]> : vector<2xui32>",
        Some("expected unsigned integer elements"),
    ),
    ("dense<true> : tensor<2xi16>", Some("expected i1 type")),
    ("dense<[1, 0]> : tensor<2xi1>", None),
    ("dense<0x7FC00000> : tensor<2xf32>", None),
    (
        "dense<-0x7FFFFFFF> : tensor<2xf32>",
        Some("should not have a leading minus"),
    ),
    (
        "dense<0x7FF0000000000000> : tensor<2xf32>",
        Some("hexadecimal float constant out of range"),
    ),
    ("dense<[1.0]> : tensor<1xf8E4M3FN>", None),
    // ---- complex elements ----
    ("dense<(1, 2)> : tensor<complex<i32>>", None),
    ("dense<[(1.0, 2.0)]> : tensor<1xcomplex<f32>>", None),
    (
        "dense<[(10)]> : tensor<complex<i64>>",
        Some("expected ',' between complex elements"),
    ),
    ("dense<[(10,10]> : tensor<complex<i64>>", Some("unbalanced")),
    (
        "dense<1.0> : tensor<2xcomplex<f32>>",
        Some("expected 2 elements"),
    ),
    // ---- hex data and strings ----
    ("dense<\"0x0F00\"> : tensor<16xi1>", None),
    ("dense<\"0xFF\"> : tensor<3xi1>", None),
    (
        "dense<\"0x01000100\"> : tensor<4xi1>",
        Some("hex data size is invalid"),
    ),
    ("dense<\"0x0000803F\"> : tensor<4xf32>", None),
    (
        "dense<\"0x0000803F0000\"> : tensor<4xf32>",
        Some("hex data size is invalid"),
    ),
    ("dense<\"foo\"> : tensor<2x!foo.s>", None),
    (
        "dense<[1, 2]> : tensor<2x!foo.s>",
        Some("expected string token"),
    ),
    // ---- sparse ----
    ("sparse<[[0, 1]], [1.0]> : tensor<2x2xf32>", None),
    ("sparse<> : tensor<2x2xf32>", None),
    ("sparse<0, 1.0> : tensor<2x2xf32>", None),
    (
        "sparse<[[0, 0, 0]], [[-2.0]]> : vector<1x1x1xf16>",
        Some("expected 1-d tensor for sparse element values"),
    ),
    (
        "sparse<1, 10> : tensor<1x1xi16>",
        Some("is not contained within the value shape"),
    ),
    (
        "sparse<[[0]], [1.0]> : tensor<2x2xf32>",
        Some("sparse indices"),
    ),
    // ---- dense arrays and resources ----
    // (`array<index: ...>` crashes mlir-opt-22; memplan rejects it.)
    ("array<i7>", Some("bitwidth must be a multiple of 8")),
    ("array<ui1: true>", None),
    ("dense_resource<blob> : memref<2xi32>", None),
    ("dense_resource<blob> : i32", Some("expected a shaped type")),
];

fn module(attr: &str) -> String {
    format!("\"foo.op\"() {{a = {attr}}} : () -> ()\n")
}

fn require_oracle(used: bool) {
    let require = std::env::var("MEMPLAN_REQUIRE_MLIR").as_deref() == Ok("1");
    assert!(
        used || !require,
        "MEMPLAN_REQUIRE_MLIR=1 but mlir-opt-22 did not run"
    );
}

#[test]
fn memplan_agrees_with_mlir_22_on_each_literal() {
    let mut used = false;
    let mut bad = Vec::new();
    for (attr, want) in CASES {
        let src = module(attr);
        match (memplan_verdict(&src), want) {
            (Ok(()), None) => {}
            (Err(e), Some(needle)) if e.contains(needle) => {}
            (Err(e), Some(needle)) => bad.push(format!("{attr}: message {e:?} lacks {needle:?}")),
            (Ok(()), Some(_)) => bad.push(format!("{attr}: memplan accepts what MLIR rejects")),
            (Err(e), None) => bad.push(format!("{attr}: memplan rejects what MLIR accepts ({e})")),
        }
        if let Some(ok) = mlir_verdict(&src) {
            used = true;
            if ok != want.is_none() {
                bad.push(format!("{attr}: mlir-opt-22 disagrees with the table"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    require_oracle(used);
}

/// Every integer type edge (`±2^(w-1)`, `2^w`, each ± 1, `-0`) for a range of widths and
/// the three signednesses, plus the same values as dense elements: memplan's verdict must
/// be mlir-opt-22's. The modules go to mlir-opt-22 in one file, split per case.
#[test]
fn integer_edges_agree_with_mlir_22() {
    let mut attrs = Vec::new();
    for w in [1u32, 2, 7, 8, 16, 31, 32, 33, 63, 64, 65, 127, 128] {
        for prefix in ["i", "si", "ui"] {
            let half = 1u128 << (w - 1);
            let full = if w == 128 { None } else { Some(1u128 << w) };
            let mut mags = vec![0u128, 1, half - 1, half, half + 1];
            if let Some(f) = full {
                mags.extend([f - 1, f]);
                if w < 127 {
                    mags.push(f + 1);
                }
            }
            for m in mags {
                for neg in [false, true] {
                    let sign = if neg { "-" } else { "" };
                    attrs.push(format!("{sign}{m} : {prefix}{w}"));
                    attrs.push(format!("dense<{sign}{m}> : tensor<2x{prefix}{w}>"));
                }
            }
        }
    }
    let mine: Vec<bool> = attrs
        .iter()
        .map(|a| memplan_verdict(&module(a)).is_ok())
        .collect();
    let file: String = attrs
        .iter()
        .map(|a| module(a))
        .collect::<Vec<_>>()
        .join("// -----\n");
    let out = Command::new("mlir-opt-22")
        .args(["--allow-unregistered-dialect", "--split-input-file", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()
        .and_then(|mut c| {
            c.stdin.take()?.write_all(file.as_bytes()).ok()?;
            c.wait_with_output().ok()
        });
    let Some(out) = out else {
        require_oracle(false);
        return;
    };
    // Errors name `<stdin>:LINE:`; each case is one line, split markers in between, so case
    // k sits on line 2k + 1.
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut rejected = vec![false; attrs.len()];
    for line in stderr.lines().filter(|l| l.contains("error:")) {
        if let Some(n) = line
            .split(':')
            .nth(1)
            .and_then(|n| n.trim().parse::<usize>().ok())
        {
            if n % 2 == 1 && (n - 1) / 2 < attrs.len() {
                rejected[(n - 1) / 2] = true;
            }
        }
    }
    let bad: Vec<String> = attrs
        .iter()
        .zip(mine.iter().zip(&rejected))
        .filter(|(_, (&m, &r))| m == r)
        .map(|(a, (&m, _))| format!("{a}: memplan {}", if m { "accepts" } else { "rejects" }))
        .collect();
    assert!(
        rejected.iter().any(|&r| r) && rejected.iter().any(|&r| !r),
        "mlir-opt-22 output not understood:\n{stderr}"
    );
    assert!(
        bad.is_empty(),
        "{} disagreements:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
