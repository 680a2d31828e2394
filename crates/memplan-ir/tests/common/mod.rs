//! Helpers shared by the dialect test files: parse + verify + print, the generic print,
//! the error of rejected input, and memplan's and mlir-opt-22's verdicts on a module.
#![allow(dead_code)]

use memplan_ir::{parse_module, print_module, verify, ParseOptions, PrintOptions, Registry};
use std::io::Write;
use std::process::{Command, Stdio};

pub fn roundtrip(src: &str) -> String {
    let reg = Registry::with_all_dialects();
    let m = parse_module(src, &reg, ParseOptions::default()).expect("parses");
    verify(&m, &reg).expect("verifies");
    print_module(&m, &reg, PrintOptions::default())
}

pub fn generic(src: &str) -> String {
    let reg = Registry::with_all_dialects();
    let m = parse_module(src, &reg, ParseOptions::default()).expect("parses");
    print_module(
        &m,
        &reg,
        PrintOptions {
            generic: true,
            ..PrintOptions::default()
        },
    )
}

/// Parses and verifies; returns the error message (panics if accepted).
pub fn rejected(src: &str) -> String {
    let reg = Registry::with_all_dialects();
    match parse_module(src, &reg, ParseOptions::default()) {
        Err(e) => e.message,
        Ok(m) => verify(&m, &reg).expect_err("must be rejected").message,
    }
}

/// memplan's verdict: parse and verify; `Err` carries the message.
pub fn memplan_verdict(src: &str) -> Result<(), String> {
    let reg = Registry::with_all_dialects();
    let m = parse_module(src, &reg, ParseOptions::default()).map_err(|d| d.message)?;
    verify(&m, &reg).map_err(|d| d.message)
}

/// mlir-opt-22's verdict with `--allow-unregistered-dialect` (`None` when the tool is not
/// installed).
pub fn mlir_verdict(src: &str) -> Option<bool> {
    run_mlir_opt(src, &[]).map(|(ok, _)| ok)
}

/// Parses, verifies and prints `src` (generic or custom form); panics naming the input when
/// memplan rejects it.
pub fn print_checked(src: &str, generic: bool) -> String {
    let reg = Registry::with_all_dialects();
    let m = parse_module(src, &reg, ParseOptions::default())
        .unwrap_or_else(|e| panic!("{}: {src}", e.message));
    verify(&m, &reg).unwrap_or_else(|e| panic!("{}: {src}", e.message));
    print_module(
        &m,
        &reg,
        PrintOptions {
            generic,
            ..PrintOptions::default()
        },
    )
}

/// `mlir-opt-22 --allow-unregistered-dialect ARGS` on `src`: `None` without the tool, else
/// whether it accepted the input and what it printed.
pub fn run_mlir_opt(src: &str, args: &[&str]) -> Option<(bool, String)> {
    let mut child = Command::new("mlir-opt-22")
        .arg("--allow-unregistered-dialect")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(src.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    Some((
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    ))
}

/// `mlir-opt-22`'s generic, local-scope print of `src` (`None` without the tool or when it
/// rejects the input).
pub fn mlir_normalised(src: &str) -> Option<String> {
    let (ok, out) = run_mlir_opt(
        src,
        &["--mlir-print-op-generic", "--mlir-print-local-scope"],
    )?;
    ok.then_some(out)
}

/// Every module in `srcs` prints (custom and generic form) so that both read back the same;
/// with `mlir-opt-22` installed, both prints must also normalise to what it prints for the input.
pub fn assert_round_trips(srcs: &[&str]) {
    for src in srcs {
        let g = print_checked(src, true);
        for form in [print_checked(src, false), g.clone()] {
            assert_eq!(
                print_checked(&form, true),
                g,
                "print does not read back the same:\n{form}"
            );
            if let Some(want) = mlir_normalised(src) {
                assert_eq!(
                    mlir_normalised(&form).as_deref(),
                    Some(want.as_str()),
                    "{form}"
                );
            }
        }
    }
}

/// memplan's verdict on each case is the table's (`None`: accepted; `Some(fragment)`: rejected
/// with a message containing it); every mismatch is listed in one failure.
pub fn assert_memplan_verdicts(cases: &[(&str, Option<&str>)]) {
    let mut bad = Vec::new();
    for (src, want) in cases {
        match (memplan_verdict(src), want) {
            (Ok(()), None) => {}
            (Err(e), Some(frag)) if e.contains(frag) => {}
            (Err(e), Some(frag)) => bad.push(format!("message {e:?}, want {frag:?}:\n{src}")),
            (Ok(()), Some(frag)) => bad.push(format!("accepted, want rejection ({frag}):\n{src}")),
            (Err(e), None) => bad.push(format!("rejected ({e}), want acceptance:\n{src}")),
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n----\n"));
}

/// memplan's verdict on each case is the table's (`None`: accepted; `Some(fragment)`: rejected
/// with a message containing it), and so is mlir-opt-22's where installed
/// (`MEMPLAN_REQUIRE_MLIR=1`: it must be).
pub fn assert_verdicts(cases: &[(&str, Option<&str>)]) {
    let require = std::env::var("MEMPLAN_REQUIRE_MLIR").as_deref() == Ok("1");
    let mut oracle_used = false;
    let mut bad = Vec::new();
    for (src, want) in cases {
        match (memplan_verdict(src), want) {
            (Ok(()), None) => {}
            (Err(e), Some(needle)) if e.contains(needle) => {}
            (Err(e), Some(needle)) => bad.push(format!("message {e:?} lacks {needle:?}:\n{src}")),
            (Ok(()), Some(_)) => bad.push(format!("memplan accepts what MLIR rejects:\n{src}")),
            (Err(e), None) => bad.push(format!("memplan rejects what MLIR accepts ({e}):\n{src}")),
        }
        if let Some(ok) = mlir_verdict(src) {
            oracle_used = true;
            if ok != want.is_none() {
                bad.push(format!("mlir-opt-22 disagrees with the table:\n{src}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    assert!(
        oracle_used || !require,
        "MEMPLAN_REQUIRE_MLIR=1 but mlir-opt-22 did not run"
    );
}

/// The cases through mlir-opt-22 (a file each): `None` must be accepted, `Some(fragment)` rejected
/// with a message containing it. Skips without the tool unless `MEMPLAN_REQUIRE_MLIR=1`.
pub fn assert_mlir_agrees(cases: &[(&str, Option<&str>)], tag: &str) {
    let required = std::env::var("MEMPLAN_REQUIRE_MLIR").as_deref() == Ok("1");
    if Command::new("mlir-opt-22")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            !required,
            "mlir-opt-22 is missing but MEMPLAN_REQUIRE_MLIR=1"
        );
        eprintln!("mlir-opt-22 not installed: skipped");
        return;
    }
    let dir = std::env::temp_dir().join(format!("memplan-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut bad = Vec::new();
    for (i, (src, want)) in cases.iter().enumerate() {
        let f = dir.join(format!("case{i}.mlir"));
        std::fs::write(&f, src).expect("write");
        let out = Command::new("mlir-opt-22")
            .arg("--allow-unregistered-dialect")
            .arg(&f)
            .output()
            .expect("mlir-opt-22 runs");
        let err = String::from_utf8_lossy(&out.stderr);
        let ok = match want {
            None => out.status.success(),
            Some(frag) => !out.status.success() && err.contains(frag),
        };
        if !ok {
            bad.push(format!("case {i} (want {want:?}):\n{src}\n{err}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(bad.is_empty(), "{}", bad.join("\n----\n"));
}
