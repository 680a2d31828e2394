//! Fuzz target: any byte string is fed to the MLIR parser; whatever parses is verified and
//! printed (custom and generic form), and a module that also verifies must re-parse from its
//! own printed text. Run with `cargo +nightly fuzz run parse` in crates/memplan-ir.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan_ir::{parse_module, print_module, verify, ParseOptions, PrintOptions, Registry};

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let reg = Registry::with_all_dialects();
    let Ok(m) = parse_module(src, &reg, ParseOptions::default()) else {
        return;
    };
    let verified = verify(&m, &reg).is_ok();
    for generic in [false, true] {
        let text = print_module(
            &m,
            &reg,
            PrintOptions {
                generic,
                debug_info: true,
            },
        );
        if verified {
            if let Err(d) = parse_module(&text, &reg, ParseOptions::default()) {
                panic!("printed module does not re-parse: {}\n{text}", d.message);
            }
        }
    }
});
