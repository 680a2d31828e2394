//! merge-alloc proven by execution: a buffer allocated before an `scf.for` and used only
//! inside an `scf.if` inside the loop carries state between iterations, so it must not
//! share bytes with the per-iteration temporary allocated after the `scf.if` (the
//! reference implementation's innermost-op stretching gets this wrong). The program runs
//! under `mlir-opt-22 | mlir-runner-22` before and after the pass and must print the same
//! values. Without the MLIR tools the test only checks the plan (set
//! `MEMPLAN_REQUIRE_MLIR=1` to fail instead).

use std::path::{Path, PathBuf};
use std::process::Command;

use memplan_ir::{parse_module, print_module, ParseOptions, PrintOptions, Registry};
use memplan_passes::transform::merge_alloc::{merge_alloc, MergeAllocOptions};

const PROGRAM: &str = r#"
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }
func.func @kernel(%out: memref<6x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  %s = memref.alloc() : memref<16xf32>
  scf.for %k = %c0 to %c16 step %c1 {
    memref.store %one, %s[%k] : memref<16xf32>
  }
  scf.for %i = %c0 to %c6 step %c1 {
    %odd = arith.remui %i, %c2 : index
    %cond = arith.cmpi eq, %odd, %c0 : index
    scf.if %cond {
      scf.for %k = %c0 to %c16 step %c1 {
        %v = memref.load %s[%k] : memref<16xf32>
        %w = arith.addf %v, %v : f32
        memref.store %w, %s[%k] : memref<16xf32>
        memref.store %w, %out[%i, %k] : memref<6x16xf32>
      }
    }
    %t = memref.alloc() : memref<16xf32>
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    scf.for %k = %c0 to %c16 step %c1 {
      memref.store %fi, %t[%k] : memref<16xf32>
    }
    scf.for %k = %c0 to %c16 step %c1 {
      %a = memref.load %t[%k] : memref<16xf32>
      %b = memref.load %out[%i, %k] : memref<6x16xf32>
      %c = arith.addf %a, %b : f32
      memref.store %c, %out[%i, %k] : memref<6x16xf32>
    }
  }
  return
}
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c16 = arith.constant 16 : index
  %z = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<6x16xf32>
  scf.for %i = %c0 to %c6 step %c1 {
    scf.for %k = %c0 to %c16 step %c1 {
      memref.store %z, %out[%i, %k] : memref<6x16xf32>
    }
  }
  call @kernel(%out) : (memref<6x16xf32>) -> ()
  %u = memref.cast %out : memref<6x16xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %out : memref<6x16xf32>
  return
}
"#;

const MLIR_OPT: &str = "mlir-opt-22";
const MLIR_RUNNER: &str = "mlir-runner-22";

fn tools_present() -> bool {
    let ok = |t: &str| {
        Command::new(t)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let present = ok(MLIR_OPT) && ok(MLIR_RUNNER);
    if !present && std::env::var("MEMPLAN_REQUIRE_MLIR").is_ok_and(|v| v == "1") {
        panic!("{MLIR_OPT} / {MLIR_RUNNER} not found and MEMPLAN_REQUIRE_MLIR=1");
    }
    present
}

fn scratch() -> PathBuf {
    let d = std::env::temp_dir().join(format!("memplan-passes-exec-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `mlir-opt-22 FILE --mlir-print-op-generic`: memplan's own parser may not read every
/// custom form yet, the generic form it always reads.
fn to_generic(file: &Path) -> String {
    let out = Command::new(MLIR_OPT)
        .arg(file)
        .arg("--mlir-print-op-generic")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn run(file: &Path) -> String {
    let lib = "/usr/lib/llvm-22/lib";
    let script = format!(
        "set -o pipefail; timeout 30 {MLIR_OPT} \"$1\" --convert-bufferization-to-memref --test-lower-to-llvm \
         | timeout 30 {MLIR_RUNNER} -e main -entry-point-result=void \
           -shared-libs={lib}/libmlir_runner_utils.so.22.1,{lib}/libmlir_c_runner_utils.so.22.1"
    );
    let out = Command::new("bash")
        .args(["-c", &script, "oracle"])
        .arg(file)
        .env("LLVM_DISABLE_SYMBOLIZATION", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "oracle failed on {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // Normalise the printed base address.
    text.lines()
        .map(|l| match l.find("base@ = 0x") {
            Some(p) => {
                let rest = &l[p + 10..];
                let end = rest
                    .find(|c: char| !c.is_ascii_hexdigit())
                    .unwrap_or(rest.len());
                format!("{}base@ = ADDR{}", &l[..p], &rest[end..])
            }
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn carried_buffer_in_nested_if_survives_merging() {
    if !tools_present() {
        eprintln!("skipping: {MLIR_OPT} / {MLIR_RUNNER} not installed");
        return;
    }
    let dir = scratch();
    let input = dir.join("carry.mlir");
    std::fs::write(&input, PROGRAM).unwrap();
    let reg = Registry::with_all_dialects();
    let mut m = parse_module(&to_generic(&input), &reg, ParseOptions::default()).unwrap();
    let report = merge_alloc(&mut m, &MergeAllocOptions::default()).unwrap();
    let kernel = report
        .scopes
        .iter()
        .find(|s| s.function == "kernel")
        .expect("kernel planned");
    // s (live over the whole second loop) and t (per iteration) cannot share: 2 x 64 bytes.
    assert_eq!(kernel.problem.len(), 2);
    assert_eq!(kernel.arena_bytes, 128);
    let merged = dir.join("carry.merged.mlir");
    std::fs::write(&merged, print_module(&m, &reg, PrintOptions::default())).unwrap();
    let before = run(&input);
    let after = run(&merged);
    assert!(before.contains("data ="), "no output: {before}");
    assert_eq!(before, after, "merge-alloc changed the printed values");
    let _ = std::fs::remove_dir_all(&dir);
}
