//! Parser/printer unit tests: round-trips of types, attributes, affine maps and generic ops,
//! forward references, IR editing, and error positions on bad input.

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

/// Parses, prints, re-parses and re-prints; both prints must agree (a fixpoint).
fn fixpoint(src: &str, generic: bool) -> String {
    let m = parse(src).unwrap_or_else(|d| panic!("{}", SourceMap::new("t", src).render(&d)));
    verify(&m, &reg()).unwrap_or_else(|d| panic!("{}", SourceMap::new("t", src).render(&d)));
    let a = print(&m, generic);
    let m2 = parse(&a).unwrap_or_else(|d| {
        panic!(
            "reparse: {}\n{a}",
            SourceMap::new("out", a.as_str()).render(&d)
        )
    });
    let b = print(&m2, generic);
    assert_eq!(a, b, "print is not a fixpoint");
    a
}

/// Prints the type attribute written in `"t.op"() {t = TYPE}`.
fn type_roundtrip(t: &str) -> String {
    let src = format!("\"t.op\"() {{t = {t}}} : () -> ()");
    let m = parse(&src).unwrap_or_else(|d| panic!("{t}: {}", d.message));
    let op = m.first_op(m.body()).unwrap();
    m.op(op).attrs.get("t").unwrap().to_string()
}

#[test]
fn types_round_trip() {
    for t in [
        "i1",
        "si8",
        "ui32",
        "index",
        "f16",
        "bf16",
        "f80",
        "tf32",
        "f4E2M1FN",
        "f8E4M3B11FNUZ",
        "f8E8M0FNU",
        "complex<f32>",
        "vector<[4]x8xf32>",
        "vector<f32>",
        "tensor<*xf32>",
        "tensor<4x?xf32, #foo.enc<1>>",
        "memref<0x4xf32>",
        "memref<4x?xf32, strided<[?, 1], offset: ?>>",
        "memref<8xf32, strided<[1]>, 3>",
        "memref<8xf32, #gpu.address_space<workgroup>>",
        "memref<*xi8, 1>",
        "memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>",
        "tuple<i32, tuple<>>",
        "(i32, f32) -> (i64, i1)",
        "() -> ()",
        "none",
        "!foo.bar<\"x>y\", (i32) -> i32>",
        "!gpu.async.token",
    ] {
        assert_eq!(type_roundtrip(t), t);
    }
}

#[test]
fn type_sizes() {
    let m = parse("\"t.op\"() {a = memref<4x8xf32>, b = memref<3xindex>, c = memref<?xi8>, d = memref<5xi1>} : () -> ()").unwrap();
    let op = m.first_op(m.body()).unwrap();
    let ty = |n: &str| m.op(op).attrs.get(n).unwrap().as_type().unwrap().clone();
    assert_eq!(ty("a").static_byte_size(), Some(128));
    assert_eq!(ty("b").static_byte_size(), Some(24));
    assert_eq!(ty("c").static_byte_size(), None);
    assert_eq!(ty("d").static_byte_size(), Some(5));
}

#[test]
fn attributes_round_trip() {
    let src = r#""t.op"() {a = 5 : i32, b = -7, c = 0x7FC00000 : f32, d = 1.5 : f64, e = true, f = "s\"q\0A",
      g = [1 : i64, "x"], h = array<i32: 1, -2>, i = array<i1: true, false>, j = {k = unit, "l m" = 2 : index},
      k = @a::@b, l = affine_set<(d0)[s0] : (d0 - s0 >= 0, d0 == 0)>, m = dense<[[1, 2]]> : tensor<1x2xi32>,
      n = dense_resource<blob1> : tensor<4xf32>, o = #foo.bar<[1, {x}]>, p = unit, q = 170141183460469231731687303715884105727 : i128,
      r = array<f32: 1.0, 2.5>, s = distinct[0]<"x">, t = 2.0e-10 : f32} : () -> ()"#;
    let out = fixpoint(src, true);
    for frag in [
        "a = 5 : i32",
        "b = -7 : i64",
        "c = 0x7FC00000 : f32",
        "d = 1.500000e+00 : f64",
        "e = true",
        r#"f = "s\"q\0A""#,
        r#"g = [1 : i64, "x"]"#,
        "h = array<i32: 1, -2>",
        "i = array<i1: true, false>",
        r#"j = {k, "l m" = 2 : index}"#,
        "k = @a::@b",
        "l = affine_set<(d0)[s0] : (d0 - s0 >= 0, d0 == 0)>",
        "m = dense<[[1, 2]]> : tensor<1x2xi32>",
        "n = dense_resource<blob1> : tensor<4xf32>",
        "o = #foo.bar<[1, {x}]>",
        "q = 170141183460469231731687303715884105727 : i128",
        "r = array<f32: 1.000000e+00, 2.500000e+00>",
        "s = distinct[0]<\"x\">",
    ] {
        assert!(out.contains(frag), "missing {frag} in\n{out}");
    }
}

#[test]
fn affine_maps_parse_into_trees_and_print_canonically() {
    let src = "#m = affine_map<(i, j)[n] -> (i - j, -i, (i + j) * 2, i floordiv 4 + n mod 3, j ceildiv 2 - 5, i * -3 + j)>\n\
               \"t.op\"() {m = #m} : () -> ()";
    let m = parse(src).unwrap();
    let op = m.first_op(m.body()).unwrap();
    let Some(Attribute::AffineMap(map)) = m.op(op).attrs.get("m") else {
        panic!("not a map")
    };
    assert_eq!(
        (map.num_dims, map.num_symbols, map.results.len()),
        (2, 1, 6)
    );
    assert_eq!(
        map.results[0],
        AffineExpr::Dim(0) + AffineExpr::Dim(1) * AffineExpr::Const(-1)
    );
    assert_eq!(
        map.to_string(),
        "(d0, d1)[s0] -> (d0 - d1, -d0, (d0 + d1) * 2, d0 floordiv 4 + s0 mod 3, d1 ceildiv 2 - 5, d0 * -3 + d1)"
    );
    assert!(AffineMap::identity(2).is_identity());
}

#[test]
fn generic_ops_regions_successors_and_forward_refs() {
    let src = r#"
"t.graph"() ({
  %0 = "t.use"(%1) : (i32) -> i32
  %1 = "t.def"() : () -> i32
}) : () -> ()
"t.func"() ({
^bb0(%a: i32, %b: i1):
  "t.cond_br"(%b, %a) [^bb2, ^bb1] {operandSegmentSizes = array<i32: 1, 1, 0>} : (i1, i32) -> ()
^bb1:
  %r:2 = "t.pair"() <{p = 1 : i32}> : () -> (i32, f32)
  "t.br"(%r#1) [^bb2] : (f32) -> ()
^bb2(%x: i32):
  "t.ret"() : () -> ()
}, {
}) : () -> ()
"#;
    let out = fixpoint(src, true);
    assert!(
        out.contains("%r:2 = \"t.pair\"() <{p = 1 : i32}> : () -> (i32, f32)"),
        "{out}"
    );
    assert!(out.contains("[^bb2, ^bb1]"), "{out}");
    assert!(out.contains("\"t.use\"(%1)"), "{out}");
}

#[test]
fn custom_forms_round_trip() {
    let src = r#"
module @m attributes {foo.bar = 1 : i32} {
  func.func private @decl(i32 {a.b}, f32) -> (i32 {r.s})
  func.func @f(%arg0: i32, %x: f32) -> (i32, f32) {
    %c0 = arith.constant 0 : i32
    %t = arith.constant true
    %d = arith.constant dense<1.0> : tensor<2xf32>
    %0 = arith.addi %arg0, %c0 overflow<nsw, nuw> : i32
    %1 = arith.mulf %x, %x fastmath<fast> : f32
    %2 = arith.divsi %0, %0 {tag} : i32
    %3 = func.call @decl(%2, %1) : (i32, f32) -> i32
    return %3, %1 : i32, f32
  }
}
"#;
    let out = fixpoint(src, false);
    for frag in [
        "module @m attributes {foo.bar = 1 : i32} {",
        "func.func private @decl(i32 {a.b}, f32) -> (i32 {r.s})",
        "func.func @f(%arg0: i32, %x: f32) -> (i32, f32) {",
        "%c0 = arith.constant 0 : i32",
        "%t = arith.constant true",
        "%0 = arith.addi %arg0, %c0 overflow<nsw, nuw> : i32",
        "%1 = arith.mulf %x, %x fastmath<fast> : f32",
        "%2 = arith.divsi %0, %0 {tag} : i32",
        "%3 = call @decl(%2, %1) : (i32, f32) -> i32",
        "return %3, %1 : i32, f32",
    ] {
        assert!(out.contains(frag), "missing {frag} in\n{out}");
    }
    // The generic form carries the properties.
    let g = fixpoint(src, true);
    assert!(
        g.contains("<{overflowFlags = #arith.overflow<nsw, nuw>}>"),
        "{g}"
    );
    assert!(g.contains("<{callee = @decl}>"), "{g}");
}

#[test]
fn locations_aliases_and_resources_are_read() {
    let src = r#"#loc = loc("a.mlir":1:2)
!t = tuple<i32>
"t.op"() {x = 1 : i32} : () -> () loc(fused<"m">["f":1:2 to 3:4, callsite("c" at #loc), "n"(#loc1)])
"t.op2"() : () -> !t loc(#loc)
#loc1 = loc("b":3:4)
{-#
  dialect_resources: { builtin: { blob1: "0x04000000" } }
#-}
"#;
    let m = parse(src).unwrap();
    let op = m.first_op(m.body()).unwrap();
    assert!(matches!(m.op(op).loc(), Location::Fused { .. }));
    let out = print(&m, true);
    assert!(out.contains("-> tuple<i32>"), "{out}");
    assert!(out.contains("dialect_resources"), "{out}");
    let dbg = print_module(
        &m,
        &reg(),
        PrintOptions {
            generic: true,
            debug_info: true,
        },
    );
    assert!(
        dbg.contains(
            "loc(fused<\"m\">[\"f\":1:2 to 3:4, callsite(\"c\" at \"a.mlir\":1:2), \"n\"(#loc1)])"
        ),
        "{dbg}"
    );
    assert!(parse(&dbg).is_ok());
}

#[test]
fn editing_api() {
    let src = "func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n  %1 = arith.muli %0, %0 : i32\n  return %1 : i32\n}";
    let mut m = parse(src).unwrap();
    let ops = m.walk_ops(m.top);
    let names: Vec<&str> = ops.iter().map(|&o| m.op(o).name.as_str()).collect();
    assert_eq!(
        names,
        [
            "builtin.module",
            "func.func",
            "arith.addi",
            "arith.muli",
            "func.return"
        ]
    );
    let (add, mul, ret) = (ops[2], ops[3], ops[4]);
    // Make return use %0, then erase the now dead multiply.
    let v0 = m.result(add, 0);
    let v1 = m.result(mul, 0);
    assert_eq!(m.uses(v0).len(), 2);
    m.replace_all_uses(v1, v0);
    assert_eq!(m.operands(ret), &[v0]);
    m.erase_op(mul);
    assert_eq!(m.uses(v0).len(), 1);
    // Insert a new constant before the add.
    let mut st = OperationState::new("arith.constant");
    st.props.set("value", Attribute::int(7, Type::int(32)));
    st.result_types.push(Type::int(32));
    let c = m.create_op(st);
    m.insert_before(add, c);
    verify(&m, &reg()).unwrap();
    let out = print(&m, false);
    assert!(
        out.contains(
            "arith.constant 7 : i32\n    %1 = arith.addi %a, %a : i32\n    return %1 : i32"
        ),
        "{out}"
    );
}

fn err_at(src: &str) -> (usize, usize, String) {
    let d = match parse(src) {
        Err(d) => d,
        Ok(m) => verify(&m, &reg()).expect_err("expected an error"),
    };
    let sm = SourceMap::new("x.mlir", src);
    let (l, c) = sm.line_col(d.span.start);
    (l, c, sm.render(&d))
}

#[test]
fn error_positions() {
    let (l, c, r) = err_at("\"t.op\"() : () -> ()\n  %0 = \"t.op\"(%9) : (i32) -> i32\n");
    assert_eq!((l, c), (2, 15), "{r}");
    assert!(
        r.starts_with("x.mlir:2:15: error: use of undeclared SSA value name '%9'"),
        "{r}"
    );
    assert!(r.contains("\n              ^\n"), "{r}");
    let (l, c, r) = err_at("func.func @f() {\n  %0 = foo.empty() : tensor<4xf32>\n  return\n}\n");
    assert_eq!((l, c), (2, 8), "{r}");
    assert!(
        r.contains("custom op 'foo.empty' is unknown") && r.contains("--mlir-print-op-generic"),
        "{r}"
    );
    let (l, _, r) = err_at("func.func @f(%a: i32) -> i64 {\n  return %a : i32\n}\n");
    assert_eq!(l, 2, "{r}");
    let (l, c, r) = err_at("\"t.op\"() {a = memref<4xf32} : () -> ()");
    assert_eq!((l, c), (1, 27), "{r}");
    let (l, _, r) = err_at("func.func @f() {\n  %0 = \"t.a\"(%1) : (i32) -> i32\n  %1 = \"t.b\"() : () -> i32\n  return\n}\n");
    assert_eq!(l, 2, "dominance: {r}");
}

#[test]
fn bad_input_never_panics() {
    let deep_regions = "\"t.op\"() ({".repeat(2000);
    let deep_types = format!("\"t.op\"() {{a = {}}} : () -> ()", "tuple<".repeat(5000));
    let deep_attrs = format!("\"t.op\"() {{a = {}}} : () -> ()", "[".repeat(5000));
    let deep_dialect = format!("\"t.op\"() {{a = #x.y{}}} : () -> ()", "<".repeat(5000));
    let inputs: Vec<String> = vec![
        deep_regions,
        deep_types,
        deep_attrs,
        deep_dialect,
        "\u{0}\u{1}\u{ff}garbage".into(),
        "func.func @f(%a: i32) -> i32 {".into(),
        "\"t.op\"(".into(),
        "%0:0 = \"t.op\"() : () -> ()".into(),
        "\"t.op\"() {a = \"unterminated} : () -> ()".into(),
        "\"t.op\"() {a = affine_map<(d0) -> (d9)>} : () -> ()".into(),
        "\"t.op\"() {a = memref<99999999999999999999xf32>} : () -> ()".into(),
        "#a = #a".into(),
        "^bb0:".into(),
        "%x = \"t.op\"() : () -> (i32, i32)".into(),
        "\"t.op\"() [^bb1] : () -> ()".into(),
    ];
    for s in &inputs {
        // Must return (Ok or Err), never panic; errors carry a position inside the text.
        if let Err(d) = parse(s) {
            assert!(d.span.start as usize <= s.len());
            let _ = SourceMap::new("f", s.as_str()).render(&d);
        }
    }
    // Every prefix of a valid file is handled.
    let src = "#m = affine_map<(d0) -> (d0)>\nfunc.func @f(%a: memref<4xf32, #m>) -> i32 {\n  %c = arith.constant 1 : i32 loc(\"x\":1:2)\n  return %c : i32\n}\n";
    for i in 0..src.len() {
        if src.is_char_boundary(i) {
            let _ = parse(&src[..i]);
        }
    }
}

/// Generated `%argN` names skip `argN` hints taken earlier and later, and a later hint that
/// equals an already generated `%argN` is disambiguated (the printer does not record the
/// generated names in its hash set, so both directions must still be checked).
#[test]
fn generated_arg_names_and_arg_hints_do_not_collide() {
    let src = r#"func.func @f(%arg0: f32, %m: memref<4xf32>, %arg4: f32) {
  linalg.fill ins(%arg0 : f32) outs(%m : memref<4xf32>)
  %arg1 = arith.constant 0 : index
  %arg3 = arith.constant 1 : index
  %arg01 = arith.constant 2 : index
  linalg.fill ins(%arg4 : f32) outs(%m : memref<4xf32>)
  return
}"#;
    let out = fixpoint(src, true);
    let lines: Vec<&str> = out.lines().map(str::trim).collect();
    let bbs: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("^bb0"))
        .collect();
    assert_eq!(
        bbs,
        [
            "^bb0(%arg0: f32, %m: memref<4xf32>, %arg4: f32):",
            "^bb0(%arg1: f32, %arg2: f32):",
            "^bb0(%arg5: f32, %arg6: f32):",
        ]
    );
    let defs: Vec<&str> = lines
        .iter()
        .filter(|l| l.contains("arith.constant"))
        .map(|l| l.split(' ').next().unwrap_or(""))
        .collect();
    assert_eq!(defs, ["%arg1_0", "%arg3", "%arg01"]);
}

#[test]
fn walk_is_pre_order_across_nested_regions_and_blocks() {
    let src = r#"func.func @f(%c: i1, %n: index) {
  %a = arith.constant 0 : index
  scf.for %i = %a to %n step %n {
    scf.if %c {
      %x = arith.addi %i, %i : index
    } else {
      %y = arith.muli %i, %i : index
    }
  }
  cf.br ^bb1
^bb1:
  %z = arith.subi %n, %n : index
  return
}"#;
    let m = parse(src).unwrap();
    let names: Vec<&str> = m
        .walk_ops(m.top)
        .iter()
        .map(|&o| m.op(o).name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "builtin.module",
            "func.func",
            "arith.constant",
            "scf.for",
            "scf.if",
            "arith.addi",
            "scf.yield",
            "arith.muli",
            "scf.yield",
            "scf.yield",
            "cf.br",
            "arith.subi",
            "func.return"
        ]
    );
}

#[test]
fn flags_that_are_not_a_keyword_list_stay_in_the_attribute_dictionary() {
    // Found by cargo-fuzz: `#arith.fastmath<n!ne>` printed as `fastmath<n!ne>`, which does
    // not parse back; it now stays an opaque attribute in the dictionary.
    let src = r#"func.func @f(%a: f32) -> f32 {
  %0 = "arith.addf"(%a, %a) <{fastmath = #arith.fastmath<n!ne>}> : (f32, f32) -> f32
  %1 = "arith.addf"(%0, %0) <{fastmath = #arith.fastmath<nnan,ninf>}> : (f32, f32) -> f32
  return %1 : f32
}"#;
    let reg = Registry::with_all_dialects();
    let m = parse_module(src, &reg, ParseOptions::default()).unwrap();
    let text = print_module(&m, &reg, PrintOptions::default());
    assert!(
        text.contains("{fastmath = #arith.fastmath<n!ne>}"),
        "{text}"
    );
    assert!(text.contains("fastmath<nnan,ninf> : f32"), "{text}");
    let again = parse_module(&text, &reg, ParseOptions::default()).expect("re-parses");
    assert_eq!(print_module(&again, &reg, PrintOptions::default()), text);
}
