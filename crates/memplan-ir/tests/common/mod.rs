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
    let mut child = Command::new("mlir-opt-22")
        .arg("--allow-unregistered-dialect")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(src.as_bytes()).ok()?;
    Some(child.wait().ok()?.success())
}
