//! Memref type rules found by the random program generator: `memref<..., 0>` is `memref<...>`
//! (like MLIR's `MemRefType::get`, an integer memory space 0 is the default space and is dropped
//! at parse time, so values of both spellings have one type), and `memref.copy` takes compatible
//! shapes.

use memplan_ir::*;

#[test]
fn integer_space_zero_is_the_default_space() {
    let reg = Registry::with_all_dialects();
    let src = "func.func @f(%a: memref<4xf32, 0>, %u: memref<*xf32, 0>) -> memref<4xf32> {
  %c = memref.cast %a : memref<4xf32> to memref<?xf32, 0>
  return %a : memref<4xf32, 0>
}
";
    let m = parse_module(src, &reg, ParseOptions::default()).expect("parses");
    verify(&m, &reg).expect("one type for both spellings");
    let out = print_module(&m, &reg, PrintOptions::default());
    assert!(!out.contains(", 0>"), "{out}");
    assert!(out.contains("%u: memref<*xf32>"), "{out}");
    // A non-zero space stays.
    let m = parse_module(
        "func.func @g(%a: memref<4xf32, 1>) {\n  return\n}\n",
        &reg,
        ParseOptions::default(),
    )
    .expect("parses");
    assert!(print_module(&m, &reg, PrintOptions::default()).contains("memref<4xf32, 1>"));
}

/// `memref.copy` needs compatible shapes, as MLIR's `SameOperandsShape` (a copy from a reshape's
/// dynamic result into a static buffer was rejected).
#[test]
fn copy_accepts_compatible_shapes_only() {
    let reg = Registry::with_all_dialects();
    let ok = "func.func @f(%a: memref<?xf32>, %b: memref<4xf32>, %d: memref<4x?xf32>, %e: memref<?x?xf32>) {
  memref.copy %a, %b : memref<?xf32> to memref<4xf32>
  memref.copy %d, %e : memref<4x?xf32> to memref<?x?xf32>
  return
}
";
    let m = parse_module(ok, &reg, ParseOptions::default()).expect("parses");
    verify(&m, &reg).expect("compatible shapes verify");
    for bad in [
        "func.func @f(%b: memref<4xf32>, %c: memref<3xf32>) {\n  memref.copy %c, %b : memref<3xf32> to memref<4xf32>\n  return\n}\n",
        "func.func @f(%b: memref<4xf32>, %c: memref<?x?xf32>) {\n  memref.copy %c, %b : memref<?x?xf32> to memref<4xf32>\n  return\n}\n",
    ] {
        let m = parse_module(bad, &reg, ParseOptions::default()).expect("parses");
        assert!(verify(&m, &reg).is_err(), "{bad}");
    }
}
