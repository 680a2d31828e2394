//! Random stack-buffer programs for the lifetime-marker tests (issue 13).
//!
//! `@compute(%in, %out)` allocates 2 to 6 `memref.alloca` buffers of 16 to 256 `f32` at its top
//! (static `llvm.alloca`s after lowering) and runs a random statement tree over them: fills
//! from the input or from other buffers, element-wise combinations, in-place updates (a buffer
//! carried across the iterations of a loop), nested `scf.for` loops (up to depth 3) and
//! `scf.if` branches (on the loop counter's parity or on an input value), sums into `%out`,
//! and escapes: a call to a private function with a body that reads the buffer through a
//! `memref<?xf32>` cast, and `printMemrefF32` of the buffer. A buffer is only read after it
//! was fully written on every path (tracked through branches and loops), so the program's
//! output does not depend on what the stack held before. `@main` fills the input, calls
//! `@compute` and prints `%out`.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::progen::Lcg as Rng;

/// Length of `%in` and `%out`, and of the prefix of every buffer that is read.
pub const N: u64 = 16;

/// One generated program.
pub struct StackProgram {
    /// The module text.
    pub text: String,
    /// Buffer sizes in elements, in allocation order.
    pub sizes: Vec<u64>,
    /// Buffers that escape (passed to a call).
    pub escaping: BTreeSet<usize>,
}

struct Gen {
    rng: Rng,
    body: String,
    sizes: Vec<u64>,
    escaping: BTreeSet<usize>,
    n: usize,
    depth: usize,
    /// The innermost loop counter as an `f32` value, if any.
    kf: Option<String>,
    /// The innermost loop counter, if any.
    k: Option<String>,
    budget: usize,
    /// Buffers in the order they were last written.
    recent: Vec<usize>,
}

impl Gen {
    fn fresh(&mut self, p: &str) -> String {
        self.n += 1;
        format!("%{p}{}", self.n)
    }
    fn line(&mut self, s: &str) {
        for _ in 0..self.depth + 1 {
            self.body.push_str("  ");
        }
        self.body.push_str(s);
        self.body.push('\n');
    }
    fn ty(&self, b: usize) -> String {
        format!("memref<{}xf32>", self.sizes[b])
    }
    fn pick(&mut self, from: &BTreeSet<usize>) -> Option<usize> {
        if from.is_empty() {
            return None;
        }
        // Mostly the most recently written candidate (chains of temporaries, as lowered
        // tensor code has), sometimes any.
        if self.rng.chance(65) {
            if let Some(&b) = self.recent.iter().rev().find(|b| from.contains(b)) {
                return Some(b);
            }
        }
        let i = self.rng.below(from.len() as u64) as usize;
        from.iter().nth(i).copied()
    }
    /// `dst[i] = f(src[i mod N] ...)` over the whole of `dst`.
    fn fill(&mut self, dst: usize, srcs: &[Option<usize>]) {
        let i = self.fresh("i");
        let n = self.sizes[dst];
        self.line(&format!("scf.for {i} = %c0 to %c{n} step %c1 {{"));
        self.depth += 1;
        let j = self.fresh("j");
        self.line(&format!("{j} = arith.remui {i}, %c16 : index"));
        let mut acc: Option<String> = None;
        for s in srcs {
            let v = self.fresh("v");
            match s {
                Some(b) => {
                    let t = self.ty(*b);
                    self.line(&format!("{v} = memref.load %s{b}[{j}] : {t}"));
                }
                None => self.line(&format!("{v} = memref.load %in[{j}] : memref<16xf32>")),
            }
            acc = Some(match acc {
                None => v,
                Some(a) => {
                    let w = self.fresh("w");
                    self.line(&format!("{w} = arith.addf {a}, {v} : f32"));
                    w
                }
            });
        }
        let a = acc.expect("a source");
        let c = self.rng.range(1, 4);
        let m = self.fresh("w");
        self.line(&format!("{m} = arith.mulf {a}, %f{c} : f32"));
        let mut res = m;
        if let Some(kf) = self.kf.clone() {
            let w = self.fresh("w");
            self.line(&format!("{w} = arith.addf {res}, {kf} : f32"));
            res = w;
        }
        let t = self.ty(dst);
        self.line(&format!("memref.store {res}, %s{dst}[{i}] : {t}"));
        self.recent.retain(|&b| b != dst);
        self.recent.push(dst);
        self.depth -= 1;
        self.line("}");
    }
    /// `dst[i] += src[i]` for the first N elements (dst keeps being initialised).
    fn update(&mut self, dst: usize, src: Option<usize>) {
        let i = self.fresh("i");
        self.line(&format!("scf.for {i} = %c0 to %c16 step %c1 {{"));
        self.depth += 1;
        let td = self.ty(dst);
        let a = self.fresh("v");
        self.line(&format!("{a} = memref.load %s{dst}[{i}] : {td}"));
        let b = self.fresh("v");
        match src {
            Some(s) => {
                let ts = self.ty(s);
                self.line(&format!("{b} = memref.load %s{s}[{i}] : {ts}"));
            }
            None => self.line(&format!("{b} = memref.load %in[{i}] : memref<16xf32>")),
        }
        let w = self.fresh("w");
        self.line(&format!("{w} = arith.addf {a}, {b} : f32"));
        self.line(&format!("memref.store {w}, %s{dst}[{i}] : {td}"));
        self.depth -= 1;
        self.line("}");
    }
    /// `out[i] += buf[i]`.
    fn sink(&mut self, b: usize) {
        let i = self.fresh("i");
        self.line(&format!("scf.for {i} = %c0 to %c16 step %c1 {{"));
        self.depth += 1;
        let t = self.ty(b);
        let a = self.fresh("v");
        self.line(&format!("{a} = memref.load %s{b}[{i}] : {t}"));
        let o = self.fresh("v");
        self.line(&format!("{o} = memref.load %out[{i}] : memref<16xf32>"));
        let w = self.fresh("w");
        self.line(&format!("{w} = arith.addf {a}, {o} : f32"));
        self.line(&format!("memref.store {w}, %out[{i}] : memref<16xf32>"));
        self.depth -= 1;
        self.line("}");
    }

    /// A list of statements; `init` = buffers fully written on every path so far.
    fn stmts(&mut self, init: &mut BTreeSet<usize>, count: u64) {
        for _ in 0..count {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            self.stmt(init);
        }
    }

    fn stmt(&mut self, init: &mut BTreeSet<usize>) {
        let nb = self.sizes.len();
        let choice = self.rng.below(100);
        match choice {
            0..=29 => {
                // Fill a buffer from the input or one or two initialised buffers.
                let dst = self.rng.below(nb as u64) as usize;
                let others: BTreeSet<usize> = init.iter().copied().filter(|&b| b != dst).collect();
                let mut srcs = vec![self.pick(&others)];
                if self.rng.chance(40) {
                    srcs.push(self.pick(&others));
                }
                self.fill(dst, &srcs);
                init.insert(dst);
            }
            30..=41 => {
                if let Some(dst) = self.pick(init) {
                    let others: BTreeSet<usize> =
                        init.iter().copied().filter(|&b| b != dst).collect();
                    let src = self.pick(&others);
                    self.update(dst, src);
                }
            }
            42..=53 => {
                if let Some(b) = self.pick(init) {
                    self.sink(b);
                }
            }
            54..=71 if self.depth < 6 => {
                let r = self.rng.range(1, 4);
                let k = self.fresh("k");
                self.line(&format!("scf.for {k} = %c0 to %c{r} step %c1 {{"));
                self.depth += 1;
                let ki = self.fresh("ki");
                self.line(&format!("{ki} = arith.index_cast {k} : index to i32"));
                let kf = self.fresh("kf");
                self.line(&format!("{kf} = arith.sitofp {ki} : i32 to f32"));
                let saved = (self.k.replace(k), self.kf.replace(kf));
                // The body runs at least once: what it initialises is initialised after.
                let n = self.rng.range(1, 4);
                self.stmts(init, n);
                self.k = saved.0;
                self.kf = saved.1;
                self.depth -= 1;
                self.line("}");
            }
            72..=85 if self.depth < 6 => {
                let c = self.fresh("cond");
                match self.k.clone() {
                    Some(k) => {
                        let r = self.fresh("r");
                        self.line(&format!("{r} = arith.remui {k}, %c2 : index"));
                        self.line(&format!("{c} = arith.cmpi eq, {r}, %c0 : index"));
                    }
                    None => {
                        let v = self.fresh("v");
                        let idx = self.rng.below(N);
                        self.line(&format!("{v} = memref.load %in[%c{idx}] : memref<16xf32>"));
                        self.line(&format!("{c} = arith.cmpf ogt, {v}, %f2 : f32"));
                    }
                }
                self.line(&format!("scf.if {c} {{"));
                self.depth += 1;
                let mut a = init.clone();
                let n = self.rng.range(1, 3);
                self.stmts(&mut a, n);
                self.depth -= 1;
                self.line("} else {");
                self.depth += 1;
                let mut b = init.clone();
                let n = self.rng.range(0, 3);
                self.stmts(&mut b, n);
                self.depth -= 1;
                self.line("}");
                *init = a.intersection(&b).copied().collect();
            }
            86..=90 => {
                if let Some(b) = self.pick(init) {
                    // A call to a function with a body: the buffer escapes at the LLVM level.
                    self.escaping.insert(b);
                    let t = self.ty(b);
                    let d = self.fresh("d");
                    self.line(&format!("{d} = memref.cast %s{b} : {t} to memref<?xf32>"));
                    self.line(&format!(
                        "func.call @helper({d}, %out) : (memref<?xf32>, memref<16xf32>) -> ()"
                    ));
                }
            }
            91..=92 => {
                if let Some(b) = self.pick(init) {
                    self.escaping.insert(b);
                    let t = self.ty(b);
                    let d = self.fresh("d");
                    self.line(&format!("{d} = memref.cast %s{b} : {t} to memref<*xf32>"));
                    self.line(&format!(
                        "func.call @printMemrefF32({d}) : (memref<*xf32>) -> ()"
                    ));
                }
            }
            _ => {
                // Overwrite an initialised buffer from scratch (a second live range).
                if let Some(b) = self.pick(init) {
                    self.fill(b, &[None]);
                }
            }
        }
    }
}

/// The program of `seed`.
pub fn generate(seed: u64) -> StackProgram {
    let mut rng = Rng::new(seed ^ 0x57ac_b0f5);
    let nb = rng.range(2, 6) as usize;
    let sizes: Vec<u64> = (0..nb)
        .map(|_| [16, 32, 64, 128, 256][rng.below(5) as usize])
        .collect();
    let mut g = Gen {
        rng,
        body: String::new(),
        sizes: sizes.clone(),
        escaping: BTreeSet::new(),
        n: 0,
        depth: 0,
        kf: None,
        k: None,
        budget: 14,
        recent: Vec::new(),
    };
    let mut init = BTreeSet::new();
    let count = g.rng.range(3, 9);
    g.stmts(&mut init, count);
    // Something observable: if nothing reached %out yet, the last initialised buffer does.
    if !g.body.contains("%out") {
        if let Some(&b) = init.iter().next_back() {
            g.sink(b);
        }
    }
    let mut consts: BTreeSet<u64> = [0, 1, 2, 16].into_iter().collect();
    consts.extend(sizes.iter().copied());
    consts.extend(0..N);
    let mut t = String::new();
    t.push_str(
        "func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }\n",
    );
    t.push_str(
        "func.func private @helper(%b: memref<?xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %h = arith.constant 0.5 : f32
  scf.for %i = %c0 to %c16 step %c1 {
    %v = memref.load %b[%i] : memref<?xf32>
    %o = memref.load %out[%i] : memref<16xf32>
    %w = arith.mulf %v, %h : f32
    %s = arith.addf %w, %o : f32
    memref.store %s, %out[%i] : memref<16xf32>
  }
  return
}
",
    );
    t.push_str("func.func @compute(%in: memref<16xf32>, %out: memref<16xf32>) {\n");
    for c in &consts {
        let _ = writeln!(t, "  %c{c} = arith.constant {c} : index");
    }
    for c in 1..=4 {
        let _ = writeln!(t, "  %f{c} = arith.constant {c}.0 : f32");
    }
    for (b, n) in sizes.iter().enumerate() {
        let _ = writeln!(t, "  %s{b} = memref.alloca() : memref<{n}xf32>");
    }
    t.push_str(&g.body);
    t.push_str("  return\n}\n");
    t.push_str(
        "func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %q = arith.constant 0.25 : f32
  %z = arith.constant 0.0 : f32
  %in = memref.alloc() : memref<16xf32>
  %out = memref.alloc() : memref<16xf32>
  scf.for %i = %c0 to %c16 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %g = arith.mulf %f, %q : f32
    memref.store %g, %in[%i] : memref<16xf32>
    memref.store %z, %out[%i] : memref<16xf32>
  }
  call @compute(%in, %out) : (memref<16xf32>, memref<16xf32>) -> ()
  %u = memref.cast %out : memref<16xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %in : memref<16xf32>
  memref.dealloc %out : memref<16xf32>
  return
}
",
    );
    StackProgram {
        text: t,
        sizes,
        escaping: g.escaping,
    }
}
