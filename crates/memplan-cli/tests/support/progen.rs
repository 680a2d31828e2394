//! Random generator of structured, executable memref-level MLIR programs.
//!
//! The idea (issue 5, "proven by execution"): a merge-alloc pass that reuses the bytes of a buffer
//! while that buffer still holds a value somebody reads later changes what the program computes.
//! So every program made here is built such that *every* buffer's contents reach the printed
//! output: a buffer is "retired" by folding (accumulating) all its elements into a private region
//! of one of two output arrays (`f32` / `i32`) that `@main` prints with `printMemrefF32` /
//! `printMemrefI32`. Lifetimes are kept short (buffers are retired soon after their last write),
//! so a merge pass has plenty of legal reuse to find, and any illegal reuse shows up as a changed
//! value. All data are small integers (float values are bounded with `arith.remf`), so results
//! are exact and the oracle output is deterministic.
//!
//! Shapes of the programs follow seed 000 and the hand-written examples in
//! `shared/mlir/examples`: static `memref.alloc`s of mixed element types (f32, f64, i8, i16, i32,
//! i64, index, `vector<4xf32>`), nested `scf.for` / `scf.if`, the loop-carried buffer that is used
//! only inside an `scf.if` nested in the loop (the reference implementation's wrong-reuse trap),
//! per-iteration temporaries, views (`subview`, `cast`, `expand_shape`, `collapse_shape`,
//! `reinterpret_cast`), region-result and iter-arg aliases (`scf.if` / `arith.select` /
//! ping-pong `scf.for` iter_args), `scf.parallel` bodies with temporaries, deallocs, a dynamic
//! alloc and an escaping (returned) alloc.
//!
//! Issue 9's optional [`Features`] ([`generate_with`]), each behind its own switch: frees by
//! `bufferization.dealloc` (conditions, retain lists, ownership results printed and chained),
//! private callees that read / write / free / return a buffer, `memref.reshape` with its shape in
//! a buffer, `scf.forall` and `scf.parallel` + `scf.reduce` bodies, vector and `f64` buffers
//! under small `alignment` options, CFG functions (`--convert-scf-to-cf`), `scf.index_switch` /
//! `scf.execute_region`, and `--buffer-deallocation-pipeline`'s pointer comparisons around
//! returned buffers. Each allocation records whether the issue's rules let a pass merge it, so a
//! program knows a lower bound on what a correct merge-alloc merges ([`Program::min_merged`]).
//!
//! Everything is deterministic in the seed: a 64-bit LCG (Knuth's MMIX constants) drives all
//! choices and only `Vec`/`BTreeMap` are iterated.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Length of the two input arrays `%x : memref<64xf32>` and `%xi : memref<64xi32>`.
const INPUT_LEN: u64 = 64;
/// Runtime value of the kernel's `%n : index` argument (size of the dynamic alloc).
const N_VALUE: u64 = 5;
/// Bound applied to every computed value (`rem` by this), keeping integer arithmetic exact.
const VALUE_MOD: i64 = 61;

/// Tiny deterministic pseudo-random source (64-bit LCG, high bits used).
pub struct Lcg(u64);

impl Lcg {
    /// A generator whose whole stream is fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        let mut l = Lcg(seed ^ 0x9E37_79B9_7F4A_7C15);
        l.next();
        l
    }
    /// The next 31 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
    /// True with probability `pct` percent.
    pub fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
}

/// Element types the generator uses.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Elem {
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `index`
    Index,
    /// `vector<4xf32>`
    V4F32,
    /// `vector<2xf64>` (only with [`Features::vectors`])
    V2F64,
}

const ALL_ELEMS: [Elem; 8] = [
    Elem::F32,
    Elem::F64,
    Elem::I8,
    Elem::I16,
    Elem::I32,
    Elem::I64,
    Elem::Index,
    Elem::V4F32,
];

impl Elem {
    /// The MLIR spelling.
    pub fn text(self) -> &'static str {
        match self {
            Elem::F32 => "f32",
            Elem::F64 => "f64",
            Elem::I8 => "i8",
            Elem::I16 => "i16",
            Elem::I32 => "i32",
            Elem::I64 => "i64",
            Elem::Index => "index",
            Elem::V4F32 => "vector<4xf32>",
            Elem::V2F64 => "vector<2xf64>",
        }
    }
    /// Bytes per element under the issue's data layout (index = 8, vectors count all lanes).
    pub fn bytes(self) -> u64 {
        match self {
            Elem::I8 => 1,
            Elem::I16 => 2,
            Elem::F32 | Elem::I32 => 4,
            Elem::F64 | Elem::I64 | Elem::Index => 8,
            Elem::V4F32 | Elem::V2F64 => 16,
        }
    }
    fn is_float(self) -> bool {
        matches!(self, Elem::F32 | Elem::F64 | Elem::V4F32 | Elem::V2F64)
    }
    fn is_vector(self) -> bool {
        matches!(self, Elem::V4F32 | Elem::V2F64)
    }
    /// The constant `v` of this type, as the right-hand side of an `arith.constant`.
    fn constant(self, v: i64) -> String {
        match self {
            Elem::F32 | Elem::F64 => format!("{v}.0 : {}", self.text()),
            Elem::V4F32 | Elem::V2F64 => format!("dense<{v}.0> : {}", self.text()),
            _ => format!("{v} : {}", self.text()),
        }
    }
}

/// Optional program features of issue 9, each behind its own switch so that a failing one can
/// be bisected (`MEMPLAN_PROGEN_FEATURES=reshape,callees`). [`generate`] uses none of them: its
/// programs are those of issue 5.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// `bufferization.dealloc` as `--ownership-based-buffer-deallocation` leaves it: base
    /// buffers from `memref.extract_strided_metadata`, `i1` conditions, retain lists whose
    /// ownership results are printed; single frees and block-end batches.
    pub dealloc: bool,
    /// Private callees with bodies that read, write, free (`memref.dealloc`) or return a memref
    /// argument, called with generated buffers.
    pub callees: bool,
    /// `memref.reshape` with a dynamic result whose shape operand is a generated buffer, with a
    /// fresh buffer allocated between the shape's stores and the reshape.
    pub reshape: bool,
    /// Region-bearing terminators: `scf.forall` bodies (explicit or implicit
    /// `scf.forall.in_parallel`) and `scf.parallel` with an `scf.reduce` whose reduction region
    /// reads a buffer that nothing reads afterwards.
    pub regions: bool,
    /// `vector<4xf32>`, `vector<2xf64>` and `f64` buffers, mostly without `alignment`
    /// attributes, merged under `alignment=1`, `4` or `8`.
    pub vectors: bool,
    /// The whole module is lowered by `mlir-opt-22 --convert-scf-to-cf` before the pass:
    /// multi-block functions with `cf.br` / `cf.cond_br`, back edges with block arguments,
    /// diamonds.
    pub cfg: bool,
    /// `scf.index_switch` (with and without results, implicit empty regions) and
    /// `scf.execute_region` (single block, or several blocks joined by `cf.cond_br`).
    pub switch: bool,
    /// Buffers and views whose types spell the default memory space explicitly
    /// (`memref<4xf32, 0>`, the same type as `memref<4xf32>`), mixed with the plain spelling.
    pub space0: bool,
    /// A returned buffer with `--buffer-deallocation-pipeline`'s idiom: temporaries freed under
    /// `memref.extract_aligned_pointer_as_index` comparisons with it, and a returned
    /// `arith.select` of two buffers with conditional frees of both.
    pub ptrcmp: bool,
}

impl Features {
    /// Every feature's name, in the order of the fields.
    pub const NAMES: [&'static str; 9] = [
        "dealloc", "callees", "reshape", "regions", "vectors", "cfg", "switch", "ptrcmp", "space0",
    ];

    /// Every feature on.
    pub fn all() -> Self {
        Features {
            dealloc: true,
            callees: true,
            reshape: true,
            regions: true,
            vectors: true,
            cfg: true,
            switch: true,
            ptrcmp: true,
            space0: true,
        }
    }

    /// A subset drawn from `seed` (each feature on with probability 1/2, at least one on).
    pub fn random(seed: u64) -> Self {
        let mut rng = Lcg::new(seed ^ 0xFEA7_0000_0000_0009);
        let mut f = Features::default();
        for n in Self::NAMES {
            *f.flag(n).expect("known") = rng.chance(50);
        }
        if f == Features::default() {
            let n = Self::NAMES[rng.below(Self::NAMES.len() as u64) as usize];
            *f.flag(n).expect("known") = true;
        }
        f
    }

    /// Exactly the feature `name` (one of [`Self::NAMES`]).
    pub fn only(name: &str) -> Option<Self> {
        let mut f = Features::default();
        *f.flag(name)? = true;
        Some(f)
    }

    /// A comma-separated list of names (`all` = every feature, `none` or empty = none).
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut f = Features::default();
        for w in list.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            match w {
                "all" => f = Features::all(),
                "none" => {}
                _ => {
                    *f.flag(w).ok_or_else(|| {
                        format!(
                            "unknown progen feature `{w}` (known: {})",
                            Self::NAMES.join(", ")
                        )
                    })? = true
                }
            }
        }
        Ok(f)
    }

    fn flag(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "dealloc" => &mut self.dealloc,
            "callees" => &mut self.callees,
            "reshape" => &mut self.reshape,
            "regions" => &mut self.regions,
            "vectors" => &mut self.vectors,
            "cfg" => &mut self.cfg,
            "switch" => &mut self.switch,
            "ptrcmp" => &mut self.ptrcmp,
            "space0" => &mut self.space0,
            _ => return None,
        })
    }

    /// The names of the features that are on, comma-separated (`none` when empty).
    pub fn names(&self) -> String {
        let mut me = *self;
        let on: Vec<&str> = Self::NAMES
            .iter()
            .copied()
            .filter(|n| me.flag(n).is_some_and(|b| *b))
            .collect();
        if on.is_empty() {
            "none".into()
        } else {
            on.join(",")
        }
    }
}

/// One `memref.alloc` of the generated kernel, for tests that rewrite the program.
#[derive(Clone, Debug)]
pub struct AllocInfo {
    /// SSA name, e.g. `%b7`.
    pub name: String,
    /// Full memref type text.
    pub ty: String,
    /// Size in bytes (0 for the dynamic alloc).
    pub bytes: u64,
    /// Allocated directly in the kernel's entry block (not in a nested region).
    pub top_level: bool,
    /// Static, identity layout, never escapes: a merge pass may place it in an arena.
    pub mergeable: bool,
    /// Sequence number of the alloc op in emission order.
    pub alloc_seq: u64,
    /// Sequence number of the last access through any alias.
    pub last_use_seq: u64,
    /// Allocation scope: 0 = the kernel's body, else the `scf.parallel` / `scf.forall` body
    /// (an `AutomaticAllocationScope`) it is allocated in.
    pub scope: usize,
    /// Why the issue's rules do not let a pass merge it, when they do not (`None`: a correct
    /// merge-alloc places it in an arena whenever its scope has another such buffer).
    pub not_mergeable: Option<&'static str>,
}

/// A generated program and facts about its allocations.
pub struct Program {
    /// The seed it was generated from.
    pub seed: u64,
    /// The whole module text.
    pub text: String,
    /// The kernel's allocations in program order.
    pub allocs: Vec<AllocInfo>,
    /// The features it was generated with.
    pub features: Features,
    /// Options for `--merge-alloc` (`--merge-alloc=OPTS`); empty = the defaults.
    pub merge_options: String,
    /// Lower the module with `mlir-opt-22 --convert-scf-to-cf` before anything else (the
    /// lowered module is the reference program).
    pub lower_to_cfg: bool,
    /// Drop every `memref.dealloc` and let `mlir-opt-22 --ownership-based-buffer-deallocation`
    /// place the frees (`bufferization.dealloc` left unlowered, as the pass leaves them); the
    /// program then contains no other free (`dealloc` feature, drawn per program).
    pub ownership_pass: bool,
}

impl Program {
    /// A lower bound on the allocations a correct merge-alloc places in arenas: the buffers the
    /// issue's rules allow to merge (static shape, default memory space, not escaping through a
    /// return, call result, region result or iter_arg, not freed by a callee), counted in each
    /// allocation scope that holds at least two of them.
    pub fn min_merged(&self) -> u64 {
        let mut per_scope: BTreeMap<usize, u64> = BTreeMap::new();
        for a in &self.allocs {
            if a.not_mergeable.is_none() {
                *per_scope.entry(a.scope).or_default() += 1;
            }
        }
        per_scope.values().filter(|&&n| n >= 2).sum()
    }
}

/// A value through which a buffer is accessed: an alloc, a view, an input, or a region alias.
#[derive(Clone)]
struct Handle {
    name: String,
    dims: Vec<u64>,
    /// Which dims print as `?` (memref.cast to a dynamic shape, dynamic alloc).
    dynamic: Vec<bool>,
    elem: Elem,
    strides: Vec<u64>,
    offset: u64,
    /// Identity layout (prints without a layout attribute).
    identity: bool,
    /// Allocation ids (indices into `Gen::allocs`) this handle may point into.
    roots: Vec<usize>,
    /// Block (id) the SSA value is defined in; visible while that block is on the stack.
    block: usize,
    /// Parallel-scope id the underlying buffers belong to (0 = the function).
    par: usize,
    alive: bool,
    /// May be used as the source of further views.
    viewable: bool,
    /// Its type is printed with the explicit default memory space `, 0` (the same type as
    /// without it; `space0` feature).
    space0: bool,
}

impl Handle {
    fn elems(&self) -> u64 {
        self.dims.iter().product()
    }
    fn ty(&self) -> String {
        let mut s = String::from("memref<");
        for (d, dy) in self.dims.iter().zip(&self.dynamic) {
            if *dy {
                s.push('?');
            } else {
                let _ = write!(s, "{d}");
            }
            s.push('x');
        }
        s.push_str(self.elem.text());
        if !self.identity {
            let st: Vec<String> = self.strides.iter().map(|x| x.to_string()).collect();
            let _ = write!(s, ", strided<[{}]", st.join(", "));
            if self.offset != 0 {
                let _ = write!(s, ", offset: {}", self.offset);
            }
            s.push('>');
        }
        if self.space0 {
            s.push_str(", 0");
        }
        s.push('>');
        s
    }
    /// Row-major contiguous (strides are the suffix products of dims).
    fn contiguous(&self) -> bool {
        contiguous_strides(&self.dims) == self.strides
    }
}

fn contiguous_strides(dims: &[u64]) -> Vec<u64> {
    let mut st = vec![1; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        st[i] = st[i + 1] * dims[i + 1];
    }
    st
}

fn dims_text(dims: &[u64]) -> String {
    dims.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Facts about the region the generator is currently emitting into.
#[derive(Clone)]
struct Ctx {
    /// Enclosing loop induction variables (innermost last).
    ivs: Vec<String>,
    /// Enclosing `scf.parallel`: (scope id, iv, trip count).
    par: Option<(usize, String, u64)>,
    depth: usize,
    /// Enclosing multi-block regions (`scf.execute_region` with a CFG).
    cfg_depth: usize,
}

struct Gen {
    rng: Lcg,
    lines: Vec<String>,
    indent: usize,
    consts: BTreeMap<String, String>,
    handles: Vec<Handle>,
    block_stack: Vec<usize>,
    next_block: usize,
    next_par: usize,
    next_val: usize,
    seq: u64,
    allocs: Vec<AllocInfo>,
    /// Output cursor of the f32 and i32 result arrays.
    out_f: u64,
    out_i: u64,
    returns: Vec<Handle>,
    used_dynamic: bool,
    feat: Features,
    /// Texts of the private callees (`callees` feature).
    callees: Vec<String>,
    /// (kind, argument types, name) of the callees call sites may share.
    callee_sigs: Vec<(u64, Vec<String>, String)>,
    /// Frees batched into one `bufferization.dealloc` at the end of a block: block id ->
    /// (memref operand, its type, condition).
    pending_frees: BTreeMap<usize, Vec<(String, String, String)>>,
    /// The returned buffer temporaries are compared with (`ptrcmp` feature).
    ptr_ret: Option<Handle>,
    /// `scf.index_switch` default regions may be left empty (drawn per program, so that a
    /// reader that rejects them does not hide every other switch program).
    empty_default: bool,
    /// Frees are plain `memref.dealloc`s only (they are dropped and replaced by
    /// `--ownership-based-buffer-deallocation`'s).
    plain_frees: bool,
}

/// Generates the program for `seed` (issue 5's programs: no optional feature).
pub fn generate(seed: u64) -> Program {
    generate_with(seed, Features::default())
}

/// Generates the program for `seed` with the optional features `feat`.
pub fn generate_with(seed: u64, feat: Features) -> Program {
    let mut g = Gen {
        rng: Lcg::new(seed),
        lines: Vec::new(),
        indent: 1,
        consts: BTreeMap::new(),
        handles: Vec::new(),
        block_stack: vec![0],
        next_block: 1,
        next_par: 1,
        next_val: 0,
        seq: 0,
        allocs: Vec::new(),
        out_f: 0,
        out_i: 0,
        returns: Vec::new(),
        used_dynamic: false,
        feat,
        callees: Vec::new(),
        callee_sigs: Vec::new(),
        pending_frees: BTreeMap::new(),
        ptr_ret: None,
        empty_default: false,
        plain_frees: false,
    };
    // Feature choices come from a stream of their own, so that the base program of a seed
    // stays recognisable across feature sets.
    let mut frng = Lcg::new(seed ^ 0x5EED_F00D);
    let merge_options = if feat.vectors {
        ["alignment=1", "alignment=4", "alignment=8", ""][frng.below(4) as usize].to_string()
    } else {
        String::new()
    };
    g.empty_default = frng.chance(50);
    let ownership_pass = feat.dealloc && frng.chance(40);
    g.plain_frees = ownership_pass;
    g.add_input("%x", Elem::F32);
    g.add_input("%xi", Elem::I32);
    let ctx = Ctx {
        ivs: Vec::new(),
        par: None,
        depth: 0,
        cfg_depth: 0,
    };
    if feat.ptrcmp {
        g.stmt_ptr_return(&ctx);
    }
    // Always exercise the classic trap once, then a random body.
    let budget = g.rng.range(18, 34);
    for i in 0..budget {
        if i == budget / 3 {
            g.stmt_trap(&ctx);
        } else {
            g.stmt(&ctx);
        }
    }
    if feat.ptrcmp {
        g.stmt_select_return(&ctx);
    } else if g.rng.chance(50) {
        g.stmt_escape(&ctx);
    }
    g.close_block(0, &ctx);
    let mut p = g.finish(seed);
    if feat != Features::default() {
        let head = format!(
            "// progen features: {}; merge-alloc options: `{}`; frees by --ownership-based-buffer-deallocation: {}; lowered by --convert-scf-to-cf: {}; at least {} allocations mergeable\n",
            feat.names(),
            merge_options,
            ownership_pass,
            feat.cfg,
            p.min_merged()
        );
        let cut = p.text.find('\n').map_or(0, |i| i + 1);
        p.text.insert_str(cut, &head);
    }
    p.merge_options = merge_options;
    p.lower_to_cfg = feat.cfg;
    p.ownership_pass = ownership_pass;
    p
}

impl Gen {
    // ------------------------------------------------------------------ emission helpers
    fn emit(&mut self, s: String) {
        self.seq += 1;
        self.lines
            .push(format!("{}{}", "  ".repeat(self.indent), s));
    }
    fn fresh(&mut self, p: &str) -> String {
        self.next_val += 1;
        format!("%{p}{}", self.next_val)
    }
    /// Name of a function-level `arith.constant` with this right-hand side.
    fn cst(&mut self, rhs: String) -> String {
        let n = self.consts.len();
        self.consts
            .entry(rhs)
            .or_insert_with(|| format!("%k{n}"))
            .clone()
    }
    fn cidx(&mut self, v: u64) -> String {
        self.cst(format!("{v} : index"))
    }
    fn visible(&self, h: &Handle) -> bool {
        h.alive && self.block_stack.contains(&h.block)
    }
    fn touch(&mut self, h: &Handle) {
        for &r in &h.roots {
            self.allocs[r].last_use_seq = self.seq;
        }
    }
    /// Records that the rules do not let a pass merge the allocations `roots` (they flow into a
    /// region result, an iter_arg, a call result, ...). The first reason given is kept.
    fn taint(&mut self, roots: &[usize], why: &'static str) {
        for &r in roots {
            let a = &mut self.allocs[r];
            if a.not_mergeable.is_none() {
                a.not_mergeable = Some(why);
            }
        }
    }
    fn add_input(&mut self, name: &str, elem: Elem) {
        self.handles.push(Handle {
            name: name.into(),
            dims: vec![INPUT_LEN],
            dynamic: vec![false],
            elem,
            strides: vec![1],
            offset: 0,
            identity: true,
            roots: Vec::new(),
            block: 0,
            par: usize::MAX, // never written
            alive: true,
            viewable: true,
            space0: false,
        });
    }
    fn cur_block(&self) -> usize {
        *self.block_stack.last().unwrap_or(&0)
    }
    fn cur_par(ctx: &Ctx) -> usize {
        ctx.par.as_ref().map_or(0, |p| p.0)
    }
    fn pick_visible(&mut self, pred: impl Fn(&Handle) -> bool) -> Option<Handle> {
        let c: Vec<usize> = (0..self.handles.len())
            .filter(|&i| self.visible(&self.handles[i]) && pred(&self.handles[i]))
            .collect();
        if c.is_empty() {
            return None;
        }
        let i = c[self.rng.below(c.len() as u64) as usize];
        Some(self.handles[i].clone())
    }
    fn writable(h: &Handle, ctx: &Ctx) -> bool {
        !h.roots.is_empty() && h.par == Self::cur_par(ctx)
    }

    // ------------------------------------------------------------------ value conversion
    /// Emits the conversion of `v : from` to `to` (values are small integers) and returns its name.
    fn conv(&mut self, v: &str, from: Elem, to: Elem) -> String {
        if from == to {
            return v.to_string();
        }
        let mut cur = v.to_string();
        // to i64
        let wide = self.fresh("w");
        match from {
            Elem::I8 | Elem::I16 | Elem::I32 => self.emit(format!(
                "{wide} = arith.extsi {cur} : {} to i64",
                from.text()
            )),
            Elem::I64 => {}
            Elem::Index => self.emit(format!("{wide} = arith.index_cast {cur} : index to i64")),
            Elem::F32 | Elem::F64 => self.emit(format!(
                "{wide} = arith.fptosi {cur} : {} to i64",
                from.text()
            )),
            Elem::V4F32 => {
                let r = self.fresh("r");
                let w = self.cst("dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>".into());
                let m = self.fresh("r");
                self.emit(format!("{m} = arith.mulf {cur}, {w} : vector<4xf32>"));
                self.emit(format!(
                    "{r} = vector.reduction <add>, {m} : vector<4xf32> into f32"
                ));
                self.emit(format!("{wide} = arith.fptosi {r} : f32 to i64"));
            }
            Elem::V2F64 => {
                let r = self.fresh("r");
                let w = self.cst("dense<[1.0, 2.0]> : vector<2xf64>".into());
                let m = self.fresh("r");
                self.emit(format!("{m} = arith.mulf {cur}, {w} : vector<2xf64>"));
                self.emit(format!(
                    "{r} = vector.reduction <add>, {m} : vector<2xf64> into f64"
                ));
                self.emit(format!("{wide} = arith.fptosi {r} : f64 to i64"));
            }
        }
        if from != Elem::I64 {
            cur = wide;
        }
        if to == Elem::I64 {
            return cur;
        }
        let out = self.fresh("w");
        match to {
            Elem::I8 | Elem::I16 | Elem::I32 => {
                self.emit(format!("{out} = arith.trunci {cur} : i64 to {}", to.text()))
            }
            Elem::Index => self.emit(format!("{out} = arith.index_cast {cur} : i64 to index")),
            Elem::F32 | Elem::F64 => {
                self.emit(format!("{out} = arith.sitofp {cur} : i64 to {}", to.text()))
            }
            Elem::V4F32 => {
                let f = self.fresh("w");
                self.emit(format!("{f} = arith.sitofp {cur} : i64 to f32"));
                let lanes = self.cst("dense<[0.0, 1.0, 2.0, 3.0]> : vector<4xf32>".into());
                let b = self.fresh("w");
                self.emit(format!("{b} = vector.broadcast {f} : f32 to vector<4xf32>"));
                self.emit(format!("{out} = arith.addf {b}, {lanes} : vector<4xf32>"));
            }
            Elem::V2F64 => {
                let f = self.fresh("w");
                self.emit(format!("{f} = arith.sitofp {cur} : i64 to f64"));
                let lanes = self.cst("dense<[0.0, 1.0]> : vector<2xf64>".into());
                let b = self.fresh("w");
                self.emit(format!("{b} = vector.broadcast {f} : f64 to vector<2xf64>"));
                self.emit(format!("{out} = arith.addf {b}, {lanes} : vector<2xf64>"));
            }
            Elem::I64 => unreachable!(),
        }
        out
    }

    fn binop(&mut self, op: &str, a: &str, b: &str, e: Elem) -> String {
        let r = self.fresh("v");
        let name = if e.is_float() {
            match op {
                "add" => "arith.addf",
                "mul" => "arith.mulf",
                _ => "arith.remf",
            }
        } else {
            match op {
                "add" => "arith.addi",
                "mul" => "arith.muli",
                _ => "arith.remsi",
            }
        };
        self.emit(format!("{r} = {name} {a}, {b} : {}", e.text()));
        r
    }

    /// Index value `(lin + k) mod E` delinearised into `h`'s dims; emits `memref.load` and
    /// returns the loaded value.
    fn load_at(&mut self, h: &Handle, lin: &str, k: u64) -> String {
        let ck = self.cidx(k);
        let t = self.fresh("i");
        self.emit(format!("{t} = arith.addi {lin}, {ck} : index"));
        let ce = self.cidx(h.elems());
        let m = self.fresh("i");
        self.emit(format!("{m} = arith.remui {t}, {ce} : index"));
        let cs = contiguous_strides(&h.dims);
        let mut idx = Vec::new();
        for (d, s) in h.dims.iter().zip(&cs) {
            let csv = self.cidx(*s);
            let q = self.fresh("i");
            self.emit(format!("{q} = arith.divui {m}, {csv} : index"));
            let cd = self.cidx(*d);
            let r = self.fresh("i");
            self.emit(format!("{r} = arith.remui {q}, {cd} : index"));
            idx.push(r);
        }
        let v = self.fresh("l");
        self.emit(format!(
            "{v} = memref.load {}[{}] : {}",
            h.name,
            idx.join(", "),
            h.ty()
        ));
        v
    }

    /// Emits `linalg.index` ops for rank `r` and their row-major linearisation over `dims`.
    fn linear_index(&mut self, dims: &[u64]) -> String {
        let cs = contiguous_strides(dims);
        let mut acc: Option<String> = None;
        for (i, s) in cs.iter().enumerate() {
            let ix = self.fresh("i");
            self.emit(format!("{ix} = linalg.index {i} : index"));
            let cs = self.cidx(*s);
            let p = self.fresh("i");
            self.emit(format!("{p} = arith.muli {ix}, {cs} : index"));
            acc = Some(match acc {
                None => p,
                Some(a) => {
                    let q = self.fresh("i");
                    self.emit(format!("{q} = arith.addi {a}, {p} : index"));
                    q
                }
            });
        }
        acc.unwrap_or_else(|| self.cidx(0))
    }

    fn par_maps(rank: usize, n: usize) -> String {
        let ds: Vec<String> = (0..rank).map(|i| format!("d{i}")).collect();
        let m = format!("affine_map<({}) -> ({})>", ds.join(", "), ds.join(", "));
        let maps = vec![m; n].join(", ");
        let its = vec!["\"parallel\""; rank].join(", ");
        format!("{{indexing_maps = [{maps}], iterator_types = [{its}]}}")
    }

    // ------------------------------------------------------------------ buffers
    fn random_elem(&mut self) -> Elem {
        if self.feat.vectors && self.rng.chance(50) {
            return [Elem::V4F32, Elem::V2F64, Elem::F64][self.rng.below(3) as usize];
        }
        ALL_ELEMS[self.rng.below(ALL_ELEMS.len() as u64) as usize]
    }
    fn random_dims(&mut self, elem: Elem) -> Vec<u64> {
        loop {
            let rank = self.rng.range(1, 3) as usize;
            let dims: Vec<u64> = (0..rank).map(|_| self.rng.range(1, 8)).collect();
            let e: u64 = dims.iter().product();
            // No 1-D static i8 allocs: the example checker reads those as arenas.
            if e <= 64 && !(elem == Elem::I8 && rank == 1) {
                return dims;
            }
        }
    }

    /// `memref.alloc` + a full initialisation; returns the new handle.
    fn new_buffer(&mut self, ctx: &Ctx, elem: Elem, dims: Vec<u64>, mergeable: bool) -> Handle {
        let reason = if mergeable { None } else { Some("escapes") };
        self.new_buffer_why(ctx, elem, dims, reason)
    }

    /// [`Self::new_buffer`] with the reason the rules keep it out of an arena, if any.
    fn new_buffer_why(
        &mut self,
        ctx: &Ctx,
        elem: Elem,
        dims: Vec<u64>,
        not_mergeable: Option<&'static str>,
    ) -> Handle {
        // The pass models one level of unstructured control flow (a multi-block region inside
        // a structured one, or a CFG function body); deeper nests are left alone with a remark.
        let not_mergeable = not_mergeable
            .or((ctx.cfg_depth >= 2).then_some("in a multi-block region nested in another one"));
        let name = self.fresh("b");
        let space0 = self.feat.space0 && self.rng.chance(40);
        let h = Handle {
            name: name.clone(),
            strides: contiguous_strides(&dims),
            dynamic: vec![false; dims.len()],
            dims,
            elem,
            offset: 0,
            identity: true,
            roots: vec![self.allocs.len()],
            block: self.cur_block(),
            par: Self::cur_par(ctx),
            alive: true,
            viewable: true,
            space0,
        };
        let align = match self.rng.below(4) {
            _ if self.feat.vectors && self.rng.chance(60) => String::new(),
            0 => String::new(),
            1 => " {alignment = 128 : i64}".into(),
            _ => " {alignment = 64 : i64}".into(),
        };
        self.emit(format!("{name} = memref.alloc(){align} : {}", h.ty()));
        self.allocs.push(AllocInfo {
            name,
            ty: h.ty(),
            bytes: h.elems() * elem.bytes(),
            top_level: ctx.depth == 0,
            mergeable: not_mergeable.is_none(),
            alloc_seq: self.seq,
            last_use_seq: self.seq,
            scope: Self::cur_par(ctx),
            not_mergeable,
        });
        self.handles.push(h.clone());
        self.init(ctx, &h);
        h
    }

    fn init(&mut self, ctx: &Ctx, h: &Handle) {
        if self.rng.chance(30) {
            let v = self.rng.range(0, 9) as i64 - 4;
            let c = self.cst(h.elem.constant(v));
            self.emit(format!(
                "linalg.fill ins({c} : {}) outs({} : {})",
                h.elem.text(),
                h.name,
                h.ty()
            ));
            self.touch(h);
        } else {
            self.compute(ctx, h, false, true);
        }
    }

    /// `dst = (src1 * c + src2 + lin [+ iv] [+ dst]) rem M` as one `linalg.generic`.
    fn compute_into(&mut self, ctx: &Ctx, dst: &Handle, accumulate: bool) {
        self.compute(ctx, dst, accumulate, false);
    }

    /// [`Self::compute_into`]; `initialising` says `dst` is a fresh allocation holding no
    /// value yet, so the computation must not read it through any alias (every root of `dst`).
    fn compute(&mut self, ctx: &Ctx, dst: &Handle, accumulate: bool, initialising: bool) {
        let dst_par = dst.par;
        let fresh_roots = if !initialising {
            Vec::new()
        } else {
            dst.roots.clone()
        };
        let readable = |h: &Handle| !h.roots.iter().any(|r| fresh_roots.contains(r));
        let src1 = self
            .pick_visible(|h| readable(h) && (h.roots.is_empty() || h.par == dst_par || h.par == 0))
            .unwrap_or_else(|| self.handles[0].clone());
        let src2 = if self.rng.chance(50) {
            self.pick_visible(readable)
        } else {
            None
        };
        let use_ins =
            src1.dims == dst.dims && !src1.dynamic.iter().any(|d| *d) && src1.name != dst.name;
        let rank = dst.dims.len();
        let ty = dst.ty();
        if use_ins {
            self.emit(format!(
                "linalg.generic {} ins({} : {}) outs({} : {}) {{",
                Self::par_maps(rank, 2),
                src1.name,
                src1.ty(),
                dst.name,
                ty
            ));
        } else {
            self.emit(format!(
                "linalg.generic {} outs({} : {}) {{",
                Self::par_maps(rank, 1),
                dst.name,
                ty
            ));
        }
        let a_in = self.fresh("a");
        let o_in = self.fresh("o");
        if use_ins {
            self.emit(format!(
                "^bb0({a_in}: {}, {o_in}: {}):",
                src1.elem.text(),
                dst.elem.text()
            ));
        } else {
            self.emit(format!("^bb0({o_in}: {}):", dst.elem.text()));
        }
        self.indent += 1;
        let e = dst.elem;
        let mut lin = self.linear_index(&dst.dims);
        if let Some(iv) = ctx.ivs.last().cloned() {
            let k = self.rng.range(1, 7);
            let c = self.cidx(k);
            let t = self.fresh("i");
            self.emit(format!("{t} = arith.muli {iv}, {c} : index"));
            let u = self.fresh("i");
            self.emit(format!("{u} = arith.addi {lin}, {t} : index"));
            lin = u;
        }
        let a_raw = if use_ins {
            a_in.clone()
        } else {
            let k = self.rng.below(7);
            self.load_at(&src1, &lin, k)
        };
        let a = self.conv(&a_raw, src1.elem, e);
        let mul = self.rng.range(1, 3) as i64 * if self.rng.chance(30) { -1 } else { 1 };
        let cm = self.cst(e.constant(mul));
        let mut v = self.binop("mul", &a, &cm, e);
        if let Some(s2) = &src2 {
            let k = self.rng.below(5);
            let b_raw = self.load_at(s2, &lin, k);
            let b = self.conv(&b_raw, s2.elem, e);
            v = self.binop("add", &v, &b, e);
        }
        let l = self.conv(&lin, Elem::Index, e);
        v = self.binop("add", &v, &l, e);
        if accumulate {
            v = self.binop("add", &v, &o_in, e);
        }
        let cmod = self.cst(e.constant(VALUE_MOD));
        v = self.binop("rem", &v, &cmod, e);
        self.emit(format!("linalg.yield {v} : {}", e.text()));
        self.indent -= 1;
        self.emit("}".into());
        self.touch(&src1);
        if let Some(s2) = &src2 {
            self.touch(s2);
        }
        self.touch(dst);
    }

    /// Accumulates every element of `h` into a private region of an output array.
    fn fold(&mut self, ctx: &Ctx, h: &Handle) {
        let (out_name, out_elem) = if h.elem.is_float() {
            ("%of", Elem::F32)
        } else {
            ("%oi", Elem::I32)
        };
        let e = h.elems();
        let mult = ctx.par.as_ref().map_or(1, |p| p.2);
        let base = if h.elem.is_float() {
            let b = self.out_f;
            self.out_f += e * mult;
            b
        } else {
            let b = self.out_i;
            self.out_i += e * mult;
            b
        };
        let total = if h.elem.is_float() { "@TF@" } else { "@TI@" };
        let out_ty = format!("memref<{total}x{}>", out_elem.text());
        let (off_txt, layout_off) = match ctx.par.clone() {
            None => (base.to_string(), base.to_string()),
            Some((_, iv, _)) => {
                let ce = self.cidx(e);
                let cb = self.cidx(base);
                let m = self.fresh("i");
                self.emit(format!("{m} = arith.muli {iv}, {ce} : index"));
                let o = self.fresh("i");
                self.emit(format!("{o} = arith.addi {m}, {cb} : index"));
                (o, "?".to_string())
            }
        };
        let sv = self.fresh("f");
        let sv_ty = if layout_off == "0" {
            format!("memref<{e}x{}, strided<[1]>>", out_elem.text())
        } else {
            format!(
                "memref<{e}x{}, strided<[1], offset: {layout_off}>>",
                out_elem.text()
            )
        };
        self.emit(format!(
            "{sv} = memref.subview {out_name}[{off_txt}] [{e}] [1] : {out_ty} to {sv_ty}"
        ));
        let (view, view_ty) = if h.dims.len() == 1 {
            (sv, sv_ty)
        } else {
            let ev = self.fresh("f");
            let st: Vec<String> = contiguous_strides(&h.dims)
                .iter()
                .map(|s| s.to_string())
                .collect();
            // A static offset 0 expands to the identity layout (MLIR's inferred type).
            let layout = if layout_off == "0" {
                String::new()
            } else {
                format!(", strided<[{}], offset: {layout_off}>", st.join(", "))
            };
            let ev_ty = format!(
                "memref<{}x{}{layout}>",
                h.dims
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join("x"),
                out_elem.text(),
            );
            let reassoc: Vec<String> = (0..h.dims.len()).map(|i| i.to_string()).collect();
            self.emit(format!(
                "{ev} = memref.expand_shape {sv} [[{}]] output_shape [{}] : {sv_ty} into {ev_ty}",
                reassoc.join(", "),
                dims_text(&h.dims)
            ));
            (ev, ev_ty)
        };
        self.emit(format!(
            "linalg.generic {} ins({} : {}) outs({view} : {view_ty}) {{",
            Self::par_maps(h.dims.len(), 2),
            h.name,
            h.ty()
        ));
        let a = self.fresh("a");
        let o = self.fresh("o");
        self.emit(format!(
            "^bb0({a}: {}, {o}: {}):",
            h.elem.text(),
            out_elem.text()
        ));
        self.indent += 1;
        let c = self.conv(&a, h.elem, out_elem);
        let s = self.binop("add", &c, &o, out_elem);
        self.emit(format!("linalg.yield {s} : {}", out_elem.text()));
        self.indent -= 1;
        self.emit("}".into());
        self.touch(h);
    }

    /// Folds the buffer `root` (through `h`) and forgets every handle into it.
    fn retire(&mut self, ctx: &Ctx, h: &Handle, may_dealloc: bool) {
        self.fold(ctx, h);
        let roots = h.roots.clone();
        let single_alloc_handle = roots.len() == 1
            && self.allocs[roots[0]].name == h.name
            && !h.dynamic.iter().any(|d| *d);
        let dyn_alloc = roots.len() == 1 && self.allocs[roots[0]].name == h.name;
        if may_dealloc && (single_alloc_handle || dyn_alloc) && self.rng.chance(50) {
            self.free(ctx, h);
        }
        for x in self.handles.iter_mut() {
            if x.roots.iter().any(|r| roots.contains(r)) {
                x.alive = false;
            }
        }
    }

    // ------------------------------------------------------------------ frees
    /// Frees the allocation `h` (its own, undisplaced handle) right after its last use: a
    /// `memref.dealloc`, or with the `dealloc` feature a `bufferization.dealloc` (now or batched
    /// at the block's end), or with `ptrcmp` the pointer-comparison idiom.
    fn free(&mut self, ctx: &Ctx, h: &Handle) {
        let ty = h.ty();
        if self.ptr_ret.is_some() && self.rng.chance(60) {
            let ret = self.ptr_ret.clone().expect("checked");
            let p = self.fresh("ptr");
            self.emit(format!(
                "{p} = memref.extract_aligned_pointer_as_index {} : {ty} -> index",
                h.name
            ));
            let q = self.fresh("ptr");
            self.emit(format!(
                "{q} = memref.extract_aligned_pointer_as_index {} : {} -> index",
                ret.name,
                ret.ty()
            ));
            let ne = self.fresh("c");
            self.emit(format!("{ne} = arith.cmpi ne, {p}, {q} : index"));
            self.emit(format!("scf.if {ne} {{"));
            self.emit(format!("  memref.dealloc {} : {ty}", h.name));
            self.emit("}".into());
            if self.rng.chance(30) {
                let w = self.fresh("w");
                self.emit(format!("{w} = arith.extui {ne} : i1 to i32"));
                self.store_scalar(ctx, &w);
            }
            return;
        }
        if !self.feat.dealloc || self.plain_frees || self.rng.chance(40) {
            self.emit(format!("memref.dealloc {} : {ty}", h.name));
            return;
        }
        // The memref operand: the base buffer, as the ownership pass writes it, or the alloc.
        let (operand, op_ty) = if self.rng.chance(60) && !h.dynamic.iter().any(|d| *d) {
            let m = self.fresh("md");
            let n = 2 + 2 * h.dims.len();
            let base_ty = format!("memref<{}>", h.elem.text());
            self.emit(format!(
                "{m}:{n} = memref.extract_strided_metadata {} : {ty} -> {base_ty}{}",
                h.name,
                ", index".repeat(n - 1)
            ));
            (format!("{m}#0"), base_ty)
        } else {
            (h.name.clone(), ty)
        };
        let cond = if self.rng.chance(70) {
            self.cst("true".into())
        } else {
            // A runtime condition: when it is false the buffer is not freed (a leak, no error).
            self.condition(ctx)
        };
        if self.rng.chance(25) {
            // Ownership handed on and back, as the ownership pass chains it: the first
            // dealloc retains the buffer (or a view of it), so frees nothing and returns its
            // condition; the second frees under that result.
            let roots = h.roots.clone();
            let views: Vec<Handle> = self
                .handles
                .iter()
                .filter(|x| self.visible(x) && x.roots == roots)
                .cloned()
                .collect();
            let v = views[self.rng.below(views.len() as u64) as usize].clone();
            // Merging it is legal only with the result rewritten to the condition: the rules
            // let a pass leave a retained buffer alone.
            self.taint(&roots, "retained by bufferization.dealloc");
            let own = self.fresh("own");
            self.emit(format!(
                "{own} = bufferization.dealloc ({operand} : {op_ty}) if ({cond}) retain ({} : {})",
                v.name,
                v.ty()
            ));
            let w = self.fresh("w");
            self.emit(format!("{w} = arith.extui {own} : i1 to i32"));
            self.store_scalar(ctx, &w);
            self.emit(format!(
                "bufferization.dealloc ({operand} : {op_ty}) if ({own})"
            ));
            return;
        }
        if self.rng.chance(50) {
            self.pending_frees
                .entry(self.cur_block())
                .or_default()
                .push((operand, op_ty, cond));
        } else {
            self.bufferization_dealloc(ctx, vec![(operand, op_ty, cond)], &h.roots);
        }
    }

    /// Emits the batch of frees pending at the end of block `b`.
    fn flush_frees(&mut self, b: usize, ctx: &Ctx) {
        if let Some(list) = self.pending_frees.remove(&b) {
            if !list.is_empty() {
                self.bufferization_dealloc(ctx, list, &[]);
            }
        }
    }

    /// `bufferization.dealloc (M...) if (C...) retain (R...)`, its ownership results (all
    /// false: nothing retained aliases a freed buffer) stored to the output.
    fn bufferization_dealloc(
        &mut self,
        ctx: &Ctx,
        list: Vec<(String, String, String)>,
        freed: &[usize],
    ) {
        let freed_names: Vec<String> = list.iter().map(|(m, _, _)| m.clone()).collect();
        let n_retain = self.rng.below(3);
        let mut retain: Vec<Handle> = Vec::new();
        for _ in 0..n_retain {
            let pick = self.pick_visible(|h| {
                !h.roots.iter().any(|r| freed.contains(r))
                    && !freed_names.contains(&h.name)
                    && !retain_has(&retain, h)
            });
            if let Some(h) = pick {
                // Retained handles must not alias a freed one: the batch frees buffers that are
                // all dead already, whose handles are no longer alive, so any alive one is fine.
                retain.push(h);
            }
        }
        let ms: Vec<&str> = list.iter().map(|(m, _, _)| m.as_str()).collect();
        let mts: Vec<&str> = list.iter().map(|(_, t, _)| t.as_str()).collect();
        let cs: Vec<&str> = list.iter().map(|(_, _, c)| c.as_str()).collect();
        let mut op = format!(
            "bufferization.dealloc ({} : {}) if ({})",
            ms.join(", "),
            mts.join(", "),
            cs.join(", ")
        );
        if !retain.is_empty() {
            for h in &retain {
                self.taint(&h.roots, "retained by bufferization.dealloc");
            }
            let rs: Vec<String> = retain.iter().map(|h| h.name.clone()).collect();
            let rts: Vec<String> = retain.iter().map(|h| h.ty()).collect();
            let _ = write!(op, " retain ({} : {})", rs.join(", "), rts.join(", "));
            let res = self.fresh("own");
            if retain.len() == 1 {
                self.emit(format!("{res} = {op}"));
            } else {
                self.emit(format!("{res}:{} = {op}", retain.len()));
            }
            for i in 0..retain.len() {
                let r = if retain.len() == 1 {
                    res.clone()
                } else {
                    format!("{res}#{i}")
                };
                let w = self.fresh("w");
                self.emit(format!("{w} = arith.extui {r} : i1 to i32"));
                self.store_scalar(ctx, &w);
            }
        } else {
            self.emit(op);
        }
    }

    /// Stores the `i32` value `v` to a fresh slot of the integer output (one per iteration of
    /// the enclosing `scf.parallel` / `scf.forall`).
    fn store_scalar(&mut self, ctx: &Ctx, v: &str) {
        let base = self.out_i;
        let idx = match ctx.par.clone() {
            None => {
                self.out_i += 1;
                self.cidx(base)
            }
            Some((_, iv, trip)) => {
                self.out_i += trip;
                let cb = self.cidx(base);
                let o = self.fresh("i");
                self.emit(format!("{o} = arith.addi {iv}, {cb} : index"));
                o
            }
        };
        self.emit(format!("memref.store {v}, %oi[{idx}] : memref<@TI@xi32>"));
    }

    // ------------------------------------------------------------------ statements
    fn stmt(&mut self, ctx: &Ctx) {
        if self.feature_stmt(ctx) {
            return;
        }
        let live_here = self
            .handles
            .iter()
            .filter(|h| h.alive && h.block == self.cur_block() && !h.roots.is_empty())
            .count();
        let r = self.rng.below(100);
        let nested_ok = ctx.depth < 3;
        match r {
            0..=21 => {
                let e = self.random_elem();
                let d = self.random_dims(e);
                self.new_buffer(ctx, e, d, true);
            }
            22..=41 => {
                if let Some(d) = self.pick_visible(|h| Self::writable(h, ctx)) {
                    let acc = self.rng.chance(40);
                    if self.rng.chance(20) {
                        self.stmt_copy_or_store(ctx, &d);
                    } else {
                        self.compute_into(ctx, &d, acc);
                    }
                }
            }
            42..=51 => self.stmt_view(ctx),
            52..=55 => {
                if let Some(h) = self.pick_visible(|h| !h.roots.is_empty()) {
                    self.fold(ctx, &h);
                }
            }
            56..=69 => {
                if live_here > 1 || self.rng.chance(30) {
                    self.retire_random_here(ctx);
                }
            }
            70..=78 if nested_ok => self.stmt_for(ctx),
            79..=85 if nested_ok => self.stmt_if(ctx),
            86..=88 if nested_ok => self.stmt_trap(ctx),
            89..=91 if nested_ok => self.stmt_pingpong(ctx),
            92..=94 if nested_ok && ctx.par.is_none() && ctx.depth < 2 => self.stmt_parallel(ctx),
            95..=96 => self.stmt_select(ctx),
            97 if nested_ok => self.stmt_if_yield_alloc(ctx),
            98 if !self.used_dynamic && ctx.par.is_none() => self.stmt_dynamic(ctx),
            _ => {
                let e = self.random_elem();
                let d = self.random_dims(e);
                self.new_buffer(ctx, e, d, true);
            }
        }
    }

    fn retire_random_here(&mut self, ctx: &Ctx) {
        let b = self.cur_block();
        // Prefer the alloc's own handle; its block is this block.
        let ret_roots: Vec<usize> = self.returns.iter().flat_map(|r| r.roots.clone()).collect();
        if let Some(h) = self.pick_visible(|h| {
            h.block == b
                && h.roots.len() == 1
                && !h.roots.is_empty()
                && h.viewable
                && !ret_roots.contains(&h.roots[0])
        }) {
            let own = self.handles.iter().find(|x| {
                x.alive && x.roots == h.roots && x.block == b && x.name.starts_with("%b")
            });
            let target = own.cloned().unwrap_or(h);
            self.retire(ctx, &target, true);
        }
    }

    fn stmt_copy_or_store(&mut self, ctx: &Ctx, dst: &Handle) {
        let same = self.pick_visible(|h| {
            h.dims == dst.dims
                && h.elem == dst.elem
                && h.name != dst.name
                && (h.roots.is_empty() || h.par == dst.par || h.par == 0)
        });
        if let Some(src) = same {
            // A copy between two views of one buffer may overlap; only copy across buffers.
            if !src.roots.iter().any(|r| dst.roots.contains(r)) {
                self.emit(format!(
                    "memref.copy {}, {} : {} to {}",
                    src.name,
                    dst.name,
                    src.ty(),
                    dst.ty()
                ));
                self.touch(&src);
                self.touch(dst);
                return;
            }
        }
        // Scalar load/store at constant (or iv-dependent) positions.
        let src = self
            .pick_visible(|h| h.roots.is_empty() || h.par == dst.par || h.par == 0)
            .unwrap_or_else(|| self.handles[1].clone());
        let lin = match ctx.ivs.last() {
            Some(iv) => iv.clone(),
            None => {
                let k = self.rng.below(64);
                self.cidx(k)
            }
        };
        let k = self.rng.below(11);
        let v = self.load_at(&src, &lin, k);
        let c = self.conv(&v, src.elem, dst.elem);
        let one = self.cst(dst.elem.constant(1));
        let s = self.binop("add", &c, &one, dst.elem);
        let k = self.rng.below(13);
        let ck = self.cidx(k);
        let t = self.fresh("i");
        self.emit(format!("{t} = arith.addi {lin}, {ck} : index"));
        let cs = contiguous_strides(&dst.dims);
        let ce = self.cidx(dst.elems());
        let m = self.fresh("i");
        self.emit(format!("{m} = arith.remui {t}, {ce} : index"));
        let mut idx = Vec::new();
        for (d, st) in dst.dims.iter().zip(&cs) {
            let cst = self.cidx(*st);
            let q = self.fresh("i");
            self.emit(format!("{q} = arith.divui {m}, {cst} : index"));
            let cd = self.cidx(*d);
            let r = self.fresh("i");
            self.emit(format!("{r} = arith.remui {q}, {cd} : index"));
            idx.push(r);
        }
        self.emit(format!(
            "memref.store {s}, {}[{}] : {}",
            dst.name,
            idx.join(", "),
            dst.ty()
        ));
        self.touch(&src);
        self.touch(dst);
    }

    fn push_view(&mut self, src: &Handle, mut v: Handle) -> Handle {
        if self.feat.space0 {
            // `memref<..., 0>` and `memref<...>` are one type: views print either.
            v.space0 = self.rng.chance(50);
        }
        v.roots = src.roots.clone();
        v.block = self.cur_block();
        v.par = src.par;
        v.alive = true;
        self.handles.push(v.clone());
        self.touch(src);
        v
    }

    fn stmt_view(&mut self, _ctx: &Ctx) {
        let Some(src) = self
            .pick_visible(|h| !h.roots.is_empty() && h.viewable && !h.dynamic.iter().any(|d| *d))
        else {
            return;
        };
        let name = self.fresh("w");
        let kind = self.rng.below(5);
        let mut v = src.clone();
        v.name = name.clone();
        match kind {
            // subview
            0 => {
                let mut offs = Vec::new();
                let mut sizes = Vec::new();
                let mut steps = Vec::new();
                let mut new_off = src.offset;
                let mut new_strides = Vec::new();
                for (i, &d) in src.dims.iter().enumerate() {
                    let o = self.rng.below(d);
                    let step = if d - o >= 3 && self.rng.chance(25) {
                        2
                    } else {
                        1
                    };
                    let max_n = (d - o).div_ceil(step);
                    let n = self.rng.range(1, max_n);
                    offs.push(o);
                    sizes.push(n);
                    steps.push(step);
                    new_off += o * src.strides[i];
                    new_strides.push(src.strides[i] * step);
                }
                v.dims = sizes.clone();
                v.dynamic = vec![false; sizes.len()];
                v.strides = new_strides;
                v.offset = new_off;
                v.identity = false;
                let src_ty = src.ty();
                let v_ty = v.ty();
                self.emit(format!(
                    "{name} = memref.subview {}[{}] [{}] [{}] : {src_ty} to {v_ty}",
                    src.name,
                    dims_text(&offs),
                    dims_text(&sizes),
                    dims_text(&steps)
                ));
            }
            // cast to a dynamic dim (identity sources only)
            1 if src.identity => {
                let i = self.rng.below(src.dims.len() as u64) as usize;
                v.dynamic[i] = true;
                v.viewable = false;
                self.emit(format!(
                    "{name} = memref.cast {} : {} to {}",
                    src.name,
                    src.ty(),
                    v.ty()
                ));
            }
            // expand_shape of a contiguous 1-D handle
            2 if src.dims.len() == 1 && src.strides[0] == 1 && src.dims[0] >= 2 => {
                let n = src.dims[0];
                let divs: Vec<u64> = (2..=n).filter(|a| n % a == 0).collect();
                let a = divs[self.rng.below(divs.len() as u64) as usize];
                v.dims = vec![a, n / a];
                v.dynamic = vec![false, false];
                v.strides = vec![n / a, 1];
                v.identity = v.offset == 0;
                self.emit(format!(
                    "{name} = memref.expand_shape {} [[0, 1]] output_shape [{a}, {}] : {} into {}",
                    src.name,
                    n / a,
                    src.ty(),
                    v.ty()
                ));
            }
            // collapse_shape of a contiguous N-D handle
            3 if src.dims.len() >= 2 && src.contiguous() => {
                v.dims = vec![src.elems()];
                v.dynamic = vec![false];
                v.strides = vec![1];
                // MLIR infers `strided<[1]>` for any non-identity source, even at offset 0.
                v.identity = src.identity;
                let re: Vec<String> = (0..src.dims.len()).map(|i| i.to_string()).collect();
                self.emit(format!(
                    "{name} = memref.collapse_shape {} [[{}]] : {} into {}",
                    src.name,
                    re.join(", "),
                    src.ty(),
                    v.ty()
                ));
            }
            // reinterpret_cast of an identity handle to a smaller 2-D window
            4 if src.identity && src.elems() >= 2 => {
                let e = src.elems();
                let b = self.rng.range(1, e.min(8));
                let a = self.rng.range(1, (e / b).min(8));
                let off = self.rng.below(e - a * b + 1);
                v.dims = vec![a, b];
                v.dynamic = vec![false, false];
                v.strides = vec![b, 1];
                v.offset = off;
                v.identity = false;
                self.emit(format!(
                    "{name} = memref.reinterpret_cast {} to offset: [{off}], sizes: [{a}, {b}], strides: [{b}, 1] : {} to {}",
                    src.name,
                    src.ty(),
                    v.ty()
                ));
            }
            _ => return,
        }
        self.push_view(&src, v);
    }

    fn open_block(&mut self) -> usize {
        let b = self.next_block;
        self.next_block += 1;
        self.block_stack.push(b);
        self.indent += 1;
        b
    }

    /// Retires every buffer allocated in block `b` that is still live, then leaves the block.
    fn close_block(&mut self, b: usize, ctx: &Ctx) {
        loop {
            let pending = self.handles.iter().position(|h| {
                h.alive
                    && h.block == b
                    && h.roots.len() == 1
                    && self.allocs[h.roots[0]].name == h.name
                    && !self.returns.iter().any(|r| r.name == h.name)
            });
            match pending {
                Some(i) => {
                    let h = self.handles[i].clone();
                    self.retire(ctx, &h, true);
                }
                None => break,
            }
        }
        self.flush_frees(b, ctx);
        // Multi-root aliases (select / if results) defined here whose allocs live on.
        for h in self.handles.iter_mut() {
            if h.block == b {
                h.alive = false;
            }
        }
        if b != 0 {
            self.block_stack.pop();
            self.indent -= 1;
        }
    }

    fn inner_block(&mut self, ctx: &Ctx, n: u64) {
        let b = self.open_block();
        for _ in 0..n {
            self.stmt(ctx);
        }
        self.close_block(b, ctx);
    }

    fn stmt_for(&mut self, ctx: &Ctx) {
        let trip = self.rng.range(2, 4);
        let iv = self.fresh("iv");
        let c0 = self.cidx(0);
        let ct = self.cidx(trip);
        let c1 = self.cidx(1);
        self.emit(format!("scf.for {iv} = {c0} to {ct} step {c1} {{"));
        let mut inner = ctx.clone();
        inner.ivs.push(iv);
        inner.depth += 1;
        let n = self.rng.range(2, 6);
        self.inner_block(&inner, n);
        self.emit("}".into());
    }

    /// An `i1` condition that varies with the innermost iv (or with `%n`).
    fn condition(&mut self, ctx: &Ctx) -> String {
        let cond = self.fresh("c");
        match ctx.ivs.last().cloned() {
            Some(iv) => {
                let m = self.rng.range(2, 3);
                let cm = self.cidx(m);
                let r = self.fresh("i");
                self.emit(format!("{r} = arith.remui {iv}, {cm} : index"));
                let z = self.rng.below(m);
                let cz = self.cidx(z);
                let pred = if self.rng.chance(50) { "eq" } else { "ne" };
                self.emit(format!("{cond} = arith.cmpi {pred}, {r}, {cz} : index"));
            }
            None => {
                let k = self.rng.range(2, 8);
                let ck = self.cidx(k);
                let pred = if self.rng.chance(50) { "sgt" } else { "slt" };
                self.emit(format!("{cond} = arith.cmpi {pred}, %n, {ck} : index"));
            }
        }
        cond
    }

    fn stmt_if(&mut self, ctx: &Ctx) {
        let cond = self.condition(ctx);
        self.emit(format!("scf.if {cond} {{"));
        let mut inner = ctx.clone();
        inner.depth += 1;
        let n = self.rng.range(1, 5);
        self.inner_block(&inner, n);
        if self.rng.chance(50) {
            self.emit("} else {".into());
            let n = self.rng.range(1, 4);
            self.inner_block(&inner, n);
        }
        self.emit("}".into());
    }

    /// The reference implementation's bug: `s` is allocated before a loop and accessed inside
    /// the loop only within an `scf.if`; a per-iteration temporary follows the `if`.
    fn stmt_trap(&mut self, ctx: &Ctx) {
        let e = self.random_elem();
        let d = self.random_dims(e);
        let s = self.new_buffer(ctx, e, d, true);
        let trip = self.rng.range(3, 5);
        let iv = self.fresh("iv");
        let c0 = self.cidx(0);
        let ct = self.cidx(trip);
        let c1 = self.cidx(1);
        self.emit(format!("scf.for {iv} = {c0} to {ct} step {c1} {{"));
        let mut inner = ctx.clone();
        inner.ivs.push(iv);
        inner.depth += 1;
        let lb = self.open_block();
        let cond = self.condition(&inner);
        self.emit(format!("scf.if {cond} {{"));
        let mut in_if = inner.clone();
        in_if.depth += 1;
        let ib = self.open_block();
        self.compute_into(&in_if, &s, true);
        self.fold(&in_if, &s);
        self.close_block(ib, &in_if);
        self.emit("}".into());
        // From here on `s` must not be touched again (not even later in this iteration).
        for x in self.handles.iter_mut() {
            if x.roots == s.roots {
                x.alive = false;
            }
        }
        // Per-iteration temporaries after the if: a wrong merge puts them on top of `s`.
        let t_e = if self.rng.chance(50) {
            e
        } else {
            self.random_elem()
        };
        let t_d = if self.rng.chance(50) {
            s.dims.clone()
        } else {
            self.random_dims(t_e)
        };
        self.new_buffer(&inner, t_e, t_d, true);
        if self.rng.chance(40) {
            self.stmt(&inner);
        }
        self.close_block(lb, &inner);
        self.emit("}".into());
        if self.rng.chance(50) {
            self.emit(format!("memref.dealloc {} : {}", s.name, s.ty()));
        }
    }

    /// Double buffering through `scf.for` iter_args that swap every iteration.
    fn stmt_pingpong(&mut self, ctx: &Ctx) {
        let e = self.random_elem();
        let d = self.random_dims(e);
        let a = self.new_buffer(ctx, e, d.clone(), true);
        let b = self.new_buffer(ctx, e, d, true);
        self.taint(&[a.roots[0], b.roots[0]], "scf.for iter_arg");
        let ty = a.ty();
        let trip = self.rng.range(2, 4);
        let iv = self.fresh("iv");
        let p = self.fresh("p");
        let q = self.fresh("q");
        let res = self.fresh("pp");
        let c0 = self.cidx(0);
        let ct = self.cidx(trip);
        let c1 = self.cidx(1);
        self.emit(format!(
            "{res}:2 = scf.for {iv} = {c0} to {ct} step {c1} iter_args({p} = {}, {q} = {}) -> ({ty}, {ty}) {{",
            a.name, b.name
        ));
        let mut inner = ctx.clone();
        inner.ivs.push(iv);
        inner.depth += 1;
        let blk = self.open_block();
        let roots = vec![a.roots[0], b.roots[0]];
        let mk = |name: &str, blk: usize| {
            let mut h = a.clone();
            h.name = name.to_string();
            h.roots = roots.clone();
            h.block = blk;
            h.viewable = false;
            h
        };
        let hp = mk(&p, blk);
        let hq = mk(&q, blk);
        self.handles.push(hp.clone());
        self.handles.push(hq.clone());
        // q = f(p): compute reads p through a load (src picked at random, so force p once).
        self.emit(format!("memref.copy {p}, {q} : {ty} to {ty}"));
        self.touch(&hp);
        self.compute_into(&inner, &hq, true);
        if self.rng.chance(50) {
            self.stmt(&inner);
        }
        self.close_block(blk, &inner);
        self.emit(format!("scf.yield {q}, {p} : {ty}, {ty}"));
        self.emit("}".into());
        for (i, nm) in [format!("{res}#0"), format!("{res}#1")].iter().enumerate() {
            let mut h = mk(nm, self.cur_block());
            h.viewable = i == 0;
            self.handles.push(h.clone());
            self.fold(ctx, &h);
        }
    }

    /// `arith.select` between two same-typed buffers: the result aliases both.
    fn stmt_select(&mut self, ctx: &Ctx) {
        let Some(a) = self.pick_visible(|h| Self::writable(h, ctx) && h.viewable) else {
            return;
        };
        let ty = a.ty();
        let Some(b) =
            self.pick_visible(|h| Self::writable(h, ctx) && h.ty() == ty && h.name != a.name)
        else {
            return;
        };
        let cond = self.condition(ctx);
        let roots: Vec<usize> = a.roots.iter().chain(&b.roots).copied().collect();
        self.taint(&roots, "arith.select operand");
        let name = self.fresh("s");
        self.emit(format!(
            "{name} = arith.select {cond}, {}, {} : {ty}",
            a.name, b.name
        ));
        let mut h = a.clone();
        h.name = name;
        h.roots = a.roots.iter().chain(&b.roots).copied().collect();
        h.block = self.cur_block();
        h.viewable = false;
        self.handles.push(h.clone());
        self.compute_into(ctx, &h, true);
    }

    /// `scf.if` yielding a buffer allocated in each arm (escapes its region: not mergeable).
    fn stmt_if_yield_alloc(&mut self, ctx: &Ctx) {
        let e = if self.rng.chance(50) {
            Elem::F32
        } else {
            Elem::I32
        };
        let d = self.random_dims(e);
        let cond = self.condition(ctx);
        let res = self.fresh("y");
        let ty = Handle {
            name: String::new(),
            strides: contiguous_strides(&d),
            dynamic: vec![false; d.len()],
            dims: d.clone(),
            elem: e,
            offset: 0,
            identity: true,
            roots: Vec::new(),
            block: 0,
            par: 0,
            alive: false,
            viewable: false,
            space0: false,
        }
        .ty();
        self.emit(format!("{res} = scf.if {cond} -> ({ty}) {{"));
        let mut inner = ctx.clone();
        inner.depth += 1;
        let mut roots = Vec::new();
        for arm in 0..2 {
            if arm == 1 {
                self.emit("} else {".into());
            }
            let blk = self.open_block();
            let h = self.new_buffer(&inner, e, d.clone(), false);
            roots.push(h.roots[0]);
            // Leaves the block without retiring: the value lives on as the if's result.
            for x in self.handles.iter_mut() {
                if x.block == blk {
                    x.alive = false;
                }
            }
            self.emit(format!("scf.yield {} : {ty}", h.name));
            self.block_stack.pop();
            self.indent -= 1;
        }
        self.emit("}".into());
        let h = Handle {
            name: res.clone(),
            strides: contiguous_strides(&d),
            dynamic: vec![false; d.len()],
            dims: d,
            elem: e,
            offset: 0,
            identity: true,
            roots,
            block: self.cur_block(),
            par: Self::cur_par(ctx),
            alive: true,
            viewable: true,
            space0: false,
        };
        self.handles.push(h.clone());
        self.compute_into(ctx, &h, true);
        self.fold(ctx, &h);
        if self.rng.chance(50) {
            self.emit(format!("memref.dealloc {res} : {ty}"));
        }
        for x in self.handles.iter_mut() {
            if x.roots.iter().any(|r| h.roots.contains(r)) {
                x.alive = false;
            }
        }
    }

    /// `memref.alloc(%n)`: dynamic, left alone by merge-alloc.
    fn stmt_dynamic(&mut self, ctx: &Ctx) {
        self.used_dynamic = true;
        let e = if self.rng.chance(50) {
            Elem::F32
        } else {
            Elem::I64
        };
        let name = self.fresh("b");
        let h = Handle {
            name: name.clone(),
            dims: vec![N_VALUE],
            dynamic: vec![true],
            elem: e,
            strides: vec![1],
            offset: 0,
            identity: true,
            roots: vec![self.allocs.len()],
            block: self.cur_block(),
            par: Self::cur_par(ctx),
            alive: true,
            viewable: false,
            space0: false,
        };
        self.emit(format!("{name} = memref.alloc(%n) : {}", h.ty()));
        self.allocs.push(AllocInfo {
            name,
            ty: h.ty(),
            bytes: 0,
            top_level: ctx.depth == 0,
            mergeable: false,
            alloc_seq: self.seq,
            last_use_seq: self.seq,
            scope: Self::cur_par(ctx),
            not_mergeable: Some("dynamic shape"),
        });
        self.handles.push(h.clone());
        self.init(ctx, &h);
    }

    /// `scf.parallel` whose body allocates, computes and folds per-iteration temporaries.
    fn stmt_parallel(&mut self, ctx: &Ctx) {
        let trip = self.rng.range(2, 3);
        let iv = self.fresh("pi");
        let c0 = self.cidx(0);
        let ct = self.cidx(trip);
        let c1 = self.cidx(1);
        self.emit(format!(
            "scf.parallel ({iv}) = ({c0}) to ({ct}) step ({c1}) {{"
        ));
        let pid = self.next_par;
        self.next_par += 1;
        let mut inner = ctx.clone();
        inner.ivs.push(iv.clone());
        inner.par = Some((pid, iv, trip));
        inner.depth += 1;
        let b = self.open_block();
        let n = self.rng.range(2, 4);
        for _ in 0..n {
            let e = self.random_elem();
            let d = self.random_dims(e);
            self.new_buffer(&inner, e, d, true);
        }
        let m = self.rng.range(1, 4);
        for _ in 0..m {
            self.stmt(&inner);
        }
        self.close_block(b, &inner);
        self.emit("}".into());
    }

    // ------------------------------------------------------------------ issue 9 features
    /// With some feature on, sometimes emits one of its statements instead of a base one.
    fn feature_stmt(&mut self, ctx: &Ctx) -> bool {
        let mut opts: Vec<u8> = Vec::new();
        if self.feat.reshape {
            opts.push(0);
        }
        if self.feat.callees {
            opts.push(1);
        }
        if self.feat.regions && ctx.par.is_none() && ctx.depth < 2 {
            opts.extend([2, 3]);
        }
        if self.feat.switch && ctx.depth < 3 {
            opts.extend([4, 5]);
        }
        if opts.is_empty() || !self.rng.chance(25) {
            return false;
        }
        match opts[self.rng.below(opts.len() as u64) as usize] {
            0 => self.stmt_reshape(ctx),
            1 => self.stmt_call(ctx),
            2 => self.stmt_forall(ctx),
            3 => self.stmt_par_reduce(ctx),
            4 => self.stmt_switch(ctx),
            _ => self.stmt_execute_region(ctx),
        }
        true
    }

    /// `memref.reshape` to a dynamic shape held in a fresh `memref<Rxindex>`; a fresh buffer is
    /// allocated between the shape's stores and the reshape (a pass that misses the reshape's
    /// read of its shape operand puts it on top of the shape).
    fn stmt_reshape(&mut self, ctx: &Ctx) {
        let Some(src) = self.pick_visible(|h| {
            h.identity && !h.dynamic.iter().any(|d| *d) && (h.roots.is_empty() || h.viewable)
        }) else {
            return;
        };
        let e = src.elems();
        let dims = if e >= 4 && self.rng.chance(60) {
            let divs: Vec<u64> = (2..e).filter(|a| e % a == 0).collect();
            if divs.is_empty() {
                vec![e]
            } else {
                let a = divs[self.rng.below(divs.len() as u64) as usize];
                vec![a, e / a]
            }
        } else {
            vec![e]
        };
        let rank = dims.len();
        // The shape sits at offset `off` of its buffer; read through a subview when `off > 0`
        // or sometimes at 0 (an alias the pass must follow).
        let (len, off) = if self.rng.chance(30) {
            (rank as u64 + 2, self.rng.below(3))
        } else {
            (rank as u64, 0)
        };
        let sh = self.fresh("sh");
        let sh_ty = format!("memref<{len}xindex>");
        self.emit(format!("{sh} = memref.alloc() : {sh_ty}"));
        let sh_id = self.allocs.len();
        self.allocs.push(AllocInfo {
            name: sh.clone(),
            ty: sh_ty.clone(),
            bytes: 8 * len,
            top_level: ctx.depth == 0,
            mergeable: true,
            alloc_seq: self.seq,
            last_use_seq: self.seq,
            scope: Self::cur_par(ctx),
            not_mergeable: None,
        });
        for (i, d) in dims.iter().enumerate() {
            let ci = self.cidx(off + i as u64);
            let cd = self.cidx(*d);
            self.emit(format!("memref.store {cd}, {sh}[{ci}] : {sh_ty}"));
        }
        let (shape, shape_ty) = if len == rank as u64 {
            (sh.clone(), sh_ty.clone())
        } else {
            let sv = self.fresh("sh");
            let layout = if off == 0 {
                "strided<[1]>".to_string()
            } else {
                format!("strided<[1], offset: {off}>")
            };
            let sv_ty = format!("memref<{rank}xindex, {layout}>");
            self.emit(format!(
                "{sv} = memref.subview {sh}[{off}] [{rank}] [1] : {sh_ty} to {sv_ty}"
            ));
            (sv, sv_ty)
        };
        if self.rng.chance(80) {
            let te = self.random_elem();
            let td = self.random_dims(te);
            self.new_buffer(ctx, te, td, true);
        }
        let name = self.fresh("rs");
        let mut v = src.clone();
        v.name = name.clone();
        v.strides = contiguous_strides(&dims);
        v.dynamic = (0..rank).map(|i| i == 0 || self.rng.chance(50)).collect();
        v.dims = dims;
        v.offset = 0;
        v.identity = true;
        v.viewable = false;
        self.emit(format!(
            "{name} = memref.reshape {}({shape}) : ({}, {shape_ty}) -> {}",
            src.name,
            src.ty(),
            v.ty()
        ));
        self.allocs[sh_id].last_use_seq = self.seq;
        if self.rng.chance(50) {
            self.emit(format!("memref.dealloc {sh} : {sh_ty}"));
        }
        let v = if src.roots.is_empty() {
            v.block = self.cur_block();
            v.alive = true;
            self.handles.push(v.clone());
            v
        } else {
            self.push_view(&src, v)
        };
        if Self::writable(&v, ctx) && self.rng.chance(50) {
            self.compute_into(ctx, &v, true);
        }
        self.fold(ctx, &v);
    }

    /// Runs `body` as the body of a private callee: a fresh line buffer, constant table and
    /// block, with exactly `args` visible. Returns what `body` returned, the body lines and the
    /// constants.
    fn in_callee<R>(
        &mut self,
        args: &[Handle],
        body: impl FnOnce(&mut Self, &[Handle]) -> R,
    ) -> (R, Vec<String>, BTreeMap<String, String>) {
        let lines = std::mem::take(&mut self.lines);
        let consts = std::mem::take(&mut self.consts);
        let stack = std::mem::take(&mut self.block_stack);
        let indent = std::mem::replace(&mut self.indent, 1);
        let n_handles = self.handles.len();
        let blk = self.next_block;
        self.next_block += 1;
        self.block_stack.push(blk);
        let mut local = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let mut h = a.clone();
            h.name = format!("%a{i}");
            h.block = blk;
            h.roots = Vec::new();
            h.alive = true;
            h.par = 0;
            self.handles.push(h.clone());
            local.push(h);
        }
        let r = body(self, &local);
        self.handles.truncate(n_handles);
        let body_lines = std::mem::replace(&mut self.lines, lines);
        let body_consts = std::mem::replace(&mut self.consts, consts);
        self.block_stack = stack;
        self.indent = indent;
        (r, body_lines, body_consts)
    }

    /// Emits a weighted checksum of every element of `h` (`sum (i+1) * h[i]`) as an `i64`.
    fn checksum(&mut self, h: &Handle) -> String {
        let c0 = self.cidx(0);
        let ce = self.cidx(h.elems());
        let c1 = self.cidx(1);
        let z = self.cst("0 : i64".into());
        let acc = self.fresh("ck");
        let i = self.fresh("ci");
        let s = self.fresh("cs");
        self.emit(format!(
            "{acc} = scf.for {i} = {c0} to {ce} step {c1} iter_args({s} = {z}) -> (i64) {{"
        ));
        self.indent += 1;
        let l = self.load_at(h, &i, 0);
        let w = self.conv(&l, h.elem, Elem::I64);
        let ii = self.fresh("ci");
        self.emit(format!("{ii} = arith.index_cast {i} : index to i64"));
        let one = self.cst("1 : i64".into());
        let ip = self.fresh("ci");
        self.emit(format!("{ip} = arith.addi {ii}, {one} : i64"));
        let m = self.fresh("ci");
        self.emit(format!("{m} = arith.muli {w}, {ip} : i64"));
        let n = self.fresh("ci");
        self.emit(format!("{n} = arith.addi {s}, {m} : i64"));
        self.emit(format!("scf.yield {n} : i64"));
        self.indent -= 1;
        self.emit("}".into());
        acc
    }

    /// Stores the checksum `v : i64` (small: fits `i32`) to the output.
    fn store_checksum(&mut self, ctx: &Ctx, v: &str) {
        let t = self.fresh("w");
        self.emit(format!("{t} = arith.trunci {v} : i64 to i32"));
        self.store_scalar(ctx, &t);
    }

    /// Emits a private callee of `kind` (0 read, 1 write, 2 free, 3 return) for `args`;
    /// returns its name.
    fn new_callee(&mut self, kind: u64, args: &[Handle], ret_ty: Option<&str>) -> String {
        let callee = format!("@callee{}", self.callees.len());
        // Reserve the slot now: the body may not create callees, but the name must be unique.
        self.callees.push(String::new());
        let (ret_val, body, consts) = self.in_callee(args, |g, local| {
            let c = Ctx {
                ivs: Vec::new(),
                par: None,
                depth: 0,
                cfg_depth: 0,
            };
            match kind {
                0 => Some(g.checksum(&local[0])),
                2 => {
                    let v = g.checksum(&local[0]);
                    g.emit(format!("memref.dealloc %a0 : {}", local[0].ty()));
                    Some(v)
                }
                3 => {
                    g.compute_into(&c, &local[0], true);
                    Some("%a0".to_string())
                }
                _ => {
                    let acc = g.rng.chance(50);
                    g.compute_into(&c, &local[0], acc);
                    None
                }
            }
        });
        let params: Vec<String> = args
            .iter()
            .enumerate()
            .map(|(i, h)| format!("%a{i}: {}", h.ty()))
            .collect();
        let mut t = String::new();
        let sig_ret = ret_ty.map_or(String::new(), |r| format!(" -> {r}"));
        let _ = writeln!(
            t,
            "func.func private {callee}({}){sig_ret} {{",
            params.join(", ")
        );
        for (rhs, name) in &consts {
            let _ = writeln!(t, "  {name} = arith.constant {rhs}");
        }
        for l in &body {
            t.push_str(l);
            t.push('\n');
        }
        match (&ret_val, ret_ty) {
            (Some(v), Some(ty)) => {
                let _ = writeln!(t, "  return {v} : {ty}");
            }
            _ => t.push_str("  return\n"),
        }
        t.push_str("}\n");
        let slot = callee[7..].parse::<usize>().expect("callee number");
        self.callees[slot] = t;
        callee
    }

    /// A call of a private callee that reads (checksum), writes, frees or returns a generated
    /// buffer.
    fn stmt_call(&mut self, ctx: &Ctx) {
        let kind = self.rng.below(4);
        let ret_roots: Vec<usize> = self.returns.iter().flat_map(|r| r.roots.clone()).collect();
        let par = Self::cur_par(ctx);
        let here = self.cur_block();
        // Under mlir-opt-22's ownership pass a returned or freed argument may be cloned, and
        // `bufferization.clone` of a strided view does not lower: pass identity layouts then.
        let need_identity = self.plain_frees;
        let arg = match kind {
            // free: only the alloc's own handle, allocated in this block (a loop body frees
            // only what the same iteration allocated)
            2 => self.pick_visible(|h| {
                (!need_identity || h.identity)
                    && h.roots.len() == 1
                    && h.block == here
                    && h.name.starts_with("%b")
                    && h.par == par
                    && h.viewable
                    && !h.dynamic.iter().any(|d| *d)
                    && !ret_roots.contains(&h.roots[0])
            }),
            // write / return: a buffer of this scope
            1 | 3 => {
                self.pick_visible(|h| (!need_identity || h.identity) && Self::writable(h, ctx))
            }
            _ => self.pick_visible(|h| (!need_identity || h.identity) && !h.roots.is_empty()),
        };
        let Some(arg) = arg else {
            return;
        };
        let mut args = vec![arg.clone()];
        if kind == 1 {
            if let Some(src) = self.pick_visible(|h| {
                (h.roots.is_empty() || h.par == arg.par || h.par == 0)
                    && !h.roots.iter().any(|r| arg.roots.contains(r))
            }) {
                args.push(src);
            }
        }
        let ret_ty = match kind {
            0 | 2 => Some("i64".to_string()),
            3 => Some(arg.ty()),
            _ => None,
        };
        let tys: Vec<String> = args.iter().map(|h| h.ty()).collect();
        // Call sites share a callee of the same kind and signature now and then (one summary,
        // several callers).
        let reuse: Vec<String> = self
            .callee_sigs
            .iter()
            .filter(|(k, t, _)| *k == kind && *t == tys)
            .map(|(_, _, n)| n.clone())
            .collect();
        let callee = if !reuse.is_empty() && self.rng.chance(50) {
            reuse[self.rng.below(reuse.len() as u64) as usize].clone()
        } else {
            let name = self.new_callee(kind, &args, ret_ty.as_deref());
            // Reads and frees sometimes go through a wrapper that forwards to the callee that
            // does them (a summary must look through the inner call).
            let name = if matches!(kind, 0 | 2) && self.rng.chance(30) {
                let wrapper = format!("@callee{}", self.callees.len());
                let params: Vec<String> = tys
                    .iter()
                    .enumerate()
                    .map(|(i, t)| format!("%a{i}: {t}"))
                    .collect();
                let t = format!(
                    "func.func private {wrapper}({}) -> i64 {{\n  %r = func.call {name}(%a0) : ({}) -> i64\n  return %r : i64\n}}\n",
                    params.join(", "),
                    tys[0]
                );
                self.callees.push(t);
                wrapper
            } else {
                name
            };
            self.callee_sigs.push((kind, tys.clone(), name.clone()));
            name
        };
        let names: Vec<String> = args.iter().map(|h| h.name.clone()).collect();
        let sig = format!(
            "({}) -> {}",
            tys.join(", "),
            ret_ty.clone().unwrap_or_else(|| "()".into())
        );
        let res = self.fresh("cr");
        let call = format!("func.call {callee}({}) : {sig}", names.join(", "));
        if ret_ty.is_some() {
            self.emit(format!("{res} = {call}"));
        } else {
            self.emit(call);
        }
        for a in &args {
            self.touch(a);
        }
        match kind {
            0 => self.store_checksum(ctx, &res),
            2 => {
                self.store_checksum(ctx, &res);
                self.taint(&arg.roots, "freed by a callee");
                for x in self.handles.iter_mut() {
                    if x.roots.iter().any(|r| arg.roots.contains(r)) {
                        x.alive = false;
                    }
                }
            }
            3 => {
                self.taint(&arg.roots, "returned by a callee");
                let mut h = arg.clone();
                h.name = res;
                h.block = self.cur_block();
                h.viewable = false;
                self.handles.push(h.clone());
                self.fold(ctx, &h);
                // The caller frees the buffer through the call's result.
                let own = arg.roots.len() == 1
                    && arg.block == here
                    && arg.name == self.allocs[arg.roots[0]].name
                    && !arg.dynamic.iter().any(|d| *d)
                    && !ret_roots.contains(&arg.roots[0]);
                if own && self.rng.chance(40) {
                    self.emit(format!("memref.dealloc {} : {}", h.name, h.ty()));
                    for x in self.handles.iter_mut() {
                        if x.roots.iter().any(|r| arg.roots.contains(r)) {
                            x.alive = false;
                        }
                    }
                }
            }
            _ => self.taint(&arg.roots, "written by a callee"),
        }
    }

    /// `scf.forall` whose body allocates, computes and folds per-iteration temporaries; its
    /// terminator `scf.forall.in_parallel` is explicit or implicit.
    fn stmt_forall(&mut self, ctx: &Ctx) {
        let trip = self.rng.range(2, 3);
        let iv = self.fresh("fi");
        self.emit(format!("scf.forall ({iv}) in ({trip}) {{"));
        let pid = self.next_par;
        self.next_par += 1;
        let mut inner = ctx.clone();
        inner.ivs.push(iv.clone());
        inner.par = Some((pid, iv, trip));
        inner.depth += 1;
        let b = self.open_block();
        let n = self.rng.range(2, 3);
        for _ in 0..n {
            let e = self.random_elem();
            let d = self.random_dims(e);
            self.new_buffer(&inner, e, d, true);
        }
        let m = self.rng.range(1, 3);
        for _ in 0..m {
            self.stmt(&inner);
        }
        self.close_block(b, &inner);
        if self.rng.chance(60) {
            self.indent += 1;
            self.emit("scf.forall.in_parallel {".into());
            self.emit("}".into());
            self.indent -= 1;
        }
        self.emit("}".into());
    }

    /// `scf.parallel` with an `i32` reduction whose `scf.reduce` region reads a buffer `r` that
    /// nothing reads afterwards; a fresh buffer follows the loop (a pass that misses the read
    /// in the reduction region puts it on top of `r`).
    fn stmt_par_reduce(&mut self, ctx: &Ctx) {
        let re = [Elem::I32, Elem::F32, Elem::I64, Elem::F64][self.rng.below(4) as usize];
        let rd = self.random_dims(re);
        let r = self.new_buffer(ctx, re, rd, true);
        for x in self.handles.iter_mut() {
            if x.roots == r.roots {
                x.alive = false;
            }
        }
        let trip = self.rng.range(2, 4);
        let iv = self.fresh("pi");
        let c0 = self.cidx(0);
        let ct = self.cidx(trip);
        let c1 = self.cidx(1);
        let z = self.cst("0 : i32".into());
        let res = self.fresh("red");
        self.emit(format!(
            "{res} = scf.parallel ({iv}) = ({c0}) to ({ct}) step ({c1}) init ({z}) -> i32 {{"
        ));
        let pid = self.next_par;
        self.next_par += 1;
        let mut inner = ctx.clone();
        inner.ivs.push(iv.clone());
        inner.par = Some((pid, iv.clone(), trip));
        inner.depth += 1;
        let b = self.open_block();
        let n = self.rng.range(1, 2);
        for _ in 0..n {
            let e = self.random_elem();
            let d = self.random_dims(e);
            self.new_buffer(&inner, e, d, true);
        }
        let m = self.rng.range(0, 2);
        for _ in 0..m {
            self.stmt(&inner);
        }
        let src = self
            .pick_visible(|h| h.roots.is_empty() || h.par == pid || h.par == 0)
            .unwrap_or_else(|| self.handles[1].clone());
        let k = self.rng.below(5);
        let l = self.load_at(&src, &iv, k);
        self.touch(&src);
        let v = self.conv(&l, src.elem, Elem::I32);
        // Sometimes the reduction region also reads a buffer of this iteration, live until the
        // body's terminator (never freed: the arena of the body must outlive the region). Not
        // where --ownership-based-buffer-deallocation places the frees: it frees such a buffer
        // before the `scf.reduce` that reads it.
        let local = if !self.plain_frees && self.rng.chance(40) {
            let le = [Elem::I32, Elem::F32, Elem::I16][self.rng.below(3) as usize];
            let ld = self.random_dims(le);
            let h = self.new_buffer(&inner, le, ld, true);
            // No free of its scope's arena can follow the terminator that reads it.
            self.taint(&h.roots, "read by its scope's terminator");
            for x in self.handles.iter_mut() {
                if x.roots == h.roots {
                    x.alive = false;
                }
            }
            Some(h)
        } else {
            None
        };
        self.close_block(b, &inner);
        self.indent += 1;
        let (lhs, rhs) = (self.fresh("lhs"), self.fresh("rhs"));
        self.emit(format!("scf.reduce({v} : i32) {{"));
        self.emit(format!("^bb0({lhs}: i32, {rhs}: i32):"));
        self.indent += 1;
        let k = self.rng.below(7);
        let w = self.load_at(&r, &c0, k);
        self.touch(&r);
        let w = self.conv(&w, r.elem, Elem::I32);
        let s1 = self.binop("add", &lhs, &rhs, Elem::I32);
        let mut s2 = self.binop("add", &s1, &w, Elem::I32);
        if let Some(h) = &local {
            let k = self.rng.below(5);
            let u = self.load_at(h, &c0, k);
            self.touch(h);
            let u = self.conv(&u, h.elem, Elem::I32);
            s2 = self.binop("add", &s2, &u, Elem::I32);
        }
        self.emit(format!("scf.reduce.return {s2} : i32"));
        self.indent -= 1;
        self.emit("}".into());
        self.indent -= 1;
        self.emit("}".into());
        self.store_scalar(ctx, &res);
        let e = self.random_elem();
        let d = self.random_dims(e);
        self.new_buffer(ctx, e, d, true);
        if self.rng.chance(50) {
            self.emit(format!("memref.dealloc {} : {}", r.name, r.ty()));
        }
    }

    /// An `index` in `0..4` that varies with the innermost iv (or is fixed by `%n`).
    fn switch_index(&mut self, ctx: &Ctx) -> String {
        let m = self.rng.range(2, 4);
        let cm = self.cidx(m);
        let src = ctx.ivs.last().cloned().unwrap_or_else(|| "%n".to_string());
        let r = self.fresh("i");
        self.emit(format!("{r} = arith.remui {src}, {cm} : index"));
        r
    }

    /// Statements of one region of a switch / execute_region, then its `scf.yield` (with an
    /// `i32` read from a visible buffer when `result`).
    fn yielding_block(&mut self, ctx: &Ctx, result: bool) {
        let b = self.open_block();
        let n = self.rng.range(1, 3);
        for _ in 0..n {
            self.stmt(ctx);
        }
        let v = if result {
            let par = Self::cur_par(ctx);
            let src = self
                .pick_visible(|h| h.roots.is_empty() || h.par == par || h.par == 0)
                .unwrap_or_else(|| self.handles[1].clone());
            let lin = ctx.ivs.last().cloned().unwrap_or_else(|| self.cidx(0));
            let k = self.rng.below(9);
            let l = self.load_at(&src, &lin, k);
            self.touch(&src);
            Some(self.conv(&l, src.elem, Elem::I32))
        } else {
            None
        };
        self.close_block(b, ctx);
        self.indent += 1;
        match v {
            Some(v) => self.emit(format!("scf.yield {v} : i32")),
            None => self.emit("scf.yield".into()),
        }
        self.indent -= 1;
    }

    /// `scf.index_switch`, with an `i32` result or none (then the default region may be empty,
    /// its terminator implicit).
    fn stmt_switch(&mut self, ctx: &Ctx) {
        let idx = self.switch_index(ctx);
        let result = self.rng.chance(50);
        let mut cases: Vec<u64> = (0..4).filter(|_| self.rng.chance(50)).collect();
        if cases.is_empty() {
            cases.push(self.rng.below(4));
        }
        let res = self.fresh("sw");
        if result {
            self.emit(format!("{res} = scf.index_switch {idx} -> i32"));
        } else {
            self.emit(format!("scf.index_switch {idx}"));
        }
        let mut inner = ctx.clone();
        inner.depth += 1;
        let labels: Vec<String> = cases
            .iter()
            .map(|c| format!("case {c}"))
            .chain(std::iter::once("default".to_string()))
            .collect();
        for l in labels {
            // Only the default region may be left empty (its `scf.yield` implicit).
            if !result && l == "default" && self.empty_default && self.rng.chance(50) {
                self.emit(format!("{l} {{"));
                self.emit("}".into());
                continue;
            }
            self.emit(format!("{l} {{"));
            self.yielding_block(&inner, result);
            self.emit("}".into());
        }
        if result {
            self.store_scalar(ctx, &res);
        }
    }

    /// `scf.execute_region`, one block or an entry block that branches (`cf.cond_br`) to two
    /// blocks that both yield.
    fn stmt_execute_region(&mut self, ctx: &Ctx) {
        let result = self.rng.chance(50);
        let res = self.fresh("er");
        if result {
            self.emit(format!("{res} = scf.execute_region -> i32 {{"));
        } else {
            self.emit("scf.execute_region {".into());
        }
        let mut inner = ctx.clone();
        inner.depth += 1;
        if self.rng.chance(50) {
            self.yielding_block(&inner, result);
        } else {
            inner.cfg_depth += 1;
            let b = self.open_block();
            let n = self.rng.range(0, 2);
            for _ in 0..n {
                self.stmt(&inner);
            }
            let c = self.condition(&inner);
            self.close_block(b, &inner);
            let (l1, l2) = (self.fresh("^r"), self.fresh("^r"));
            let (l1, l2) = (l1.replace('%', ""), l2.replace('%', ""));
            self.indent += 1;
            self.emit(format!("cf.cond_br {c}, {l1}, {l2}"));
            self.indent -= 1;
            for l in [l1, l2] {
                self.emit(format!("{l}:"));
                self.yielding_block(&inner, result);
            }
        }
        self.emit("}".into());
        if result {
            self.store_scalar(ctx, &res);
        }
    }

    /// The buffer the `ptrcmp` feature returns: allocated first, written, compared with every
    /// temporary freed by the pointer-comparison idiom.
    fn stmt_ptr_return(&mut self, ctx: &Ctx) {
        let e = if self.rng.chance(50) {
            Elem::F32
        } else {
            Elem::I32
        };
        let d = self.random_dims(e);
        let h = self.new_buffer_why(ctx, e, d, Some("returned"));
        self.returns.push(h.clone());
        self.ptr_ret = Some(h);
    }

    /// Returns an `arith.select` of two fresh buffers, freeing each under the pointer
    /// comparison with the selected one (what `--buffer-deallocation-pipeline` writes).
    fn stmt_select_return(&mut self, ctx: &Ctx) {
        let e = if self.rng.chance(50) {
            Elem::F32
        } else {
            Elem::I32
        };
        let d = self.random_dims(e);
        let a = self.new_buffer_why(ctx, e, d.clone(), Some("returned"));
        let b = self.new_buffer_why(ctx, e, d, Some("returned"));
        let cond = self.condition(ctx);
        let ty = a.ty();
        let r = self.fresh("ret");
        self.emit(format!(
            "{r} = arith.select {cond}, {}, {} : {ty}",
            a.name, b.name
        ));
        let pr = self.fresh("ptr");
        self.emit(format!(
            "{pr} = memref.extract_aligned_pointer_as_index {r} : {ty} -> index"
        ));
        for x in [&a, &b] {
            let p = self.fresh("ptr");
            self.emit(format!(
                "{p} = memref.extract_aligned_pointer_as_index {} : {ty} -> index",
                x.name
            ));
            let ne = self.fresh("c");
            self.emit(format!("{ne} = arith.cmpi ne, {p}, {pr} : index"));
            self.emit(format!("scf.if {ne} {{"));
            self.emit(format!("  memref.dealloc {} : {ty}", x.name));
            self.emit("}".into());
        }
        for x in self.handles.iter_mut() {
            if x.name == a.name || x.name == b.name {
                x.alive = false;
            }
        }
        let mut h = a.clone();
        h.name = r;
        h.roots = vec![a.roots[0], b.roots[0]];
        h.viewable = false;
        self.returns.push(h);
    }

    /// An alloc that escapes through the kernel's return value.
    fn stmt_escape(&mut self, ctx: &Ctx) {
        let e = if self.rng.chance(50) {
            Elem::F32
        } else {
            Elem::I32
        };
        let d = self.random_dims(e);
        let h = self.new_buffer(ctx, e, d, false);
        if self.rng.chance(50) {
            self.compute_into(ctx, &h, true);
        }
        self.returns.push(h);
    }

    // ------------------------------------------------------------------ assembly
    fn finish(mut self, seed: u64) -> Program {
        let tf = self.out_f.max(1);
        let ti = self.out_i.max(1);
        let ret_tys: Vec<String> = self.returns.iter().map(|h| h.ty()).collect();
        let ret_names: Vec<String> = self.returns.iter().map(|h| h.name.clone()).collect();
        let mut t = String::new();
        let _ = writeln!(
            t,
            "// Generated by memplan's progen (seed {seed}): every buffer's contents reach the printed output."
        );
        t.push_str("func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }\n");
        t.push_str("func.func private @printMemrefI32(memref<*xi32>) attributes { llvm.emit_c_interface }\n\n");
        let ret_sig = match ret_tys.len() {
            0 => String::new(),
            1 => format!(" -> {}", ret_tys[0]),
            _ => format!(" -> ({})", ret_tys.join(", ")),
        };
        let call_ret = match ret_tys.len() {
            0 => " -> ()".to_string(),
            1 => format!(" -> {}", ret_tys[0]),
            _ => format!(" -> ({})", ret_tys.join(", ")),
        };
        let _ = writeln!(
            t,
            "func.func @kernel(%x: memref<{INPUT_LEN}xf32>, %xi: memref<{INPUT_LEN}xi32>, %of: memref<{tf}xf32>, %oi: memref<{ti}xi32>, %n: index){ret_sig} {{"
        );
        for (rhs, name) in &self.consts {
            let _ = writeln!(t, "  {name} = arith.constant {rhs}");
        }
        for l in &self.lines {
            t.push_str(
                &l.replace("@TF@", &tf.to_string())
                    .replace("@TI@", &ti.to_string()),
            );
            t.push('\n');
        }
        if ret_names.is_empty() {
            t.push_str("  return\n");
        } else {
            let _ = writeln!(
                t,
                "  return {} : {}",
                ret_names.join(", "),
                ret_tys.join(", ")
            );
        }
        t.push_str("}\n\n");
        for c in &self.callees {
            t.push_str(c);
            t.push('\n');
        }
        // @main: deterministic inputs, call, print, free.
        t.push_str("func.func @main() {\n");
        let _ = writeln!(t, "  %x = memref.alloc() : memref<{INPUT_LEN}xf32>");
        let _ = writeln!(t, "  %xi = memref.alloc() : memref<{INPUT_LEN}xi32>");
        for (name, ty, a, b) in [("%x", "f32", 7, 3), ("%xi", "i32", 5, 1)] {
            let _ = writeln!(
                t,
                "  linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]}} outs({name} : memref<{INPUT_LEN}x{ty}>) {{"
            );
            let _ = writeln!(t, "  ^bb0(%o: {ty}):");
            let _ = writeln!(t, "    %i = linalg.index 0 : index");
            let _ = writeln!(t, "    %ca = arith.constant {a} : index");
            let _ = writeln!(t, "    %cb = arith.constant {b} : index");
            let _ = writeln!(t, "    %c17 = arith.constant 17 : index");
            let _ = writeln!(t, "    %c8 = arith.constant 8 : i64");
            let _ = writeln!(t, "    %m = arith.muli %i, %ca : index");
            let _ = writeln!(t, "    %s = arith.addi %m, %cb : index");
            let _ = writeln!(t, "    %r = arith.remui %s, %c17 : index");
            let _ = writeln!(t, "    %ri = arith.index_cast %r : index to i64");
            let _ = writeln!(t, "    %rs = arith.subi %ri, %c8 : i64");
            if ty == "f32" {
                let _ = writeln!(t, "    %v = arith.sitofp %rs : i64 to f32");
            } else {
                let _ = writeln!(t, "    %v = arith.trunci %rs : i64 to i32");
            }
            let _ = writeln!(t, "    linalg.yield %v : {ty}");
            let _ = writeln!(t, "  }}");
        }
        let _ = writeln!(t, "  %of = memref.alloc() : memref<{tf}xf32>");
        let _ = writeln!(t, "  %oi = memref.alloc() : memref<{ti}xi32>");
        let _ = writeln!(t, "  %zf = arith.constant 0.0 : f32");
        let _ = writeln!(t, "  %zi = arith.constant 0 : i32");
        let _ = writeln!(
            t,
            "  linalg.fill ins(%zf : f32) outs(%of : memref<{tf}xf32>)"
        );
        let _ = writeln!(
            t,
            "  linalg.fill ins(%zi : i32) outs(%oi : memref<{ti}xi32>)"
        );
        let _ = writeln!(t, "  %n = arith.constant {N_VALUE} : index");
        let results: Vec<String> = (0..ret_tys.len()).map(|i| format!("%ret{i}")).collect();
        let call = format!(
            "call @kernel(%x, %xi, %of, %oi, %n) : (memref<{INPUT_LEN}xf32>, memref<{INPUT_LEN}xi32>, memref<{tf}xf32>, memref<{ti}xi32>, index){call_ret}"
        );
        if results.is_empty() {
            let _ = writeln!(t, "  {call}");
        } else {
            let _ = writeln!(t, "  {} = {call}", results.join(", "));
        }
        let mut prints = vec![
            ("%of".to_string(), format!("memref<{tf}xf32>"), "f32"),
            ("%oi".to_string(), format!("memref<{ti}xi32>"), "i32"),
        ];
        for (r, h) in results.iter().zip(&self.returns) {
            prints.push((r.clone(), h.ty(), h.elem.text()));
        }
        for (i, (name, ty, el)) in prints.iter().enumerate() {
            let fun = if *el == "f32" { "F32" } else { "I32" };
            let _ = writeln!(t, "  %u{i} = memref.cast {name} : {ty} to memref<*x{el}>");
            let _ = writeln!(
                t,
                "  call @printMemref{fun}(%u{i}) : (memref<*x{el}>) -> ()"
            );
        }
        for (name, ty, _) in &prints {
            let _ = writeln!(t, "  memref.dealloc {name} : {ty}");
        }
        let _ = writeln!(t, "  memref.dealloc %x : memref<{INPUT_LEN}xf32>");
        let _ = writeln!(t, "  memref.dealloc %xi : memref<{INPUT_LEN}xi32>");
        t.push_str("  return\n}\n");
        self.lines.clear();
        Program {
            seed,
            text: t,
            allocs: self.allocs,
            features: self.feat,
            merge_options: String::new(),
            lower_to_cfg: false,
            ownership_pass: false,
        }
    }
}

fn retain_has(list: &[Handle], h: &Handle) -> bool {
    list.iter().any(|x| x.name == h.name)
}

/// Rewrites `p` as a wrong merge would: two co-live, mergeable, top-level allocs become views
/// at offset 0 of one shared i8 buffer (and their deallocs are dropped). Returns the rewritten
/// text and the two names, or `None` when the program has no such pair.
pub fn corrupt_merge(p: &Program) -> Option<(String, String, String)> {
    let cands: Vec<&AllocInfo> = p
        .allocs
        .iter()
        .filter(|a| a.top_level && a.mergeable && a.bytes > 0)
        .collect();
    let mut pair = None;
    'outer: for (i, a) in cands.iter().enumerate() {
        for b in &cands[i + 1..] {
            if a.alloc_seq < b.alloc_seq && b.alloc_seq < a.last_use_seq {
                pair = Some((*a, *b));
                break 'outer;
            }
        }
    }
    let (a, b) = pair?;
    let size = a.bytes.max(b.bytes);
    let mut out = String::new();
    for line in p.text.lines() {
        let t = line.trim_start();
        if t.starts_with(&format!("{} = memref.alloc", a.name)) {
            let _ = writeln!(
                out,
                "  %corrupt_raw = memref.alloc() {{alignment = 128 : i64}} : memref<{size}xi8>"
            );
            let _ = writeln!(out, "  %corrupt_c0 = arith.constant 0 : index");
            let _ = writeln!(
                out,
                "  {} = memref.view %corrupt_raw[%corrupt_c0][] : memref<{size}xi8> to {}",
                a.name, a.ty
            );
        } else if t.starts_with(&format!("{} = memref.alloc", b.name)) {
            let _ = writeln!(
                out,
                "  {} = memref.view %corrupt_raw[%corrupt_c0][] : memref<{size}xi8> to {}",
                b.name, b.ty
            );
        } else if t.starts_with(&format!("memref.dealloc {} :", a.name))
            || t.starts_with(&format!("memref.dealloc {} :", b.name))
        {
            continue;
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    Some((out, a.name.clone(), b.name.clone()))
}
