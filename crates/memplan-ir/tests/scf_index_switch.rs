//! `scf.index_switch` with implicit terminators (issue 9, point 8), as mlir-opt-22 does it: the
//! `default` region gets its `scf.yield` when it does not end in one (and prints without a yield
//! that yields nothing); `case` regions are read as written: an empty one is an error (it has no
//! block), and one with ops must end in a yield itself.

use memplan_ir::*;

fn reg() -> Registry {
    Registry::with_all_dialects()
}

const SRC: &str = "func.func @sw(%arg0: index, %arg1: f32, %m: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  scf.index_switch %arg0
  case 0 {
    memref.store %arg1, %m[%c0] : memref<4xf32>
    scf.yield
  }
  case 1 {
    scf.yield
  }
  default {
    memref.store %arg1, %m[%c0] : memref<4xf32>
  }
  return
}
";

#[test]
fn empty_switch_regions_get_their_yield_and_print_without_it() {
    let m = parse_module(SRC, &reg(), ParseOptions::default()).expect("parses");
    verify(&m, &reg()).expect("verifies");
    let generic = print_module(
        &m,
        &reg(),
        PrintOptions {
            generic: true,
            debug_info: false,
        },
    );
    assert_eq!(
        generic.matches("\"scf.yield\"() : () -> ()").count(),
        3,
        "{generic}"
    );
    let custom = print_module(&m, &reg(), PrintOptions::default());
    assert!(
        custom.contains("case 1 {\n      scf.yield\n    }"),
        "{custom}"
    );
    assert!(
        custom.contains("default {\n      memref.store %arg1, %m[%c0] : memref<4xf32>\n    }"),
        "{custom}"
    );
    // The custom print reads back to the same module.
    let again = parse_module(&custom, &reg(), ParseOptions::default()).expect("re-parses");
    assert_eq!(
        print_module(&again, &reg(), PrintOptions::default()),
        custom
    );
}

#[test]
fn an_empty_case_region_is_an_error_as_in_mlir_opt() {
    let src = SRC.replace("  case 1 {\n    scf.yield\n  }", "  case 1 {\n  }");
    assert!(src.contains("case 1 {\n  }"));
    let failed = match parse_module(&src, &reg(), ParseOptions::default()) {
        Err(_) => true,
        Ok(m) => verify(&m, &reg()).is_err(),
    };
    assert!(failed, "an empty case region was accepted");
}

#[test]
fn a_region_with_ops_but_no_yield_is_still_an_error() {
    let src = SRC.replacen("    scf.yield\n", "", 1);
    let m = parse_module(&src, &reg(), ParseOptions::default());
    let failed = match m {
        Err(_) => true,
        Ok(m) => verify(&m, &reg()).is_err(),
    };
    assert!(failed, "a non-empty region without scf.yield was accepted");
}
