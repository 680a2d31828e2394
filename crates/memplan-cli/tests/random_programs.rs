//! Random structured programs through `memplan opt --merge-alloc`, proven by execution.
//!
//! Issue 5's oracle: for each seed, generate a program ([`support::progen`]), run it under
//! `mlir-opt-22 | mlir-runner-22`, run `memplan opt P --merge-alloc -o OUT`, and require that
//! `mlir-opt-22` accepts OUT and that OUT prints exactly what P prints. A wrong reuse anywhere
//! changes a printed value, because every buffer's contents reach the output.
//!
//! The oracle runs under `MALLOC_PERTURB_` (see [`support::oracle`]). Before trusting an
//! original's output as the reference, the test runs it under a second perturb byte: a program
//! that prints something else then reads memory nobody wrote, which is a bug of the generator,
//! not of the pass, and is reported as such.
//!
//! Env: `MEMPLAN_RANDOM_PROGRAMS` (number of seeds, default 20), `MEMPLAN_RANDOM_SEED` (first
//! seed, default 0), `MEMPLAN_REQUIRE_MLIR=1` (fail instead of skipping without the tools),
//! `MEMPLAN_PROGEN_DIR` (for the ignored `dump_programs`: where to write programs).

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::{oracle, progen};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

fn seeds(default_n: u64) -> std::ops::Range<u64> {
    let first = env_u64("MEMPLAN_RANDOM_SEED", 0);
    first..first + env_u64("MEMPLAN_RANDOM_PROGRAMS", default_n)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write program");
    p
}

/// The check of one seed through memplan; `Err` says what went wrong (files are kept).
fn check_seed(dir: &Path, seed: u64) -> Result<(), String> {
    let prog = progen::generate(seed);
    let input = write(dir, &format!("seed{seed}.mlir"), &prog.text);
    let expected = oracle::run(&input).map_err(|e| format!("original does not run: {e}"))?;
    let again = oracle::run_perturbed(&input, oracle::PERTURB_ALT)
        .map_err(|e| format!("original does not run (second perturb byte): {e}"))?;
    if again != expected {
        return Err(format!(
            "generator bug: seed {seed} reads uninitialised memory (its output changes with \
             MALLOC_PERTURB_={} vs {})",
            oracle::PERTURB,
            oracle::PERTURB_ALT
        ));
    }
    let out = dir.join(format!("seed{seed}.merged.mlir"));
    let res = Command::new(env!("CARGO_BIN_EXE_memplan"))
        .arg("opt")
        .arg(&input)
        .arg("--merge-alloc")
        .arg("-o")
        .arg(&out)
        .output()
        .map_err(|e| format!("cannot start memplan: {e}"))?;
    if !res.status.success() {
        return Err(format!(
            "memplan opt --merge-alloc failed ({:?}): {}",
            res.status.code(),
            String::from_utf8_lossy(&res.stderr)
                .lines()
                .take(8)
                .collect::<Vec<_>>()
                .join("\n")
        ));
    }
    oracle::verify(&out).map_err(|e| format!("{} rejects the output:\n{e}", oracle::MLIR_OPT))?;
    let got = oracle::run(&out).map_err(|e| format!("merged program does not run: {e}"))?;
    if got != expected {
        std::fs::write(dir.join(format!("seed{seed}.expected.out")), &expected).ok();
        std::fs::write(dir.join(format!("seed{seed}.merged.out")), &got).ok();
        let first = expected
            .lines()
            .zip(got.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        return Err(format!(
            "printed values differ from the original (first differing output line {})",
            first + 1
        ));
    }
    Ok(())
}

#[test]
fn merge_alloc_preserves_random_programs() {
    if !oracle::require_tools("merge_alloc_preserves_random_programs") {
        return;
    }
    let dir = oracle::scratch_dir("random-programs");
    let mut failures = Vec::new();
    let range = seeds(20);
    let n = range.end - range.start;
    for seed in range {
        if let Err(e) = check_seed(&dir, seed) {
            eprintln!("seed {seed}: FAIL: {e}");
            failures.push(format!("seed {seed}: {}", e.lines().next().unwrap_or("")));
        } else {
            for ext in ["mlir", "merged.mlir"] {
                let _ = std::fs::remove_file(dir.join(format!("seed{seed}.{ext}")));
            }
        }
    }
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        panic!(
            "{} of {n} random programs failed the merge-alloc oracle:\n  {}\n\
             files kept in {} (seedN.mlir = input, seedN.merged.mlir = memplan's output); \
             reproduce one with MEMPLAN_RANDOM_SEED=N MEMPLAN_RANDOM_PROGRAMS=1",
            failures.len(),
            failures.join("\n  "),
            dir.display()
        );
    }
}

/// The oracle can see a wrong reuse: generated programs verify and run, and merging two co-live
/// buffers into one (what a wrong merge-alloc would do) changes the printed output.
#[test]
fn oracle_detects_wrong_reuse() {
    if !oracle::require_tools("oracle_detects_wrong_reuse") {
        return;
    }
    let dir = oracle::scratch_dir("oracle-selftest");
    let mut corrupted = 0;
    for seed in 0..6u64 {
        let prog = progen::generate(seed);
        let p = write(&dir, &format!("seed{seed}.mlir"), &prog.text);
        if let Err(e) = oracle::verify(&p) {
            panic!(
                "seed {seed}: generated program rejected by mlir-opt ({}):\n{e}",
                p.display()
            );
        }
        let before = oracle::run(&p).unwrap_or_else(|e| {
            panic!(
                "seed {seed}: generated program does not run ({}): {e}",
                p.display()
            )
        });
        assert!(before.contains("data ="), "seed {seed}: no printed memref");
        let Some((bad, a, b)) = progen::corrupt_merge(&prog) else {
            continue;
        };
        let q = write(&dir, &format!("seed{seed}.bad.mlir"), &bad);
        oracle::verify(&q)
            .unwrap_or_else(|e| panic!("seed {seed}: corrupted program invalid: {e}"));
        // A crash is also a detection; a run must print something else.
        if let Ok(after) = oracle::run(&q) {
            assert_ne!(
                before,
                after,
                "seed {seed}: sharing {a} and {b} did not change the output ({})",
                q.display()
            );
        }
        corrupted += 1;
    }
    assert!(
        corrupted >= 4,
        "only {corrupted} seeds had a co-live pair to corrupt"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Same seed, same program; different seeds, different programs.
#[test]
fn generator_is_deterministic() {
    for seed in [0u64, 1, 42, 1 << 40] {
        assert_eq!(progen::generate(seed).text, progen::generate(seed).text);
    }
    assert_ne!(progen::generate(1).text, progen::generate(2).text);
}

/// Writes programs for inspection or external validation:
/// `MEMPLAN_PROGEN_DIR=/tmp/p MEMPLAN_RANDOM_PROGRAMS=200 cargo test -p memplan --test random_programs -- --ignored dump_programs`
#[test]
#[ignore = "tool: writes generated programs to MEMPLAN_PROGEN_DIR"]
fn dump_programs() {
    let Some(dir) = std::env::var_os("MEMPLAN_PROGEN_DIR") else {
        eprintln!("dump_programs: set MEMPLAN_PROGEN_DIR");
        return;
    };
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir).expect("create MEMPLAN_PROGEN_DIR");
    for seed in seeds(30) {
        let prog = progen::generate(seed);
        write(&dir, &format!("seed{}.mlir", prog.seed), &prog.text);
        if let Some((bad, _, _)) = progen::corrupt_merge(&prog) {
            write(&dir, &format!("seed{}.bad.mlir", prog.seed), &bad);
        }
    }
}
