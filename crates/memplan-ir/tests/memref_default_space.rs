//! `memref<..., 0>` is `memref<...>`: like MLIR's `MemRefType::get`, an integer memory space 0 is
//! the default space and is dropped at parse time, so values of both spellings have one type
//! (found by the random program generator: a function typed with `, 0` called with a plain memref
//! was rejected).

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
