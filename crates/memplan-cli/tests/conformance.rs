//! Conformance against the real MLIR 22 tools, through the shared checkers in `../shared/mlir`:
//!
//! * `corpus/check_roundtrip.sh`: every upstream corpus case printed by memplan is accepted by
//!   `mlir-opt-22` and normalises to the same module as the original; every invalid case is
//!   rejected with a `line:col` and no panic;
//! * `examples/check_merge_alloc.sh`: every executable example rewritten by `--merge-alloc`
//!   verifies, prints the same values under `mlir-runner-22` and fits the expected arena bytes;
//! * `gpu/check_shared.sh`: every GPU kernel merged by `--merge-shared-memory` verifies,
//!   lowers to PTX within the expected shared bytes and passes the static race check;
//! * `lifetimes/check_lifetimes.sh`: `--llvm-lifetime-markers` output translates, passes the
//!   structural marker check, prints the same values and fits the ideal llc-22 frames; the
//!   memref-level lifelines insert/verify/strip round trip; invalid lifelines are rejected.
//!
//! * `affine/check_affine.sh` (strict, all modes): dependence remarks equal mlir-opt-22's;
//!   `--affine-loop-fusion` output (default, `mode=producer`, `mode=sibling`, `maximal`)
//!   verifies and prints the same values; default-mode bytes at most upstream's and, where the
//!   kernels hold `memref.dealloc`s, at most what upstream reaches without them.
//!
//! All need `mlir-22-tools` (the lifetimes checker also `llc-22` and `llvm-readobj-22`, from
//! `llvm-22`); without them the tests skip, unless `MEMPLAN_REQUIRE_MLIR=1`.

mod support;

use std::path::PathBuf;
use std::process::Command;

use support::oracle;

/// The shared data directory: `$SHARED_DIR`, else `../shared` beside the repository.
fn shared_dir() -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("SHARED_DIR") {
        return Some(PathBuf::from(dir));
    }
    let beside = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    beside.join("mlir").is_dir().then_some(beside)
}

/// Runs one shared checker script with memplan's binary and asserts it passes.
fn run_checker(test: &str, script: &str, arg: &str) {
    run_checker_env(test, script, arg, &[]);
}

/// [`run_checker`] with extra environment variables for the script.
fn run_checker_env(test: &str, script: &str, arg: &str, envs: &[(&str, &str)]) {
    if !oracle::require_tools(test) {
        return;
    }
    let Some(shared) = shared_dir() else {
        assert!(
            std::env::var("MEMPLAN_REQUIRE_MLIR").as_deref() != Ok("1"),
            "{test}: ../shared not found beside the repository (set SHARED_DIR)"
        );
        eprintln!("{test}: skipped, ../shared not found");
        return;
    };
    let script = shared.join(script);
    let target = shared.join(arg);
    let out = Command::new("bash")
        .arg(&script)
        .arg(&target)
        .env("MEMPLAN", env!("CARGO_BIN_EXE_memplan"))
        .env("JOBS", std::env::var("JOBS").unwrap_or_else(|_| "2".into()))
        .envs(envs.iter().copied())
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let failures: Vec<&str> = stdout.lines().filter(|l| l.starts_with("FAIL")).collect();
    let summary = stdout.lines().last().unwrap_or("");
    eprintln!("{test}: {summary}");
    assert!(
        out.status.success(),
        "{test}: {} failed\n{}\n{}\nstderr: {}",
        script.display(),
        failures.join("\n"),
        summary,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn corpus_roundtrip_cases() {
    run_checker(
        "corpus_roundtrip_cases",
        "mlir/corpus/check_roundtrip.sh",
        "mlir/corpus/cases",
    );
}

#[test]
fn corpus_invalid_cases() {
    run_checker(
        "corpus_invalid_cases",
        "mlir/corpus/check_roundtrip.sh",
        "mlir/corpus/invalid",
    );
}

#[test]
fn merge_alloc_examples_execute() {
    run_checker(
        "merge_alloc_examples_execute",
        "mlir/examples/check_merge_alloc.sh",
        "mlir/examples",
    );
}

#[test]
fn gpu_shared_memory_kernels() {
    run_checker(
        "gpu_shared_memory_kernels",
        "mlir/gpu/check_shared.sh",
        "mlir/gpu",
    );
}

#[test]
fn lifetime_markers_set() {
    let test = "lifetime_markers_set";
    let has = |t: &str| {
        Command::new(t)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !(has("llc-22") && has("llvm-readobj-22")) {
        assert!(
            std::env::var("MEMPLAN_REQUIRE_MLIR").as_deref() != Ok("1"),
            "{test}: llc-22 / llvm-readobj-22 not found but MEMPLAN_REQUIRE_MLIR=1"
        );
        eprintln!("{test}: skipped, llc-22 / llvm-readobj-22 not found (package llvm-22)");
        return;
    }
    run_checker(test, "mlir/lifetimes/check_lifetimes.sh", "mlir/lifetimes");
}

#[test]
fn affine_fusion_set() {
    run_checker_env(
        "affine_fusion_set",
        "mlir/affine/check_affine.sh",
        "mlir/affine",
        &[("AFFINE_STRICT", "1"), ("AFFINE_MODES", "1")],
    );
}

/// Differential fuzzing smoke run (issue 10): modules drawn from the ODS op table and mutants of
/// the corpus go to memplan and mlir-opt-22 (`scripts/fuzz_ods.py`); the round trips must agree
/// and memplan must reject what mlir-opt-22 rejects. The long runs are in BENCHMARKS.md.
#[test]
fn ods_fuzz_smoke() {
    if !oracle::require_tools("ods_fuzz_smoke") {
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("python3")
        .arg(root.join("scripts/fuzz_ods.py"))
        .args([
            "--seed",
            "11",
            "--modules",
            "150",
            "--mutants",
            "100",
            "--batch",
            "75",
        ])
        .args([
            "--min-gen",
            "99",
            "--min-custom",
            "85",
            "--min-reject",
            "95",
        ])
        .arg("--memplan")
        .arg(env!("CARGO_BIN_EXE_memplan"))
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
