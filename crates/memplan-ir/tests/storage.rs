//! The storage behind the IR and the printer: operands, regions, block arguments and region
//! blocks live in shared pools that must behave like per-entity lists under interleaved
//! growth; names are `Ident`s; streamed printing must give the same text as `print_module`.

use memplan_ir::*;

fn reg() -> Registry {
    Registry::with_all_dialects()
}

/// Growing several lists in turn forces runs to move inside their pools; every list must
/// still read back exactly what was appended to it, in order.
#[test]
fn interleaved_growth_keeps_every_list() {
    let mut m = Module::new();
    let f32t = Type::float(FloatKind::F32);
    let r1 = m.create_region();
    let r2 = m.create_region();
    let (mut blocks1, mut blocks2) = (Vec::new(), Vec::new());
    let (b_a, b_b) = (m.create_block(), m.create_block());
    let (mut args_a, mut args_b) = (Vec::new(), Vec::new());
    for i in 0..40 {
        let b = m.create_block();
        if i % 3 == 0 {
            m.append_block(r2, b);
            blocks2.push(b);
        } else {
            m.append_block(r1, b);
            blocks1.push(b);
        }
        args_a.push(m.add_block_arg(b_a, f32t.clone(), None));
        if i % 2 == 0 {
            args_b.push(m.add_block_arg(b_b, f32t.clone(), None));
        }
    }
    assert_eq!(m.region_blocks(r1), blocks1.as_slice());
    assert_eq!(m.region_blocks(r2), blocks2.as_slice());
    assert_eq!(m.block_args(b_a), args_a.as_slice());
    assert_eq!(m.block_args(b_b), args_b.as_slice());
    assert_eq!(m.entry_block(r2), blocks2.first().copied());

    // Operands: two ops growing in turn, then edits through set_operand and RAUW.
    let x = OperationState::new("test.x");
    let (o1, o2) = (m.create_op(x.clone()), m.create_op(x));
    let mut want1 = Vec::new();
    let mut want2 = Vec::new();
    for (i, &a) in args_a.iter().enumerate() {
        m.push_operand(o1, a);
        want1.push(a);
        if i % 4 == 0 {
            m.push_operand(o2, a);
            want2.push(a);
        }
    }
    assert_eq!(m.operands(o1), want1.as_slice());
    assert_eq!(m.operands(o2), want2.as_slice());
    m.set_operand(o1, 3, args_b[0]);
    want1[3] = args_b[0];
    assert_eq!(m.operands(o1), want1.as_slice());
    m.replace_all_uses(args_a[0], args_b[1]);
    assert_eq!(m.operands(o1)[0], args_b[1]);
    assert_eq!(m.operands(o2)[0], args_b[1]);
    assert!(m.uses(args_a[0]).is_empty());
    // Each use records its operand slot.
    for u in m.uses(args_b[1]) {
        assert_eq!(m.operands(u.op)[u.index as usize], args_b[1]);
    }
    // Regions pushed onto an op one at a time.
    m.push_region(o2, r1);
    m.push_region(o1, r2);
    let r3 = m.create_region();
    m.push_region(o2, r3);
    assert_eq!(m.regions(o2), &[r1, r3]);
    assert_eq!(m.regions(o1), &[r2]);
    assert_eq!(m.region_op(r3), Some(o2));
}

#[test]
fn names_and_locations() {
    let src = "func.func @f(%a: i32 loc(\"x.mlir\":1:2)) -> i32 {\n  %0 = arith.addi %a, %a : i32 loc(\"x.mlir\":2:3)\n  return %0 : i32\n}\n";
    let m = parse_module(src, &reg(), ParseOptions::default()).unwrap();
    let ops = m.walk_ops(m.top);
    let add = *ops
        .iter()
        .find(|&&o| m.op(o).name == "arith.addi")
        .expect("the addi");
    assert!(matches!(m.op(add).loc(), Location::File { line: 2, .. }));
    assert!(matches!(m.op(m.top).loc(), Location::Unknown));
    let a = m.operands(add)[0];
    assert!(matches!(
        m.value(a).loc(),
        Some(Location::File { line: 1, .. })
    ));
    assert_eq!(m.name_hint(a), Some("a"));
    assert_eq!(m.name_hint(m.results(add)[0]), None);
    // Registered op names and known attribute names compare as text.
    assert_eq!(m.op(add).name.as_str(), "arith.addi");
    assert_eq!(reg().attr_name("sym_name"), "sym_name");
    assert_eq!(
        reg().attr_name("my.own"),
        Ident::from(String::from("my.own"))
    );
    assert!(reg()
        .lookup(&Ident::from(String::from("arith.addi")))
        .is_some());
    assert!(reg().lookup(&m.op(add).name).is_some());
}

/// Streaming at every opportunity (chunk 0) must print what `print_module` prints.
#[test]
fn streamed_print_matches_whole_print() {
    let src = r#"
#map = affine_map<(d0) -> (d0)>
func.func @f(%v: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%v : f32) outs(%m : memref<?xf32>)
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %v) -> (f32) {
    %x = memref.load %m[%i] : memref<?xf32>
    %s = arith.addf %acc, %x : f32
    scf.yield %s : f32
  }
  "test.unregistered"(%r) ({
  ^bb0(%q: f32):
    "test.end"() : () -> ()
  }) : (f32) -> ()
  cf.br ^bb1(%r : f32)
^bb1(%z: f32):
  memref.dealloc %m : memref<?xf32>
  return %z : f32
}
"#;
    let r = reg();
    let m = parse_module(src, &r, ParseOptions::default()).unwrap();
    verify(&m, &r).unwrap();
    for (generic, debug_info) in [(false, false), (true, false), (false, true)] {
        let opts = PrintOptions {
            generic,
            debug_info,
        };
        let whole = print_module(&m, &r, opts);
        for chunk in [0, 1, 64, 1 << 20] {
            let mut out = Vec::new();
            print_module_chunked(&m, &r, opts, &mut out, chunk).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), whole, "chunk {chunk}");
        }
    }
}

/// A writer that fails is reported, not ignored.
#[test]
fn write_errors_are_returned() {
    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let r = reg();
    let m = parse_module(
        "func.func @f() {\n  return\n}\n",
        &r,
        ParseOptions::default(),
    )
    .unwrap();
    assert!(print_module_chunked(&m, &r, PrintOptions::default(), &mut Full, 0).is_err());
}

/// Inserting and erasing block arguments keeps the order and renumbers the others.
#[test]
fn block_args_insert_and_erase() {
    let mut m = Module::new();
    let f32t = Type::float(FloatKind::F32);
    let b = m.create_block();
    let a0 = m.add_block_arg(b, f32t.clone(), None);
    let a1 = m.add_block_arg(b, f32t.clone(), None);
    let x = m.insert_block_arg(b, 1, Type::index(), None);
    assert_eq!(m.block_args(b), &[a0, x, a1]);
    assert_eq!(m.value_def(a1), ValueDef::BlockArg { block: b, index: 2 });
    let y = m.insert_block_arg(b, 99, Type::index(), None);
    assert_eq!(m.block_args(b), &[a0, x, a1, y]);
    m.erase_block_arg(b, 0);
    assert_eq!(m.block_args(b), &[x, a1, y]);
    assert_eq!(m.value_def(x), ValueDef::BlockArg { block: b, index: 0 });
    assert_eq!(m.value_def(y), ValueDef::BlockArg { block: b, index: 2 });
    // Appending after the edits still works.
    let z = m.add_block_arg(b, f32t, None);
    assert_eq!(m.block_args(b), &[x, a1, y, z]);
}
