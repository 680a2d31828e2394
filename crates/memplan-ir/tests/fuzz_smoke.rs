//! A deterministic smoke run of the fuzz target (`fuzz/fuzz_targets/parse.rs`) under
//! `cargo test`: ~2000 inputs derived from seed modules — truncations, byte flips, token
//! splices, runs of garbage bytes and 10,000-deep bracket nesting — go through parse →
//! verify → print → re-parse. Nothing may panic; a module that parses and verifies must
//! re-parse from its own output. A fixed linear congruential generator keeps it reproducible.

use memplan_ir::{parse_module, print_module, verify, ParseOptions, PrintOptions, Registry};

const SEEDS: &[&str] = &[
    r#"#map = affine_map<(d0, d1)[s0] -> (d0 * 4 + s0, d1 floordiv 2)>
!t = memref<4x?xf32, strided<[?, 1], offset: ?>>
module attributes {gpu.container_module} {
  func.func @f(%a: i32, %b: index) -> (i32, f32) attributes {llvm.emit_c_interface} {
    %c = arith.constant 42 : i32
    %0 = arith.addi %a, %c overflow<nsw> : i32
    %f = arith.constant 1.5 : f32
    %g = arith.mulf %f, %f fastmath<fast> : f32
    %r:2 = func.call @g(%0) : (i32) -> (i32, f32)
    return %r#0, %g : i32, f32
  }
  func.func private @g(i32) -> (i32, f32)
}
"#,
    r#"module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%arg0: f32, %arg1: memref<16xf32>) workgroup(%w : memref<32xf32, #gpu.address_space<workgroup>>) private(%p : memref<1xf32, 5>) kernel {
      %t = gpu.thread_id x
      %b = gpu.block_dim y upper_bound 64
      gpu.barrier
      gpu.return
    }
  }
  func.func @host(%n: index, %x: f32, %m: memref<16xf32>) {
    %t0 = gpu.wait async
    %buf, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
    %t2 = gpu.memset async [%t1] %buf, %x : memref<?xf32>, f32
    %t3 = gpu.launch_func async [%t2] @kernels::@k blocks in (%n, %n, %n) threads in (%n, %n, %n) args(%x : f32, %m : memref<16xf32>)
    %t4 = gpu.dealloc async [%t3] %buf : memref<?xf32>
    gpu.wait [%t4]
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %n, %gz = %n) threads(%tx, %ty, %tz) in (%sx = %n, %sy = %n, %sz = %n) workgroup(%s : memref<8xf32, 3>) {
      gpu.terminator
    }
    return
  }
}
"#,
    r#""builtin.module"() ({
  "func.func"() <{function_type = (i1, i32) -> i32, sym_name = "cfg"}> ({
  ^bb0(%arg0: i1, %arg1: i32):
    "cf.cond_br"(%arg0, %arg1) [^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, i32) -> ()
  ^bb1(%0: i32):
    "cf.br"(%0) [^bb3] : (i32) -> ()
  ^bb2:
    %1 = "arith.constant"() <{value = 7 : i32}> : () -> i32
    "cf.br"(%1) [^bb3] : (i32) -> ()
  ^bb3(%2: i32):
    "func.return"(%2) : (i32) -> ()
  }) : () -> ()
  "test.graph"() ({
    %a = "test.use"(%b) : (i32) -> i32
    %b = "test.use"(%a) : (i32) -> i32
  }) : () -> ()
}) {dlti.spec = #dlti.dl_spec<"dlti.endianness" = "little">} : () -> ()
"#,
    r#"#loc = loc("file.mlir":3:4)
func.func @attrs() -> tensor<2x2xf32> {
  %0 = "test.op"() {a = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>, b = [1, "s", @sym::@nested, unit, 0x3FF8000000000000 : f64], c = array<i64: 1, -2>, d = {e = #test.attr<"x">}} : () -> tensor<2x2xf32> loc(#loc)
  return %0 : tensor<2x2xf32> loc(fused["a", callsite("f" at "g":1:2)])
}
"#,
];

/// A tiny deterministic generator (Knuth's MMIX LCG).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const INTERESTING: &[&[u8]] = &[
    b"%",
    b"^bb9",
    b"@",
    b"#",
    b"!",
    b"<",
    b">",
    b"(",
    b")",
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b",",
    b"=",
    b"->",
    b"\"",
    b"loc(",
    b"?",
    b"x",
    b"-",
    b"0x",
    b"99999999999999999999",
    b"#map",
    b"!t",
    b"dense<",
    b"affine_map<(d0) -> (d0 * d0)>",
    b"\xff\xfe",
    b"\0",
    b"{-#",
    b"#-}",
];

fn mutate(seed: &[u8], rng: &mut Lcg) -> Vec<u8> {
    let mut v = seed.to_vec();
    let rounds = if rng.below(2) == 0 {
        1
    } else {
        1 + rng.below(4)
    };
    for _ in 0..rounds {
        match rng.below(7) {
            0 => v.truncate(rng.below(v.len() + 1)),
            1 => {
                if !v.is_empty() {
                    let i = rng.below(v.len());
                    v[i] ^= 1 << rng.below(8);
                }
            }
            2 => {
                let i = rng.below(v.len() + 1);
                let tok = INTERESTING[rng.below(INTERESTING.len())];
                v.splice(i..i, tok.iter().copied());
            }
            3 => {
                if !v.is_empty() {
                    let a = rng.below(v.len());
                    let b = (a + rng.below(64)).min(v.len());
                    v.drain(a..b);
                }
            }
            4 => {
                let i = rng.below(v.len() + 1);
                let junk: Vec<u8> = (0..1 + rng.below(16)).map(|_| rng.next() as u8).collect();
                v.splice(i..i, junk);
            }
            5 => {
                // Change a digit: shapes, constants, result numbers, block labels.
                let digits: Vec<usize> = (0..v.len()).filter(|&i| v[i].is_ascii_digit()).collect();
                if !digits.is_empty() {
                    let i = digits[rng.below(digits.len())];
                    v[i] = b'0' + rng.below(10) as u8;
                }
            }
            _ => {
                // Duplicate a slice somewhere else (repeats definitions, blocks, ops).
                if !v.is_empty() {
                    let a = rng.below(v.len());
                    let b = (a + rng.below(200)).min(v.len());
                    let piece = v[a..b].to_vec();
                    let i = rng.below(v.len() + 1);
                    v.splice(i..i, piece);
                }
            }
        }
    }
    v
}

/// The fuzz target's check on one input; returns whether it parsed.
fn check(reg: &Registry, data: &[u8]) -> bool {
    let src = String::from_utf8_lossy(data);
    let Ok(m) = parse_module(&src, reg, ParseOptions::default()) else {
        return false;
    };
    let verified = verify(&m, reg).is_ok();
    for generic in [false, true] {
        let text = print_module(
            &m,
            reg,
            PrintOptions {
                generic,
                debug_info: true,
            },
        );
        if verified {
            if let Err(d) = parse_module(&text, reg, ParseOptions::default()) {
                panic!(
                    "printed module does not re-parse ({}):\n--- input\n{src}\n--- printed\n{text}",
                    d.message
                );
            }
        }
    }
    true
}

fn deep_inputs() -> Vec<String> {
    let n = 10_000;
    let mut v = Vec::new();
    for (open, close) in [("(", ")"), ("[", "]"), ("{", "}"), ("<", ">")] {
        v.push(open.repeat(n));
        v.push(format!("{}{}", open.repeat(n), close.repeat(n)));
        v.push(format!(
            "\"t.op\"() {{a = {}1{}}} : () -> ()",
            open.repeat(n),
            close.repeat(n)
        ));
    }
    v.push(format!(
        "func.func @f() {{\n{}\n}}",
        "\"t.r\"() ({\n".repeat(n)
    ));
    v.push(format!(
        "func.func @f(%a: {}i32{}) {{ return }}",
        "tensor<4x".repeat(n),
        ">".repeat(n)
    ));
    v.push(format!(
        "#m = affine_map<(d0) -> ({}d0{})>",
        "(".repeat(n),
        ")".repeat(n)
    ));
    v.push(format!("!t = !foo.bar{}", "<".repeat(n)));
    v.push(format!("\"t.op\"() : () -> {}", "(".repeat(n)));
    v
}

#[test]
fn parser_survives_mutated_inputs() {
    // A thread with an explicit stack, like the CLI's, so debug builds have room for the
    // parser's bounded recursion (MAX_DEPTH levels).
    let h = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(|| {
            let reg = Registry::with_all_dialects();
            let mut rng = Lcg(0x5eed_1234);
            let (mut count, mut parsed) = (0usize, 0usize);
            for s in SEEDS {
                parsed += usize::from(check(&reg, s.as_bytes()));
                count += 1;
            }
            while count < 2000 {
                let seed = SEEDS[rng.below(SEEDS.len())].as_bytes();
                let input = mutate(seed, &mut rng);
                parsed += usize::from(check(&reg, &input));
                count += 1;
            }
            for d in deep_inputs() {
                check(&reg, d.as_bytes());
            }
            for len in [0usize, 1, 7, 64, 1000] {
                let junk: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
                check(&reg, &junk);
            }
            (count, parsed)
        })
        .expect("spawn");
    let (n, parsed) = h.join().expect("no panic while fuzzing the parser");
    assert!(n >= 2000);
    // Some mutants must still parse, or the print/re-parse half is never exercised.
    assert!(parsed >= n / 20, "only {parsed} of {n} inputs parsed");
}

#[test]
fn seeds_parse_and_verify() {
    // The seeds must be valid, otherwise the mutations above test little.
    let reg = Registry::with_all_dialects();
    for s in SEEDS {
        let m = parse_module(s, &reg, ParseOptions::default())
            .unwrap_or_else(|d| panic!("{}\n{s}", d.message));
        verify(&m, &reg).unwrap_or_else(|d| panic!("{}\n{s}", d.message));
    }
}
