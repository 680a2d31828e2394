//! Issue 9's real-pipeline suite: merge-alloc on what mlir-opt-22's bufferization pipelines emit.
//!
//! Every tensor-level program in `tests/pipelines/*.mlir` (each has a `@main` that builds its
//! inputs and prints its results, and kernel functions doing the work) is bufferized by every
//! pipeline of [`PIPELINES`] with the real `mlir-opt-22`. For each (program, pipeline):
//!
//! 1. `mlir-opt-22 PROGRAM PASSES` gives the bufferized file, and the oracle runs it: what it
//!    prints is the reference (the un-merged program is always the reference, nothing is stored);
//! 2. `memplan opt FILE` must read it (else: *parse error*), `memplan opt FILE --merge-alloc`
//!    must rewrite it (else: *pass error*);
//! 3. `mlir-opt-22` must accept the rewritten file (else: *verify error*, or *print error* when
//!    it rejects memplan's print of the unchanged input too);
//! 4. the rewritten file, run by the oracle, must print exactly the reference (else: *wrong
//!    values*, which includes crashes such as double frees).
//!
//! All failures are collected and reported together at the end, with (program, pipeline) and the
//! reason; the scratch files of failing cases are kept. The cases run on a few threads.
//!
//! Measurement: per case, the `memref.alloc` ops and static heap bytes (the sum of the sizes of
//! static `memref.alloc`s, arenas included; `memref.alloca` is stack, not counted) in the kernel
//! functions, before and after merge-alloc, both counted on `mlir-opt-22`'s pretty print. The
//! kernel functions are every function with a body except `@main` and the `@init*` input
//! builders. A case that fails counts as no saving (after = before). The aggregate over the
//! pipelines that run `--buffer-deallocation-pipeline` must reach issue 9's target: static heap
//! bytes after merge-alloc at most half of before.
//!
//! Env: `MEMPLAN_REQUIRE_MLIR=1` (fail instead of skipping without the tools),
//! `MEMPLAN_PIPELINE_FILTER=SUBSTR` (only the cases whose `program/pipeline` contains it),
//! `MEMPLAN_PIPELINE_THREADS=N` (worker threads, default: available cores, 2 to 4),
//! `MEMPLAN_PIPELINE_TABLE=PATH` (write the markdown table of results and savings there).

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use support::oracle;

/// One-shot bufferization as real pipelines use it: across function boundaries, and allowing
/// loops to yield fresh buffers (a loop carrying a new activation each iteration needs it).
const BUFFERIZE: &str =
    "--one-shot-bufferize=bufferize-function-boundaries allow-return-allocs-from-loops";
/// The same with identity layouts at function boundaries (no `strided<[?, ?], offset: ?>`).
const BUFFERIZE_IDENTITY: &str = "--one-shot-bufferize=bufferize-function-boundaries allow-return-allocs-from-loops function-boundary-type-conversion=identity-layout-map";
/// The pass that inserts the deallocations of owned buffers (lowered by the pipeline below).
const DEALLOC: &str = "--buffer-deallocation-pipeline";

/// An mlir-opt-22 pipeline: its name in reports and its arguments.
struct Pipeline {
    name: &'static str,
    args: &'static [&'static str],
}

/// The pipelines each program goes through.
const PIPELINES: &[Pipeline] = &[
    // bufferized only: named linalg ops on memrefs, no deallocations
    Pipeline {
        name: "bufferize",
        args: &[BUFFERIZE],
    },
    Pipeline {
        name: "loops",
        args: &[BUFFERIZE, "--convert-linalg-to-loops"],
    },
    Pipeline {
        name: "dealloc",
        args: &[BUFFERIZE, DEALLOC, "--convert-linalg-to-loops"],
    },
    // ownership-based deallocation left unlowered: `bufferization.dealloc` ops with conditions
    Pipeline {
        name: "ownership",
        args: &[
            BUFFERIZE,
            "--ownership-based-buffer-deallocation",
            "--convert-linalg-to-loops",
        ],
    },
    Pipeline {
        name: "affine",
        args: &[BUFFERIZE, DEALLOC, "--convert-linalg-to-affine-loops"],
    },
    Pipeline {
        name: "parallel",
        args: &[BUFFERIZE, DEALLOC, "--convert-linalg-to-parallel-loops"],
    },
    // multi-block CFG: every scf op lowered to cf branches
    Pipeline {
        name: "cf",
        args: &[
            BUFFERIZE,
            DEALLOC,
            "--convert-linalg-to-loops",
            "--convert-scf-to-cf",
        ],
    },
    Pipeline {
        name: "stack",
        args: &[
            BUFFERIZE,
            "--promote-buffers-to-stack",
            DEALLOC,
            "--convert-linalg-to-loops",
        ],
    },
    Pipeline {
        name: "hoist",
        args: &[
            BUFFERIZE,
            "--buffer-hoisting",
            "--buffer-loop-hoisting",
            DEALLOC,
            "--convert-linalg-to-loops",
        ],
    },
    Pipeline {
        name: "liveness",
        args: &[
            BUFFERIZE,
            DEALLOC,
            "--optimize-allocation-liveness",
            "--convert-linalg-to-loops",
        ],
    },
    Pipeline {
        name: "generic",
        args: &[
            BUFFERIZE,
            DEALLOC,
            "--convert-linalg-to-loops",
            "--mlir-print-op-generic",
        ],
    },
    Pipeline {
        name: "identity",
        args: &[BUFFERIZE_IDENTITY, DEALLOC],
    },
    Pipeline {
        name: "identity_loops",
        args: &[BUFFERIZE_IDENTITY, "--convert-linalg-to-loops"],
    },
    // function results turned into out-params (no buffer returned across calls)
    Pipeline {
        name: "out_params",
        args: &[
            BUFFERIZE,
            "--buffer-results-to-out-params",
            DEALLOC,
            "--convert-linalg-to-loops",
        ],
    },
    // views lowered to memref.extract_strided_metadata / memref.reinterpret_cast
    Pipeline {
        name: "strided",
        args: &[
            BUFFERIZE,
            DEALLOC,
            "--convert-linalg-to-loops",
            "--expand-strided-metadata",
            "--lower-affine",
        ],
    },
    // affine loops vectorised: vector.transfer_read / transfer_write on the buffers
    Pipeline {
        name: "vector",
        args: &[
            BUFFERIZE,
            "--convert-linalg-to-affine-loops",
            "--affine-super-vectorize=virtual-vector-size=4",
            DEALLOC,
        ],
    },
    // named ops generalised before bufferization: linalg.generic on memrefs, not lowered
    Pipeline {
        name: "generalize",
        args: &["--linalg-generalize-named-ops", BUFFERIZE, DEALLOC],
    },
    // elementwise producers fused into consumers at tensor level (fewer, different buffers)
    Pipeline {
        name: "fused",
        args: &[
            "--linalg-fuse-elementwise-ops",
            BUFFERIZE,
            DEALLOC,
            "--convert-linalg-to-loops",
        ],
    },
    // tensor.empty replaced by the destination it is inserted into, where possible
    Pipeline {
        name: "eliminate",
        args: &[
            "--eliminate-empty-tensors",
            BUFFERIZE,
            DEALLOC,
            "--convert-linalg-to-loops",
        ],
    },
    // loads and stores through subviews / reshapes folded onto the underlying buffers
    Pipeline {
        name: "fold",
        args: &[
            BUFFERIZE,
            DEALLOC,
            "--convert-linalg-to-loops",
            "--fold-memref-alias-ops",
            "--canonicalize",
        ],
    },
    // scf.forall turned into scf.for after bufferization (the forall body's buffers in a loop)
    Pipeline {
        name: "forall_for",
        args: &[
            BUFFERIZE,
            "--scf-forall-to-for",
            DEALLOC,
            "--convert-linalg-to-loops",
        ],
    },
    // affine loop fusion over the bufferized kernels (it may privatise or drop buffers)
    Pipeline {
        name: "affine_fusion",
        args: &[
            BUFFERIZE,
            "--convert-linalg-to-affine-loops",
            "--affine-loop-fusion",
            DEALLOC,
        ],
    },
    Pipeline {
        name: "canonical",
        args: &[
            BUFFERIZE,
            DEALLOC,
            "--canonicalize",
            "--cse",
            "--convert-linalg-to-loops",
        ],
    },
];

/// Why a case failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    /// mlir-opt-22 could not apply the pipeline, or the bufferized program does not run: a
    /// problem of the suite or the tools, not of memplan.
    Setup,
    /// `memplan opt FILE` (no pass) rejects the pipeline's output.
    Parse,
    /// `memplan opt FILE --merge-alloc` fails.
    Pass,
    /// mlir-opt-22 rejects memplan's output, and also memplan's print of the input without the
    /// pass: a parser/printer problem, not the pass's.
    Print,
    /// mlir-opt-22 rejects memplan's output (but accepts memplan's print of the unchanged input).
    Verify,
    /// The rewritten program prints something else, or crashes.
    Wrong,
}

impl Class {
    fn label(self) -> &'static str {
        match self {
            Class::Setup => "setup",
            Class::Parse => "parse error",
            Class::Print => "print error",
            Class::Pass => "pass error",
            Class::Verify => "verify error",
            Class::Wrong => "wrong values",
        }
    }
}

/// Allocation counts of a module's kernel functions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    /// `memref.alloc` ops (static and dynamic).
    allocs: u64,
    /// Sum of the byte sizes of the static ones.
    bytes: u64,
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        self.allocs += o.allocs;
        self.bytes += o.bytes;
    }
}

/// The outcome of one (program, pipeline).
struct Outcome {
    program: String,
    pipeline: &'static str,
    dealloc: bool,
    before: Counts,
    /// `None` when the case failed before memplan's output could be counted.
    after: Option<Counts>,
    failure: Option<(Class, String)>,
    /// Why allocs of the kernel functions were not merged: reason -> count (memplan's remarks).
    kept: BTreeMap<String, usize>,
}

/// The programs of the suite, sorted by name.
fn programs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/pipelines");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mlir"))
        .collect();
    v.sort();
    v
}

/// The first `n` lines of a tool's stderr, on one line.
fn first_lines(bytes: &[u8], n: usize) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(n)
        .collect::<Vec<_>>()
        .join(" | ")
}

/// The oracle's failure message without the shell's job report and LLVM's stack dump.
fn short(e: &str) -> &str {
    let e = e.split(" | oracle:").next().unwrap_or(e);
    e.split(" | PLEASE submit").next().unwrap_or(e)
}

/// Runs `mlir-opt-22 INPUT ARGS -o OUTPUT`.
fn mlir_opt(input: &Path, args: &[&str], output: &Path) -> Result<(), String> {
    let out = Command::new("timeout")
        .arg("60")
        .arg(oracle::MLIR_OPT)
        .arg(input)
        .args(args)
        .arg("-o")
        .arg(output)
        .output()
        .map_err(|e| format!("cannot start {}: {e}", oracle::MLIR_OPT))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(first_lines(&out.stderr, 4))
    }
}

/// Runs `memplan opt INPUT ARGS -o OUTPUT`; returns its stderr (the remarks).
fn memplan(input: &Path, args: &[&str], output: &Path) -> Result<String, String> {
    let out = Command::new("timeout")
        .arg("60")
        .arg(env!("CARGO_BIN_EXE_memplan"))
        .arg("opt")
        .arg(input)
        .args(args)
        .arg("-o")
        .arg(output)
        .output()
        .map_err(|e| format!("cannot start memplan: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stderr).into_owned())
    } else {
        Err(format!(
            "exit {:?}: {}",
            out.status.code(),
            first_lines(&out.stderr, 4)
        ))
    }
}

/// Bytes of one element of a memref element type (`f32`, `i1`, `index`, `vector<4xf32>`, ...);
/// `None` for a type this count does not know.
fn element_bytes(ty: &str) -> Option<u64> {
    let ty = ty.trim();
    if let Some(inner) = ty.strip_prefix("vector<").and_then(|s| s.strip_suffix('>')) {
        let mut parts: Vec<&str> = inner.split('x').collect();
        let elem = parts.pop()?;
        let lanes = parts
            .iter()
            .try_fold(1u64, |acc, d| acc.checked_mul(d.parse::<u64>().ok()?))?;
        return lanes.checked_mul(element_bytes(elem)?);
    }
    match ty {
        "index" => Some(8),
        "f16" | "bf16" => Some(2),
        "f32" => Some(4),
        "f64" => Some(8),
        _ => {
            let bits: u64 = ty
                .strip_prefix('i')
                .or_else(|| ty.strip_prefix("ui"))
                .or_else(|| ty.strip_prefix("si"))?
                .parse()
                .ok()?;
            Some(bits.div_ceil(8))
        }
    }
}

/// The text between `memref<` at `start` and its matching `>`.
fn memref_body(line: &str, start: usize) -> Option<&str> {
    let body = &line[start + "memref<".len()..];
    let mut depth = 1usize;
    for (i, c) in body.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&body[..i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// Static byte size of the memref type whose body (inside `memref<...>`) is given; `None` for a
/// dynamic (or unknown) one.
fn static_bytes(body: &str) -> Option<u64> {
    // shape and element type come before the first top-level comma (layout, memory space follow)
    let mut depth = 0usize;
    let mut end = body.len();
    for (i, c) in body.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let shaped = body[..end].trim();
    // dims are the leading `Nx` parts; the element type may itself contain `x` (vector<4xf32>)
    let mut rest = shaped;
    let mut elems = 1u64;
    loop {
        let digits = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '?');
        let n = digits.count();
        if n > 0 && rest[n..].starts_with('x') {
            let dim = &rest[..n];
            if dim.contains('?') {
                return None;
            }
            elems = elems.checked_mul(dim.parse().ok()?)?;
            rest = &rest[n + 1..];
        } else {
            break;
        }
    }
    elems.checked_mul(element_bytes(rest)?)
}

/// Counts `memref.alloc` ops per function in a pretty-printed module.
fn count_allocs(text: &str) -> BTreeMap<String, Counts> {
    let mut per_fn: BTreeMap<String, Counts> = BTreeMap::new();
    let mut current = String::new();
    for line in text.lines() {
        let l = line.trim_start();
        if let Some(rest) = l.strip_prefix("func.func ") {
            let rest = rest
                .trim_start_matches("private ")
                .trim_start_matches("public ");
            if let Some(name) = rest.strip_prefix('@') {
                let end = name.find('(').unwrap_or(name.len());
                current = name[..end].to_string();
            }
            continue;
        }
        if !(l.contains(" = memref.alloc(") || l.contains(" = memref.alloc()")) {
            continue;
        }
        let c = per_fn.entry(current.clone()).or_default();
        c.allocs += 1;
        if let Some(at) = line.rfind("memref<") {
            if let Some(bytes) = memref_body(line, at).and_then(static_bytes) {
                c.bytes += bytes;
            }
        }
    }
    per_fn
}

/// True for the kernel functions: all but `@main` and the `@init*` input builders.
fn is_kernel(name: &str) -> bool {
    name != "main" && !name.starts_with("init")
}

/// The function each line (1-based) of a module lies in, custom or generic form.
fn function_of_lines(text: &str) -> Vec<String> {
    let mut current = String::new();
    let mut v = vec![String::new()];
    for line in text.lines() {
        let l = line.trim_start();
        if let Some(rest) = l.strip_prefix("func.func ") {
            if let Some(at) = rest.find('@') {
                let name = &rest[at + 1..];
                current = name[..name.find('(').unwrap_or(name.len())].to_string();
            }
        } else if l.starts_with("\"func.func\"") {
            if let Some(at) = l.find("sym_name = \"") {
                let name = &l[at + "sym_name = \"".len()..];
                current = name[..name.find('"').unwrap_or(name.len())].to_string();
            }
        }
        v.push(current.clone());
    }
    v
}

/// Counts the reasons of memplan's `not merged` remarks on allocs of kernel functions.
fn kept_reasons(input: &str, remarks: &str) -> BTreeMap<String, usize> {
    let fns = function_of_lines(input);
    let mut reasons = BTreeMap::new();
    for r in remarks.lines() {
        let Some((loc, why)) = r.split_once(" not merged: ") else {
            continue;
        };
        // `PATH:LINE:COL: remark: merge-alloc: NAME`
        let line: Option<usize> = loc
            .split(": remark:")
            .next()
            .and_then(|p| p.rsplit(':').nth(1))
            .and_then(|l| l.parse().ok());
        if !line.and_then(|l| fns.get(l)).is_some_and(|f| is_kernel(f)) {
            continue;
        }
        for reason in why.split("; ") {
            let reason = reason
                .trim()
                .trim_start_matches("it is ")
                .trim_start_matches("it has ")
                .trim_start_matches("it ")
                .trim_start_matches("its ");
            *reasons.entry(reason.to_string()).or_insert(0) += 1;
        }
    }
    reasons
}

/// The counts of the kernel functions (all but `@main` and `@init*`).
fn kernel_counts(pretty: &Path) -> Result<Counts, String> {
    let text = std::fs::read_to_string(pretty).map_err(|e| format!("read: {e}"))?;
    let mut total = Counts::default();
    for (f, c) in count_allocs(&text) {
        if is_kernel(&f) {
            total += c;
        }
    }
    Ok(total)
}

/// Checks one (program, pipeline); returns its outcome. Files go to `dir` and are removed when
/// the case passes.
fn check_case(dir: &Path, program: &Path, pipe: &Pipeline) -> Outcome {
    let stem = program
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("program")
        .to_string();
    let base = format!("{stem}.{}", pipe.name);
    let mut out = Outcome {
        program: stem,
        pipeline: pipe.name,
        dealloc: pipe.args.contains(&DEALLOC),
        before: Counts::default(),
        after: None,
        failure: None,
        kept: BTreeMap::new(),
    };
    let file = |ext: &str| dir.join(format!("{base}.{ext}"));
    let (input, before_pretty, merged, after_pretty, plain) = (
        file("mlir"),
        file("pretty.mlir"),
        file("merged.mlir"),
        file("merged.pretty.mlir"),
        file("roundtrip.mlir"),
    );
    let result = (|| -> Result<(), (Class, String)> {
        mlir_opt(program, pipe.args, &input)
            .map_err(|e| (Class::Setup, format!("mlir-opt-22 pipeline failed: {e}")))?;
        mlir_opt(&input, &[], &before_pretty)
            .map_err(|e| (Class::Setup, format!("mlir-opt-22 cannot re-read: {e}")))?;
        out.before = kernel_counts(&before_pretty).map_err(|e| (Class::Setup, e))?;
        let expected = oracle::run(&input).map_err(|e| {
            (
                Class::Setup,
                format!("bufferized program does not run: {e}"),
            )
        })?;
        if pipe.name == "dealloc" {
            // hand-written programs must not read memory nobody wrote
            let again = oracle::run_perturbed(&input, oracle::PERTURB_ALT)
                .map_err(|e| (Class::Setup, format!("second perturb byte: {e}")))?;
            if again != expected {
                return Err((
                    Class::Setup,
                    "the program reads uninitialised memory (output changes with MALLOC_PERTURB_)"
                        .into(),
                ));
            }
        }
        memplan(&input, &[], &plain).map_err(|e| (Class::Parse, e))?;
        let remarks = memplan(&input, &["--merge-alloc", "--remarks"], &merged)
            .map_err(|e| (Class::Pass, e))?;
        let text = std::fs::read_to_string(&input).map_err(|e| (Class::Setup, e.to_string()))?;
        out.kept = kept_reasons(&text, &remarks);
        if let Err(e) = mlir_opt(&merged, &[], &after_pretty) {
            // a printer problem shows without the pass too: tell it apart from a pass bug
            let class = if mlir_opt(&plain, &[], &after_pretty).is_err() {
                Class::Print
            } else {
                Class::Verify
            };
            return Err((class, format!("mlir-opt-22 rejects the output: {e}")));
        }
        let after = kernel_counts(&after_pretty).map_err(|e| (Class::Setup, e))?;
        let got = oracle::run(&merged)
            .map_err(|e| (Class::Wrong, format!("merged program: {}", short(&e))))?;
        if got != expected {
            std::fs::write(file("expected.out"), &expected).ok();
            std::fs::write(file("merged.out"), &got).ok();
            let line = expected
                .lines()
                .zip(got.lines())
                .position(|(a, b)| a != b)
                .map_or_else(
                    || "output length differs".to_string(),
                    |i| format!("first differing output line {}", i + 1),
                );
            return Err((Class::Wrong, format!("prints other values ({line})")));
        }
        out.after = Some(after);
        Ok(())
    })();
    match result {
        Ok(()) => {
            for p in [&input, &before_pretty, &merged, &after_pretty, &plain] {
                let _ = std::fs::remove_file(p);
            }
        }
        Err(f) => out.failure = Some(f),
    }
    out
}

/// Percentage saved, `-` when there was nothing.
fn reduction(before: u64, after: u64) -> String {
    if before == 0 {
        "-".into()
    } else {
        format!(
            "{:.1}%",
            100.0 * (before as f64 - after as f64) / before as f64
        )
    }
}

/// The markdown report: one row per case, totals per pipeline, and the dealloc aggregate.
fn table(outcomes: &[Outcome]) -> String {
    let mut s = String::new();
    s.push_str("| program | pipeline | allocs before | allocs after | static bytes before | static bytes after | reduction | status | kernel allocs not merged, why (memplan's remarks) |\n");
    s.push_str("|---|---|---:|---:|---:|---:|---:|---|---|\n");
    for o in outcomes {
        let (aa, ab) = match o.after {
            Some(a) => (a.allocs.to_string(), a.bytes.to_string()),
            None => ("-".into(), "-".into()),
        };
        let red = o
            .after
            .map_or_else(|| "-".into(), |a| reduction(o.before.bytes, a.bytes));
        let status = o.failure.as_ref().map_or_else(
            || "ok".to_string(),
            |(c, _)| format!("FAIL ({})", c.label()),
        );
        let why = o
            .kept
            .iter()
            .map(|(r, n)| format!("{n}x {r}"))
            .collect::<Vec<_>>()
            .join("; ");
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            o.program, o.pipeline, o.before.allocs, aa, o.before.bytes, ab, red, status, why
        ));
    }
    s.push_str(
        "\nTotals per pipeline over the kernel functions (a failing case counts as no saving):\n\n",
    );
    s.push_str("| pipeline | cases ok | allocs before | allocs after | static bytes before | static bytes after | reduction |\n");
    s.push_str("|---|---:|---:|---:|---:|---:|---:|\n");
    for p in PIPELINES {
        let (ok, n, b, a) = totals(outcomes.iter().filter(|o| o.pipeline == p.name));
        if n == 0 {
            continue;
        }
        s.push_str(&format!(
            "| {} | {ok}/{n} | {} | {} | {} | {} | {} |\n",
            p.name,
            b.allocs,
            a.allocs,
            b.bytes,
            a.bytes,
            reduction(b.bytes, a.bytes)
        ));
    }
    let (ok, n, b, a) = totals(outcomes.iter().filter(|o| o.dealloc));
    s.push_str(&format!(
        "\nWith `--buffer-deallocation-pipeline` ({ok}/{n} cases ok): static heap bytes {} -> {} ({}), allocs {} -> {}.\n",
        b.bytes,
        a.bytes,
        reduction(b.bytes, a.bytes),
        b.allocs,
        a.allocs
    ));
    // the byte total is dominated by the largest program; the per-program view shows the rest
    let mut names: Vec<&str> = outcomes.iter().map(|o| o.program.as_str()).collect();
    names.dedup();
    let mut rates = Vec::new();
    s.push_str("\nPer program, over the pipelines with `--buffer-deallocation-pipeline`:\n\n");
    s.push_str("| program | cases ok | static bytes before | static bytes after | reduction |\n");
    s.push_str("|---|---:|---:|---:|---:|\n");
    for name in names {
        let (ok, n, b, a) = totals(outcomes.iter().filter(|o| o.dealloc && o.program == name));
        if n == 0 || b.bytes == 0 {
            continue;
        }
        rates.push(1.0 - a.bytes as f64 / b.bytes as f64);
        s.push_str(&format!(
            "| {name} | {ok}/{n} | {} | {} | {} |\n",
            b.bytes,
            a.bytes,
            reduction(b.bytes, a.bytes)
        ));
    }
    if !rates.is_empty() {
        s.push_str(&format!(
            "\nMean of the per-program reductions: {:.1}%.\n",
            100.0 * rates.iter().sum::<f64>() / rates.len() as f64
        ));
    }
    s
}

/// (cases ok, cases, before, after) over some outcomes; a failed case counts after = before.
fn totals<'a>(it: impl Iterator<Item = &'a Outcome>) -> (usize, usize, Counts, Counts) {
    let (mut ok, mut n) = (0, 0);
    let (mut b, mut a) = (Counts::default(), Counts::default());
    for o in it {
        n += 1;
        b += o.before;
        match o.after {
            Some(x) if o.failure.is_none() => {
                ok += 1;
                a += x;
            }
            _ => a += o.before,
        }
    }
    (ok, n, b, a)
}

#[test]
fn merge_alloc_on_real_pipelines() {
    if !oracle::require_tools("merge_alloc_on_real_pipelines") {
        return;
    }
    let filter = std::env::var("MEMPLAN_PIPELINE_FILTER").unwrap_or_default();
    let programs = programs();
    assert!(
        programs.len() >= 8,
        "tests/pipelines holds {} programs",
        programs.len()
    );
    let cases: Vec<(&PathBuf, &Pipeline)> = programs
        .iter()
        .flat_map(|p| PIPELINES.iter().map(move |q| (p, q)))
        .filter(|(p, q)| {
            let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            format!("{stem}/{}", q.name).contains(&filter)
        })
        .collect();
    assert!(
        !cases.is_empty(),
        "no case matches MEMPLAN_PIPELINE_FILTER={filter}"
    );
    let threads = std::env::var("MEMPLAN_PIPELINE_THREADS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map_or(2, |n| n.get())
                .clamp(2, 4)
        })
        .max(1);
    let dir = oracle::scratch_dir("real-pipelines");
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Outcome>>> = Mutex::new((0..cases.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some((prog, pipe)) = cases.get(i) else {
                    break;
                };
                let o = check_case(&dir, prog, pipe);
                if let Some((c, why)) = &o.failure {
                    eprintln!("{}/{}: FAIL ({}): {why}", o.program, o.pipeline, c.label());
                }
                results.lock().expect("results lock")[i] = Some(o);
            });
        }
    });
    let outcomes: Vec<Outcome> = results
        .into_inner()
        .expect("results lock")
        .into_iter()
        .map(|o| o.expect("every case ran"))
        .collect();
    let report = table(&outcomes);
    eprintln!("{report}");
    if let Some(path) = std::env::var_os("MEMPLAN_PIPELINE_TABLE") {
        std::fs::write(&path, &report).expect("write MEMPLAN_PIPELINE_TABLE");
    }
    let mut failures: Vec<String> = outcomes
        .iter()
        .filter_map(|o| {
            o.failure
                .as_ref()
                .map(|(c, why)| format!("{}/{}: {}: {why}", o.program, o.pipeline, c.label()))
        })
        .collect();
    let (_, n_dealloc, b, a) = totals(outcomes.iter().filter(|o| o.dealloc));
    if filter.is_empty() && n_dealloc > 0 && a.bytes.saturating_mul(2) > b.bytes {
        failures.push(format!(
            "savings target missed: with --buffer-deallocation-pipeline the kernels keep {} of {} static heap bytes (more than half)",
            a.bytes, b.bytes
        ));
    }
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        panic!(
            "{} of {} (program, pipeline) cases failed:\n  {}\nfiles kept in {} (P.PIPE.mlir = bufferized input, \
             P.PIPE.merged.mlir = memplan's output); reproduce one with MEMPLAN_PIPELINE_FILTER=program/pipeline",
            failures.len(),
            outcomes.len(),
            failures.join("\n  "),
            dir.display()
        );
    }
}

/// The alloc counter reads static sizes through layouts, memory spaces and vector elements, and
/// leaves dynamic allocs and stack allocations out of the bytes.
#[test]
fn alloc_counter() {
    let text = r#"
func.func @k(%n: index) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
  %b = memref.alloc(%n) : memref<?x8xf32>
  %c = memref.alloca() : memref<16xf32>
  %d = memref.alloc() : memref<2xvector<4xf32>, 1>
  %e = memref.alloc() : memref<3x5xi1, strided<[5, 1]>>
  %f = memref.alloc() : memref<100xi8>
  return
}
func.func private @ext(memref<4xf32>)
func.func @main() {
  %a = memref.alloc() : memref<10xf64>
  return
}
"#;
    let c = count_allocs(text);
    assert_eq!(
        c["k"],
        Counts {
            allocs: 5,
            bytes: 128 + 32 + 15 + 100
        }
    );
    assert_eq!(
        c["main"],
        Counts {
            allocs: 1,
            bytes: 80
        }
    );
    assert_eq!(static_bytes("index"), Some(8));
    assert_eq!(static_bytes("?xf32"), None);
}
