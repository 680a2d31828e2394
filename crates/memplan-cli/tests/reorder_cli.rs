//! `memplan opt --reorder-for-memory` without the MLIR tools: on hand-written memref IR the
//! pass separates two buffers' lifetimes when only SSA and memory effects order them, never
//! moves an access across a call (a barrier), prints the same bytes on every run, and rejects
//! bad options with exit 2. (Execution checks are in `reorder_exec.rs`.)

use std::path::PathBuf;
use std::process::{Command, Output};

const PROGRAM: &str = r#"func.func private @opaque()
func.func @k(%x: memref<64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<4096xf32>
  %b = memref.alloc() : memref<4096xf32>
  %v = memref.load %x[%c0] : memref<64xf32>
  memref.store %v, %a[%c0] : memref<4096xf32>
  memref.store %v, %b[%c0] : memref<4096xf32>
  %ra = memref.load %a[%c0] : memref<4096xf32>
  %rb = memref.load %b[%c0] : memref<4096xf32>
  %s = arith.addf %ra, %rb : f32
  return %s : f32
}
func.func @with_call(%x: memref<64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<4096xf32>
  %b = memref.alloc() : memref<4096xf32>
  %v = memref.load %x[%c0] : memref<64xf32>
  memref.store %v, %a[%c0] : memref<4096xf32>
  func.call @opaque() : () -> ()
  memref.store %v, %b[%c0] : memref<4096xf32>
  %ra = memref.load %a[%c0] : memref<4096xf32>
  %rb = memref.load %b[%c0] : memref<4096xf32>
  %s = arith.addf %ra, %rb : f32
  return %s : f32
}
"#;

fn input() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("reorder_cli");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("two_buffers.mlir");
    std::fs::write(&p, PROGRAM).unwrap();
    p
}

fn memplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memplan"))
        .args(args)
        .output()
        .expect("run memplan")
}

/// The lines of function `name` in `text`.
fn body<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    let start = text.find(&format!("@{name}(")).expect("function");
    text[start..]
        .lines()
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with("return"))
        .map(str::trim)
        .collect()
}

fn pos(lines: &[&str], needle: &str) -> usize {
    lines
        .iter()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` not in {lines:#?}"))
}

#[test]
fn independent_buffers_are_separated_and_calls_are_barriers() {
    let f = input();
    let f = f.to_str().unwrap();
    let o = memplan(&["opt", f, "--reorder-for-memory=schedule=exact", "--remarks"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    let k = body(&text, "k");
    // @k: %b is allocated only after the last use of %a.
    assert!(
        pos(&k, "%ra = memref.load %a[") < pos(&k, "%b = memref.alloc"),
        "{k:#?}"
    );
    // @with_call: no access of a buffer crosses the call.
    let w = body(&text, "with_call");
    let call = pos(&w, "call @opaque");
    assert!(pos(&w, "memref.store %v, %a[") < call, "{w:#?}");
    assert!(call < pos(&w, "memref.store %v, %b["), "{w:#?}");
    assert!(call < pos(&w, "= memref.load %a["), "{w:#?}");
    let remarks = String::from_utf8_lossy(&o.stderr);
    assert!(
        remarks.contains("@k:") && remarks.contains("reordered by exact"),
        "{remarks}"
    );
    // Same bytes on every run, and with merge-alloc after it.
    let again = memplan(&["opt", f, "--reorder-for-memory=schedule=exact"]);
    assert_eq!(again.stdout, text.as_bytes());
    let merged = memplan(&["opt", f, "--reorder-for-memory", "--merge-alloc"]);
    assert!(merged.status.success());
}

#[test]
fn bad_reorder_options_exit_2() {
    let f = input();
    let f = f.to_str().unwrap();
    for (opt, fragment) in [
        ("schedule=nope", "unknown scheduler"),
        ("alignment=3", "power of two"),
        ("time-limit=-1", "bad time-limit"),
        ("node-limit=x", "bad node-limit"),
        ("colour=blue", "unknown option"),
    ] {
        let o = memplan(&["opt", f, &format!("--reorder-for-memory={opt}")]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{opt}: {err}");
        assert!(err.contains(fragment), "{opt}: {err}");
    }
}
