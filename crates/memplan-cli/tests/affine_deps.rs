//! `memplan opt --test-memref-dependence-check` against mlir-opt-22:
//!
//! * the 12 programs of `../shared/mlir/affine` against their recorded remarks
//!   (`NAME.deps.txt`, no tools needed);
//! * the programs of `tests/affine_deps/` (shifted, strided, transposed, floordiv/mod/ceildiv,
//!   symbols, affine.if then/else, max/min bounds, steps, vector accesses, affine.apply,
//!   several functions) against a live `mlir-opt-22` run, skipped without the tool unless
//!   `MEMPLAN_REQUIRE_MLIR=1`.
//!
//! Remarks compare as sorted multisets of their `remark:`/`error:` lines, the file name
//! as given on the command line (both tools run from the file's directory).

use std::path::{Path, PathBuf};
use std::process::Command;

fn shared_dir() -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("SHARED_DIR") {
        return Some(PathBuf::from(dir));
    }
    let beside = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    beside.join("mlir").is_dir().then_some(beside)
}

fn require() -> bool {
    std::env::var("MEMPLAN_REQUIRE_MLIR").as_deref() == Ok("1")
}

/// Sorted `remark:` and `error:` lines of a tool's stderr.
fn remark_lines(stderr: &[u8]) -> Vec<String> {
    let mut v: Vec<String> = String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| l.contains(": remark: ") || l.contains(": error: "))
        .map(str::to_string)
        .collect();
    v.sort();
    v
}

fn memplan_remarks(dir: &Path, file: &str) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_memplan"))
        .current_dir(dir)
        .args([
            "opt",
            file,
            "--test-memref-dependence-check",
            "-o",
            "/dev/null",
        ])
        .output()
        .expect("memplan runs");
    assert!(
        out.status.success(),
        "memplan failed on {file}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    remark_lines(&out.stderr)
}

/// First differing lines of two sorted lists, for the failure message.
fn diff(a: &[String], b: &[String]) -> String {
    let only_a: Vec<&String> = a.iter().filter(|x| !b.contains(x)).take(5).collect();
    let only_b: Vec<&String> = b.iter().filter(|x| !a.contains(x)).take(5).collect();
    format!("memplan only: {only_a:#?}\nreference only: {only_b:#?}")
}

#[test]
fn shared_programs_match_recorded_remarks() {
    let Some(shared) = shared_dir() else {
        assert!(!require(), "../shared not found (set SHARED_DIR)");
        eprintln!("skipped: ../shared not found");
        return;
    };
    let dir = shared.join("mlir/affine");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("affine set")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".deps.txt").map(str::to_string))
        .collect();
    names.sort();
    assert!(
        names.len() >= 12,
        "expected the 12 shared programs, found {names:?}"
    );
    let mut lines = 0;
    for n in &names {
        let want = {
            let text = std::fs::read_to_string(dir.join(format!("{n}.deps.txt"))).unwrap();
            let mut v: Vec<String> = text
                .lines()
                .filter(|l| l.contains("remark:"))
                .map(str::to_string)
                .collect();
            v.sort();
            v
        };
        let got = memplan_remarks(&dir, &format!("{n}.mlir"));
        assert_eq!(got, want, "{n}: {}", diff(&got, &want));
        lines += want.len();
    }
    eprintln!("{} programs, {lines} remark lines identical", names.len());
}

#[test]
fn own_programs_match_mlir_opt() {
    let ok = Command::new("mlir-opt-22")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            !require(),
            "mlir-opt-22 not found but MEMPLAN_REQUIRE_MLIR=1"
        );
        eprintln!("skipped: mlir-opt-22 not found");
        return;
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/affine_deps");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/affine_deps")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".mlir"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut lines = 0;
    for f in &files {
        let out = Command::new("mlir-opt-22")
            .current_dir(&dir)
            .args([
                f.as_str(),
                "--test-memref-dependence-check",
                "-o",
                "/dev/null",
            ])
            .output()
            .expect("mlir-opt-22 runs");
        let want = remark_lines(&out.stderr);
        assert!(!want.is_empty(), "{f}: mlir-opt-22 printed no remarks");
        let got = memplan_remarks(&dir, f);
        assert_eq!(got, want, "{f}: {}", diff(&got, &want));
        lines += want.len();
    }
    eprintln!(
        "{} programs, {lines} remark lines identical to mlir-opt-22",
        files.len()
    );
}
