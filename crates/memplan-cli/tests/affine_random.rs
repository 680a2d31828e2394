//! Random affine programs: memplan's dependence analysis and loop fusion against mlir-opt-22
//! (issue 14's differential test).
//!
//! For each seed, [`support::affgen`] makes a program in the format of `shared/mlir/affine`
//! (kernels of affine loop nests on memrefs, a `@main` that fills and prints every buffer). The
//! program must verify in `mlir-opt-22` and run under `mlir-runner-22` (the affine set's oracle:
//! `--lower-affine --convert-bufferization-to-memref --test-lower-to-llvm`), printing the same
//! under two `MALLOC_PERTURB_` bytes; a program that does not is the generator's bug. Then:
//!
//! - (a) `memplan opt P --test-memref-dependence-check -o /dev/null` prints on stderr the same
//!   `remark:` lines as `mlir-opt-22 P --test-memref-dependence-check` (sorted multiset of
//!   `LINE:COL: remark: MESSAGE`, the path before the file name dropped, as `check_affine.sh`
//!   does);
//! - (b) for each fusion mode (default, `mode=producer`, `mode=sibling`, `mode=greedy maximal`),
//!   `memplan opt P --affine-loop-fusion[=MODE] -o OUT` exits 0, OUT verifies in mlir-opt-22, has no
//!   dynamically shaped alloc and prints the same values as P; the default mode's output is
//!   byte-identical when run twice, and its static bytes are at most those of
//!   `mlir-opt-22 --affine-loop-fusion` where upstream's output prints the right values (other
//!   modes: reported, and asserted for [`ALL_MODES_BYTES_SEEDS`] or with
//!   `MEMPLAN_AFFINE_BYTES_MODES=all`);
//! - (c) `--affine-loop-fusion --merge-alloc` keeps the values too.
//!
//! A summary (programs, remark lines compared and agreeing, values kept per mode, bytes against
//! upstream, upstream's own wrong outputs, the generator's coverage) goes to stderr and, with
//! `MEMPLAN_AFFINE_REPORT=FILE`, to that file.
//!
//! Env: `MEMPLAN_RANDOM_SEED` (first seed, default 0), `MEMPLAN_AFFINE_PROGRAMS` (how many, default
//! 4; the regression seeds of [`REGRESSION_SEEDS`] are added unless `MEMPLAN_AFFINE_REGRESSION=0`),
//! `MEMPLAN_AFFINE_JOBS` (programs checked in parallel, default 1), `MEMPLAN_AFFINE_CHECKS`
//! (comma list of `deps`, `fusion`, `merge`; default all), `MEMPLAN_REQUIRE_MLIR=1` (fail instead
//! of skipping without the tools), `MEMPLAN_AFFINE_TOOL` (another binary in memplan's place),
//! `MEMPLAN_AFFINE_MODES` (comma list of the fusion modes to run: `default`, `mode=producer`, ...),
//! `MEMPLAN_AFFINE_UPSTREAM_MODES=1` (also run and execute upstream's output in the non-default
//! modes, for the report; the default mode's always is), `MEMPLAN_AFFINE_BYTES_MODES=all` (assert
//! the bytes against upstream's in every mode, not only the default one; always so for the seeds
//! of [`ALL_MODES_BYTES_SEEDS`]). Tools (ignored tests): `dump_affine_programs` writes programs to
//! `MEMPLAN_AFFGEN_DIR`; `shrink_affine_failure` shrinks seed `MEMPLAN_AFFINE_SHRINK` to a smallest
//! program that still fails the same check.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use support::{affgen, oracle};

/// Seeds that found bugs with the current generator, always checked, with the checks that failed
/// on them (`deps` seeds are cheap: no execution). A change of the generator changes what a seed
/// makes, so every finding is also kept as a minimised, generator-independent program in
/// `tests/affine_findings/` (checked by `affine_findings_regressions`); seeds 2, 6, 29, 147, 151,
/// 174 and 228 of an earlier generator found D1-D7 of FINDINGS.md.
const REGRESSION_SEEDS: &[(u64, &str)] = &[
    (3012, "fusion"),
    (3027, "fusion"),
    (3036, "fusion"),
    (5007, "fusion"),
    (5045, "fusion"),
    (7056, "fusion"),
    (7089, "fusion"),
];

/// Seeds whose static bytes are checked against mlir-opt-22's in every fusion mode, not only the
/// default one (upstream is run in each mode for them): 5007 needs fusion into a nest with a
/// symbolic bound in `mode=greedy maximal` (FINDINGS.md F3), 7056 two symbols over 255 points
/// (`maximal`), 7089 a symbol in a written buffer's subscript (F4). `MEMPLAN_AFFINE_BYTES_MODES=all`
/// checks every mode on every seed of a run.
const ALL_MODES_BYTES_SEEDS: &[u64] = &[5007, 7056, 7089];

/// Open findings, checked strictly both ways: on these seeds the default mode's static bytes are
/// known to exceed mlir-opt-22's, which is reported but not failed; every other check still fails
/// the test, and so does a seed on which the bytes check starts to pass (the finding is fixed:
/// delete it here, it stays in `REGRESSION_SEEDS`). Empty since F4 (7089) was fixed at h-f4g5.
const OPEN_BYTES_SEEDS: &[u64] = &[];

/// The fusion modes checked, as `--affine-loop-fusion` option values ("" = no options).
const MODES: [&str; 4] = ["", "mode=producer", "mode=sibling", "mode=greedy maximal"];

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// The checks to run (`MEMPLAN_AFFINE_CHECKS`, default all), as a comma list.
fn env_checks() -> String {
    match std::env::var("MEMPLAN_AFFINE_CHECKS") {
        Ok(l) if !l.trim().is_empty() => l,
        _ => "deps,fusion,merge".into(),
    }
}

/// The memplan binary under test (env `MEMPLAN_AFFINE_TOOL` replaces it, e.g. by a script that
/// forwards to mlir-opt-22, to check the harness itself).
fn memplan() -> String {
    std::env::var("MEMPLAN_AFFINE_TOOL").unwrap_or_else(|_| env!("CARGO_BIN_EXE_memplan").into())
}

fn fusion_flag(mode: &str) -> String {
    if mode.is_empty() {
        "--affine-loop-fusion".into()
    } else {
        format!("--affine-loop-fusion={mode}")
    }
}

fn mode_name(mode: &str) -> &str {
    if mode.is_empty() {
        "default"
    } else {
        mode
    }
}

/// The `remark:` lines of a tool's stderr as `LINE:COL: remark: MESSAGE`, sorted.
fn remarks(stderr: &str, file_name: &str) -> Vec<String> {
    let key = format!("{file_name}:");
    let mut out: Vec<String> = stderr
        .lines()
        .filter(|l| l.contains("remark:"))
        .map(|l| {
            let tail = match l.find(&key) {
                Some(i) => &l[i + key.len()..],
                None => l,
            };
            match tail.split_once("remark:") {
                Some((loc, msg)) => {
                    format!(
                        "{}: remark: {}",
                        loc.trim().trim_end_matches(':'),
                        msg.trim()
                    )
                }
                None => tail.trim().to_string(),
            }
        })
        .collect();
    out.sort();
    out
}

/// Static bytes of a module printed by mlir-opt-22 (the affine set's rule: every
/// `memref.alloc`/`alloca` result and non-constant `memref.global`, prod(shape) x element size),
/// and the number of dynamically shaped allocations.
fn static_bytes(text: &str) -> (u64, u64) {
    let mut total = 0u64;
    let mut dynamic = 0u64;
    for line in text.lines() {
        let t = line.trim();
        let is_alloc = t.contains("memref.alloc(") || t.contains("memref.alloca(");
        let is_global = t.starts_with("memref.global") && !t.contains(" constant ");
        if !is_alloc && !is_global {
            continue;
        }
        let Some(i) = t.rfind(": memref<") else {
            continue;
        };
        let ty = &t[i + ": memref<".len()..];
        let ty = ty.split(['>', ',']).next().unwrap_or("");
        let parts: Vec<&str> = ty.split('x').collect();
        let (elem, dims) = parts.split_last().expect("split gives one part");
        let eb = match elem.trim() {
            "f16" | "bf16" | "i16" => 2,
            "f32" | "i32" => 4,
            "f64" | "i64" | "index" => 8,
            "i1" | "i8" => 1,
            _ => {
                dynamic += 1;
                continue;
            }
        };
        let mut n = eb;
        let mut ok = true;
        for dd in dims {
            match dd.trim().parse::<u64>() {
                Ok(v) => n *= v,
                Err(_) => ok = false,
            }
        }
        if ok {
            total += n;
        } else {
            dynamic += 1;
        }
    }
    (total, dynamic)
}

/// Output of a command: (success, stdout, stderr).
fn run_cmd(cmd: &mut Command) -> (bool, String, String) {
    match cmd.output() {
        Ok(o) => (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        ),
        Err(e) => (false, String::new(), format!("cannot start: {e}")),
    }
}

fn first_lines(s: &str, n: usize) -> String {
    s.lines()
        .filter(|l| !l.trim().is_empty())
        .take(n)
        .collect::<Vec<_>>()
        .join(" | ")
}

/// `mlir-opt-22 IN ARGS -o OUT`, with a timeout.
fn mlir_opt(input: &Path, args: &[&str], out: &Path) -> (bool, String) {
    let (ok, _, err) = run_cmd(
        Command::new("timeout")
            .arg("60")
            .arg(oracle::MLIR_OPT)
            .arg(input)
            .args(args)
            .arg("-o")
            .arg(out),
    );
    (ok, err)
}

/// `memplan opt IN ARGS -o OUT`, with a timeout.
fn memplan_opt(input: &Path, args: &[&str], out: &Path) -> (bool, String) {
    let (ok, _, err) = run_cmd(
        Command::new("timeout")
            .arg("120")
            .arg(memplan())
            .arg("opt")
            .arg(input)
            .args(args)
            .arg("-o")
            .arg(out),
    );
    (ok, err)
}

/// One fusion mode's result on one program.
#[derive(Default, Clone)]
struct ModeResult {
    /// memplan's output verified and printed the original's values
    kept: bool,
    /// static bytes of memplan's output (when it verified)
    bytes: Option<u64>,
    /// static bytes of upstream's output and whether it prints the original's values
    up_bytes: Option<u64>,
    up_same: bool,
    /// upstream was run on this mode (and failed: crash or invalid output, when `up_bytes` is None)
    up_ran: bool,
}

/// Everything measured on one program.
#[derive(Default)]
struct Outcome {
    seed: u64,
    /// the generator's program is unusable (reason)
    generator: Option<String>,
    orig_bytes: u64,
    remarks_compared: usize,
    remarks_agree: Option<bool>,
    modes: Vec<(String, ModeResult)>,
    merge_kept: Option<bool>,
    merge_bytes: Option<u64>,
    /// (check, detail)
    failures: Vec<(String, String)>,
}

/// Checks one program in `dir`; the text is written to `seedN.mlir`.
fn check_program(dir: &Path, seed: u64, text: &str, checks: &str) -> Outcome {
    let checks_enabled = |which: &str| checks.split(',').any(|x| x.trim() == which);
    let mut o = Outcome {
        seed,
        ..Outcome::default()
    };
    let name = format!("seed{seed}.mlir");
    let p = dir.join(&name);
    std::fs::write(&p, text).expect("write program");
    if let Err(e) = oracle::verify(&p) {
        o.generator = Some(format!("mlir-opt-22 rejects it: {}", first_lines(&e, 3)));
        return o;
    }
    let need_values = checks_enabled("fusion") || checks_enabled("merge");
    let run = |perturb| {
        if need_values {
            oracle::run_affine(&p, perturb)
        } else {
            Ok(String::new())
        }
    };
    let expected = match run(oracle::PERTURB) {
        Ok(s) => s,
        Err(e) => {
            o.generator = Some(format!("does not run: {e}"));
            return o;
        }
    };
    match run(oracle::PERTURB_ALT) {
        Ok(s) if s == expected => {}
        Ok(_) => {
            o.generator = Some("prints other values under another MALLOC_PERTURB_ byte".into());
            return o;
        }
        Err(e) => {
            o.generator = Some(format!("does not run (second perturb byte): {e}"));
            return o;
        }
    }
    let norm = dir.join(format!("seed{seed}.norm.mlir"));
    if mlir_opt(&p, &[], &norm).0 {
        o.orig_bytes = static_bytes(&std::fs::read_to_string(&norm).unwrap_or_default()).0;
    }

    // (a) dependence remarks
    if checks_enabled("deps") {
        let (ok, _, up_err) = run_cmd(
            Command::new(oracle::MLIR_OPT)
                .arg(&p)
                .arg("--test-memref-dependence-check")
                .arg("-o")
                .arg("/dev/null"),
        );
        if !ok || up_err.contains("error:") {
            o.generator = Some(format!(
                "mlir-opt-22 --test-memref-dependence-check fails: {}",
                first_lines(&up_err, 2)
            ));
            return o;
        }
        let want = remarks(&up_err, &name);
        o.remarks_compared = want.len();
        let (ok, _, err) = run_cmd(
            Command::new("timeout")
                .arg("120")
                .arg(memplan())
                .arg("opt")
                .arg(&p)
                .arg("--test-memref-dependence-check")
                .arg("-o")
                .arg("/dev/null"),
        );
        if !ok {
            o.remarks_agree = Some(false);
            o.failures.push((
                "deps".into(),
                format!("memplan exits non-zero: {}", first_lines(&err, 2)),
            ));
        } else {
            let got = remarks(&err, &name);
            if got == want {
                o.remarks_agree = Some(true);
            } else {
                o.remarks_agree = Some(false);
                let mut want_c: BTreeMap<&String, i64> = BTreeMap::new();
                for r in &want {
                    *want_c.entry(r).or_default() += 1;
                }
                for r in &got {
                    *want_c.entry(r).or_default() -= 1;
                }
                let missing: Vec<&&String> = want_c
                    .iter()
                    .filter(|(_, c)| **c > 0)
                    .map(|(r, _)| r)
                    .collect();
                let extra: Vec<&&String> = want_c
                    .iter()
                    .filter(|(_, c)| **c < 0)
                    .map(|(r, _)| r)
                    .collect();
                o.failures.push((
                    "deps".into(),
                    format!(
                        "remarks differ: expected {}, got {}; {} missing (first: {}), {} extra (first: {})",
                        want.len(),
                        got.len(),
                        missing.len(),
                        missing.first().map(|s| s.as_str()).unwrap_or("-"),
                        extra.len(),
                        extra.first().map(|s| s.as_str()).unwrap_or("-")
                    ),
                ));
            }
        }
    }

    // (b) fusion, per mode
    if checks_enabled("fusion") {
        let only = std::env::var("MEMPLAN_AFFINE_MODES").unwrap_or_default();
        let all_modes_bytes = ALL_MODES_BYTES_SEEDS.contains(&seed)
            || std::env::var("MEMPLAN_AFFINE_BYTES_MODES").is_ok_and(|v| v.trim() == "all");
        for (mi, mode) in MODES.iter().enumerate() {
            if !only.trim().is_empty() && !only.split(',').any(|m| m.trim() == mode_name(mode)) {
                continue;
            }
            let flag = fusion_flag(mode);
            let mut r = ModeResult::default();
            // upstream
            let up = dir.join(format!("seed{seed}.up{mi}.mlir"));
            r.up_ran =
                mi == 0 || all_modes_bytes || env_u64("MEMPLAN_AFFINE_UPSTREAM_MODES", 0) != 0;
            if r.up_ran && mlir_opt(&p, &[&flag], &up).0 && oracle::verify(&up).is_ok() {
                r.up_bytes =
                    Some(static_bytes(&std::fs::read_to_string(&up).unwrap_or_default()).0);
                r.up_same =
                    oracle::run_affine(&up, oracle::PERTURB).ok().as_ref() == Some(&expected);
            }
            // memplan
            let out = dir.join(format!("seed{seed}.fused{mi}.mlir"));
            let check = format!("fusion[{}]", mode_name(mode));
            let _ = std::fs::remove_file(&out);
            let (ok, err) = memplan_opt(&p, &[&flag], &out);
            if !ok {
                o.failures.push((
                    check,
                    format!("memplan exits non-zero: {}", first_lines(&err, 2)),
                ));
                o.modes.push((mode_name(mode).into(), r));
                continue;
            }
            let onorm = dir.join(format!("seed{seed}.fused{mi}.norm.mlir"));
            let (vok, verr) = mlir_opt(&out, &[], &onorm);
            if !vok {
                o.failures.push((
                    check,
                    format!("output does not verify: {}", first_lines(&verr, 2)),
                ));
                o.modes.push((mode_name(mode).into(), r));
                continue;
            }
            let (b, dynamic) = static_bytes(&std::fs::read_to_string(&onorm).unwrap_or_default());
            r.bytes = Some(b);
            let mut bad = Vec::new();
            if dynamic > 0 {
                bad.push(format!("{dynamic} dynamically shaped alloc(s)"));
            }
            match oracle::run_affine(&out, oracle::PERTURB) {
                Ok(got) if got == expected => r.kept = true,
                Ok(got) => {
                    let line = expected
                        .lines()
                        .zip(got.lines())
                        .position(|(a, b)| a != b)
                        .map_or(0, |l| l + 1);
                    bad.push(format!("prints other values (first differing line {line})"));
                }
                Err(e) => bad.push(format!("output does not run: {e}")),
            }
            if mi == 0 || all_modes_bytes {
                if let (Some(ub), true) = (r.up_bytes, r.up_same) {
                    if b > ub {
                        bad.push(format!("static bytes {b} > upstream's {ub}"));
                    }
                }
            }
            if mi == 0 {
                let again = dir.join(format!("seed{seed}.fused{mi}.again.mlir"));
                if memplan_opt(&p, &[&flag], &again).0
                    && std::fs::read(&again).ok() != std::fs::read(&out).ok()
                {
                    bad.push("output differs between two runs".into());
                }
            }
            if !bad.is_empty() {
                o.failures.push((check, bad.join("; ")));
            }
            o.modes.push((mode_name(mode).into(), r));
        }
    }

    // (c) fusion then merge-alloc
    if checks_enabled("merge") {
        let out = dir.join(format!("seed{seed}.merged.mlir"));
        let (ok, err) = memplan_opt(&p, &["--affine-loop-fusion", "--merge-alloc"], &out);
        let mnorm = dir.join(format!("seed{seed}.merged.norm.mlir"));
        let res = if !ok {
            Err(format!("memplan exits non-zero: {}", first_lines(&err, 2)))
        } else if let (false, e) = mlir_opt(&out, &[], &mnorm) {
            Err(format!("output does not verify: {}", first_lines(&e, 2)))
        } else {
            o.merge_bytes =
                Some(static_bytes(&std::fs::read_to_string(&mnorm).unwrap_or_default()).0);
            match oracle::run_affine(&out, oracle::PERTURB) {
                Ok(g) if g == expected => Ok(()),
                Ok(_) => Err("prints other values".into()),
                Err(e) => Err(format!("output does not run: {e}")),
            }
        };
        o.merge_kept = Some(res.is_ok());
        if let Err(e) = res {
            o.failures.push(("fusion+merge-alloc".into(), e));
        }
    }
    o
}

/// Totals of one fusion mode over a run.
#[derive(Default)]
struct ModeTotals {
    runs: u64,
    kept: u64,
    /// over the programs whose output kept the values: memplan's bytes, the originals' bytes, and
    /// how many memplan made smaller
    bytes: u64,
    orig: u64,
    shrunk: u64,
    /// where upstream ran and printed the right values too: both sides' bytes and the comparison
    vs_mine: u64,
    vs_up: u64,
    less: u64,
    equal: u64,
    more: u64,
    /// upstream's own outputs: wrong values, crash or invalid IR
    up_wrong: u64,
    up_failed: u64,
}

/// Totals over a run.
#[derive(Default)]
struct Totals {
    programs: u64,
    generator_failures: u64,
    remarks: u64,
    remark_programs: u64,
    remark_agree: u64,
    remark_agree_lines: u64,
    orig_bytes: u64,
    /// per mode name
    modes: BTreeMap<String, ModeTotals>,
    merge_runs: u64,
    merge_kept: u64,
    merge_bytes: u64,
    merge_orig: u64,
    coverage: affgen::Coverage,
}

impl Totals {
    fn add(&mut self, o: &Outcome, cov: &affgen::Coverage) {
        self.programs += 1;
        self.coverage.add(cov);
        if o.generator.is_some() {
            self.generator_failures += 1;
            return;
        }
        self.orig_bytes += o.orig_bytes;
        if let Some(a) = o.remarks_agree {
            self.remark_programs += 1;
            self.remarks += o.remarks_compared as u64;
            if a {
                self.remark_agree += 1;
                self.remark_agree_lines += o.remarks_compared as u64;
            }
        }
        for (m, r) in &o.modes {
            let e = self.modes.entry(m.clone()).or_default();
            e.runs += 1;
            if r.up_ran && r.up_bytes.is_none() {
                e.up_failed += 1;
            } else if r.up_ran && !r.up_same {
                e.up_wrong += 1;
            }
            let (true, Some(b)) = (r.kept, r.bytes) else {
                continue;
            };
            e.kept += 1;
            e.bytes += b;
            e.orig += o.orig_bytes;
            if b < o.orig_bytes {
                e.shrunk += 1;
            }
            if let (Some(ub), true) = (r.up_bytes, r.up_same) {
                e.vs_mine += b;
                e.vs_up += ub;
                match b.cmp(&ub) {
                    std::cmp::Ordering::Less => e.less += 1,
                    std::cmp::Ordering::Equal => e.equal += 1,
                    std::cmp::Ordering::Greater => e.more += 1,
                }
            }
        }
        if let Some(k) = o.merge_kept {
            self.merge_runs += 1;
            if k {
                self.merge_kept += 1;
                self.merge_bytes += o.merge_bytes.unwrap_or(0);
                self.merge_orig += o.orig_bytes;
            }
        }
    }

    fn report(&self) -> String {
        let mut s = format!(
            "affine differential: {} programs ({} unusable by the generator), original static bytes {}\n\
             dependence remarks: {} lines compared over {} programs; {} programs ({} lines) identical to mlir-opt-22\n",
            self.programs,
            self.generator_failures,
            self.orig_bytes,
            self.remarks,
            self.remark_programs,
            self.remark_agree,
            self.remark_agree_lines
        );
        for m in MODES.iter().map(|m| mode_name(m)) {
            let Some(e) = self.modes.get(m) else { continue };
            s.push_str(&format!(
                "fusion [{m}]: values kept {}/{}; static bytes {} (originals {}; smaller on {} programs)",
                e.kept, e.runs, e.bytes, e.orig, e.shrunk
            ));
            if e.less + e.equal + e.more > 0 || e.up_wrong + e.up_failed > 0 {
                s.push_str(&format!(
                    "; vs mlir-opt-22 where its output is right: {} B vs {} B (smaller on {}, equal on {}, \
                     larger on {}); mlir-opt-22 prints wrong values on {}, crashes or emits invalid IR on {}",
                    e.vs_mine, e.vs_up, e.less, e.equal, e.more, e.up_wrong, e.up_failed
                ));
            }
            s.push('\n');
        }
        s.push_str(&format!(
            "fusion + merge-alloc: values kept {}/{}; static bytes {} (originals {})\ncoverage: {}\n",
            self.merge_kept,
            self.merge_runs,
            self.merge_bytes,
            self.merge_orig,
            self.coverage.line()
        ));
        s
    }
}

/// (seed, checks) of a run: the range of the env, then the regression seeds not in it.
fn seed_list() -> Vec<(u64, String)> {
    let first = env_u64("MEMPLAN_RANDOM_SEED", 0);
    let n = env_u64("MEMPLAN_AFFINE_PROGRAMS", 4);
    let all = env_checks();
    let mut v: Vec<(u64, String)> = (first..first + n).map(|s| (s, all.clone())).collect();
    if env_u64("MEMPLAN_AFFINE_REGRESSION", 1) != 0 {
        for (s, c) in REGRESSION_SEEDS {
            if !v.iter().any(|x| x.0 == *s) {
                let c: Vec<&str> = c.split(',').filter(|x| all.contains(x)).collect();
                if !c.is_empty() {
                    v.push((*s, c.join(",")));
                }
            }
        }
    }
    v
}

#[test]
fn affine_differential() {
    if !oracle::require_tools("affine_differential") {
        return;
    }
    let dir = oracle::scratch_dir("affine-random");
    let seeds = seed_list();
    let jobs = env_u64("MEMPLAN_AFFINE_JOBS", 1).max(1) as usize;
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<(Outcome, affgen::Coverage)>> = Mutex::new(Vec::new());
    std::thread::scope(|sc| {
        for _ in 0..jobs {
            sc.spawn(|| loop {
                let i = {
                    let mut n = next.lock().expect("lock");
                    *n += 1;
                    *n - 1
                };
                let Some((seed, checks)) = seeds.get(i) else {
                    break;
                };
                let seed = *seed;
                let prog = affgen::generate(seed);
                let o = check_program(&dir, seed, &prog.text, checks);
                for (c, dtl) in &o.failures {
                    eprintln!("affine seed {seed}: FAIL {c}: {dtl}");
                }
                if let Some(g) = &o.generator {
                    eprintln!("affine seed {seed}: GENERATOR {g}");
                }
                results.lock().expect("lock").push((o, prog.coverage));
            });
        }
    });
    let mut results = results.into_inner().expect("lock");
    results.sort_by_key(|r| r.0.seed);
    let mut totals = Totals::default();
    let mut failures = Vec::new();
    for (o, cov) in &results {
        totals.add(o, cov);
        if let Some(g) = &o.generator {
            failures.push(format!("seed {} generator: {g}", o.seed));
        }
        let open = OPEN_BYTES_SEEDS.contains(&o.seed);
        let mut open_seen = false;
        for (c, dtl) in &o.failures {
            if open && c == "fusion[default]" && dtl.starts_with("static bytes") {
                open_seen = true;
                eprintln!("affine seed {}: known open (FINDINGS.md): {dtl}", o.seed);
                continue;
            }
            failures.push(format!("seed {} {c}: {dtl}", o.seed));
        }
        let ran_default = o.modes.iter().any(|(m, _)| m == "default");
        if open && ran_default && !open_seen {
            failures.push(format!(
                "seed {}: its default-mode bytes no longer exceed mlir-opt-22's: remove it from \
                 OPEN_BYTES_SEEDS (FINDINGS.md)",
                o.seed
            ));
        }
        if !open && o.failures.is_empty() && o.generator.is_none() {
            for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let n = e.file_name().to_string_lossy().into_owned();
                if n.starts_with(&format!("seed{}.", o.seed)) {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
    }
    let report = totals.report();
    eprintln!("{report}");
    if let Ok(f) = std::env::var("MEMPLAN_AFFINE_REPORT") {
        let mut all = report.clone();
        for f in &failures {
            all.push_str(&format!("FAIL {f}\n"));
        }
        let _ = std::fs::write(f, all);
    }
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        panic!(
            "{} check(s) failed on {} random affine programs:\n  {}\nfiles kept in {} \
             (seedN.mlir = program, .fusedM.mlir = memplan's output in mode M of {MODES:?}, \
             .upM.mlir = mlir-opt-22's, .merged.mlir = fusion + merge-alloc); reproduce one with \
             MEMPLAN_RANDOM_SEED=N MEMPLAN_AFFINE_PROGRAMS=1 MEMPLAN_AFFINE_REGRESSION=0, shrink \
             it with MEMPLAN_AFFINE_SHRINK=N cargo test --release -p memplan --test affine_random \
             -- --ignored shrink_affine_failure",
            failures.len(),
            seeds.len(),
            failures.join("\n  "),
            dir.display()
        );
    }
}

/// The minimised programs of past findings (`tests/affine_findings/*.mlir`, see FINDINGS.md):
/// memplan's dependence remarks equal mlir-opt-22's on each, and where a file has a `@main`, every
/// fusion mode keeps its printed values and the default mode's static bytes are at most
/// mlir-opt-22's (where upstream's output prints the right values).
#[test]
fn affine_findings_regressions() {
    if !oracle::require_tools("affine_findings_regressions") {
        return;
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/affine_findings");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&src)
        .expect("tests/affine_findings")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no programs in {}", src.display());
    let dir = oracle::scratch_dir("affine-findings");
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read");
        let name = f
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let p = dir.join(&name);
        std::fs::write(&p, &text).expect("write");
        let (_, _, up) = run_cmd(
            Command::new(oracle::MLIR_OPT)
                .arg(&p)
                .arg("--test-memref-dependence-check")
                .arg("-o")
                .arg("/dev/null"),
        );
        let (ok, _, got) = run_cmd(
            Command::new(memplan())
                .arg("opt")
                .arg(&p)
                .arg("--test-memref-dependence-check")
                .arg("-o")
                .arg("/dev/null"),
        );
        let (want, got) = (remarks(&up, &name), remarks(&got, &name));
        if !ok || want != got {
            let diff: Vec<String> = want
                .iter()
                .filter(|r| !got.contains(r))
                .map(|r| format!("expected `{r}`"))
                .chain(
                    got.iter()
                        .filter(|r| !want.contains(r))
                        .map(|r| format!("got `{r}`")),
                )
                .take(4)
                .collect();
            failures.push(format!("{name}: remarks differ: {}", diff.join("; ")));
        }
        if text.contains("func.func @main") {
            let expected = oracle::run_affine(&p, oracle::PERTURB).expect("the program runs");
            for mode in MODES {
                let out = dir.join(format!("{name}.fused.mlir"));
                let (ok, err) = memplan_opt(&p, &[&fusion_flag(mode)], &out);
                let norm = dir.join(format!("{name}.fused.norm.mlir"));
                let kept = ok
                    && mlir_opt(&out, &[], &norm).0
                    && oracle::run_affine(&out, oracle::PERTURB).ok() == Some(expected.clone());
                if !kept {
                    failures.push(format!(
                        "{name} [{}]: fusion output fails or prints other values {}",
                        mode_name(mode),
                        first_lines(&err, 1)
                    ));
                    continue;
                }
                if !mode.is_empty() {
                    continue;
                }
                // default mode: at most upstream's bytes where upstream's output is right
                let up = dir.join(format!("{name}.up.mlir"));
                if mlir_opt(&p, &[&fusion_flag(mode)], &up).0
                    && oracle::run_affine(&up, oracle::PERTURB).ok() == Some(expected.clone())
                {
                    let ub = static_bytes(&std::fs::read_to_string(&up).unwrap_or_default()).0;
                    let b = static_bytes(&std::fs::read_to_string(&norm).unwrap_or_default()).0;
                    if b > ub {
                        failures.push(format!(
                            "{name}: fused static bytes {b} > mlir-opt-22's {ub}"
                        ));
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Same seed, same program; different seeds, different programs; every program obeys the
/// generator's own rules (in bounds, no read of an unwritten element).
#[test]
fn affine_generator_is_deterministic_and_valid() {
    for seed in [0u64, 1, 17, 1 << 33] {
        let a = affgen::generate(seed);
        assert_eq!(a.text, affgen::generate(seed).text, "seed {seed}");
        for k in &a.kernels {
            affgen::check_kernel(k).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
    }
    assert_ne!(affgen::generate(1).text, affgen::generate(2).text);
    // the coverage the long run relies on shows up in a few dozen seeds
    let mut cov = affgen::Coverage::default();
    for seed in 0..60 {
        cov.add(&affgen::generate(seed).coverage);
    }
    let need = [
        ("depth 1", cov.nests_by_depth[1]),
        ("depth 2", cov.nests_by_depth[2]),
        ("depth 3", cov.nests_by_depth[3]),
        ("reductions", cov.reductions),
        ("guarded reads", cov.guarded_reads),
        ("guarded stores", cov.guarded_stores),
        ("symbolic bounds", cov.sym_bounds),
        ("iv bounds", cov.iv_bounds),
        ("steps", cov.steps),
        ("transposed", cov.transposed),
        ("floordiv", cov.floordiv),
        ("mod", cov.modulo),
        ("in place", cov.in_place),
        ("scans", cov.scans),
        ("siblings", cov.siblings),
        ("deallocs", cov.deallocs),
        ("two kernels", cov.kernels.saturating_sub(60)),
    ];
    for (what, n) in need {
        assert!(n > 0, "no {what} in 60 programs: {}", cov.line());
    }
}

/// Writes programs for inspection:
/// `MEMPLAN_AFFGEN_DIR=/tmp/a MEMPLAN_AFFINE_PROGRAMS=50 cargo test --release -p memplan --test affine_random -- --ignored dump_affine_programs`
#[test]
#[ignore = "tool: writes generated programs to MEMPLAN_AFFGEN_DIR"]
fn dump_affine_programs() {
    let Some(dir) = std::env::var_os("MEMPLAN_AFFGEN_DIR") else {
        eprintln!("dump_affine_programs: set MEMPLAN_AFFGEN_DIR");
        return;
    };
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir).expect("create MEMPLAN_AFFGEN_DIR");
    let first = env_u64("MEMPLAN_RANDOM_SEED", 0);
    let mut cov = affgen::Coverage::default();
    for seed in first..first + env_u64("MEMPLAN_AFFINE_PROGRAMS", 30) {
        let p = affgen::generate(seed);
        cov.add(&p.coverage);
        std::fs::write(dir.join(format!("seed{seed}.mlir")), &p.text).expect("write");
    }
    eprintln!("coverage: {}", cov.line());
}

/// Shrinks seed `MEMPLAN_AFFINE_SHRINK` (greedily dropping nests and kernels while the same
/// check keeps failing) and writes the smallest program to `MEMPLAN_AFFGEN_DIR` (default: the
/// temp dir) as `seedN.min.mlir`.
#[test]
#[ignore = "tool: shrinks a failing seed"]
fn shrink_affine_failure() {
    let Some(seed) = std::env::var("MEMPLAN_AFFINE_SHRINK")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
    else {
        eprintln!("shrink_affine_failure: set MEMPLAN_AFFINE_SHRINK=SEED");
        return;
    };
    if !oracle::require_tools("shrink_affine_failure") {
        return;
    }
    let work = oracle::scratch_dir("affine-shrink");
    let failing = |text: &str| -> Vec<String> {
        check_program(&work, seed, text, &env_checks())
            .failures
            .into_iter()
            .map(|(c, _)| c)
            .collect()
    };
    let mut prog = affgen::generate(seed);
    let first = failing(&prog.text);
    let Some(target) = first.first().cloned() else {
        eprintln!("seed {seed} does not fail");
        return;
    };
    eprintln!("seed {seed}: shrinking while `{target}` fails");
    'outer: loop {
        for cand in affgen::shrink_candidates(&prog) {
            if failing(&cand.text).contains(&target) {
                prog = cand;
                continue 'outer;
            }
        }
        break;
    }
    let out = std::env::var_os("MEMPLAN_AFFGEN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let _ = std::fs::create_dir_all(&out);
    let f = out.join(format!("seed{seed}.min.mlir"));
    std::fs::write(&f, &prog.text).expect("write");
    let o = check_program(&work, seed, &prog.text, &env_checks());
    for (c, d) in &o.failures {
        eprintln!("  {c}: {d}");
    }
    eprintln!("smallest program failing `{target}`: {}", f.display());
    let _ = std::fs::remove_dir_all(&work);
}
