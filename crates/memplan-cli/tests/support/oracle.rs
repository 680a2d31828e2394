//! The execution oracle of issue 5: lower a memref-level program with the real MLIR 22 tools and
//! run its `@main`, so that two programs can be compared by what they print.
//!
//! The commands are exactly those of `shared/mlir/examples/README.md` (`mlir-opt-22
//! --convert-bufferization-to-memref --test-lower-to-llvm | mlir-runner-22 -e main ...`), with
//! heap addresses in the printed memref descriptors normalised to `ADDR`, each step bounded by a
//! timeout (a heap corrupted by a wrong merge can hang) and `LLVM_DISABLE_SYMBOLIZATION=1` so a
//! crash aborts at once.
//!
//! The runner executes under glibc's `MALLOC_PERTURB_`: every byte `malloc` hands out is filled
//! with `!P` (and every freed byte with `P`), so a read of memory nobody wrote, or of a buffer
//! whose bytes a wrong merge gave to somebody else, sees garbage instead of the lucky zeros or
//! stale values of a fresh heap. [`run`] uses the fixed [`PERTURB`]; [`run_perturbed`] takes
//! another byte, so a test can require that a program prints the same under two of them (a
//! program that does not reads uninitialised memory and cannot serve as a reference).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Name of the reference `mlir-opt`.
pub const MLIR_OPT: &str = "mlir-opt-22";
/// Name of the reference `mlir-runner`.
pub const MLIR_RUNNER: &str = "mlir-runner-22";

/// True when both MLIR 22 tools can be started.
pub fn tools_available() -> bool {
    [MLIR_OPT, MLIR_RUNNER].iter().all(|t| {
        Command::new(t)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok()
    })
}

/// Decides whether an oracle test runs: `true` = go on. Without the tools the test fails when
/// `MEMPLAN_REQUIRE_MLIR=1` (CI) and is skipped with a note otherwise.
pub fn require_tools(test: &str) -> bool {
    if tools_available() {
        return true;
    }
    if std::env::var("MEMPLAN_REQUIRE_MLIR").as_deref() == Ok("1") {
        panic!("{test}: {MLIR_OPT} / {MLIR_RUNNER} not found but MEMPLAN_REQUIRE_MLIR=1");
    }
    eprintln!("{test}: skipped, {MLIR_OPT} / {MLIR_RUNNER} not found (set MEMPLAN_REQUIRE_MLIR=1 to make this an error)");
    false
}

/// Directory holding `libmlir_runner_utils.so*` (env `MLIR_LIB_DIR`, else `/usr/lib/llvm-22/lib`).
fn lib_dir() -> PathBuf {
    std::env::var_os("MLIR_LIB_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/llvm-22/lib"))
}

/// Path of the newest-looking `NAME.so*` in the library directory.
fn shared_lib(name: &str) -> PathBuf {
    let dir = lib_dir();
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(&format!("{name}.so")))
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
        .pop()
        .unwrap_or_else(|| dir.join(format!("{name}.so")))
}

/// Seconds each oracle step may take (env `ORACLE_TIMEOUT`, default 20).
fn timeout_s() -> String {
    std::env::var("ORACLE_TIMEOUT").unwrap_or_else(|_| "60".into())
}

/// Runs `mlir-opt-22 FILE` (parse + verify); `Err` carries its diagnostics.
pub fn verify(file: &Path) -> Result<(), String> {
    let out = Command::new("timeout")
        .arg(timeout_s())
        .arg(MLIR_OPT)
        .arg(file)
        .arg("-o")
        .arg("/dev/null")
        .output()
        .map_err(|e| format!("cannot start {MLIR_OPT}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The `MALLOC_PERTURB_` byte [`run`] executes under (any non-zero value enables perturbing).
pub const PERTURB: u8 = 165;
/// A second perturb byte, for determinism checks against [`PERTURB`] (`90 = !165 & 0xff`, so
/// fresh memory reads `0xa5` under one and `0x5a` under the other).
pub const PERTURB_ALT: u8 = 90;

/// Lowers and runs `FILE`'s `@main` under `MALLOC_PERTURB_=`[`PERTURB`]; returns its normalised
/// stdout, or the reason it failed.
pub fn run(file: &Path) -> Result<String, String> {
    run_perturbed(file, PERTURB)
}

/// [`run`] with `MALLOC_PERTURB_=perturb` for the runner (0 = glibc's default, no perturbing).
pub fn run_perturbed(file: &Path, perturb: u8) -> Result<String, String> {
    run_lowered(file, "", perturb)
}

/// [`run_perturbed`] for programs with affine ops: the affine set's pipeline
/// (`shared/mlir/affine/README.md`) lowers them with `--lower-affine` first.
pub fn run_affine(file: &Path, perturb: u8) -> Result<String, String> {
    run_lowered(file, "--lower-affine", perturb)
}

/// Lowers `file` with `mlir-opt-22 PRE --convert-bufferization-to-memref --test-lower-to-llvm`
/// (`pre` may be empty) and runs its `@main` under `MALLOC_PERTURB_=perturb`.
fn run_lowered(file: &Path, pre: &str, perturb: u8) -> Result<String, String> {
    let t = timeout_s();
    let script = r#"set -o pipefail
timeout "$T" "$OPT" "$1" $PRE --convert-bufferization-to-memref --test-lower-to-llvm \
 | MALLOC_PERTURB_="$P" timeout -s KILL "$T" "$RUNNER" -e main -entry-point-result=void -shared-libs="$L1,$L2" \
 | sed -E 's/base@ = 0x[0-9a-f]+/base@ = ADDR/'"#;
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .arg("oracle")
        .arg(file)
        .env("T", &t)
        .env("P", perturb.to_string())
        .env("PRE", pre)
        .env("OPT", MLIR_OPT)
        .env("RUNNER", MLIR_RUNNER)
        .env("L1", shared_lib("libmlir_runner_utils"))
        .env("L2", shared_lib("libmlir_c_runner_utils"))
        .env("LLVM_DISABLE_SYMBOLIZATION", "1")
        .output()
        .map_err(|e| format!("cannot start bash: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        let first: Vec<&str> = err.lines().take(6).collect();
        Err(format!(
            "oracle failed (exit {:?}): {}",
            out.status.code(),
            first.join(" | ")
        ))
    }
}

/// A scratch directory under the system temp dir, unique per process and `tag`.
pub fn scratch_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("memplan-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create scratch dir");
    d
}

/// Runs LLVM-dialect `FILE`'s `@main` with `mlir-runner-22` (`extra`: e.g. `-O3`); returns its
/// stdout with heap addresses normalised.
pub fn run_llvm(file: &Path, extra: &[&str]) -> Result<String, String> {
    let t = timeout_s();
    let script = r#"set -o pipefail
f="$1"; shift
timeout -s KILL "$T" "$RUNNER" "$f" -e main -entry-point-result=void -shared-libs="$L1,$L2" "$@" \
 | sed -E 's/base@ = 0x[0-9a-f]+/base@ = ADDR/'"#;
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .arg("oracle")
        .arg(file)
        .args(extra)
        .env("T", &t)
        .env("RUNNER", MLIR_RUNNER)
        .env("L1", shared_lib("libmlir_runner_utils"))
        .env("L2", shared_lib("libmlir_c_runner_utils"))
        .env("LLVM_DISABLE_SYMBOLIZATION", "1")
        .output()
        .map_err(|e| format!("cannot start bash: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        let first: Vec<&str> = err.lines().take(6).collect();
        Err(format!(
            "runner failed (exit {:?}): {}",
            out.status.code(),
            first.join(" | ")
        ))
    }
}

/// Runs `cmd args`; its stdout on success, otherwise the command and the first lines of its
/// stderr.
pub fn tool(cmd: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .map_err(|e| format!("{cmd}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{cmd} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .take(4)
                .collect::<Vec<_>>()
                .join(" | ")
        ))
    }
}

/// `BIN opt INPUT ARGS -o OUT`: the memplan binary under test rewrites `input` into `out`.
pub fn memplan_opt(bin: &Path, input: &Path, args: &[&str], out: &Path) -> Result<(), String> {
    let st = Command::new(bin)
        .arg("opt")
        .arg(input)
        .args(args)
        .arg("-o")
        .arg(out)
        .output()
        .map_err(|e| e.to_string())?;
    if st.status.success() {
        Ok(())
    } else {
        Err(format!(
            "memplan opt {} {args:?} failed ({:?}): {}",
            input.display(),
            st.status.code(),
            String::from_utf8_lossy(&st.stderr)
        ))
    }
}
