//! Random generator of affine loop programs (issue 14): the input of the dependence-analysis and
//! loop-fusion differential test (`tests/affine_random.rs`).
//!
//! A program has the shape of the programs in `shared/mlir/affine`: one or two kernel functions on
//! `memref<...xf32>` arguments (inputs, outputs) and `index` symbols, with `memref.alloc`'d
//! intermediates, a sequence of top-level `affine.for` nests (depth 1 to 3) and a few top-level
//! scalar `affine.load`/`affine.store`s; a `@main` that allocates every argument, fills it with
//! `scf` loops (no affine ops there, so no remarks and nothing to fuse), calls the kernels and
//! prints every argument buffer with `printMemrefF32`.
//!
//! What the nests contain, each drawn from the seed: constant, symbolic (`to %n0`,
//! `affine_map<()[s0] -> (s0 - 2)>()[%n0]`) and triangular `max`/`min` bounds on outer induction
//! variables; steps 1 to 3; accesses that are shifted (`%i0 + 2`), strided (`%i0 * 2 + 1`),
//! transposed (loop order differs from the memref's dimension order), flattened (`%i0 * 8 +
//! %i1`), tiled (`%i0 floordiv 4`, `%i0 mod 4`), offset by a symbol (`symbol(%n0)`) or constant;
//! stencil reads (several shifts of one buffer); `affine.if` guards, both around a read that is
//! only in bounds under the guard (with a result and an `else`) and around stores; reductions in
//! `iter_args` with imperfectly nested loads; in-place updates (Gauss-Seidel style sweeps, scans
//! whose first element is stored by a scalar access); producer-consumer chains; siblings (two nests
//! reading one buffer); writes into other nests' buffers (WAR / WAW across nests); and `memref.dealloc`
//! of intermediates after their last use.
//!
//! Every program is valid by construction and checked by a small interpreter of the generated
//! nests ([`Program`] keeps the model): every access is in bounds and every read of an
//! intermediate reads an element written before it (in execution order), so the printed values
//! are a deterministic function of the program, and a fusion that changes them is wrong. Values
//! are `f32`s combined by `addf`/`subf`/`maximumf`/`minimumf` and products with constants, so they
//! stay finite.
//!
//! Deterministic in the seed (the same [`Lcg`] as [`super::progen`]); only `Vec`s are iterated.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::progen::Lcg;

/// The `f32` constants of a kernel (`%cst0`...).
const CSTS: [&str; 6] = ["0.5", "0.25", "1.0", "2.0", "-1.0", "0.75"];
/// Most loop iterations the interpreter allows per kernel (keeps runs short).
const WORK_LIMIT: u64 = 60_000;
/// Most elements of one generated buffer.
const MAX_ELEMS: i64 = 4096;

/// An affine expression over the enclosing loops' induction variables (`Dim(k)` = the loop at
/// depth `k`, 0 = outermost) and the kernel's symbols.
#[derive(Clone, Debug, PartialEq)]
pub enum E {
    /// Induction variable of the loop at this depth.
    Dim(usize),
    /// Kernel symbol (`%nK`).
    Sym(usize),
    /// Constant.
    Cst(i64),
    /// Sum.
    Add(Box<E>, Box<E>),
    /// Difference.
    Sub(Box<E>, Box<E>),
    /// Product with a positive constant.
    Mul(Box<E>, i64),
    /// `floordiv` by a positive constant.
    FloorDiv(Box<E>, i64),
    /// `mod` by a positive constant.
    Mod(Box<E>, i64),
}

fn d(k: usize) -> E {
    E::Dim(k)
}

impl E {
    /// `self + c`, without a `+ 0`.
    fn plus(self, c: i64) -> E {
        if c == 0 {
            self
        } else {
            E::Add(Box::new(self), Box::new(E::Cst(c)))
        }
    }
    fn add(self, o: E) -> E {
        E::Add(Box::new(self), Box::new(o))
    }
    fn sub(self, o: E) -> E {
        E::Sub(Box::new(self), Box::new(o))
    }
    fn mul(self, c: i64) -> E {
        if c == 1 {
            self
        } else {
            E::Mul(Box::new(self), c)
        }
    }
    fn fdiv(self, c: i64) -> E {
        E::FloorDiv(Box::new(self), c)
    }
    fn modulo(self, c: i64) -> E {
        E::Mod(Box::new(self), c)
    }

    /// Value under the given induction variables and symbols (`floordiv`/`mod` round down).
    pub fn eval(&self, dims: &[i64], syms: &[i64]) -> i64 {
        match self {
            E::Dim(k) => dims[*k],
            E::Sym(s) => syms[*s],
            E::Cst(c) => *c,
            E::Add(a, b) => a.eval(dims, syms) + b.eval(dims, syms),
            E::Sub(a, b) => a.eval(dims, syms) - b.eval(dims, syms),
            E::Mul(a, c) => a.eval(dims, syms) * c,
            E::FloorDiv(a, c) => a.eval(dims, syms).div_euclid(*c),
            E::Mod(a, c) => a.eval(dims, syms).rem_euclid(*c),
        }
    }

    fn collect(&self, dims: &mut BTreeSet<usize>, syms: &mut BTreeSet<usize>) {
        match self {
            E::Dim(k) => {
                dims.insert(*k);
            }
            E::Sym(s) => {
                syms.insert(*s);
            }
            E::Cst(_) => {}
            E::Add(a, b) | E::Sub(a, b) => {
                a.collect(dims, syms);
                b.collect(dims, syms);
            }
            E::Mul(a, _) | E::FloorDiv(a, _) | E::Mod(a, _) => a.collect(dims, syms),
        }
    }

    fn is_leaf(&self) -> bool {
        matches!(self, E::Dim(_) | E::Sym(_) | E::Cst(_))
    }

    /// Text with leaves spelled by `leaf` (`Ok(dim)` / `Err(sym)`).
    fn render(&self, leaf: &dyn Fn(Result<usize, usize>) -> String) -> String {
        let paren = |e: &E| {
            let t = e.render(leaf);
            if e.is_leaf() {
                t
            } else {
                format!("({t})")
            }
        };
        match self {
            E::Dim(k) => leaf(Ok(*k)),
            E::Sym(s) => leaf(Err(*s)),
            E::Cst(c) => c.to_string(),
            E::Add(a, b) => match **b {
                E::Cst(c) if c < 0 => format!("{} - {}", a.render(leaf), -c),
                _ if matches!(**b, E::Add(..) | E::Sub(..)) => {
                    format!("{} + {}", a.render(leaf), paren(b))
                }
                _ => format!("{} + {}", a.render(leaf), b.render(leaf)),
            },
            E::Sub(a, b) => {
                if matches!(**b, E::Add(..) | E::Sub(..)) {
                    format!("{} - {}", a.render(leaf), paren(b))
                } else {
                    format!("{} - {}", a.render(leaf), b.render(leaf))
                }
            }
            E::Mul(a, c) => format!("{} * {c}", paren(a)),
            E::FloorDiv(a, c) => format!("{} floordiv {c}", paren(a)),
            E::Mod(a, c) => format!("{} mod {c}", paren(a)),
        }
    }

    /// The inline form of an `affine.load`/`affine.store` index: `%i0 + symbol(%n0)`.
    fn inline(&self) -> String {
        self.render(&|l| match l {
            Ok(k) => format!("%i{k}"),
            Err(s) => format!("symbol(%n{s})"),
        })
    }
}

/// `(d0, d1)[s0]` header, operand list `(%i0, %i2)[%n1]` and the renamed expressions of an
/// affine map or set over `exprs`.
fn map_parts(exprs: &[&E]) -> (String, String, Vec<String>) {
    let (mut ds, mut ss) = (BTreeSet::new(), BTreeSet::new());
    for e in exprs {
        e.collect(&mut ds, &mut ss);
    }
    let ds: Vec<usize> = ds.into_iter().collect();
    let ss: Vec<usize> = ss.into_iter().collect();
    let head = format!(
        "({}){}",
        (0..ds.len())
            .map(|j| format!("d{j}"))
            .collect::<Vec<_>>()
            .join(", "),
        if ss.is_empty() {
            String::new()
        } else {
            format!(
                "[{}]",
                (0..ss.len())
                    .map(|j| format!("s{j}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    );
    let ops = format!(
        "({}){}",
        ds.iter()
            .map(|k| format!("%i{k}"))
            .collect::<Vec<_>>()
            .join(", "),
        if ss.is_empty() {
            String::new()
        } else {
            format!(
                "[{}]",
                ss.iter()
                    .map(|s| format!("%n{s}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    );
    let texts = exprs
        .iter()
        .map(|e| {
            e.render(&|l| match l {
                Ok(k) => format!("d{}", ds.iter().position(|x| *x == k).unwrap_or(0)),
                Err(s) => format!("s{}", ss.iter().position(|x| *x == s).unwrap_or(0)),
            })
        })
        .collect();
    (head, ops, texts)
}

/// A loop bound: the `max` (lower) or `min` (upper) of its expressions.
#[derive(Clone, Debug)]
pub struct Bound(Vec<E>);

impl Bound {
    fn cst(c: i64) -> Bound {
        Bound(vec![E::Cst(c)])
    }
    fn eval(&self, lower: bool, dims: &[i64], syms: &[i64]) -> i64 {
        let vals = self.0.iter().map(|e| e.eval(dims, syms));
        if lower {
            vals.max().unwrap_or(0)
        } else {
            vals.min().unwrap_or(0)
        }
    }
    fn render(&self, lower: bool) -> String {
        if self.0.len() == 1 {
            match &self.0[0] {
                E::Cst(c) => return c.to_string(),
                E::Sym(s) => return format!("%n{s}"),
                _ => {}
            }
        }
        let refs: Vec<&E> = self.0.iter().collect();
        let (head, ops, texts) = map_parts(&refs);
        let kw = match (self.0.len() > 1, lower) {
            (false, _) => "",
            (true, true) => "max ",
            (true, false) => "min ",
        };
        format!("{kw}affine_map<{head} -> ({})>{ops}", texts.join(", "))
    }
}

/// An SSA operand of an arithmetic op: a value `%vN` or a kernel constant `%cstN`.
#[derive(Clone, Copy, Debug)]
pub enum Opd {
    /// `%vN`
    V(u32),
    /// `%cstN` (index into [`CSTS`])
    C(usize),
}

impl Opd {
    fn text(self) -> String {
        match self {
            Opd::V(v) => format!("%v{v}"),
            Opd::C(c) => format!("%cst{c}"),
        }
    }
}

/// A reduction carried in `iter_args`.
#[derive(Clone, Debug)]
pub struct Red {
    acc: u32,
    init: usize,
    result: u32,
    yielded: Opd,
}

/// An `affine.for`.
#[derive(Clone, Debug)]
pub struct For {
    lb: Bound,
    ub: Bound,
    step: i64,
    body: Vec<Item>,
    red: Option<Red>,
}

/// An `affine.if` (constraints `e >= 0` / `e == 0` when the flag is set); with a result when both
/// branches yield.
#[derive(Clone, Debug)]
pub struct If {
    cons: Vec<(E, bool)>,
    then: Vec<Item>,
    els: Vec<Item>,
    result: Option<(u32, Opd, Opd)>,
}

/// One op of a kernel body.
#[derive(Clone, Debug)]
pub enum Item {
    /// A loop.
    For(Box<For>),
    /// `%vN = affine.load %buf[idx]`
    Load {
        /// result
        dst: u32,
        /// buffer (index into the kernel's buffers)
        buf: usize,
        /// one expression per dimension
        idx: Vec<E>,
    },
    /// `affine.store src, %buf[idx]`
    Store {
        /// stored value
        src: Opd,
        /// buffer
        buf: usize,
        /// one expression per dimension
        idx: Vec<E>,
    },
    /// `%vN = arith.OP a, b : f32`
    Bin {
        /// result
        dst: u32,
        /// `addf`, ...
        op: &'static str,
        /// lhs
        a: Opd,
        /// rhs
        b: Opd,
    },
    /// A guard.
    If(Box<If>),
}

/// Role of a kernel buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Argument filled by `@main`, read by the kernel (may be written in place).
    Input,
    /// Argument filled by `@main`, written by the kernel.
    Output,
    /// `memref.alloc`'d intermediate.
    Temp,
}

/// A buffer of a kernel.
#[derive(Clone, Debug)]
pub struct Buf {
    /// role
    pub role: Role,
    /// static shape
    pub shape: Vec<i64>,
    /// `@main`'s fill parameters (p, q, scale index, bias index)
    fill: (u64, u64, usize, usize),
}

impl Buf {
    fn ty(&self) -> String {
        format!(
            "memref<{}xf32>",
            self.shape
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join("x")
        )
    }
    fn elems(&self) -> i64 {
        self.shape.iter().product()
    }
    fn name(&self, i: usize) -> String {
        match self.role {
            Role::Input => format!("%in{i}"),
            Role::Output => format!("%out{i}"),
            Role::Temp => format!("%t{i}"),
        }
    }
}

/// One kernel: buffers, symbol values, top-level ops (each a loop nest or a scalar access
/// group), where each temp is allocated and whether it is deallocated after its last use.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// buffers, in creation order
    pub bufs: Vec<Buf>,
    /// run-time values of `%n0`, `%n1`, ...
    pub syms: Vec<i64>,
    /// top-level op groups
    pub nests: Vec<Vec<Item>>,
    /// allocations at the function's top (else just before the first nest that uses them)
    pub allocs_at_top: bool,
    /// per buffer: `memref.dealloc` after its last use (temps only)
    pub dealloc: Vec<bool>,
}

/// What a program exercises (counts over its nests), for the test's coverage report.
#[derive(Clone, Copy, Debug, Default)]
pub struct Coverage {
    /// kernel functions
    pub kernels: u64,
    /// top-level loop nests, by depth 1..=3 (index 0: scalar access groups)
    pub nests_by_depth: [u64; 4],
    /// loops with a symbolic bound
    pub sym_bounds: u64,
    /// loops with a `max`/`min` bound on an outer induction variable
    pub iv_bounds: u64,
    /// loops with step > 1
    pub steps: u64,
    /// accesses with a constant shift
    pub shifted: u64,
    /// accesses with a stride (`* c`)
    pub strided: u64,
    /// nests whose loop order differs from a memref's dimension order
    pub transposed: u64,
    /// accesses with `floordiv`
    pub floordiv: u64,
    /// accesses with `mod`
    pub modulo: u64,
    /// accesses with a symbol
    pub sym_index: u64,
    /// guarded reads (`affine.if` with result)
    pub guarded_reads: u64,
    /// guarded stores
    pub guarded_stores: u64,
    /// `iter_args` reductions
    pub reductions: u64,
    /// reductions with loads outside the reduction loop (imperfect nests)
    pub imperfect: u64,
    /// nests writing a buffer they also read (in place, scans)
    pub in_place: u64,
    /// scans (scalar store of the first element + carried loop)
    pub scans: u64,
    /// nests writing a buffer written by an earlier nest (WAW) or read by one (WAR)
    pub overwrites: u64,
    /// intermediates read by at least two nests (siblings)
    pub siblings: u64,
    /// intermediates read by a later nest (producer-consumer edges)
    pub chains: u64,
    /// `memref.dealloc`s of intermediates
    pub deallocs: u64,
    /// intermediates
    pub temps: u64,
}

impl Coverage {
    /// Adds another program's counts.
    pub fn add(&mut self, o: &Coverage) {
        self.kernels += o.kernels;
        for k in 0..4 {
            self.nests_by_depth[k] += o.nests_by_depth[k];
        }
        self.sym_bounds += o.sym_bounds;
        self.iv_bounds += o.iv_bounds;
        self.steps += o.steps;
        self.shifted += o.shifted;
        self.strided += o.strided;
        self.transposed += o.transposed;
        self.floordiv += o.floordiv;
        self.modulo += o.modulo;
        self.sym_index += o.sym_index;
        self.guarded_reads += o.guarded_reads;
        self.guarded_stores += o.guarded_stores;
        self.reductions += o.reductions;
        self.imperfect += o.imperfect;
        self.in_place += o.in_place;
        self.scans += o.scans;
        self.overwrites += o.overwrites;
        self.siblings += o.siblings;
        self.chains += o.chains;
        self.deallocs += o.deallocs;
        self.temps += o.temps;
    }

    /// One line, `name=count` pairs.
    pub fn line(&self) -> String {
        let n = self.nests_by_depth;
        format!(
            "kernels={} nests(depth0/1/2/3)={}/{}/{}/{} temps={} chains={} siblings={} \
             reductions={} imperfect={} in_place={} scans={} overwrites={} guarded_reads={} \
             guarded_stores={} sym_bounds={} iv_bounds={} steps={} shifted={} strided={} \
             transposed={} floordiv={} mod={} sym_index={} deallocs={}",
            self.kernels,
            n[0],
            n[1],
            n[2],
            n[3],
            self.temps,
            self.chains,
            self.siblings,
            self.reductions,
            self.imperfect,
            self.in_place,
            self.scans,
            self.overwrites,
            self.guarded_reads,
            self.guarded_stores,
            self.sym_bounds,
            self.iv_bounds,
            self.steps,
            self.shifted,
            self.strided,
            self.transposed,
            self.floordiv,
            self.modulo,
            self.sym_index,
            self.deallocs
        )
    }
}

/// A generated program: its text and model.
#[derive(Clone, Debug)]
pub struct Program {
    /// the seed it was made from
    pub seed: u64,
    /// the module
    pub text: String,
    /// the kernels (for shrinking)
    pub kernels: Vec<Kernel>,
    /// what it exercises
    pub coverage: Coverage,
}

// ------------------------------------------------------------------ interpreter

/// Initialisation state of a kernel's buffers while its nests run (values are not needed: every
/// read only has to see a written element).
struct Exec<'a> {
    shapes: Vec<Vec<i64>>,
    syms: &'a [i64],
    init: Vec<Vec<bool>>,
    work: u64,
    stores: u64,
    /// the store indices of the buffer under construction (shape unknown yet)
    collect: Option<(usize, Vec<Vec<i64>>)>,
}

impl Exec<'_> {
    fn flat(&self, buf: usize, idx: &[i64]) -> Option<usize> {
        let shape = &self.shapes[buf];
        if idx.len() != shape.len() {
            return None;
        }
        let mut f = 0i64;
        for (i, s) in idx.iter().zip(shape) {
            if *i < 0 || i >= s {
                return None;
            }
            f = f * s + i;
        }
        Some(f as usize)
    }

    fn run(&mut self, items: &[Item], stack: &mut Vec<i64>) -> Result<(), String> {
        for it in items {
            match it {
                Item::Load { buf, idx, .. } => {
                    if matches!(&self.collect, Some((b, _)) if b == buf) {
                        return Err("the new buffer is read by its producer".into());
                    }
                    let ix: Vec<i64> = idx.iter().map(|e| e.eval(stack, self.syms)).collect();
                    let f = self
                        .flat(*buf, &ix)
                        .ok_or_else(|| format!("read out of bounds: buffer {buf} at {ix:?}"))?;
                    if !self.init[*buf][f] {
                        return Err(format!("read of uninitialised buffer {buf} at {ix:?}"));
                    }
                }
                Item::Store { buf, idx, .. } => {
                    let ix: Vec<i64> = idx.iter().map(|e| e.eval(stack, self.syms)).collect();
                    self.stores += 1;
                    if let Some((b, pts)) = &mut self.collect {
                        if b == buf {
                            if ix.iter().any(|v| *v < 0) {
                                return Err("negative store index".into());
                            }
                            pts.push(ix);
                            continue;
                        }
                    }
                    let f = self
                        .flat(*buf, &ix)
                        .ok_or_else(|| format!("store out of bounds: buffer {buf} at {ix:?}"))?;
                    self.init[*buf][f] = true;
                }
                Item::Bin { .. } => {}
                Item::If(g) => {
                    let holds = g.cons.iter().all(|(e, eq)| {
                        let v = e.eval(stack, self.syms);
                        if *eq {
                            v == 0
                        } else {
                            v >= 0
                        }
                    });
                    self.run(if holds { &g.then } else { &g.els }, stack)?;
                }
                Item::For(l) => {
                    let lb = l.lb.eval(true, stack, self.syms);
                    let ub = l.ub.eval(false, stack, self.syms);
                    let mut i = lb;
                    while i < ub {
                        self.work += 1;
                        if self.work > WORK_LIMIT {
                            return Err("too much work".into());
                        }
                        stack.push(i);
                        let r = self.run(&l.body, stack);
                        stack.pop();
                        r?;
                        i += l.step;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Runs every nest of a kernel from scratch; `Err` says which one breaks the rules.
pub fn check_kernel(k: &Kernel) -> Result<(), String> {
    let mut ex = Exec {
        shapes: k.bufs.iter().map(|b| b.shape.clone()).collect(),
        syms: &k.syms,
        init: k
            .bufs
            .iter()
            .map(|b| vec![b.role != Role::Temp; b.elems() as usize])
            .collect(),
        work: 0,
        stores: 0,
        collect: None,
    };
    for (n, nest) in k.nests.iter().enumerate() {
        ex.run(nest, &mut Vec::new())
            .map_err(|e| format!("nest {n}: {e}"))?;
    }
    Ok(())
}

// ------------------------------------------------------------------ generation

/// Per-loop facts the generator keeps while it builds a nest.
#[derive(Clone, Copy)]
struct LoopInfo {
    lo: i64,
    hi: i64, // exclusive
    step: i64,
}

struct Gen {
    rng: Lcg,
    cov: Coverage,
}

/// Kernel under construction.
struct KState {
    k: Kernel,
    init: Vec<Vec<bool>>,
    next_val: u32,
    work: u64,
    /// per buffer: the nests that read / write it
    readers: Vec<Vec<usize>>,
    writers: Vec<Vec<usize>>,
}

impl KState {
    fn val(&mut self) -> u32 {
        self.next_val += 1;
        self.next_val - 1
    }
    /// Per dimension, the lowest and highest written index (inclusive) of a buffer.
    fn bbox(&self, b: usize) -> Option<Vec<(i64, i64)>> {
        let shape = &self.k.bufs[b].shape;
        let mut bb: Vec<(i64, i64)> = shape.iter().map(|_| (i64::MAX, i64::MIN)).collect();
        let mut any = false;
        for (f, on) in self.init[b].iter().enumerate() {
            if !on {
                continue;
            }
            any = true;
            let mut rest = f as i64;
            for k in (0..shape.len()).rev() {
                let v = rest % shape[k];
                rest /= shape[k];
                bb[k].0 = bb[k].0.min(v);
                bb[k].1 = bb[k].1.max(v);
            }
        }
        any.then_some(bb)
    }
}

/// Which buffer a nest writes.
enum Target {
    New(Role),
    Existing(usize),
}

impl Gen {
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.rng.below(xs.len() as u64) as usize]
    }
    fn chance(&mut self, pct: u64) -> bool {
        self.rng.chance(pct)
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            lo
        } else {
            lo + self.rng.below((hi - lo + 1) as u64) as i64
        }
    }

    fn new_input(&mut self, ks: &mut KState) -> usize {
        let rank = self.pick(&[1usize, 1, 2, 2, 2, 3]);
        let shape = match rank {
            1 => vec![self.range(48, 80)],
            2 => vec![self.range(12, 20), self.range(12, 20)],
            _ => vec![self.range(5, 8), self.range(6, 10), self.range(6, 12)],
        };
        self.add_buf(ks, Role::Input, shape)
    }

    fn add_buf(&mut self, ks: &mut KState, role: Role, shape: Vec<i64>) -> usize {
        let fill = (
            self.rng.range(1, 7),
            self.rng.range(1, 9),
            self.rng.below(3) as usize,
            self.rng.below(3) as usize,
        );
        let n = shape.iter().product::<i64>() as usize;
        ks.k.bufs.push(Buf { role, shape, fill });
        ks.init.push(vec![role != Role::Temp; n]);
        ks.readers.push(Vec::new());
        ks.writers.push(Vec::new());
        ks.k.dealloc.push(false);
        ks.k.bufs.len() - 1
    }

    /// A chain of binary ops combining `vals` (and maybe a constant) into one value.
    fn combine(&mut self, ks: &mut KState, vals: &[Opd], body: &mut Vec<Item>) -> Opd {
        let mut acc = vals[0];
        for &v in &vals[1..] {
            let op = self.pick(&["addf", "addf", "subf", "maximumf", "minimumf", "mulf"]);
            let b = if op == "mulf" && self.chance(70) {
                Opd::C(self.pick(&[0, 1, 5]))
            } else {
                v
            };
            let (a2, b2) = if op == "mulf" && matches!(b, Opd::C(_)) {
                // keep both values: (acc * c) + v
                let dst = ks.val();
                body.push(Item::Bin {
                    dst,
                    op: "mulf",
                    a: acc,
                    b,
                });
                (Opd::V(dst), v)
            } else {
                (acc, b)
            };
            let dst = ks.val();
            body.push(Item::Bin {
                dst,
                op: if op == "mulf" && matches!(b, Opd::C(_)) {
                    "addf"
                } else {
                    op
                },
                a: a2,
                b: b2,
            });
            acc = Opd::V(dst);
        }
        if self.chance(60) {
            let dst = ks.val();
            let op = self.pick(&["mulf", "addf", "subf"]);
            let c = if op == "mulf" {
                self.pick(&[0usize, 1, 5])
            } else {
                self.pick(&[2usize, 4])
            };
            body.push(Item::Bin {
                dst,
                op,
                a: acc,
                b: Opd::C(c),
            });
            acc = Opd::V(dst);
        }
        acc
    }

    /// A random index expression for one dimension of size `size` over the loops `loops`.
    fn random_index(&mut self, ks: &KState, loops: &[LoopInfo], size: i64) -> E {
        let n = loops.len();
        if n == 0 || self.chance(8) {
            return E::Cst(self.range(0, size - 1));
        }
        let j = self.rng.below(n as u64) as usize;
        let l = loops[j];
        match self.rng.below(10) {
            0 if !ks.k.syms.is_empty() => {
                let s = self.rng.below(ks.k.syms.len() as u64) as usize;
                let v = ks.k.syms[s];
                // i + n - c with the value inside [0, size)
                let c = self.range(v.saturating_sub(1).max(0), v + l.lo);
                self.cov.sym_index += 1;
                d(j).add(E::Sym(s)).plus(-c)
            }
            1 => {
                self.cov.floordiv += 1;
                d(j).fdiv(self.pick(&[2, 3, 4]))
            }
            2 => {
                self.cov.modulo += 1;
                let m = self.pick(&[2, 4, 5, 8]).min(size);
                d(j).plus(self.range(0, 1)).modulo(m.max(1))
            }
            3 if n >= 2 => {
                let k = (j + 1) % n;
                d(j).add(d(k))
            }
            4 => {
                self.cov.strided += 1;
                d(j).mul(2).plus(self.range(0, 1))
            }
            _ => {
                let c = self.range(-1, 2);
                if c != 0 {
                    self.cov.shifted += 1;
                }
                d(j).plus(c)
            }
        }
    }

    /// Tries to make one nest; `None` when the attempt breaks a rule (the caller retries).
    fn try_nest(
        &mut self,
        ks: &mut KState,
        force_src: Option<usize>,
        force_output: bool,
        tame: bool,
    ) -> Option<(Vec<Item>, Coverage, Option<usize>)> {
        let saved_cov = self.cov;
        self.cov = Coverage::default();
        let r = self.nest_attempt(ks, force_src, force_output, tame);
        let got = self.cov;
        self.cov = saved_cov;
        r.map(|(items, newb)| (items, got, newb))
    }

    fn nest_attempt(
        &mut self,
        ks: &mut KState,
        force_src: Option<usize>,
        force_output: bool,
        tame: bool,
    ) -> Option<(Vec<Item>, Option<usize>)> {
        let nb = ks.k.bufs.len();
        let readable: Vec<usize> = (0..nb).filter(|&b| ks.init[b].iter().any(|x| *x)).collect();
        // 1. the primary source
        let p = match force_src {
            Some(p) => p,
            None => {
                let temps: Vec<usize> = readable
                    .iter()
                    .copied()
                    .filter(|&b| ks.k.bufs[b].role == Role::Temp)
                    .collect();
                let fresh: Vec<usize> = temps
                    .iter()
                    .copied()
                    .filter(|&b| ks.readers[b].is_empty())
                    .collect();
                let roll = self.rng.below(100);
                if !fresh.is_empty() && roll < 55 {
                    *fresh.last().expect("non-empty")
                } else if !temps.is_empty() && roll < 75 {
                    self.pick(&temps)
                } else {
                    self.pick(&readable)
                }
            }
        };
        let pshape = ks.k.bufs[p].shape.clone();
        let r = pshape.len();
        let bbox = ks.bbox(p)?;
        // ranges of the primary source: a window of an input, the written box of others
        let mut win: Vec<(i64, i64)> = Vec::new();
        for (k, &(lo, hi)) in bbox.iter().enumerate() {
            if ks.k.bufs[p].role == Role::Temp {
                win.push((lo, hi));
            } else {
                let want = match r {
                    1 => self.range(8, 64),
                    2 => self.range(4, 16),
                    _ => self.range(3, 8),
                }
                .min(hi - lo + 1);
                let start = self.range(lo, hi + 1 - want);
                win.push((start, start + want - 1));
                let _ = k;
            }
        }
        // 2. depth and the loop of each source dimension
        // a plain nest mirrors its source's written box (same depth and order, unit steps, no
        // bound tricks): the nests fusion can merge
        let plain = !tame && self.chance(40);
        let mut depth = if plain {
            r
        } else {
            self.pick(&[r, r, r, r, r.saturating_sub(1), r + 1])
        };
        depth = depth.clamp(1, 3);
        let mut dim_loop: Vec<Option<usize>> = vec![None; r]; // loop position per source dim
        let mut flatten: Option<(usize, usize)> = None; // two source dims on one loop
        if depth >= r {
            let mut positions: Vec<usize> = (0..depth).collect();
            // pick r distinct positions, in order unless transposed
            while positions.len() > r {
                let k = self.rng.below(positions.len() as u64) as usize;
                positions.remove(k);
            }
            if r >= 2 && self.chance(if plain { 8 } else { 25 }) {
                positions.reverse();
                if r == 3 && self.chance(50) {
                    positions.swap(0, 1);
                }
                self.cov.transposed += 1;
            }
            for k in 0..r {
                dim_loop[k] = Some(positions[k]);
            }
        } else {
            // depth = r - 1 (or r - 2): flatten two adjacent dims, or index dims by constants
            let k = self.rng.below((r - 1) as u64) as usize;
            let full = win[k].0 == 0 && win[k + 1].0 == 0;
            let mut pos = 0;
            if full && depth + 1 == r && self.chance(60) {
                flatten = Some((k, k + 1));
                for (kk, dl) in dim_loop.iter_mut().enumerate() {
                    if kk == k + 1 {
                        continue;
                    }
                    *dl = Some(pos);
                    pos += 1;
                }
                dim_loop[k + 1] = dim_loop[k];
            } else {
                let mut consts = r - depth;
                for dl in dim_loop.iter_mut() {
                    if consts > 0 && (self.chance(50) || pos >= depth) {
                        consts -= 1;
                        continue;
                    }
                    if pos < depth {
                        *dl = Some(pos);
                        pos += 1;
                    }
                }
                if dim_loop.iter().filter(|x| x.is_some()).count() != depth {
                    return None;
                }
            }
        }
        // 3. per source dim: stride, stencil shifts, loop range
        let mut loops: Vec<LoopInfo> = vec![
            LoopInfo {
                lo: 0,
                hi: 1,
                step: 1,
            };
            depth
        ];
        let mut set: Vec<bool> = vec![false; depth];
        let mut strides = vec![1i64; r];
        let mut shifts: Vec<Vec<i64>> = vec![vec![0]; r];
        for k in 0..r {
            let Some(pos) = dim_loop[k] else { continue };
            if set[pos] {
                continue;
            }
            let (lo, hi) = win[k];
            if let Some((a, b)) = flatten {
                if k == a {
                    let ext = (win[a].1 + 1) * (win[b].1 + 1);
                    loops[pos] = LoopInfo {
                        lo: 0,
                        hi: ext,
                        step: if self.chance(20) { 2 } else { 1 },
                    };
                    set[pos] = true;
                    continue;
                }
            }
            let stride = if !plain && self.chance(12) { 2 } else { 1 };
            let sh: Vec<i64> = if tame || plain && self.chance(60) {
                vec![0]
            } else {
                match self.rng.below(10) {
                    0..=4 => vec![0],
                    5 | 6 => vec![0, 1],
                    7 => vec![0, 1, 2],
                    8 => vec![-1, 0, 1],
                    _ => vec![0, 2],
                }
            };
            let (mn, mx) = (sh[0], *sh.last().expect("non-empty"));
            let ilo = (lo - mn + stride - 1).div_euclid(stride).max(0);
            let ihi = (hi - mx).div_euclid(stride);
            let (sh, stride, ilo, ihi) = if ilo > ihi {
                (vec![0], 1, lo, hi)
            } else {
                (sh, stride, ilo, ihi)
            };
            let mut l = ilo;
            let mut h = ihi + 1;
            if !plain && h - l > 2 && self.chance(25) {
                l += 1;
            }
            if !plain && h - l > 2 && self.chance(25) {
                h -= 1;
            }
            let step = if !plain && self.chance(18) {
                self.pick(&[2, 3])
            } else {
                1
            };
            loops[pos] = LoopInfo { lo: l, hi: h, step };
            set[pos] = true;
            strides[k] = stride;
            if stride > 1 {
                self.cov.strided += 1;
            }
            if sh.len() > 1 || sh[0] != 0 {
                self.cov.shifted += 1;
            }
            shifts[k] = sh;
        }
        for pos in 0..depth {
            if !set[pos] {
                loops[pos] = LoopInfo {
                    lo: 0,
                    hi: self.range(1, 4),
                    step: 1,
                };
            }
        }
        // 4. bounds (symbolic, triangular)
        let mut fors: Vec<(Bound, Bound)> = Vec::new();
        for (pos, &l) in loops.iter().enumerate() {
            if l.step > 1 {
                self.cov.steps += 1;
            }
            let mut lb = Bound::cst(l.lo);
            let mut ub = Bound::cst(l.hi);
            if !tame && !plain && !ks.k.syms.is_empty() && self.chance(20) {
                let s = self.rng.below(ks.k.syms.len() as u64) as usize;
                let v = ks.k.syms[s];
                if self.chance(50) {
                    ub = Bound(vec![E::Sym(s).plus(l.hi - v)]);
                } else {
                    ub = Bound(vec![E::Cst(l.hi), E::Sym(s).plus(self.range(0, 3))]);
                }
                self.cov.sym_bounds += 1;
            } else if !tame && !plain && pos > 0 && self.chance(15) {
                let o = self.rng.below(pos as u64) as usize;
                if self.chance(50) {
                    ub = Bound(vec![E::Cst(l.hi), d(o).plus(self.range(1, 3))]);
                } else {
                    lb = Bound(vec![E::Cst(l.lo), d(o).plus(-self.range(0, 2))]);
                }
                self.cov.iv_bounds += 1;
            }
            fors.push((lb, ub));
        }
        // 5. reduction
        let red = !tame && depth >= 1 && self.chance(25);
        let inner = depth - 1;
        let store_loops: Vec<usize> = if red {
            (0..inner).collect()
        } else {
            (0..depth).collect()
        };
        // 6. loads
        let mut inner_body: Vec<Item> = Vec::new();
        let mut outer_pre: Vec<Item> = Vec::new();
        let mut vals: Vec<Opd> = Vec::new();
        let prim_idx = |shift_pick: &[i64]| -> Vec<E> {
            (0..r)
                .map(|k| match (dim_loop[k], flatten) {
                    (Some(pos), Some((a, b))) if k == a => d(pos).fdiv(win[b].1 + 1).plus(win[a].0),
                    (Some(pos), Some((_, b))) if k == b => d(pos).modulo(win[b].1 + 1),
                    (Some(pos), _) => d(pos).mul(strides[k]).plus(shift_pick[k]),
                    (None, _) => E::Cst(win[k].0 + shift_pick[k].max(0)),
                })
                .collect()
        };
        if flatten.is_some() {
            self.cov.floordiv += 1;
            self.cov.modulo += 1;
        }
        let nloads = 1 + self.rng.below(3) as usize;
        let mut seen: Vec<Vec<i64>> = Vec::new();
        for _ in 0..nloads {
            let pickv: Vec<i64> = (0..r)
                .map(|k| {
                    let s = &shifts[k];
                    s[self.rng.below(s.len() as u64) as usize]
                })
                .collect();
            if seen.contains(&pickv) {
                continue;
            }
            seen.push(pickv.clone());
            let dst = ks.val();
            inner_body.push(Item::Load {
                dst,
                buf: p,
                idx: prim_idx(&pickv),
            });
            vals.push(Opd::V(dst));
        }
        let base_idx = prim_idx(&seen[0]);
        // secondary loads
        let extra = if tame {
            0
        } else {
            self.rng.below(if plain { 2 } else { 3 })
        };
        for _ in 0..extra {
            let b = self.pick(&readable);
            let shape = ks.k.bufs[b].shape.clone();
            let use_outer = red && inner > 0 && self.chance(40);
            let scope = if use_outer {
                &loops[..inner]
            } else {
                &loops[..]
            };
            let idx: Vec<E> = shape
                .iter()
                .map(|&s| self.random_index(ks, scope, s))
                .collect();
            let dst = ks.val();
            let ld = Item::Load { dst, buf: b, idx };
            if use_outer {
                outer_pre.push(ld);
                self.cov.imperfect += 1;
            } else {
                inner_body.push(ld);
            }
            vals.push(Opd::V(dst));
        }
        // guarded read: a shifted read of the source that is out of bounds somewhere
        if !tame && self.chance(18) {
            let k = self.rng.below(r as u64) as usize;
            let sh = self.pick(&[-2i64, -1, 1, 2, 3]);
            let mut idx = base_idx.clone();
            idx[k] = idx[k].clone().plus(sh);
            let (lo, hi) = bbox[k];
            let cons = vec![
                (idx[k].clone().plus(-lo), false),
                (E::Cst(hi).sub(idx[k].clone()), false),
            ];
            let x = *vals.last().expect("a load");
            let ld = ks.val();
            let dv = ks.val();
            let res = ks.val();
            let op = self.pick(&["subf", "addf", "maximumf"]);
            inner_body.push(Item::If(Box::new(If {
                cons,
                then: vec![
                    Item::Load {
                        dst: ld,
                        buf: p,
                        idx,
                    },
                    Item::Bin {
                        dst: dv,
                        op,
                        a: x,
                        b: Opd::V(ld),
                    },
                ],
                els: Vec::new(),
                result: Some((res, Opd::V(dv), x)),
            })));
            vals.push(Opd::V(res));
            self.cov.guarded_reads += 1;
        }
        let value = self.combine(ks, &vals, &mut inner_body);
        // 7. target and store map
        let target = if force_output {
            Target::New(Role::Output)
        } else {
            let outputs: Vec<usize> = (0..nb)
                .filter(|&b| ks.k.bufs[b].role == Role::Output)
                .collect();
            match self.rng.below(100) {
                0..=54 => Target::New(Role::Temp),
                55..=69 if outputs.len() < 3 => Target::New(Role::Output),
                70..=84 if !red && !tame => {
                    self.cov.in_place += 1;
                    Target::Existing(p)
                }
                85..=99 if !tame => Target::Existing(self.pick(&readable)),
                _ => Target::New(Role::Temp),
            }
        };
        let (tbuf, sidx, newb) = match target {
            Target::Existing(b) => {
                let idx = if b == p && !red {
                    base_idx.clone()
                } else {
                    let shape = ks.k.bufs[b].shape.clone();
                    let sl: Vec<LoopInfo> = store_loops.iter().map(|&j| loops[j]).collect();
                    shape
                        .iter()
                        .enumerate()
                        .map(|(k, &s)| {
                            if k < sl.len() && self.chance(80) {
                                d(store_loops[k]).plus(self.range(-1, 1))
                            } else {
                                self.random_index(ks, &sl, s)
                            }
                        })
                        .collect()
                };
                if !ks.readers[b].is_empty() || !ks.writers[b].is_empty() {
                    self.cov.overwrites += 1;
                }
                (b, idx, None)
            }
            Target::New(role) => {
                let idx = self.new_store_map(&loops, &store_loops, tame || plain);
                let b = self.add_buf(ks, role, Vec::new());
                (b, idx, Some(b))
            }
        };
        let mut store = Item::Store {
            src: value,
            buf: tbuf,
            idx: sidx,
        };
        let guard_store = !tame && self.chance(12);
        // 8. assemble
        let nest_items = if red {
            let acc = ks.val();
            let result = ks.val();
            let rop = self.pick(&["addf", "addf", "maximumf", "minimumf"]);
            let nv = ks.val();
            inner_body.push(Item::Bin {
                dst: nv,
                op: rop,
                a: Opd::V(acc),
                b: value,
            });
            let init = if rop == "addf" { 2 } else { 4 };
            store = match store {
                Item::Store { buf, idx, .. } => Item::Store {
                    src: Opd::V(result),
                    buf,
                    idx,
                },
                s => s,
            };
            let (lb, ub) = fors[inner].clone();
            let rfor = Item::For(Box::new(For {
                lb,
                ub,
                step: loops[inner].step,
                body: inner_body,
                red: Some(Red {
                    acc,
                    init,
                    result,
                    yielded: Opd::V(nv),
                }),
            }));
            let mut body = outer_pre;
            body.push(rfor);
            if guard_store {
                body.push(self.guard(ks, &loops[..inner], store));
            } else {
                body.push(store);
            }
            self.wrap(&fors[..inner], &loops[..inner], body)
        } else {
            let mut body = inner_body;
            if guard_store {
                body.push(self.guard(ks, &loops, store));
            } else {
                body.push(store);
            }
            self.wrap(&fors, &loops, body)
        };
        if red {
            self.cov.reductions += 1;
        }
        self.cov.nests_by_depth[depth] += 1;
        // 9. validate: shape of a new buffer, then the rules
        let mut ex = Exec {
            shapes: ks.k.bufs.iter().map(|b| b.shape.clone()).collect(),
            syms: &ks.k.syms,
            init: ks.init.clone(),
            work: ks.work,
            stores: 0,
            collect: newb.map(|b| (b, Vec::new())),
        };
        let fail = |ks: &mut KState, newb: Option<usize>| {
            if newb.is_some() {
                ks.k.bufs.pop();
                ks.init.pop();
                ks.readers.pop();
                ks.writers.pop();
                ks.k.dealloc.pop();
            }
            None
        };
        if ex.run(&nest_items, &mut Vec::new()).is_err() {
            return fail(ks, newb);
        }
        if let Some(b) = newb {
            let pts = ex.collect.take().map(|c| c.1).unwrap_or_default();
            if pts.is_empty() {
                return fail(ks, newb);
            }
            let rank = pts[0].len();
            let shape: Vec<i64> = (0..rank)
                .map(|k| pts.iter().map(|p| p[k]).max().unwrap_or(0) + 1)
                .collect();
            if shape.iter().product::<i64>() > MAX_ELEMS {
                return fail(ks, newb);
            }
            ks.k.bufs[b].shape = shape.clone();
            ks.init[b] = vec![false; shape.iter().product::<i64>() as usize];
            ex.shapes[b] = shape;
            ex.init = ks.init.clone();
        }
        ex.work = ks.work;
        ex.stores = 0;
        if ex.run(&nest_items, &mut Vec::new()).is_err() || ex.stores == 0 {
            return fail(ks, newb);
        }
        ks.init = ex.init;
        ks.work = ex.work;
        Some((nest_items, newb))
    }

    /// Index expressions of the store into a new buffer over the loops `sl` (positions).
    fn new_store_map(&mut self, loops: &[LoopInfo], sl: &[usize], tame: bool) -> Vec<E> {
        if sl.is_empty() {
            return vec![E::Cst(self.range(0, 2))];
        }
        let norm = |g: &mut Gen, j: usize| -> E {
            let l = loops[j];
            if l.step > 1 && g.chance(60) {
                g.cov.floordiv += 1;
                d(j).plus(-l.lo).fdiv(l.step)
            } else if g.chance(20) {
                d(j)
            } else if !tame && g.chance(10) {
                g.cov.shifted += 1;
                d(j).plus(-l.lo + g.range(1, 2))
            } else {
                d(j).plus(-l.lo)
            }
        };
        if !tame
            && sl.len() == 2
            && loops[sl[0]].step == 1
            && loops[sl[1]].step == 1
            && self.chance(10)
        {
            let (a, b) = (sl[0], sl[1]);
            let ext = loops[b].hi - loops[b].lo;
            return vec![d(a)
                .plus(-loops[a].lo)
                .mul(ext)
                .add(d(b).plus(-loops[b].lo))];
        }
        if !tame && sl.len() == 1 && loops[sl[0]].hi - loops[sl[0]].lo >= 8 && self.chance(15) {
            let a = sl[0];
            let t = self.pick(&[4, 8]);
            self.cov.floordiv += 1;
            self.cov.modulo += 1;
            let e = d(a).plus(-loops[a].lo);
            return vec![e.clone().fdiv(t), e.modulo(t)];
        }
        let mut order: Vec<usize> = sl.to_vec();
        if order.len() >= 2 && self.chance(25) {
            order.reverse();
            self.cov.transposed += 1;
        }
        order.iter().map(|&j| norm(self, j)).collect()
    }

    /// `store` under a random guard over the loops in scope.
    fn guard(&mut self, ks: &KState, loops: &[LoopInfo], store: Item) -> Item {
        self.cov.guarded_stores += 1;
        let n = loops.len();
        let c = if n == 0 {
            (E::Cst(0), false)
        } else {
            let j = self.rng.below(n as u64) as usize;
            let l = loops[j];
            match self.rng.below(4) {
                0 if n >= 2 => {
                    let k = (j + 1) % n;
                    (d(j).sub(d(k)).plus(self.range(-1, 1)), false)
                }
                1 => (d(j).modulo(2), true),
                2 if !ks.k.syms.is_empty() => {
                    let s = self.rng.below(ks.k.syms.len() as u64) as usize;
                    (E::Sym(s).sub(d(j)).plus(-1), false)
                }
                _ => (d(j).plus(-self.range(l.lo, (l.lo + l.hi) / 2)), false),
            }
        };
        Item::If(Box::new(If {
            cons: vec![c],
            then: vec![store],
            els: Vec::new(),
            result: None,
        }))
    }

    fn wrap(&mut self, fors: &[(Bound, Bound)], loops: &[LoopInfo], body: Vec<Item>) -> Vec<Item> {
        let mut cur = body;
        for pos in (0..fors.len()).rev() {
            let (lb, ub) = fors[pos].clone();
            cur = vec![Item::For(Box::new(For {
                lb,
                ub,
                step: loops[pos].step,
                body: cur,
                red: None,
            }))];
        }
        cur
    }

    /// A scan: a scalar store of the first element, then a loop carrying t[i - 1] into t[i].
    fn scan(&mut self, ks: &mut KState) -> Option<Vec<Vec<Item>>> {
        let inputs: Vec<usize> = (0..ks.k.bufs.len())
            .filter(|&b| ks.k.bufs[b].role != Role::Temp && ks.k.bufs[b].shape.len() == 1)
            .collect();
        if inputs.is_empty() {
            return None;
        }
        let src = self.pick(&inputs);
        let len = ks.k.bufs[src].shape[0];
        let n = self.range(8, len.min(48));
        let t = self.add_buf(ks, Role::Temp, vec![n]);
        let v0 = ks.val();
        let first = vec![
            Item::Load {
                dst: v0,
                buf: src,
                idx: vec![E::Cst(0)],
            },
            Item::Store {
                src: Opd::V(v0),
                buf: t,
                idx: vec![E::Cst(0)],
            },
        ];
        let (a, b, c, e) = (ks.val(), ks.val(), ks.val(), ks.val());
        let off = self.range(0, len - n);
        let body = vec![
            Item::Load {
                dst: a,
                buf: t,
                idx: vec![d(0).plus(-1)],
            },
            Item::Load {
                dst: b,
                buf: src,
                idx: vec![d(0).plus(off)],
            },
            Item::Bin {
                dst: c,
                op: "mulf",
                a: Opd::V(a),
                b: Opd::C(0),
            },
            Item::Bin {
                dst: e,
                op: self.pick(&["addf", "subf", "maximumf"]),
                a: Opd::V(c),
                b: Opd::V(b),
            },
            Item::Store {
                src: Opd::V(e),
                buf: t,
                idx: vec![d(0)],
            },
        ];
        let lp = Item::For(Box::new(For {
            lb: Bound::cst(1),
            ub: Bound::cst(n),
            step: 1,
            body,
            red: None,
        }));
        let nests = vec![first, vec![lp]];
        let mut ex = Exec {
            shapes: ks.k.bufs.iter().map(|b| b.shape.clone()).collect(),
            syms: &ks.k.syms,
            init: ks.init.clone(),
            work: ks.work,
            stores: 0,
            collect: None,
        };
        for nest in &nests {
            if ex.run(nest, &mut Vec::new()).is_err() {
                ks.k.bufs.pop();
                ks.init.pop();
                ks.readers.pop();
                ks.writers.pop();
                ks.k.dealloc.pop();
                return None;
            }
        }
        ks.init = ex.init;
        ks.work = ex.work;
        self.cov.scans += 1;
        self.cov.in_place += 1;
        self.cov.nests_by_depth[0] += 1;
        self.cov.nests_by_depth[1] += 1;
        Some(nests)
    }

    /// A scalar access group: copy one element of a buffer into an output (or a temp).
    fn scalar(&mut self, ks: &mut KState) -> Option<Vec<Item>> {
        let nb = ks.k.bufs.len();
        let readable: Vec<usize> = (0..nb).filter(|&b| ks.init[b].iter().any(|x| *x)).collect();
        let outs: Vec<usize> = (0..nb)
            .filter(|&b| ks.k.bufs[b].role == Role::Output)
            .collect();
        if readable.is_empty() || outs.is_empty() {
            return None;
        }
        let src = self.pick(&readable);
        let dst = self.pick(&outs);
        let bb = ks.bbox(src)?;
        let sidx: Vec<E> = bb
            .iter()
            .map(|&(lo, hi)| E::Cst(self.range(lo, hi)))
            .collect();
        let didx: Vec<E> = ks.k.bufs[dst]
            .shape
            .clone()
            .iter()
            .map(|&s| E::Cst(self.range(0, s - 1)))
            .collect();
        let v = ks.val();
        let w = ks.val();
        let items = vec![
            Item::Load {
                dst: v,
                buf: src,
                idx: sidx,
            },
            Item::Bin {
                dst: w,
                op: "addf",
                a: Opd::V(v),
                b: Opd::C(2),
            },
            Item::Store {
                src: Opd::V(w),
                buf: dst,
                idx: didx,
            },
        ];
        let mut ex = Exec {
            shapes: ks.k.bufs.iter().map(|b| b.shape.clone()).collect(),
            syms: &ks.k.syms,
            init: ks.init.clone(),
            work: ks.work,
            stores: 0,
            collect: None,
        };
        ex.run(&items, &mut Vec::new()).ok()?;
        ks.init = ex.init;
        self.cov.nests_by_depth[0] += 1;
        Some(items)
    }

    fn record(&mut self, ks: &mut KState, items: &[Item]) {
        let n = ks.k.nests.len();
        let mut rd = BTreeSet::new();
        let mut wr = BTreeSet::new();
        walk(items, &mut |it| match it {
            Item::Load { buf, .. } => {
                rd.insert(*buf);
            }
            Item::Store { buf, .. } => {
                wr.insert(*buf);
            }
            _ => {}
        });
        for b in rd {
            ks.readers[b].push(n);
        }
        for b in wr {
            ks.writers[b].push(n);
        }
        ks.k.nests.push(items.to_vec());
    }

    fn kernel(&mut self) -> Kernel {
        let nsyms = self.rng.below(3) as usize;
        let syms: Vec<i64> = (0..nsyms).map(|_| self.range(3, 12)).collect();
        let mut ks = KState {
            k: Kernel {
                bufs: Vec::new(),
                syms,
                nests: Vec::new(),
                allocs_at_top: self.chance(50),
                dealloc: Vec::new(),
            },
            init: Vec::new(),
            next_val: 0,
            work: 0,
            readers: Vec::new(),
            writers: Vec::new(),
        };
        let ninputs = self.range(1, 3);
        for _ in 0..ninputs {
            self.new_input(&mut ks);
        }
        let nnests = self.range(2, 6);
        for _ in 0..nnests {
            if self.chance(8) {
                if let Some(ns) = self.scan(&mut ks) {
                    for n in ns {
                        self.record(&mut ks, &n);
                    }
                    continue;
                }
            }
            if self.chance(6) {
                if let Some(n) = self.scalar(&mut ks) {
                    self.record(&mut ks, &n);
                    continue;
                }
            }
            for attempt in 0..40 {
                if let Some((items, cov, _)) = self.try_nest(&mut ks, None, false, attempt >= 25) {
                    self.cov.add(&cov);
                    self.record(&mut ks, &items);
                    break;
                }
            }
        }
        // every intermediate reaches an output; at least one output
        let mut b = 0;
        while b < ks.k.bufs.len() {
            let last_write = ks.writers[b].last().copied();
            let read_after = ks.readers[b]
                .iter()
                .any(|&r| Some(r) > last_write || (Some(r) == last_write));
            let needs = ks.k.bufs[b].role == Role::Temp && !read_after;
            if needs {
                for attempt in 0..40 {
                    if let Some((items, cov, _)) =
                        self.try_nest(&mut ks, Some(b), true, attempt >= 20)
                    {
                        self.cov.add(&cov);
                        self.record(&mut ks, &items);
                        break;
                    }
                }
            }
            b += 1;
        }
        if !ks.k.bufs.iter().any(|b| b.role == Role::Output) {
            let src = ks.k.bufs.len() - 1;
            for attempt in 0..40 {
                if let Some((items, cov, _)) =
                    self.try_nest(&mut ks, Some(src), true, attempt >= 10)
                {
                    self.cov.add(&cov);
                    self.record(&mut ks, &items);
                    break;
                }
            }
        }
        // deallocs of intermediates
        let deallocs = self.chance(35);
        for b in 0..ks.k.bufs.len() {
            if ks.k.bufs[b].role == Role::Temp {
                self.cov.temps += 1;
                let readers: BTreeSet<usize> = ks.readers[b].iter().copied().collect();
                if !readers.is_empty() {
                    self.cov.chains += 1;
                }
                if readers.len() >= 2 {
                    self.cov.siblings += 1;
                }
                if deallocs && self.chance(80) {
                    ks.k.dealloc[b] = true;
                    self.cov.deallocs += 1;
                }
            }
        }
        ks.k
    }
}

/// Calls `f` on every item of `items`, nested ones included.
fn walk(items: &[Item], f: &mut dyn FnMut(&Item)) {
    for it in items {
        f(it);
        match it {
            Item::For(l) => walk(&l.body, f),
            Item::If(g) => {
                walk(&g.then, f);
                walk(&g.els, f);
            }
            _ => {}
        }
    }
}

// ------------------------------------------------------------------ printing

fn render_items(out: &mut String, k: &Kernel, items: &[Item], depth: usize, ind: usize) {
    let pad = "  ".repeat(ind);
    for it in items {
        match it {
            Item::Load { dst, buf, idx } => {
                let b = &k.bufs[*buf];
                let _ = writeln!(
                    out,
                    "{pad}%v{dst} = affine.load {}[{}] : {}",
                    b.name(*buf),
                    idx.iter().map(E::inline).collect::<Vec<_>>().join(", "),
                    b.ty()
                );
            }
            Item::Store { src, buf, idx } => {
                let b = &k.bufs[*buf];
                let _ = writeln!(
                    out,
                    "{pad}affine.store {}, {}[{}] : {}",
                    src.text(),
                    b.name(*buf),
                    idx.iter().map(E::inline).collect::<Vec<_>>().join(", "),
                    b.ty()
                );
            }
            Item::Bin { dst, op, a, b } => {
                let _ = writeln!(
                    out,
                    "{pad}%v{dst} = arith.{op} {}, {} : f32",
                    a.text(),
                    b.text()
                );
            }
            Item::If(g) => {
                let refs: Vec<&E> = g.cons.iter().map(|c| &c.0).collect();
                let (head, ops, texts) = map_parts(&refs);
                let cons: Vec<String> = texts
                    .iter()
                    .zip(&g.cons)
                    .map(|(t, (_, eq))| format!("{t} {} 0", if *eq { "==" } else { ">=" }))
                    .collect();
                let set = format!("affine_set<{head} : ({})>{ops}", cons.join(", "));
                match &g.result {
                    Some((res, ty, ey)) => {
                        let _ = writeln!(out, "{pad}%v{res} = affine.if {set} -> f32 {{");
                        render_items(out, k, &g.then, depth, ind + 1);
                        let _ = writeln!(out, "{pad}  affine.yield {} : f32", ty.text());
                        let _ = writeln!(out, "{pad}}} else {{");
                        render_items(out, k, &g.els, depth, ind + 1);
                        let _ = writeln!(out, "{pad}  affine.yield {} : f32", ey.text());
                        let _ = writeln!(out, "{pad}}}");
                    }
                    None => {
                        let _ = writeln!(out, "{pad}affine.if {set} {{");
                        render_items(out, k, &g.then, depth, ind + 1);
                        if g.els.is_empty() {
                            let _ = writeln!(out, "{pad}}}");
                        } else {
                            let _ = writeln!(out, "{pad}}} else {{");
                            render_items(out, k, &g.els, depth, ind + 1);
                            let _ = writeln!(out, "{pad}}}");
                        }
                    }
                }
            }
            Item::For(l) => {
                let step = if l.step > 1 {
                    format!(" step {}", l.step)
                } else {
                    String::new()
                };
                let head = format!(
                    "affine.for %i{depth} = {} to {}{step}",
                    l.lb.render(true),
                    l.ub.render(false)
                );
                match &l.red {
                    Some(r) => {
                        let _ = writeln!(
                            out,
                            "{pad}%v{} = {head} iter_args(%v{} = %cst{}) -> (f32) {{",
                            r.result, r.acc, r.init
                        );
                        render_items(out, k, &l.body, depth + 1, ind + 1);
                        let _ = writeln!(out, "{pad}  affine.yield {} : f32", r.yielded.text());
                    }
                    None => {
                        let _ = writeln!(out, "{pad}{head} {{");
                        render_items(out, k, &l.body, depth + 1, ind + 1);
                    }
                }
                let _ = writeln!(out, "{pad}}}");
            }
        }
    }
}

fn uses(items: &[Item], b: usize) -> bool {
    let mut hit = false;
    walk(items, &mut |it| {
        if let Item::Load { buf, .. } | Item::Store { buf, .. } = it {
            hit |= *buf == b;
        }
    });
    hit
}

/// The kernel's arguments (buffers that are not temps, in order).
fn args(k: &Kernel) -> Vec<usize> {
    (0..k.bufs.len())
        .filter(|&b| k.bufs[b].role != Role::Temp)
        .collect()
}

fn render_kernel(out: &mut String, name: &str, k: &Kernel) {
    let mut params: Vec<String> = args(k)
        .iter()
        .map(|&b| format!("{}: {}", k.bufs[b].name(b), k.bufs[b].ty()))
        .collect();
    for s in 0..k.syms.len() {
        params.push(format!("%n{s}: index"));
    }
    let _ = writeln!(out, "func.func @{name}({}) {{", params.join(", "));
    for (i, c) in CSTS.iter().enumerate() {
        let _ = writeln!(out, "  %cst{i} = arith.constant {c} : f32");
    }
    let temps: Vec<usize> = (0..k.bufs.len())
        .filter(|&b| k.bufs[b].role == Role::Temp)
        .collect();
    let first_use = |b: usize| k.nests.iter().position(|n| uses(n, b));
    let last_use = |b: usize| k.nests.iter().rposition(|n| uses(n, b));
    for &b in &temps {
        if k.allocs_at_top && first_use(b).is_some() {
            let _ = writeln!(
                out,
                "  {} = memref.alloc() : {}",
                k.bufs[b].name(b),
                k.bufs[b].ty()
            );
        }
    }
    for (n, nest) in k.nests.iter().enumerate() {
        if !k.allocs_at_top {
            for &b in &temps {
                if first_use(b) == Some(n) {
                    let _ = writeln!(
                        out,
                        "  {} = memref.alloc() : {}",
                        k.bufs[b].name(b),
                        k.bufs[b].ty()
                    );
                }
            }
        }
        render_items(out, k, nest, 0, 1);
        for &b in &temps {
            if k.dealloc[b] && last_use(b) == Some(n) {
                let _ = writeln!(
                    out,
                    "  memref.dealloc {} : {}",
                    k.bufs[b].name(b),
                    k.bufs[b].ty()
                );
            }
        }
    }
    let _ = writeln!(out, "  return\n}}\n");
}

const FILL_SCALES: [&str; 3] = ["0.5", "0.25", "1.0"];
const FILL_BIASES: [&str; 3] = ["-2.0", "-1.0", "0.5"];

fn render_main(out: &mut String, kernels: &[Kernel]) {
    let _ = writeln!(out, "func.func @main() {{");
    let mut idx_consts = BTreeSet::new();
    for k in kernels {
        for &b in &args(k) {
            idx_consts.insert(k.bufs[b].fill.0);
            idx_consts.insert(k.bufs[b].fill.1);
        }
        for &v in &k.syms {
            idx_consts.insert(v as u64);
        }
    }
    for c in &idx_consts {
        let _ = writeln!(out, "  %c{c} = arith.constant {c} : index");
    }
    for (i, s) in FILL_SCALES.iter().enumerate() {
        let _ = writeln!(out, "  %s{i} = arith.constant {s} : f32");
    }
    for (i, s) in FILL_BIASES.iter().enumerate() {
        let _ = writeln!(out, "  %b{i} = arith.constant {s} : f32");
    }
    for (ki, k) in kernels.iter().enumerate() {
        let a = args(k);
        for &b in &a {
            let buf = &k.bufs[b];
            let m = format!("%k{ki}_{b}");
            let r = buf.shape.len();
            let dynty = format!("memref<{}f32>", "?x".repeat(r));
            let _ = writeln!(out, "  {m} = memref.alloc() : {}", buf.ty());
            let _ = writeln!(out, "  {m}d = memref.cast {m} : {} to {dynty}", buf.ty());
            let _ = writeln!(
                out,
                "  call @fill{r}d({m}d, %c{}, %c{}, %s{}, %b{}) : ({dynty}, index, index, f32, f32) -> ()",
                buf.fill.0, buf.fill.1, buf.fill.2, buf.fill.3
            );
        }
        let mut ops: Vec<String> = a.iter().map(|&b| format!("%k{ki}_{b}")).collect();
        let mut tys: Vec<String> = a.iter().map(|&b| k.bufs[b].ty()).collect();
        for &v in &k.syms {
            ops.push(format!("%c{v}"));
            tys.push("index".into());
        }
        let _ = writeln!(
            out,
            "  call @kernel{ki}({}) : ({}) -> ()",
            ops.join(", "),
            tys.join(", ")
        );
        for &b in &a {
            let m = format!("%k{ki}_{b}");
            let _ = writeln!(
                out,
                "  {m}u = memref.cast {m} : {} to memref<*xf32>",
                k.bufs[b].ty()
            );
            let _ = writeln!(out, "  call @printMemrefF32({m}u) : (memref<*xf32>) -> ()");
        }
        for &b in &a {
            let _ = writeln!(out, "  memref.dealloc %k{ki}_{b} : {}", k.bufs[b].ty());
        }
    }
    let _ = writeln!(out, "  return\n}}");
    let _ = writeln!(
        out,
        "func.func private @printMemrefF32(memref<*xf32>) attributes {{ llvm.emit_c_interface }}\n"
    );
    // fill helpers: m[i,j,k] = ((i*p + j*q + k*5 + 1) mod 11) * s + b, scf only
    for r in 1..=3usize {
        let dynty = format!("memref<{}f32>", "?x".repeat(r));
        let _ = writeln!(
            out,
            "// fill{r}d: m[...] = ((i0*p + i1*q + i2*5 + 1) mod 11) * s + b (scf loops: no affine ops)"
        );
        let _ = writeln!(
            out,
            "func.func @fill{r}d(%m: {dynty}, %p: index, %q: index, %s: f32, %b: f32) {{"
        );
        let _ = writeln!(out, "  %c0 = arith.constant 0 : index");
        let _ = writeln!(out, "  %c1 = arith.constant 1 : index");
        let _ = writeln!(out, "  %c5 = arith.constant 5 : index");
        let _ = writeln!(out, "  %c11 = arith.constant 11 : index");
        let _ = writeln!(out, "  %c2 = arith.constant 2 : index");
        for k in 0..r {
            let _ = writeln!(out, "  %n{k} = memref.dim %m, %c{k} : {dynty}");
        }
        let mut pad = String::from("  ");
        for k in 0..r {
            let _ = writeln!(out, "{pad}scf.for %j{k} = %c0 to %n{k} step %c1 {{");
            pad.push_str("  ");
        }
        let coef = ["%p", "%q", "%c5"];
        let _ = writeln!(out, "{pad}%a0 = arith.addi %c1, %c0 : index");
        for (k, c) in coef.iter().enumerate().take(r) {
            let _ = writeln!(out, "{pad}%m{k} = arith.muli %j{k}, {c} : index");
            let _ = writeln!(out, "{pad}%a{} = arith.addi %a{k}, %m{k} : index", k + 1);
        }
        let _ = writeln!(out, "{pad}%r = arith.remui %a{r}, %c11 : index");
        let _ = writeln!(out, "{pad}%ri = arith.index_cast %r : index to i64");
        let _ = writeln!(out, "{pad}%rf = arith.sitofp %ri : i64 to f32");
        let _ = writeln!(out, "{pad}%x = arith.mulf %rf, %s : f32");
        let _ = writeln!(out, "{pad}%v = arith.addf %x, %b : f32");
        let idx: Vec<String> = (0..r).map(|k| format!("%j{k}")).collect();
        let _ = writeln!(
            out,
            "{pad}memref.store %v, %m[{}] : {dynty}",
            idx.join(", ")
        );
        for _ in 0..r {
            pad.truncate(pad.len() - 2);
            let _ = writeln!(out, "{pad}}}");
        }
        let _ = writeln!(out, "  return\n}}");
    }
}

/// The module text of a set of kernels.
pub fn render(seed: u64, kernels: &[Kernel]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// affgen seed {seed}: random affine program (memplan tests/support/affgen.rs)"
    );
    for (ki, k) in kernels.iter().enumerate() {
        render_kernel(&mut out, &format!("kernel{ki}"), k);
    }
    render_main(&mut out, kernels);
    out
}

/// The program of `seed`.
pub fn generate(seed: u64) -> Program {
    let mut g = Gen {
        rng: Lcg::new(seed ^ 0xAFF1_2E5E_ED00_0014),
        cov: Coverage::default(),
    };
    let nk = if g.chance(20) { 2 } else { 1 };
    let kernels: Vec<Kernel> = (0..nk).map(|_| g.kernel()).collect();
    g.cov.kernels = nk as u64;
    for k in &kernels {
        g.cov.deallocs += 0;
        debug_assert!(check_kernel(k).is_ok());
    }
    Program {
        seed,
        text: render(seed, &kernels),
        kernels,
        coverage: g.cov,
    }
}

/// Smaller variants of a program, for shrinking a failure: each drops one top-level nest of one
/// kernel, or one kernel, and still obeys the rules (checked by the interpreter). Buffers no nest
/// uses any more are dropped from the text.
pub fn shrink_candidates(p: &Program) -> Vec<Program> {
    let mut out = Vec::new();
    if p.kernels.len() > 1 {
        for drop in 0..p.kernels.len() {
            let ks: Vec<Kernel> = p
                .kernels
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != drop)
                .map(|(_, k)| k.clone())
                .collect();
            out.push(Program {
                seed: p.seed,
                text: render(p.seed, &ks),
                kernels: ks,
                coverage: p.coverage,
            });
        }
    }
    for ki in 0..p.kernels.len() {
        for n in (0..p.kernels[ki].nests.len()).rev() {
            let mut ks = p.kernels.clone();
            ks[ki].nests.remove(n);
            if ks[ki].nests.is_empty() || check_kernel(&ks[ki]).is_err() {
                continue;
            }
            out.push(Program {
                seed: p.seed,
                text: render(p.seed, &ks),
                kernels: ks,
                coverage: p.coverage,
            });
        }
    }
    // finer steps: a load becomes a constant computation, a store goes away
    for ki in 0..p.kernels.len() {
        for n in 0..p.kernels[ki].nests.len() {
            for v in item_variants(&p.kernels[ki], &p.kernels[ki].nests[n]) {
                let mut ks = p.kernels.clone();
                ks[ki].nests[n] = v;
                if check_kernel(&ks[ki]).is_err() {
                    continue;
                }
                out.push(Program {
                    seed: p.seed,
                    text: render(p.seed, &ks),
                    kernels: ks,
                    coverage: p.coverage,
                });
            }
        }
    }
    out
}

/// Copies of `items` with one access simplified away: a load replaced by `cst0 + cst1` (its
/// result stays defined), a store into an intermediate removed (stores into the kernel's
/// arguments stay, so that what is computed stays observable); nested bodies included.
fn item_variants(k: &Kernel, items: &[Item]) -> Vec<Vec<Item>> {
    let mut out = Vec::new();
    for (i, it) in items.iter().enumerate() {
        match it {
            Item::Load { dst, .. } => {
                let mut v = items.to_vec();
                v[i] = Item::Bin {
                    dst: *dst,
                    op: "addf",
                    a: Opd::C(0),
                    b: Opd::C(1),
                };
                out.push(v);
            }
            Item::Store { buf, .. } if k.bufs[*buf].role == Role::Temp => {
                let mut v = items.to_vec();
                v.remove(i);
                out.push(v);
            }
            Item::For(l) => {
                for b in item_variants(k, &l.body) {
                    let mut v = items.to_vec();
                    let mut nl = (**l).clone();
                    nl.body = b;
                    v[i] = Item::For(Box::new(nl));
                    out.push(v);
                }
            }
            Item::If(g) => {
                for b in item_variants(k, &g.then) {
                    let mut v = items.to_vec();
                    let mut ng = (**g).clone();
                    ng.then = b;
                    v[i] = Item::If(Box::new(ng));
                    out.push(v);
                }
                for b in item_variants(k, &g.els) {
                    let mut v = items.to_vec();
                    let mut ng = (**g).clone();
                    ng.els = b;
                    v[i] = Item::If(Box::new(ng));
                    out.push(v);
                }
            }
            Item::Bin { .. } | Item::Store { .. } => {}
        }
    }
    out
}
