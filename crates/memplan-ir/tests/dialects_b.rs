//! Custom forms of linalg, tensor, vector, math and arith (issue 4): round trips to a
//! print fixpoint, the implicit bodies of named linalg ops in generic form, the defaults
//! the custom forms imply, verifier errors and robustness on truncated input.

use memplan_ir::*;

fn reg() -> Registry {
    Registry::with_all_dialects()
}

fn parse(src: &str) -> Result<Module, Diagnostic> {
    parse_module(src, &reg(), ParseOptions::default())
}

fn print(m: &Module, generic: bool) -> String {
    print_module(
        m,
        &reg(),
        PrintOptions {
            generic,
            debug_info: false,
        },
    )
}

fn parsed(src: &str) -> Module {
    let m = parse(src).unwrap_or_else(|d| panic!("{}", SourceMap::new("t", src).render(&d)));
    verify(&m, &reg()).unwrap_or_else(|d| panic!("{}", SourceMap::new("t", src).render(&d)));
    m
}

/// Parses, prints (custom), re-parses and re-prints; also checks the generic print is a
/// fixpoint and that custom -> generic and generic -> generic agree.
fn fixpoint(src: &str) -> String {
    let m = parsed(src);
    let a = print(&m, false);
    let m2 = parsed(&a);
    assert_eq!(a, print(&m2, false), "custom print is not a fixpoint");
    let g = print(&m, true);
    let m3 = parsed(&g);
    assert_eq!(g, print(&m3, true), "generic print is not a fixpoint");
    // Reading the generic form back and printing it in custom form gives the same text.
    assert_eq!(print(&m3, false), a, "generic -> custom differs");
    a
}

/// The error message (rendered) for a source that must fail to parse or verify.
fn error_of(src: &str) -> String {
    let d = match parse(src) {
        Err(d) => d,
        Ok(m) => verify(&m, &reg()).expect_err("expected an error"),
    };
    SourceMap::new("x.mlir", src).render(&d)
}

fn func(body: &str, args: &str) -> String {
    format!("func.func @f({args}) {{\n{body}\n  return\n}}\n")
}

#[test]
fn arith_custom_forms_round_trip() {
    let src = func(
        "  %0 = arith.cmpi ult, %a, %b : i32
  %1 = arith.cmpf ogt, %x, %y fastmath<fast> : f32
  %2 = arith.select %0, %a, %b : i32
  %3 = arith.select %vm, %v, %v : vector<4xi1>, vector<4xf32>
  %4 = arith.index_cast %a : i32 to index
  %5 = arith.extf %x : f32 to f64
  %6 = arith.truncf %5 to_nearest_even fastmath<contract> : f64 to f32
  %7:2 = arith.addui_extended %a, %b : i32, i1
  %8:2 = arith.mulsi_extended %a, %b : i32
  %9 = arith.negf %x fastmath<nnan> : f32
  %10 = arith.trunci %a overflow<nsw> : i32 to i8
  %11 = arith.cmpf une, %v, %v : vector<4xf32>
  %12 = arith.constant 340282366920938463463374607431768211455 : i128",
        "%a: i32, %b: i32, %x: f32, %y: f32, %v: vector<4xf32>, %vm: vector<4xi1>",
    );
    let out = fixpoint(&src);
    for want in [
        "arith.cmpi ult, %a, %b : i32",
        "arith.cmpf ogt, %x, %y fastmath<fast> : f32",
        "arith.select %0, %a, %b : i32",
        "arith.select %vm, %v, %v : vector<4xi1>, vector<4xf32>",
        "arith.truncf %5 to_nearest_even fastmath<contract> : f64 to f32",
        "arith.addui_extended %a, %b : i32, i1",
        "arith.mulsi_extended %a, %b : i32",
        "arith.trunci %a overflow<nsw> : i32 to i8",
        "arith.constant -1 : i128",
    ] {
        assert!(out.contains(want), "missing `{want}` in\n{out}");
    }
    let m = parsed(&src);
    let g = print(&m, true);
    assert!(g.contains("<{predicate = 6 : i64}>"), "{g}");
    assert!(g.contains("roundingmode = 0 : i32"), "{g}");
    assert!(g.contains("-> vector<4xi1>"), "cmpf result shape: {g}");
}

#[test]
fn math_custom_forms_round_trip() {
    let src = func(
        "  %0 = math.fpowi %x, %a : f32, i32
  %1:2 = math.sincos %x : f32
  %2 = math.clampf %x to [%x, %x] fastmath<fast> : f32
  %3 = math.fma %x, %x, %x : f32
  %4 = math.ctlz %a : i32
  %5 = math.isnan %v : vector<4xf32>
  %6 = math.exp %v fastmath<afn> : vector<4xf32>",
        "%a: i32, %x: f32, %v: vector<4xf32>",
    );
    let out = fixpoint(&src);
    for want in [
        "math.fpowi %x, %a : f32, i32",
        "math.sincos %x : f32",
        "math.clampf %x to [%x, %x] fastmath<fast> : f32",
        "math.isnan %v : vector<4xf32>",
        "math.exp %v fastmath<afn> : vector<4xf32>",
    ] {
        assert!(out.contains(want), "missing `{want}` in\n{out}");
    }
    let g = print(&parsed(&src), true);
    assert!(
        g.contains("\"math.isnan\"(%v) : (vector<4xf32>) -> vector<4xi1>"),
        "{g}"
    );
}

#[test]
fn linalg_named_ops_build_their_bodies() {
    let src = func(
        "  linalg.matmul ins(%a, %a : memref<4x4xi8>, memref<4x4xi8>) outs(%c : memref<4x4xi32>)
  linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %a : memref<4x4xi8>, memref<4x4xi8>) outs(%f : memref<4x4xf32>)
  %t = linalg.fill ins(%s : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  linalg.reciprocal ins(%f : memref<4x4xf32>) outs(%f : memref<4x4xf32>)",
        "%a: memref<4x4xi8>, %c: memref<4x4xi32>, %f: memref<4x4xf32>, %s: f32, %e: tensor<4xf32>",
    );
    let out = fixpoint(&src);
    assert!(
        out.contains("linalg.matmul ins(%a, %a : memref<4x4xi8>, memref<4x4xi8>) outs(%c : memref<4x4xi32>)\n"),
        "{out}"
    );
    assert!(
        out.contains("linalg.fill ins(%s : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>"),
        "{out}"
    );
    let m = parsed(&src);
    let g = print(&m, true);
    // Default indexing maps of matmul are stored as a property.
    assert!(
        g.contains("indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], operandSegmentSizes = array<i32: 2, 1>"),
        "{g}"
    );
    // Signed and unsigned casts to the accumulator type, then multiply-accumulate.
    assert!(g.contains("\"arith.extsi\"(%arg"), "{g}");
    assert!(g.contains("\"arith.uitofp\"(%arg"), "{g}");
    assert!(
        g.contains("<{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32"),
        "{g}"
    );
    assert!(g.contains("\"arith.divf\"("), "reciprocal body: {g}");
    // The body of matmul: block arguments of the element types, yield of the sum.
    let first = m.first_op(m.body()).unwrap();
    let f = m.regions(first)[0];
    let body = m.entry_block(f).unwrap();
    let mm = m.first_op(body).unwrap();
    let blk = m.entry_block(m.regions(mm)[0]).unwrap();
    let arg_tys: Vec<String> = m
        .block_args(blk)
        .iter()
        .map(|&v| m.value_type(v).to_string())
        .collect();
    assert_eq!(arg_tys, ["i8", "i8", "i32"]);
    let names: Vec<&str> = m.block_ops(blk).map(|o| m.op(o).name.as_str()).collect();
    assert_eq!(
        names,
        [
            "arith.extsi",
            "arith.extsi",
            "arith.muli",
            "arith.addi",
            "linalg.yield"
        ]
    );
}

#[test]
fn linalg_generic_map_reduce_round_trip() {
    let src = "#id = affine_map<(d0, d1) -> (d0, d1)>
#trait = {indexing_maps = [#id, #id], iterator_types = [\"parallel\", \"reduction\"], library_call = \"f\"}
func.func @f(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %v: tensor<4xf32>) -> tensor<4x4xf32> {
  %0 = linalg.generic #trait ins(%a : tensor<4x4xf32>) outs(%b : tensor<4x4xf32>) attrs = {foo = 1} {
  ^bb0(%x: f32, %y: f32):
    %i = linalg.index 1 : index
    linalg.yield %x : f32
  } -> tensor<4x4xf32>
  %1 = linalg.reduce { arith.addf } ins(%a : tensor<4x4xf32>) outs(%v : tensor<4xf32>) dimensions = [1]
  %2 = linalg.reduce ins(%a : tensor<4x4xf32>) outs(%v : tensor<4xf32>) dimensions = [1]
    (%x: f32, %y: f32) {
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  %3 = linalg.map { math.exp } ins(%a : tensor<4x4xf32>) outs(%b : tensor<4x4xf32>)
  %4 = linalg.transpose ins(%a : tensor<4x4xf32>) outs(%b : tensor<4x4xf32>) permutation = [1, 0]
  return %0 : tensor<4x4xf32>
}
";
    let out = fixpoint(src);
    assert!(
        out.contains("linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", \"reduction\"], library_call = \"f\"} ins(%a : tensor<4x4xf32>) outs(%b : tensor<4x4xf32>) attrs =  {foo = 1 : i64} {"),
        "{out}"
    );
    assert!(
        out.contains("linalg.reduce { arith.addf } ins(%a : tensor<4x4xf32>) outs(%v : tensor<4xf32>) dimensions = [1]"),
        "{out}"
    );
    // `addf %in, %init` is not the short form's operand order: the region stays.
    assert!(out.contains("dimensions = [1] \n"), "{out}");
    assert!(out.contains("linalg.yield %s : f32"), "{out}");
    assert!(
        out.contains("linalg.map { math.exp } ins(%a : tensor<4x4xf32>)"),
        "{out}"
    );
    let g = print(&parsed(src), true);
    assert!(g.contains("#linalg.iterator_type<reduction>"), "{g}");
    // Short form: payload operands are (init, in) for reduce, with default fastmath.
    assert!(
        g.contains("\"arith.addf\"(%arg4, %arg3) <{fastmath = #arith.fastmath<none>}>")
            || g.contains("<{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32"),
        "{g}"
    );
}

#[test]
fn tensor_and_vector_round_trip() {
    let src = func(
        "  %e = tensor.empty(%i) : tensor<4x?xf32>
  %s = tensor.extract_slice %t[0, %i] [4, 4] [1, 1] : tensor<8x?xf32> to tensor<4x4xf32>
  %u = tensor.insert_slice %s into %t[0, %i] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x?xf32>
  %p = tensor.pad %s low[0, 1] high[2, %i] {
  ^bb0(%x: index, %y: index):
    tensor.yield %z : f32
  } : tensor<4x4xf32> to tensor<6x?xf32>
  %c = tensor.collapse_shape %s [[0, 1]] : tensor<4x4xf32> into tensor<16xf32>
  %d = tensor.dim %t, %i : tensor<8x?xf32>
  %r = vector.transfer_read %t[%i, %i], %z {in_bounds = [true, false]} : tensor<8x?xf32>, vector<4x8xf32>
  %w = vector.transfer_read %m[%i, %i], %z, %mk {permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<?x?xf32>, vector<8x4xf32>
  vector.transfer_write %r, %m[%i, %i] : vector<4x8xf32>, memref<?x?xf32>
  %x1 = vector.extract %r[%i, 2] : f32 from vector<4x8xf32>
  %x2 = vector.shuffle %v, %v [0, 3, 5] : vector<4xf32>, vector<4xf32>
  %x3 = vector.reduction <add>, %v : vector<4xf32> into f32",
        "%t: tensor<8x?xf32>, %i: index, %z: f32, %m: memref<?x?xf32>, %mk: vector<4x8xi1>, %v: vector<4xf32>",
    );
    let out = fixpoint(&src);
    for want in [
        "tensor.extract_slice %t[0, %i] [4, 4] [1, 1] : tensor<8x?xf32> to tensor<4x4xf32>",
        "tensor.pad %s low[0, 1] high[2, %i] {",
        "tensor.collapse_shape %s [[0, 1]] : tensor<4x4xf32> into tensor<16xf32>",
        "vector.transfer_read %t[%i, %i], %z {in_bounds = [true, false]} : tensor<8x?xf32>, vector<4x8xf32>",
        "vector.transfer_write %r, %m[%i, %i] : vector<4x8xf32>, memref<?x?xf32>",
        "vector.extract %r[%i, 2] : f32 from vector<4x8xf32>",
        "vector.shuffle %v, %v [0, 3, 5] : vector<4xf32>, vector<4xf32>",
    ] {
        assert!(out.contains(want), "missing `{want}` in\n{out}");
    }
    let g = print(&parsed(&src), true);
    assert!(
        g.contains("static_offsets = array<i64: 0, -9223372036854775808>"),
        "{g}"
    );
    assert!(
        g.contains("in_bounds = [false, false], operandSegmentSizes = array<i32: 1, 1, 2, 0>, permutation_map = affine_map<(d0, d1) -> (d0, d1)>"),
        "transfer_write defaults: {g}"
    );
    assert!(g.contains("-> vector<3xf32>"), "shuffle result type: {g}");
}

#[test]
fn verifier_and_parser_errors() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "  %0 = arith.addi %x, %x : f32",
            "%x: f32",
            "operand #0 must be signless-integer-like, but got 'f32'",
        ),
        (
            "  %0 = arith.cmpf eq, %x, %x : f32",
            "%x: f32",
            "expected string or keyword containing one of the following enum values",
        ),
        (
            "  %0 = \"arith.cmpi\"(%a, %a) {predicate = 42} : (i32, i32) -> i1",
            "%a: i32",
            "allowed 64-bit signless integer cases",
        ),
        (
            "  %0 = arith.bitcast %h : f16 to f32",
            "%h: f16",
            "are cast incompatible",
        ),
        (
            "  %0 = tensor.extract %t[] : tensor<?xf32>",
            "%t: tensor<?xf32>",
            "incorrect number of indices",
        ),
        (
            "  %0 = tensor.extract_slice %t[0][4][1] : tensor<?xf32> to tensor<4xi8>",
            "%t: tensor<?xf32>",
            "expected element type to be 'f32'",
        ),
        (
            "  %0 = tensor.cast %t : tensor<1xf32> to tensor<2xf32>",
            "%t: tensor<1xf32>",
            "cast incompatible",
        ),
        (
            "  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]} outs(%m : memref<4xf32>) {
  ^bb0(%o: f32):
    %c = arith.constant 1 : i32
    linalg.yield %c : i32
  }",
            "%m: memref<4xf32>",
            "type of yield operand 1 ('i32') doesn't match the element type",
        ),
        (
            "  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\"]} outs(%m : memref<4xf32>) {
  ^bb0(%o: f32):
    linalg.yield %o : f32
  }",
            "%m: memref<4xf32>",
            "expected indexing_map #0 to have 1 dim(s) to match the number of loops",
        ),
        (
            "  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = [\"random\"]} outs(%m : memref<4xf32>) {
  ^bb0(%o: f32):
    linalg.yield %o : f32
  }",
            "%m: memref<4xf32>",
            "unexpected iterator_type (random)",
        ),
        (
            "  %0 = linalg.index 0 : index",
            "",
            "expected parent op with LinalgOp interface",
        ),
    ];
    for (body, args, want) in cases {
        let src = func(body, args);
        let e = error_of(&src);
        assert!(e.contains(want), "want `{want}`, got:\n{e}");
        assert!(e.starts_with("x.mlir:"), "{e}");
    }
}

#[test]
fn truncated_inputs_never_panic() {
    let src = func(
        "  %0 = arith.cmpi ult, %a, %a : i32
  %1 = linalg.fill ins(%x : f32) outs(%t : tensor<4xf32>) -> tensor<4xf32>
  %2 = linalg.reduce { arith.addf } ins(%t : tensor<4xf32>) outs(%s : tensor<f32>) dimensions = [0]
  %3 = tensor.extract_slice %t[0] [2] [1] : tensor<4xf32> to tensor<2xf32>
  %4 = vector.transfer_read %t[%i], %x : tensor<4xf32>, vector<4xf32>
  %5 = math.clampf %x to [%x, %x] : f32",
        "%a: i32, %x: f32, %t: tensor<4xf32>, %s: tensor<f32>, %i: index",
    );
    parsed(&src);
    for cut in 0..src.len() {
        if !src.is_char_boundary(cut) {
            continue;
        }
        let s = &src[..cut];
        match parse(s) {
            Err(d) => assert!(d.span.start as usize <= s.len()),
            Ok(m) => {
                let _ = verify(&m, &reg());
                let _ = print(&m, false);
            }
        }
    }
}
