//! Affine programs that real mlir-opt-22 pipelines emit (issue 14): `scripts/affine_real.py`
//! writes random chains of linalg ops on tensors, lowers each through one of its pipelines
//! (`--one-shot-bufferize`, `--buffer-deallocation-pipeline`, `--convert-linalg-to-affine-loops`,
//! `--affine-loop-normalize`, `--affine-scalrep`, `--affine-loop-tile`, unroll + LICM) and adds a
//! driver; its `check` then requires, per program, memplan's `--test-memref-dependence-check`
//! remarks to equal mlir-opt-22's, every `--affine-loop-fusion` mode's output to verify and print
//! the original's values, and (`--strict-bytes`) the default mode's static bytes to be at most
//! mlir-opt-22's where upstream's output prints the right values.
//!
//! CI runs a small sample (`MEMPLAN_AFFINE_REAL_PROGRAMS`, default 7: one per pipeline, from
//! `MEMPLAN_AFFINE_REAL_SEED`, default 1), plus `MEMPLAN_AFFINE_REAL_VECTOR` (default 4) kernels of
//! `gen-vector` (affine.vector_load/vector_store mixed with scalar nests) from the same seed. Needs the MLIR tools and python3: skipped without them
//! unless `MEMPLAN_REQUIRE_MLIR=1`. Larger runs: BENCHMARKS.md §12.1.

mod support;

use std::path::Path;
use std::process::Command;

use support::oracle;

#[test]
fn affine_real_pipelines() {
    if !oracle::require_tools("affine_real_pipelines") {
        return;
    }
    let required = std::env::var("MEMPLAN_REQUIRE_MLIR").as_deref() == Ok("1");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/affine_real.py");
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(d)
    };
    let seed = env("MEMPLAN_AFFINE_REAL_SEED", 1);
    let count = env("MEMPLAN_AFFINE_REAL_PROGRAMS", 7);
    let dir = oracle::scratch_dir("affine-real");
    let gen = Command::new("python3")
        .arg(&script)
        .args([
            "gen",
            "--seed",
            &seed.to_string(),
            "--count",
            &count.to_string(),
        ])
        .arg(&dir)
        .output();
    let Ok(gen) = gen else {
        assert!(!required, "python3 not found but MEMPLAN_REQUIRE_MLIR=1");
        eprintln!("affine_real_pipelines: python3 not found: skipped");
        return;
    };
    assert!(
        gen.status.success(),
        "generator failed:\n{}{}",
        String::from_utf8_lossy(&gen.stdout),
        String::from_utf8_lossy(&gen.stderr)
    );
    // Kernels with affine.vector_load/vector_store (`gen-vector`), in the same directory.
    let vectors = env("MEMPLAN_AFFINE_REAL_VECTOR", 4);
    if vectors > 0 {
        let vgen = Command::new("python3")
            .arg(&script)
            .args([
                "gen-vector",
                "--seed",
                &seed.to_string(),
                "--count",
                &vectors.to_string(),
            ])
            .arg(&dir)
            .output()
            .expect("python3");
        assert!(
            vgen.status.success(),
            "vector generator failed:\n{}{}",
            String::from_utf8_lossy(&vgen.stdout),
            String::from_utf8_lossy(&vgen.stderr)
        );
    }
    let out = Command::new("python3")
        .arg(&script)
        .args([
            "check",
            "--strict-bytes",
            "--memplan",
            env!("CARGO_BIN_EXE_memplan"),
        ])
        .arg(&dir)
        .output()
        .expect("python3");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{report}");
    assert!(
        out.status.success(),
        "affine_real.py check failed:\n{report}"
    );
    assert!(
        report.contains(&format!("cases {} ", count + vectors)),
        "not every program was checked:\n{report}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
