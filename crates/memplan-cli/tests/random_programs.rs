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
//! Issue 9 adds the generator's optional features ([`progen::Features`]): one test per feature
//! (`progen_dealloc`, `progen_callees`, ...: that feature alone, so a failure names it) and
//! `progen_mixed` (a random subset per seed: the long run). Every check also requires that
//! merging happened where it is legal: the output has at least [`progen::Program::min_merged`]
//! more `memref.view`s than the input (each merged allocation becomes one view of an arena; less
//! one per allocation `--remarks` reports as left alone because its scope's arena would save
//! nothing), and
//! no arena view is misaligned for its element type. Programs of the `cfg` feature are lowered by
//! `mlir-opt-22 --convert-scf-to-cf` first (the lowered program is the reference); those of
//! `vectors` are merged under `alignment=1`, `4`, `8` or the default, drawn from the seed.
//!
//! Env: `MEMPLAN_RANDOM_PROGRAMS` (seeds of the base test, default 16), `MEMPLAN_RANDOM_SEED`
//! (first seed, default 0), `MEMPLAN_PROGEN_FEATURE_SEEDS` (seeds of each per-feature test,
//! default 3), `MEMPLAN_PROGEN_SEEDS` (seeds of `progen_mixed`, default 6; 2000 = the long run),
//! `MEMPLAN_PROGEN_FEATURES` (a comma list or `all`: fixes `progen_mixed`'s features and those of
//! `dump_programs`), `MEMPLAN_REQUIRE_MLIR=1` (fail instead of skipping without the tools),
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

/// Number of `memref.view` ops in a module text (merge-alloc turns each merged allocation into
/// one view of its arena).
fn count_views(text: &str) -> u64 {
    text.matches("= memref.view ").count() as u64
}

/// Natural alignment in bytes of the element type of a memref type text (x86-64 data layout;
/// both vector types of the generator are 16 bytes).
fn elem_align(memref_ty: &str) -> u64 {
    if memref_ty.contains("vector<") {
        return 16;
    }
    let inner = memref_ty.trim_end_matches('>');
    match inner.rsplit('x').next().unwrap_or("") {
        "f64" | "i64" | "index" => 8,
        "f32" | "i32" => 4,
        "i16" => 2,
        _ => 1,
    }
}

/// Views of an arena whose element type is misaligned: a constant byte offset that is not a
/// multiple of the element's natural alignment, or an arena whose `alignment` attribute is
/// smaller than it. Issue 9, defect 5: offsets honour max(option, the alloc's own alignment,
/// the element/vector alignment). Reads each function's `arith.constant ... : index` and
/// `memref.alloc() {alignment = N : i64}` (SSA names are unique per function).
fn misaligned_views(text: &str) -> Vec<String> {
    use std::collections::HashMap;
    let mut consts: HashMap<String, u64> = HashMap::new();
    let mut aligns: HashMap<String, u64> = HashMap::new();
    let mut bad = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("func.func") {
            consts.clear();
            aligns.clear();
            continue;
        }
        let Some((lhs, rhs)) = t.split_once(" = ") else {
            continue;
        };
        if let Some(c) = rhs.strip_prefix("arith.constant ") {
            if let Some(v) = c.strip_suffix(" : index") {
                if let Ok(v) = v.trim().parse::<u64>() {
                    consts.insert(lhs.to_string(), v);
                }
            }
        } else if let Some(a) = rhs.strip_prefix("memref.alloc() {alignment = ") {
            if let Some(v) = a.split(' ').next().and_then(|v| v.parse::<u64>().ok()) {
                aligns.insert(lhs.to_string(), v);
            }
        } else if let Some(v) = rhs.strip_prefix("memref.view ") {
            // memref.view %arena[%off][] : memref<Nxi8> to T
            let (Some(open), Some(close)) = (v.find('['), v.find(']')) else {
                continue;
            };
            let base = &v[..open];
            let off = &v[open + 1..close];
            let Some((_, ty)) = v.rsplit_once(" to ") else {
                continue;
            };
            let a = elem_align(ty);
            if let Some(o) = consts.get(off) {
                if o % a != 0 {
                    bad.push(format!("{lhs} : {ty} at byte offset {o} of {base}"));
                    continue;
                }
            }
            if let Some(&al) = aligns.get(base) {
                if al < a {
                    bad.push(format!("{lhs} : {ty} in {base} aligned to only {al} bytes"));
                }
            }
        }
    }
    bad
}

/// Distinct values (other than block arguments) that `bufferization.dealloc` ops of a module
/// retain, per function: each may keep one allocation of the generator's count out of an arena
/// (aliases of several allocations are uncounted by the generator already).
fn retained_values(text: &str) -> u64 {
    let mut seen = std::collections::BTreeSet::new();
    let mut func = 0usize;
    for line in text.lines() {
        if line.trim_start().starts_with("func.func") {
            func += 1;
        }
        if !line.contains("bufferization.dealloc") {
            continue;
        }
        let Some(i) = line.find("retain (") else {
            continue;
        };
        let rest = &line[i + "retain (".len()..];
        let names = rest.split(" : ").next().unwrap_or("");
        for n in names.split(", ") {
            let n = n.trim();
            if n.starts_with('%') && !n.starts_with("%arg") {
                seen.insert((func, n.to_string()));
            }
        }
    }
    seen.len() as u64
}

/// Part of the remark of an allocation left alone because a `bufferization.dealloc` retains it.
const RETAINED_REMARK: &str = "retained by a `bufferization.dealloc`";

/// The remark of an allocation left alone because merging its scope saves nothing.
const NO_SAVING_REMARK: &str = "not merged: merging its scope would not save bytes";

/// What went wrong with one seed: `kind` is one of `generator`, `memplan`, `invalid IR`,
/// `misaligned`, `crash`, `wrong values`, `nothing merged`.
struct Failure {
    kind: &'static str,
    detail: String,
}

fn fail(kind: &'static str, detail: String) -> Failure {
    Failure { kind, detail }
}

/// `mlir-opt-22 IN PASS -o OUT`; a failure is the generator's.
fn mlir_pass(input: &Path, pass: &str, out: &Path) -> Result<(), Failure> {
    let res = Command::new(oracle::MLIR_OPT)
        .arg(input)
        .arg(pass)
        .arg("-o")
        .arg(out)
        .output()
        .map_err(|e| {
            fail(
                "generator",
                format!("cannot start {}: {e}", oracle::MLIR_OPT),
            )
        })?;
    if res.status.success() {
        Ok(())
    } else {
        Err(fail(
            "generator",
            format!(
                "{pass} rejects the program: {}",
                String::from_utf8_lossy(&res.stderr)
            ),
        ))
    }
}

/// Writes the program's module. With `ownership_pass` its `memref.dealloc`s are dropped and
/// `mlir-opt-22 --ownership-based-buffer-deallocation` places the frees; with `lower_to_cfg` it
/// is then lowered by `mlir-opt-22 --convert-scf-to-cf`. The last module is the reference.
fn write_input(dir: &Path, prog: &progen::Program) -> Result<PathBuf, Failure> {
    let seed = prog.seed;
    let mut cur = write(dir, &format!("seed{seed}.mlir"), &prog.text);
    if prog.ownership_pass {
        let stripped: String = prog
            .text
            .lines()
            .filter(|l| !l.trim_start().starts_with("memref.dealloc "))
            .map(|l| format!("{l}\n"))
            .collect();
        let nofree = write(dir, &format!("seed{seed}.nofree.mlir"), &stripped);
        let owned = dir.join(format!("seed{seed}.owned.mlir"));
        mlir_pass(&nofree, "--ownership-based-buffer-deallocation", &owned)?;
        cur = owned;
    }
    if prog.lower_to_cfg {
        let cfg = dir.join(format!("seed{seed}.cfg.mlir"));
        mlir_pass(&cur, "--convert-scf-to-cf", &cfg)?;
        cur = cfg;
    }
    Ok(cur)
}

/// The check of one program through memplan; `Err` says what went wrong (files are kept).
fn check_program(dir: &Path, prog: &progen::Program) -> Result<(), Failure> {
    let seed = prog.seed;
    let input = write_input(dir, prog)?;
    let expected = oracle::run(&input)
        .map_err(|e| fail("generator", format!("original does not run: {e}")))?;
    let again = oracle::run_perturbed(&input, oracle::PERTURB_ALT).map_err(|e| {
        fail(
            "generator",
            format!("original does not run (second perturb byte): {e}"),
        )
    })?;
    if again != expected {
        return Err(fail(
            "generator",
            format!(
                "seed {seed} reads uninitialised memory (its output changes with \
                 MALLOC_PERTURB_={} vs {})",
                oracle::PERTURB,
                oracle::PERTURB_ALT
            ),
        ));
    }
    let out = dir.join(format!("seed{seed}.merged.mlir"));
    let merge_arg = if prog.merge_options.is_empty() {
        "--merge-alloc".to_string()
    } else {
        format!("--merge-alloc={}", prog.merge_options)
    };
    let res = Command::new(env!("CARGO_BIN_EXE_memplan"))
        .arg("opt")
        .arg(&input)
        .arg(&merge_arg)
        .arg("--remarks")
        .arg("-o")
        .arg(&out)
        .output()
        .map_err(|e| fail("memplan", format!("cannot start memplan: {e}")))?;
    if !res.status.success() {
        return Err(fail(
            "memplan",
            format!(
                "memplan opt {merge_arg} failed ({:?}): {}",
                res.status.code(),
                String::from_utf8_lossy(&res.stderr)
                    .lines()
                    .take(8)
                    .collect::<Vec<_>>()
                    .join("\n")
            ),
        ));
    }
    let out_text = std::fs::read_to_string(&out).unwrap_or_default();
    let bad = misaligned_views(&out_text);
    if !bad.is_empty() {
        return Err(fail(
            "misaligned",
            format!(
                "{} misaligned arena view(s) under {merge_arg}, first: {}",
                bad.len(),
                bad[0]
            ),
        ));
    }
    oracle::verify(&out).map_err(|e| {
        fail(
            "invalid IR",
            format!("{} rejects the output:\n{e}", oracle::MLIR_OPT),
        )
    })?;
    let got = oracle::run(&out)
        .map_err(|e| fail("crash", format!("merged program does not run: {e}")))?;
    if got != expected {
        std::fs::write(dir.join(format!("seed{seed}.expected.out")), &expected).ok();
        std::fs::write(dir.join(format!("seed{seed}.merged.out")), &got).ok();
        let first = expected
            .lines()
            .zip(got.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        return Err(fail(
            "wrong values",
            format!(
                "printed values differ from the original (first differing output line {})",
                first + 1
            ),
        ));
    }
    // Merging must have happened where the rules make it legal.
    let in_text = std::fs::read_to_string(&input).unwrap_or_default();
    let merged = count_views(&out_text).saturating_sub(count_views(&in_text));
    // A scope whose arena would not be smaller than its buffers may be left alone (no saving);
    // every allocation the pass leaves alone for that reason comes off the bound.
    let no_saving = String::from_utf8_lossy(&res.stderr)
        .lines()
        .filter(|l| l.contains(NO_SAVING_REMARK))
        .count() as u64;
    // Where --ownership-based-buffer-deallocation placed the frees, it also chose what its
    // deallocs retain (directly, through aliases, or as a callee's argument); the rules let a
    // pass leave retained buffers alone. The deduction is the larger of the retained values the
    // input shows and the allocations the pass reports as retained.
    let retained = if prog.ownership_pass {
        let reported = String::from_utf8_lossy(&res.stderr)
            .lines()
            .filter(|l| l.contains("not merged") && l.contains(RETAINED_REMARK))
            .count() as u64;
        retained_values(&in_text).max(reported)
    } else {
        0
    };
    let want = prog
        .min_merged()
        .saturating_sub(no_saving)
        .saturating_sub(retained);
    if merged < want {
        return Err(fail(
            "nothing merged",
            format!(
                "only {merged} allocations merged, the generator proves at least {want} \
                 mergeable ({merge_arg}; {} proven, {no_saving} left alone as no saving, \
                 {retained} values retained by the ownership pass)",
                prog.min_merged()
            ),
        ));
    }
    Ok(())
}

/// Runs `prog_of(seed)` for every seed of `range`; panics listing the failures.
fn run_seeds(tag: &str, range: std::ops::Range<u64>, prog_of: impl Fn(u64) -> progen::Program) {
    if !oracle::require_tools(tag) {
        return;
    }
    let dir = oracle::scratch_dir(tag);
    let mut failures = Vec::new();
    let n = range.end - range.start;
    for seed in range {
        let prog = prog_of(seed);
        if let Err(e) = check_program(&dir, &prog) {
            eprintln!(
                "{tag} seed {seed} [features {}]: FAIL ({}): {}",
                prog.features.names(),
                e.kind,
                e.detail
            );
            failures.push(format!(
                "seed {seed} [{}] {}: {}",
                prog.features.names(),
                e.kind,
                e.detail.lines().next().unwrap_or("")
            ));
        } else {
            for ext in [
                "mlir",
                "nofree.mlir",
                "owned.mlir",
                "cfg.mlir",
                "merged.mlir",
            ] {
                let _ = std::fs::remove_file(dir.join(format!("seed{seed}.{ext}")));
            }
        }
    }
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        panic!(
            "{} of {n} random programs failed the merge-alloc oracle:\n  {}\n\
             files kept in {} (seedN.mlir = generated, seedN.owned.mlir = its frees placed by \
             --ownership-based-buffer-deallocation, seedN.cfg.mlir = its CFG lowering, \
             seedN.merged.mlir = memplan's output); reproduce one with MEMPLAN_RANDOM_SEED=N \
             MEMPLAN_PROGEN_SEEDS=1 (and MEMPLAN_PROGEN_FEATURES=... for the mixed test)",
            failures.len(),
            failures.join("\n  "),
            dir.display()
        );
    }
}

#[test]
fn merge_alloc_preserves_random_programs() {
    let range = seeds(16);
    run_seeds("random-programs", range, progen::generate);
}

/// Seeds of the per-feature tests: `MEMPLAN_PROGEN_FEATURE_SEEDS` each (default 3).
fn feature_seeds() -> std::ops::Range<u64> {
    let first = env_u64("MEMPLAN_RANDOM_SEED", 0);
    first..first + env_u64("MEMPLAN_PROGEN_FEATURE_SEEDS", 3)
}

fn feature_test(name: &str) {
    let f = progen::Features::only(name).expect("known feature");
    run_seeds(&format!("progen-{name}"), feature_seeds(), |s| {
        progen::generate_with(s, f)
    });
}

#[test]
fn progen_dealloc() {
    feature_test("dealloc");
}
#[test]
fn progen_callees() {
    feature_test("callees");
}
#[test]
fn progen_reshape() {
    feature_test("reshape");
}
#[test]
fn progen_regions() {
    feature_test("regions");
}
#[test]
fn progen_vectors() {
    feature_test("vectors");
}
#[test]
fn progen_cfg() {
    feature_test("cfg");
}
#[test]
fn progen_switch() {
    feature_test("switch");
}
#[test]
fn progen_ptrcmp() {
    feature_test("ptrcmp");
}
#[test]
fn progen_space0() {
    feature_test("space0");
}

/// The long run: `MEMPLAN_PROGEN_SEEDS` seeds (default 6), each with a random subset of the
/// features drawn from its seed, or exactly `MEMPLAN_PROGEN_FEATURES` (a comma list, `all`).
#[test]
fn progen_mixed() {
    let fixed = std::env::var("MEMPLAN_PROGEN_FEATURES")
        .ok()
        .map(|l| progen::Features::parse(&l).unwrap_or_else(|e| panic!("{e}")));
    let first = env_u64("MEMPLAN_RANDOM_SEED", 0);
    let range = first..first + env_u64("MEMPLAN_PROGEN_SEEDS", 6);
    run_seeds("progen-mixed", range, |s| {
        let f = fixed.unwrap_or_else(|| progen::Features::random(s));
        progen::generate_with(s, f)
    });
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
    for name in progen::Features::NAMES {
        let f = progen::Features::only(name).expect("known feature");
        assert_eq!(progen::Features::parse(name), Ok(f));
        assert_eq!(f.names(), name);
        for seed in [0u64, 7] {
            let (a, b) = (
                progen::generate_with(seed, f),
                progen::generate_with(seed, f),
            );
            assert_eq!(a.text, b.text, "{name} seed {seed}");
            assert_eq!(a.merge_options, b.merge_options);
            assert_eq!(a.min_merged(), b.min_merged());
        }
    }
    let all = progen::Features::all();
    assert_eq!(progen::Features::parse("all"), Ok(all));
    assert!(progen::Features::parse("nonsense").is_err());
    assert_eq!(
        progen::generate_with(3, all).text,
        progen::generate_with(3, all).text
    );
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
    let feat = std::env::var("MEMPLAN_PROGEN_FEATURES")
        .map(|l| progen::Features::parse(&l).unwrap_or_else(|e| panic!("{e}")))
        .unwrap_or_default();
    for seed in seeds(30) {
        let prog = progen::generate_with(seed, feat);
        write(&dir, &format!("seed{}.mlir", prog.seed), &prog.text);
        if let Some((bad, _, _)) = progen::corrupt_merge(&prog) {
            write(&dir, &format!("seed{}.bad.mlir", prog.seed), &bad);
        }
    }
}
