//! Helpers shared by the dialect test files: parse + verify + print, the generic print,
//! and the error of rejected input.
#![allow(dead_code)]

use memplan_ir::{parse_module, print_module, verify, ParseOptions, PrintOptions, Registry};

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
