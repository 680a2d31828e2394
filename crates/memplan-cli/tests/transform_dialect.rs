//! The transform dialect (issue 10): schedules as upstream tests write them read and print
//! faithfully. Every case of `tests/transform/schedules.mlir` (split at `// -----` lines, as
//! `mlir-opt --split-input-file` does) must be accepted by memplan, and both of memplan's prints
//! (custom form and `--mlir-print-op-generic`) must be read back by mlir-opt-22 and normalise to
//! exactly mlir-opt-22's own normalisation of the case. Without mlir-opt-22 only memplan's
//! side runs (read, print, re-read its own print to the same text).

mod support;

use std::path::PathBuf;
use std::process::Command;

use support::oracle;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn memplan(input: &std::path::Path, generic: bool) -> Result<String, String> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_memplan"));
    cmd.arg("opt").arg(input);
    if generic {
        cmd.arg("--mlir-print-op-generic");
    }
    let out = cmd.output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn cases() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("tests/transform/schedules.mlir"))
        .expect("read tests/transform/schedules.mlir");
    let mut out = vec![String::new()];
    for line in text.lines() {
        if line.trim_end() == "// -----" {
            out.push(String::new());
        } else {
            let last = out.last_mut().expect("non-empty");
            last.push_str(line);
            last.push('\n');
        }
    }
    out
}

#[test]
fn transform_schedules_round_trip() {
    let dir = oracle::scratch_dir("transform_dialect");
    let with_mlir = oracle::require_tools("transform_schedules_round_trip");
    let norm = ["--mlir-print-op-generic", "--mlir-print-local-scope"];
    let cs = cases();
    assert!(cs.len() >= 4, "expected the cases of schedules.mlir");
    for (i, case) in cs.iter().enumerate() {
        let input = dir.join(format!("case{i}.mlir"));
        std::fs::write(&input, case).expect("write case");
        let custom =
            memplan(&input, false).unwrap_or_else(|e| panic!("case {i}: memplan rejects it: {e}"));
        let generic = memplan(&input, true)
            .unwrap_or_else(|e| panic!("case {i}: memplan rejects it (generic): {e}"));
        // memplan's own print is a fixed point
        let again = dir.join(format!("case{i}.custom.mlir"));
        std::fs::write(&again, &custom).expect("write print");
        assert_eq!(
            memplan(&again, false).unwrap_or_else(|e| panic!("case {i}: own print rejected: {e}")),
            custom,
            "case {i}: custom print is not a fixed point"
        );
        if !with_mlir {
            continue;
        }
        let mut args: Vec<&str> = norm.to_vec();
        let inp = input.to_str().expect("utf-8 path");
        args.push(inp);
        let want = oracle::tool(oracle::MLIR_OPT, &args)
            .unwrap_or_else(|e| panic!("case {i}: mlir-opt-22 rejects the case: {e}"));
        for (form, text) in [("custom", &custom), ("generic", &generic)] {
            let p = dir.join(format!("case{i}.{form}.mlir"));
            std::fs::write(&p, text).expect("write print");
            let mut args: Vec<&str> = norm.to_vec();
            let ps = p.to_str().expect("utf-8 path");
            args.push(ps);
            let got = oracle::tool(oracle::MLIR_OPT, &args).unwrap_or_else(|e| {
                panic!("case {i}: mlir-opt-22 rejects memplan's {form} print: {e}\n{text}")
            });
            assert_eq!(
                got, want,
                "case {i}: memplan's {form} print normalises differently"
            );
        }
    }
}

/// Forms that memplan must refuse as mlir-opt-22 does (exit 2 with a location).
#[test]
fn transform_syntax_errors() {
    let dir = oracle::scratch_dir("transform_dialect_errors");
    for (i, (src, want)) in [
        // an unclosed dynamic index list
        (
            "transform.sequence failures(propagate) {\n^bb0(%a: !transform.any_op):\n  %0, %1 = transform.structured.tile_using_for %a tile_sizes [[4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)\n}\n",
            "",
        ),
        // a scalable size is an integer
        (
            "transform.sequence failures(propagate) {\n^bb0(%a: !transform.any_op, %b: !transform.any_op):\n  %0, %1 = transform.structured.tile_using_for %a tile_sizes [[%b]] : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)\n}\n",
            "",
        ),
        // SemiFunctionType with a required result needs its parentheses
        (
            "transform.sequence failures(propagate) {\n^bb0(%a: !transform.any_op):\n  %0 = transform.structured.generalize %a : !transform.any_op\n}\n",
            "'('",
        ),
        // extra bindings need one type each
        (
            "transform.sequence failures(propagate) {\n^bb0(%a: !transform.any_op, %b: !transform.any_op):\n  transform.sequence %a, %b : !transform.any_op failures(propagate) {\n  ^bb1(%x: !transform.any_op, %y: !transform.any_op):\n  }\n}\n",
            "",
        ),
        // an unknown op of the transform dialect
        (
            "transform.sequence failures(propagate) {\n^bb0(%a: !transform.any_op):\n  \"transform.no_such_op\"(%a) : (!transform.any_op) -> ()\n}\n",
            "unregistered operation",
        ),
    ]
    .iter()
    .enumerate()
    {
        let p = dir.join(format!("bad{i}.mlir"));
        std::fs::write(&p, src).expect("write");
        let out = Command::new(env!("CARGO_BIN_EXE_memplan"))
            .arg("opt")
            .arg(&p)
            .output()
            .expect("run memplan");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "case {i}: {err}");
        assert!(err.contains(want), "case {i}: {err}");
        assert!(err.contains(&format!("bad{i}.mlir:")), "case {i}: no location: {err}");
    }
}
