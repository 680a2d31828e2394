//! `--affine-loop-fusion`: producer-consumer and sibling fusion of a function's top-level
//! `affine.for` nests, then private, shrunk buffers for the intermediates (seed 003,
//! issue 14; the options and the cost model mirror MLIR's `LoopFusion.cpp`).
//!
//! How a fusion is decided:
//!
//! - **Slice.** For a source nest `S` and a destination nest `D` fused at depth `d` (the
//!   outer `d` loops of `D` that enclose all of its accesses to the shared buffers), the
//!   slice is, per iteration `x` of those loops, the box of `S` iterations (along the loops
//!   enclosing all of `S`'s relevant accesses) that `D`'s iteration `x` needs: for
//!   producer-consumer fusion the `S` iterations that last wrote what `D` reads there
//!   (the union over all of `D`'s loads), for sibling fusion the `S` iterations reading the
//!   same elements. The box's lower corner is fitted as an affine function of `x` with a
//!   constant width, and clamped to `S`'s own bounds (`max`/`min` bound maps).
//! - **Legality, exactly.** The candidate program (slice inserted, source removed or kept,
//!   deallocations of moved buffers moved after the fused nest, buffers shrunk) is executed
//!   abstractly, iteration by iteration, next to the original: every load must read the
//!   value written by the *same* store instance (op, iteration vector of its original
//!   loops) as in the original, every executed instance must exist in the original, no
//!   access may go out of bounds or touch a deallocated buffer, and the final contents of
//!   every buffer the caller can see must come from the same instances. This covers RAW,
//!   WAR and WAW dependences, loop-carried ones and those through nests in between, and
//!   recomputation; a fusion that fails it is left alone with a remark. The check needs
//!   loop bounds that evaluate to constants (symbols may appear in subscripts of buffers
//!   the function never writes) and at most a few million accesses per function; a nest
//!   that does not qualify is one opaque step (it reads, and may overwrite, every element of
//!   every buffer it touches) and is never fused. As upstream does, distinct memref
//!   arguments are assumed not to alias. Slices come from the same execution, not from
//!   integer sets: exact for the nests the check accepts.
//! - **Cost** (upstream's): the op instances of the fused nest against those of the two
//!   nests (`compute-tolerance`, default 0.30, ignored with `maximal`); among acceptable
//!   depths the one whose slice writes the smallest region wins (ties: the deeper one).
//! - **Shrinking.** A buffer allocated in the function and used only by affine loads and
//!   stores inside top-level nests (and `memref.dealloc`s, which are not escaping uses) is
//!   replaced by one holding, per nest, the footprint of one iteration of the loops
//!   enclosing all its accesses there, with indices rebased on an affine offset of those
//!   loops' induction variables; checked the same way.
//!
//! Greedy mode runs producer-consumer fusion (a source with several consumers is fused
//! into all of them and then removed, or not at all), sibling fusion (kept only when it does
//! not make shrinking worse), producer-consumer fusion again, then shrinking; `producer` and
//! `sibling` run only their kind.

use memplan_ir::fxhash::{FxHashMap, FxHashSet};
use memplan_ir::{
    AffineExpr, AffineMap, Attribute, BlockId, IntegerSet, Module, OpId, OperationState, Span,
    Type, TypeKind, ValueDef, ValueId,
};

use crate::remarks::Remark;

/// Which fusions to perform (upstream's `mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FusionMode {
    /// Producer-consumer, then sibling, then producer-consumer again.
    Greedy,
    /// Producer-consumer only.
    Producer,
    /// Sibling only.
    Sibling,
}

/// Options of `--affine-loop-fusion` (mlir-opt-22's names and defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct AffineFusionOptions {
    /// `mode=greedy|producer|sibling`.
    pub mode: FusionMode,
    /// `maximal`: fuse at the best legal depth whatever the redundant computation.
    pub maximal: bool,
    /// `compute-tolerance`: accepted fraction of additional computation (0.30).
    pub compute_tolerance: f64,
    /// `fast-mem-space`: memory space for private buffers under the threshold.
    pub fast_mem_space: Option<u64>,
    /// `local-buf-threshold`: KiB; private buffers up to this size go to `fast-mem-space`.
    pub local_buf_threshold_kib: u64,
}

impl Default for AffineFusionOptions {
    fn default() -> Self {
        AffineFusionOptions {
            mode: FusionMode::Greedy,
            maximal: false,
            compute_tolerance: 0.30,
            fast_mem_space: None,
            local_buf_threshold_kib: 0,
        }
    }
}

impl AffineFusionOptions {
    /// Parses `mode=greedy maximal compute-tolerance=0.5 ...` (spaces or commas, optional
    /// braces). Unknown keys and bad values are errors.
    pub fn parse(text: &str) -> Result<AffineFusionOptions, String> {
        let mut o = AffineFusionOptions::default();
        for (key, value) in super::option_items(text) {
            let bad = |why: &str| {
                format!("invalid value '{value}' for affine-loop-fusion option '{key}': {why}")
            };
            match key {
                "mode" => {
                    o.mode = match value {
                        "greedy" => FusionMode::Greedy,
                        "producer" => FusionMode::Producer,
                        "sibling" => FusionMode::Sibling,
                        _ => return Err(bad("expected greedy, producer or sibling")),
                    }
                }
                "maximal" => {
                    o.maximal = match value {
                        "" | "true" | "1" => true,
                        "false" | "0" => false,
                        _ => return Err(bad("expected true or false")),
                    }
                }
                "compute-tolerance" => {
                    let v: f64 = value.parse().map_err(|_| bad("expected a number"))?;
                    if !v.is_finite() || v < 0.0 {
                        return Err(bad("expected a non-negative number"));
                    }
                    o.compute_tolerance = v;
                }
                "fast-mem-space" => {
                    o.fast_mem_space = Some(
                        value
                            .parse()
                            .map_err(|_| bad("expected an unsigned integer"))?,
                    )
                }
                "local-buf-threshold" => {
                    o.local_buf_threshold_kib = value
                        .parse()
                        .map_err(|_| bad("expected an unsigned integer"))?
                }
                _ => return Err(format!("unknown affine-loop-fusion option '{key}'")),
            }
        }
        Ok(o)
    }
}

/// What the pass did.
#[derive(Clone, Debug, Default)]
pub struct FusionReport {
    /// Why fusions or shrinkings were refused, and what was done.
    pub remarks: Vec<Remark>,
    /// Number of fusions performed.
    pub fusions: usize,
    /// Number of buffers replaced by smaller private ones.
    pub shrunk: usize,
}

/// Runs the pass over every `func.func` of the module.
pub fn affine_loop_fusion(m: &mut Module, opts: &AffineFusionOptions) -> FusionReport {
    affine_loop_fusion_with(m, opts, &|s: Span| format!("byte {}", s.start))
}

/// [`affine_loop_fusion`], with `place` rendering the source position of another nest
/// that a remark mentions (the CLI gives `line:col`).
pub fn affine_loop_fusion_with(
    m: &mut Module,
    opts: &AffineFusionOptions,
    place: &dyn Fn(Span) -> String,
) -> FusionReport {
    let mut report = FusionReport::default();
    let top = m.body();
    let funcs: Vec<OpId> = m
        .block_ops(top)
        .filter(|&o| m.op(o).name == "func.func")
        .collect();
    for f in funcs {
        run_function(m, f, opts, place, &mut report);
    }
    report
}

/// New bounds of slice loops: (lb map, lb operands, ub map, ub operands) per loop.
type Bounds = FxHashMap<OpId, (AffineMap, Vec<ValueId>, AffineMap, Vec<ValueId>)>;

/// Per iteration prefix, the `[min, max]` of each subscript (or loop value).
type Boxes = FxHashMap<Vec<i64>, Vec<(i64, i64)>>;

// ======================================================================================
// Small IR helpers
// ======================================================================================

fn name(m: &Module, op: OpId) -> &str {
    m.op(op).name.as_str()
}

fn map_prop(m: &Module, op: OpId, key: &str) -> Option<AffineMap> {
    match m.op(op).props.get(key).or_else(|| m.op(op).attrs.get(key)) {
        Some(Attribute::AffineMap(a)) => Some(a.clone()),
        _ => None,
    }
}

fn set_prop(m: &Module, op: OpId, key: &str) -> Option<IntegerSet> {
    match m.op(op).props.get(key).or_else(|| m.op(op).attrs.get(key)) {
        Some(Attribute::IntegerSet(a)) => Some(a.clone()),
        _ => None,
    }
}

fn is_memref(m: &Module, v: ValueId) -> bool {
    matches!(m.value_type(v).kind(), TypeKind::MemRef { .. })
}

/// The body block of a single-block op (loop, if-then).
fn body(m: &Module, op: OpId, region: usize) -> Option<BlockId> {
    let r = *m.regions(op).get(region)?;
    m.region_blocks(r).first().copied()
}

/// `affine.for` parts: (lb map, lb operands, ub map, ub operands, step, inits).
struct ForParts {
    lb: AffineMap,
    lb_ops: Vec<ValueId>,
    ub: AffineMap,
    ub_ops: Vec<ValueId>,
    step: i64,
    inits: Vec<ValueId>,
}

fn for_parts(m: &Module, op: OpId) -> Option<ForParts> {
    let lb = map_prop(m, op, "lowerBoundMap")?;
    let ub = map_prop(m, op, "upperBoundMap")?;
    let step = m.op(op).props.get("step").and_then(|a| a.as_int())? as i64;
    let ops = m.operands(op);
    let nl = (lb.num_dims + lb.num_symbols) as usize;
    let nu = (ub.num_dims + ub.num_symbols) as usize;
    if ops.len() < nl + nu {
        return None;
    }
    Some(ForParts {
        lb_ops: ops[..nl].to_vec(),
        ub_ops: ops[nl..nl + nu].to_vec(),
        inits: ops[nl + nu..].to_vec(),
        lb,
        ub,
        step,
    })
}

fn for_iv(m: &Module, op: OpId) -> Option<ValueId> {
    let b = body(m, op, 0)?;
    m.block_args(b).first().copied()
}

/// The memref operand, map and subscript operands of an affine access, with its kind.
fn access_parts(m: &Module, op: OpId) -> Option<(ValueId, AffineMap, Vec<ValueId>, bool)> {
    let ops = m.operands(op);
    match name(m, op) {
        "affine.load" => Some((
            *ops.first()?,
            map_prop(m, op, "map")?,
            ops.get(1..)?.to_vec(),
            false,
        )),
        "affine.store" => Some((
            *ops.get(1)?,
            map_prop(m, op, "map")?,
            ops.get(2..)?.to_vec(),
            true,
        )),
        _ => None,
    }
}

/// Top-level ancestor (in block `b`) of `op`.
fn ancestor_in(m: &Module, mut op: OpId, b: BlockId) -> Option<OpId> {
    loop {
        if m.op_block(op) == Some(b) {
            return Some(op);
        }
        op = m.parent_op(op)?;
    }
}

/// The `affine.for` ops enclosing `op` up to and including `top` (outermost first).
fn loops_within(m: &Module, op: OpId, top: OpId) -> Vec<OpId> {
    let mut out = Vec::new();
    let mut cur = if op == top { None } else { m.parent_op(op) };
    if op == top && name(m, op) == "affine.for" {
        out.push(op);
    }
    while let Some(p) = cur {
        if name(m, p) == "affine.for" {
            out.push(p);
        }
        if p == top {
            break;
        }
        cur = m.parent_op(p);
    }
    out.reverse();
    out
}

/// Longest common prefix of the enclosing loops of `ops` within `top`.
fn common_chain(m: &Module, ops: &[OpId], top: OpId) -> Vec<OpId> {
    let mut chain: Option<Vec<OpId>> = None;
    for &o in ops {
        let l = loops_within(m, o, top);
        chain = Some(match chain {
            None => l,
            Some(c) => c
                .iter()
                .zip(l.iter())
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| *a)
                .collect(),
        });
    }
    chain.unwrap_or_default()
}

/// The memref root (function argument or alloc result) of a memref value, if direct.
fn root_of(m: &Module, v: ValueId) -> Option<ValueId> {
    match m.value_def(v) {
        ValueDef::BlockArg { .. } => Some(v),
        ValueDef::OpResult { op, .. } => {
            matches!(name(m, op), "memref.alloc" | "memref.alloca").then_some(v)
        }
        ValueDef::Placeholder => None,
    }
}

/// Ops that compute on scalars only and may be cloned or recomputed freely.
fn is_pure_scalar(m: &Module, op: OpId) -> bool {
    let n = name(m, op);
    let dialect_ok = n.starts_with("arith.")
        || n.starts_with("math.")
        || matches!(
            n,
            "affine.apply" | "affine.min" | "affine.max" | "affine.yield" | "index.constant"
        );
    dialect_ok
        && m.regions(op).is_empty()
        && !m.operands(op).iter().any(|&v| is_memref(m, v))
        && !m.results(op).iter().any(|&v| is_memref(m, v))
}

/// A nest that may be cloned, sliced or removed: affine loops, ifs, loads, stores and
/// pure scalar ops only, and no results used elsewhere.
fn movable(m: &Module, nest: OpId) -> Result<(), String> {
    if m.results(nest).iter().any(|&r| !m.uses(r).is_empty()) {
        return Err("its results are used after it".into());
    }
    for o in m.walk_ops(nest) {
        let n = name(m, o);
        if matches!(
            n,
            "affine.for" | "affine.if" | "affine.load" | "affine.store"
        ) {
            continue;
        }
        if !is_pure_scalar(m, o) {
            return Err(format!("it contains '{n}'"));
        }
    }
    Ok(())
}

/// Deep copy of `op` (detached); `vmap` maps outside values (identity by default) and
/// receives the results and block arguments of the copies; `origin` records, for each new
/// op, the op it was copied from (through earlier copies). `bounds` replaces the bounds of
/// the listed loops: (lb map, lb operands, ub map, ub operands), operands before mapping.
fn clone_op(
    m: &mut Module,
    op: OpId,
    vmap: &mut FxHashMap<ValueId, ValueId>,
    origin: &mut FxHashMap<OpId, OpId>,
    bounds: &Bounds,
) -> OpId {
    let get = |vmap: &FxHashMap<ValueId, ValueId>, v: ValueId| *vmap.get(&v).unwrap_or(&v);
    let d = m.op(op).clone();
    let mut st = OperationState::new(d.name.clone());
    st.attrs = d.attrs.clone();
    st.props = d.props.clone();
    st.loc = d.loc().clone();
    if let Some((lb, lbo, ub, ubo)) = bounds.get(&op) {
        let parts = for_parts(m, op).expect("loop");
        st.operands.extend(lbo.iter().map(|&v| get(vmap, v)));
        st.operands.extend(ubo.iter().map(|&v| get(vmap, v)));
        st.operands
            .extend(parts.inits.iter().map(|&v| get(vmap, v)));
        st.props
            .set("lowerBoundMap", Attribute::AffineMap(lb.clone()));
        st.props
            .set("upperBoundMap", Attribute::AffineMap(ub.clone()));
        st.props.set(
            "operandSegmentSizes",
            Attribute::i32_array(&[lbo.len() as i64, ubo.len() as i64, parts.inits.len() as i64]),
        );
    } else {
        st.operands = m.operands(op).iter().map(|&v| get(vmap, v)).collect();
    }
    st.result_types = m
        .results(op)
        .iter()
        .map(|&r| m.value_type(r).clone())
        .collect();
    let regions: Vec<_> = m.regions(op).to_vec();
    let mut new_regions = Vec::new();
    for r in regions {
        let nr = m.create_region();
        for b in m.region_blocks(r).to_vec() {
            let nb = m.create_block();
            for a in m.block_args(b).to_vec() {
                let ty = m.value_type(a).clone();
                let na = m.add_block_arg(nb, ty, None);
                vmap.insert(a, na);
            }
            m.append_block(nr, nb);
            let ops: Vec<OpId> = m.block_ops(b).collect();
            for o in ops {
                let c = clone_op(m, o, vmap, origin, bounds);
                m.append_op(nb, c);
            }
        }
        new_regions.push(nr);
    }
    st.regions = new_regions;
    let new = m.create_op(st);
    m.op_mut(new).span = m.op(op).span;
    for (i, &r) in m.results(op).to_vec().iter().enumerate() {
        let nr = m.result(new, i);
        vmap.insert(r, nr);
    }
    let o = *origin.get(&op).unwrap_or(&op);
    origin.insert(new, o);
    new
}

// ======================================================================================
// Affine arithmetic on concrete values
// ======================================================================================

fn eval_expr(e: &AffineExpr, dims: &[i64], syms: &[i64]) -> Option<i64> {
    Some(match e {
        AffineExpr::Dim(i) => *dims.get(*i as usize)?,
        AffineExpr::Symbol(i) => *syms.get(*i as usize)?,
        AffineExpr::Const(c) => *c,
        AffineExpr::Add(a, b) => {
            eval_expr(a, dims, syms)?.checked_add(eval_expr(b, dims, syms)?)?
        }
        AffineExpr::Mul(a, b) => {
            eval_expr(a, dims, syms)?.checked_mul(eval_expr(b, dims, syms)?)?
        }
        AffineExpr::Mod(a, b) => {
            let (x, y) = (eval_expr(a, dims, syms)?, eval_expr(b, dims, syms)?);
            if y <= 0 {
                return None;
            }
            x.rem_euclid(y)
        }
        AffineExpr::FloorDiv(a, b) => {
            let (x, y) = (eval_expr(a, dims, syms)?, eval_expr(b, dims, syms)?);
            if y <= 0 {
                return None;
            }
            x.div_euclid(y)
        }
        AffineExpr::CeilDiv(a, b) => {
            let (x, y) = (eval_expr(a, dims, syms)?, eval_expr(b, dims, syms)?);
            if y <= 0 {
                return None;
            }
            let q = x.div_euclid(y);
            if q.checked_mul(y)? == x {
                q
            } else {
                q + 1
            }
        }
    })
}

/// `Σ coef[k] * d(first + k) + c`.
fn linear(coef: &[i64], first: u32, c: i64) -> AffineExpr {
    let mut e: Option<AffineExpr> = None;
    for (k, &a) in coef.iter().enumerate() {
        if a == 0 {
            continue;
        }
        let d = AffineExpr::Dim(first + k as u32);
        let t = if a == 1 { d } else { d * AffineExpr::Const(a) };
        e = Some(match e {
            None => t,
            Some(x) => x + t,
        });
    }
    match e {
        None => AffineExpr::Const(c),
        Some(x) if c == 0 => x,
        Some(x) => x + AffineExpr::Const(c),
    }
}

/// Shifts the dims of `e` at or above `from` by `by`.
fn shift_dims(e: &AffineExpr, from: u32, by: u32) -> AffineExpr {
    let r = |x: &AffineExpr| Box::new(shift_dims(x, from, by));
    match e {
        AffineExpr::Dim(i) if *i >= from => AffineExpr::Dim(i + by),
        AffineExpr::Dim(_) | AffineExpr::Symbol(_) | AffineExpr::Const(_) => e.clone(),
        AffineExpr::Add(a, b) => AffineExpr::Add(r(a), r(b)),
        AffineExpr::Mul(a, b) => AffineExpr::Mul(r(a), r(b)),
        AffineExpr::Mod(a, b) => AffineExpr::Mod(r(a), r(b)),
        AffineExpr::FloorDiv(a, b) => AffineExpr::FloorDiv(r(a), r(b)),
        AffineExpr::CeilDiv(a, b) => AffineExpr::CeilDiv(r(a), r(b)),
    }
}

/// A linear form: per-dim and per-symbol coefficients and a constant.
#[derive(Default)]
struct Lin {
    dims: std::collections::BTreeMap<u32, i64>,
    syms: std::collections::BTreeMap<u32, i64>,
    c: i64,
}

impl Lin {
    fn add(&mut self, o: &Lin, k: i64) -> Option<()> {
        for (d, v) in &o.dims {
            let e = self.dims.entry(*d).or_default();
            *e = e.checked_add(v.checked_mul(k)?)?;
        }
        for (d, v) in &o.syms {
            let e = self.syms.entry(*d).or_default();
            *e = e.checked_add(v.checked_mul(k)?)?;
        }
        self.c = self.c.checked_add(o.c.checked_mul(k)?)?;
        Some(())
    }
    fn expr(&self) -> AffineExpr {
        let mut terms: Vec<AffineExpr> = Vec::new();
        let term = |x: AffineExpr, k: i64| if k == 1 { x } else { x * AffineExpr::Const(k) };
        for (d, &k) in &self.dims {
            if k != 0 {
                terms.push(term(AffineExpr::Dim(*d), k));
            }
        }
        for (d, &k) in &self.syms {
            if k != 0 {
                terms.push(term(AffineExpr::Symbol(*d), k));
            }
        }
        let mut it = terms.into_iter();
        match it.next() {
            None => AffineExpr::Const(self.c),
            Some(first) => {
                let mut e = it.fold(first, |a, b| a + b);
                if self.c != 0 {
                    e = e + AffineExpr::Const(self.c);
                }
                e
            }
        }
    }
}

fn linearize(e: &AffineExpr) -> Option<Lin> {
    let mut l = Lin::default();
    match e {
        AffineExpr::Dim(d) => {
            l.dims.insert(*d, 1);
        }
        AffineExpr::Symbol(d) => {
            l.syms.insert(*d, 1);
        }
        AffineExpr::Const(c) => l.c = *c,
        AffineExpr::Add(a, b) => {
            l = linearize(a)?;
            l.add(&linearize(b)?, 1)?;
        }
        AffineExpr::Mul(a, b) => {
            let (x, y) = (linearize(a)?, linearize(b)?);
            let (v, k) = if y.dims.is_empty() && y.syms.is_empty() {
                (x, y.c)
            } else if x.dims.is_empty() && x.syms.is_empty() {
                (y, x.c)
            } else {
                return None;
            };
            l.add(&v, k)?;
        }
        _ => return None,
    }
    Some(l)
}

/// Folds the linear parts of an expression (`d0 + d1 - d0` is `d1`); the operands of
/// `mod`/`floordiv`/`ceildiv` are folded separately.
fn simplify(e: &AffineExpr) -> AffineExpr {
    if let Some(l) = linearize(e) {
        return l.expr();
    }
    match e {
        AffineExpr::Add(..) => {
            // Split into linear terms and the rest.
            let mut stack = vec![e];
            let mut lin = Lin::default();
            // Non-linear terms with their constant factors (equal terms fold).
            let mut rest: Vec<(AffineExpr, i64)> = Vec::new();
            while let Some(x) = stack.pop() {
                if let AffineExpr::Add(a, b) = x {
                    stack.push(b);
                    stack.push(a);
                    continue;
                }
                match linearize(x) {
                    Some(l) if lin.add(&l, 1).is_some() => {}
                    _ => {
                        let (t, k) = match x {
                            AffineExpr::Mul(a, b) => match (a.as_ref(), b.as_ref()) {
                                (t, AffineExpr::Const(k)) | (AffineExpr::Const(k), t) => {
                                    (simplify(t), *k)
                                }
                                _ => (simplify(x), 1),
                            },
                            _ => (simplify(x), 1),
                        };
                        match rest.iter_mut().find(|(u, _)| *u == t) {
                            Some((_, f)) => match f.checked_add(k) {
                                Some(v) => *f = v,
                                None => rest.push((t, k)),
                            },
                            None => rest.push((t, k)),
                        }
                    }
                }
            }
            let mut out: Option<AffineExpr> = None;
            for (t, k) in rest {
                let r = match k {
                    0 => continue,
                    1 => t,
                    _ => t * AffineExpr::Const(k),
                };
                out = Some(match out {
                    None => r,
                    Some(o) => o + r,
                });
            }
            let l = lin.expr();
            match out {
                None => l,
                Some(o) if l == AffineExpr::Const(0) => o,
                Some(o) => o + l,
            }
        }
        AffineExpr::Mul(a, b) => AffineExpr::Mul(Box::new(simplify(a)), Box::new(simplify(b))),
        AffineExpr::Mod(a, b) => AffineExpr::Mod(Box::new(simplify(a)), Box::new(simplify(b))),
        AffineExpr::FloorDiv(a, b) => {
            AffineExpr::FloorDiv(Box::new(simplify(a)), Box::new(simplify(b)))
        }
        AffineExpr::CeilDiv(a, b) => {
            AffineExpr::CeilDiv(Box::new(simplify(a)), Box::new(simplify(b)))
        }
        _ => e.clone(),
    }
}

fn rename(e: &AffineExpr, dims: &[Option<u32>], syms: &[Option<u32>]) -> AffineExpr {
    let r = |x: &AffineExpr| Box::new(rename(x, dims, syms));
    match e {
        AffineExpr::Dim(i) => AffineExpr::Dim(dims[*i as usize].unwrap_or(*i)),
        AffineExpr::Symbol(i) => AffineExpr::Symbol(syms[*i as usize].unwrap_or(*i)),
        AffineExpr::Const(_) => e.clone(),
        AffineExpr::Add(a, b) => AffineExpr::Add(r(a), r(b)),
        AffineExpr::Mul(a, b) => AffineExpr::Mul(r(a), r(b)),
        AffineExpr::Mod(a, b) => AffineExpr::Mod(r(a), r(b)),
        AffineExpr::FloorDiv(a, b) => AffineExpr::FloorDiv(r(a), r(b)),
        AffineExpr::CeilDiv(a, b) => AffineExpr::CeilDiv(r(a), r(b)),
    }
}

fn uses_of(e: &AffineExpr, dims: &mut [bool], syms: &mut [bool]) {
    match e {
        AffineExpr::Dim(i) => dims[*i as usize] = true,
        AffineExpr::Symbol(i) => syms[*i as usize] = true,
        AffineExpr::Const(_) => {}
        AffineExpr::Add(a, b)
        | AffineExpr::Mul(a, b)
        | AffineExpr::Mod(a, b)
        | AffineExpr::FloorDiv(a, b)
        | AffineExpr::CeilDiv(a, b) => {
            uses_of(a, dims, syms);
            uses_of(b, dims, syms);
        }
    }
}

/// Merges dims (and symbols) bound to the same value, drops unused ones, and folds the
/// results' linear parts.
fn compact(map: &AffineMap, operands: &[ValueId]) -> (AffineMap, Vec<ValueId>) {
    let nd = map.num_dims as usize;
    let ns = map.num_symbols as usize;
    // Same value twice: point the later one to the first.
    let mut dim_to: Vec<Option<u32>> = (0..nd as u32).map(Some).collect();
    for i in 0..nd {
        if let Some(j) = (0..i).find(|&j| operands[j] == operands[i]) {
            dim_to[i] = Some(j as u32);
        }
    }
    let mut sym_to: Vec<Option<u32>> = (0..ns as u32).map(Some).collect();
    for i in 0..ns {
        if let Some(j) = (0..i).find(|&j| operands[nd + j] == operands[nd + i]) {
            sym_to[i] = Some(j as u32);
        }
    }
    let results: Vec<AffineExpr> = map
        .results
        .iter()
        .map(|e| simplify(&rename(e, &dim_to, &sym_to)))
        .collect();
    let mut used_d = vec![false; nd];
    let mut used_s = vec![false; ns];
    for e in &results {
        uses_of(e, &mut used_d, &mut used_s);
    }
    let mut dmap = vec![None; nd];
    let mut smap = vec![None; ns];
    let mut ops = Vec::new();
    for i in 0..nd {
        if used_d[i] {
            dmap[i] = Some(ops.len() as u32);
            ops.push(operands[i]);
        }
    }
    let nd2 = ops.len() as u32;
    for i in 0..ns {
        if used_s[i] {
            smap[i] = Some(ops.len() as u32 - nd2);
            ops.push(operands[nd + i]);
        }
    }
    let results = results.iter().map(|e| rename(e, &dmap, &smap)).collect();
    (
        AffineMap {
            num_dims: nd2,
            num_symbols: ops.len() as u32 - nd2,
            results,
        },
        ops,
    )
}

/// An affine cover of per-point ranges: `lo(x) = Σ slope·x + c0` (or `expr(x)` when set),
/// `[lo(x), lo(x) + width)`.
#[derive(Clone, Debug, PartialEq)]
struct Cover {
    slope: Vec<i64>,
    c0: i64,
    width: i64,
    /// A lower corner that is not linear (`(x + 1) mod 4`), over dims `0..x.len()`.
    expr: Option<AffineExpr>,
}

impl Cover {
    /// The lower corner with `x`'s coordinates as dims `first..`.
    fn lower(&self, first: u32) -> AffineExpr {
        match &self.expr {
            Some(e) => shift_dims(e, 0, first),
            None => linear(&self.slope, first, self.c0),
        }
    }
}

/// Fits a cover to `points`: (x, min, max). Slopes are the most frequent unit differences
/// of `min` along each coordinate; the offset and width then cover every point. A
/// candidate lower corner (an expression over `x`'s coordinates) replaces that fit when it
/// is below every `min` and gives a narrower window.
/// `records` (destination iteration, source iteration) closed under `edges` (source
/// iteration, source iteration it reads from); `None` when that adds nothing or grows too
/// large.
fn close_records(
    records: &[(Vec<i64>, Vec<i64>)],
    edges: &FxHashSet<(Vec<i64>, Vec<i64>)>,
) -> Option<Vec<(Vec<i64>, Vec<i64>)>> {
    if edges.is_empty() {
        return None;
    }
    let mut succ: FxHashMap<&[i64], Vec<&[i64]>> = FxHashMap::default();
    for (r, w) in edges {
        succ.entry(r.as_slice()).or_default().push(w.as_slice());
    }
    let mut per: FxHashMap<&[i64], FxHashSet<&[i64]>> = FxHashMap::default();
    for (x, y) in records {
        per.entry(x.as_slice()).or_default().insert(y.as_slice());
    }
    let mut keys: Vec<&[i64]> = per.keys().copied().collect();
    keys.sort();
    let mut out = Vec::new();
    let mut added = false;
    let mut work = 0usize;
    for x in keys {
        let seen = per.get_mut(x)?;
        let mut stack: Vec<&[i64]> = seen.iter().copied().collect();
        stack.sort();
        while let Some(y) = stack.pop() {
            for &w in succ.get(y).map(Vec::as_slice).unwrap_or(&[]) {
                work += 1;
                if work > 4_000_000 {
                    return None;
                }
                if seen.insert(w) {
                    added = true;
                    stack.push(w);
                }
            }
        }
        let mut ys: Vec<&[i64]> = seen.iter().copied().collect();
        ys.sort();
        out.extend(ys.into_iter().map(|y| (x.to_vec(), y.to_vec())));
    }
    added.then_some(out)
}

fn fit_cover(points: &[(Vec<i64>, i64, i64)], candidates: &[AffineExpr]) -> Option<Cover> {
    let first = points.first()?;
    let n = first.0.len();
    // A coordinate equal to an earlier one plus a constant at every point (the loop of a
    // one-iteration slice, say) moves only with it: probe along the earlier one alone
    // and give the later one slope 0 (the offset absorbs the constant).
    let tied: Vec<bool> = (0..n)
        .map(|k| {
            (0..k).any(|j| {
                let c = first.0[k] - first.0[j];
                points.iter().all(|(x, _, _)| x[k] - x[j] == c)
            })
        })
        .collect();
    let free = |x: &[i64]| -> Vec<i64> {
        x.iter()
            .zip(&tied)
            .filter(|(_, &t)| !t)
            .map(|(&v, _)| v)
            .collect()
    };
    let index: FxHashMap<Vec<i64>, i64> = points.iter().map(|(x, lo, _)| (free(x), *lo)).collect();
    let mut slope = vec![0i64; n];
    for (k, s) in slope.iter_mut().enumerate() {
        if tied[k] {
            continue;
        }
        let kf = tied[..k].iter().filter(|&&t| !t).count();
        let mut freq: FxHashMap<i64, usize> = FxHashMap::default();
        for (x, lo, _) in points {
            let mut probe = free(x);
            probe[kf] += 1;
            if let Some(&l2) = index.get(&probe) {
                *freq.entry(l2 - lo).or_default() += 1;
            }
        }
        // Most frequent; ties go to the smaller magnitude, then the smaller value.
        if let Some((&v, _)) = freq
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then((b.0.abs(), *b.0).cmp(&(a.0.abs(), *a.0))))
        {
            *s = v;
        }
    }
    let dot = |x: &[i64]| -> Option<i64> {
        x.iter()
            .zip(&slope)
            .try_fold(0i64, |acc, (a, b)| acc.checked_add(a.checked_mul(*b)?))
    };
    let mut c0 = i64::MAX;
    for (x, lo, _) in points {
        c0 = c0.min(lo.checked_sub(dot(x)?)?);
    }
    let mut width = 0i64;
    for (x, _, hi) in points {
        width = width.max(hi.checked_sub(dot(x)?.checked_add(c0)?)?.checked_add(1)?);
    }
    let mut best = Cover {
        slope,
        c0,
        width,
        expr: None,
    };
    // A candidate corner (from the subscripts) that gives a narrower window wins.
    for e in candidates {
        let mut w = 0i64;
        let mut ok = true;
        for (x, lo, hi) in points {
            match eval_expr(e, x, &[]) {
                Some(v) if v <= *lo => w = w.max(hi - v + 1),
                _ => {
                    ok = false;
                    break;
                }
            }
        }
        if ok && w < best.width {
            best = Cover {
                slope: vec![0; n],
                c0: 0,
                width: w,
                expr: Some(e.clone()),
            };
        }
    }
    Some(best)
}

// ======================================================================================
// The abstract execution
// ======================================================================================

/// Where a value in memory came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Prov {
    /// The buffer's content before the function (or undefined, for a new buffer).
    Init(u32, u128),
    /// Written by this store instance (original op, packed original iteration vector).
    Inst(OpId, u128),
    /// Written by an opaque op (original op).
    Opaque(OpId),
}

/// The store instance of a write (original op, packed original iteration vector).
#[derive(Clone, Copy, Debug)]
struct Writer {
    op: OpId,
    ivs: u128,
}

const PACK_BITS: u32 = 21;
const PACK_MAX_LEN: usize = 6;

fn pack(vals: impl Iterator<Item = i64>) -> Option<u128> {
    let mut acc: u128 = 0;
    let half = 1i64 << (PACK_BITS - 1);
    for (i, v) in vals.enumerate() {
        if i >= PACK_MAX_LEN || v < -half || v >= half {
            return None;
        }
        acc = (acc << PACK_BITS) | (v + half) as u128;
    }
    Some(acc)
}

fn unpack(mut p: u128, n: usize) -> Vec<i64> {
    let half = 1i64 << (PACK_BITS - 1);
    let mut out = vec![0; n];
    for k in (0..n).rev() {
        out[k] = (p & ((1u128 << PACK_BITS) - 1)) as i64 - half;
        p >>= PACK_BITS;
    }
    out
}

/// One access seen by an observer.
struct Access<'b> {
    op: OpId,
    write: bool,
    root: ValueId,
    idx: &'b [i64],
    stack: &'b [(OpId, i64)],
    prev: Option<Writer>,
}

/// True if `v` evaluates to a constant in every iteration of the loops inside `nest`: an
/// induction variable of a loop in `nest`, a constant, or affine/integer arithmetic on those.
fn evaluable(m: &Module, v: ValueId, nest: OpId, depth: u32) -> bool {
    if depth > 64 {
        return false;
    }
    match m.value_def(v) {
        ValueDef::BlockArg { block, index } => {
            index == 0
                && m.block_region(block)
                    .and_then(|r| m.region_op(r))
                    .is_some_and(|o| name(m, o) == "affine.for" && ancestor_or_self(m, o, nest))
        }
        ValueDef::OpResult { op, .. } => match name(m, op) {
            "arith.constant" | "index.constant" => true,
            "arith.addi" | "arith.subi" | "arith.muli" | "affine.apply" | "affine.min"
            | "affine.max" => m
                .operands(op)
                .iter()
                .all(|&o| evaluable(m, o, nest, depth + 1)),
            _ => false,
        },
        ValueDef::Placeholder => false,
    }
}

fn ancestor_or_self(m: &Module, mut op: OpId, anc: OpId) -> bool {
    loop {
        if op == anc {
            return true;
        }
        match m.parent_op(op) {
            Some(p) => op = p,
            None => return false,
        }
    }
}

/// Why a top-level nest cannot be executed abstractly (then it is treated as one opaque op
/// that reads and overwrites every buffer it touches), or `None`.
fn opaque_reason(m: &Module, nest: OpId, written: &FxHashSet<ValueId>) -> Option<String> {
    for o in m.walk_ops(nest) {
        let n = name(m, o);
        let check = |vals: &[ValueId]| vals.iter().all(|&v| evaluable(m, v, nest, 0));
        match n {
            "affine.for" => {
                let p = for_parts(m, o)?;
                if !check(&p.lb_ops) || !check(&p.ub_ops) {
                    return Some("a loop bound that is not a constant".into());
                }
            }
            "affine.if" => {
                if !check(m.operands(o)) {
                    return Some("an affine.if on a value that is not a constant".into());
                }
            }
            "affine.load" | "affine.store" => {
                let (mref, _, idx, _) = access_parts(m, o)?;
                if !check(&idx) && written.contains(&mref) {
                    return Some("subscripts that are not constants".into());
                }
            }
            "memref.load" | "memref.store" => {
                let ops = m.operands(o);
                if ops.len() < 2 + usize::from(n == "memref.store") - 1 {
                    return Some(format!("a malformed '{n}'"));
                }
                let (mref, idx) = if n == "memref.store" {
                    (ops[1], &ops[2..])
                } else {
                    (ops[0], &ops[1..])
                };
                if !check(idx) && written.contains(&mref) {
                    return Some("subscripts that are not constants".into());
                }
            }
            _ => {
                if !m.regions(o).is_empty() && n != "affine.if" {
                    return Some(format!("'{n}'"));
                }
                if m.operands(o).iter().any(|&v| is_memref(m, v))
                    || m.results(o).iter().any(|&v| is_memref(m, v))
                {
                    return Some(format!("'{n}' on a buffer"));
                }
            }
        }
    }
    None
}

/// Memref values the function `f` stores to or passes to other ops (all but loads and
/// deallocations).
fn written_set(m: &Module, f: OpId) -> FxHashSet<ValueId> {
    let mut out = FxHashSet::default();
    for o in m.walk_ops(f) {
        match name(m, o) {
            "affine.store" | "memref.store" => {
                if let Some(&v) = m.operands(o).get(1) {
                    out.insert(v);
                }
            }
            "affine.load" | "memref.load" | "memref.dealloc" => {}
            _ => {
                for &v in m.operands(o) {
                    if is_memref(m, v) {
                        out.insert(v);
                    }
                }
            }
        }
    }
    out
}

/// Roots of every buffer an op (and what it nests) uses.
fn roots_used(m: &Module, op: OpId) -> Vec<ValueId> {
    let mut out = Vec::new();
    for o in m.walk_ops(op) {
        for &v in m.operands(o) {
            if is_memref(m, v) {
                let r = root_of(m, v).unwrap_or(v);
                if !out.contains(&r) {
                    out.push(r);
                }
            }
        }
    }
    out
}

/// What the reference run of the original function recorded.
#[derive(Default)]
struct Reference {
    loads: FxHashMap<(OpId, u128), Prov>,
    stores: FxHashSet<(OpId, u128)>,
    opaque_reads: FxHashMap<(OpId, u32, u128), Prov>,
    finals: FxHashMap<(u32, u128), Prov>,
}

/// Upper bound on abstract events (accesses and ops) per run.
const SIM_BUDGET: u64 = 6_000_000;

struct Sim<'a> {
    m: &'a Module,
    origin: &'a FxHashMap<OpId, OpId>,
    orig_loops: &'a FxHashMap<OpId, Vec<OpId>>,
    env: FxHashMap<ValueId, i64>,
    stack: Vec<(OpId, i64)>,
    mem: FxHashMap<(u32, u128), (Prov, Writer)>,
    shapes: FxHashMap<ValueId, Vec<i64>>,
    freed: FxHashSet<ValueId>,
    written: FxHashSet<ValueId>,
    observable: FxHashSet<ValueId>,
    reference: Option<&'a Reference>,
    record: Reference,
    counts: FxHashMap<OpId, u64>,
    /// Top-level nests executed as one opaque op.
    opaque_nests: FxHashSet<OpId>,
    events: u64,
    observer: Option<&'a mut dyn FnMut(&Access<'_>)>,
    /// The module as the pass found it (for source positions) and how to print one.
    orig: &'a Module,
    place: &'a dyn Fn(Span) -> String,
}

impl<'a> Sim<'a> {
    fn new(
        m: &'a Module,
        origin: &'a FxHashMap<OpId, OpId>,
        orig_loops: &'a FxHashMap<OpId, Vec<OpId>>,
        reference: Option<&'a Reference>,
        orig: &'a Module,
        place: &'a dyn Fn(Span) -> String,
    ) -> Sim<'a> {
        Sim {
            m,
            orig,
            place,
            origin,
            orig_loops,
            env: FxHashMap::default(),
            stack: Vec::new(),
            mem: FxHashMap::default(),
            shapes: FxHashMap::default(),
            freed: FxHashSet::default(),
            written: FxHashSet::default(),
            observable: FxHashSet::default(),
            reference,
            record: Reference::default(),
            counts: FxHashMap::default(),
            opaque_nests: FxHashSet::default(),
            events: 0,
            observer: None,
        }
    }

    fn origin(&self, op: OpId) -> OpId {
        *self.origin.get(&op).unwrap_or(&op)
    }

    /// Runs function `f`; in check mode, compares with the reference.
    fn run(&mut self, f: OpId) -> Result<(), String> {
        let entry = body(self.m, f, 0).ok_or("function without body")?;
        // Buffers the function writes (anything else may be read with unknown subscripts).
        self.written = written_set(self.m, f);
        for o in self.m.block_ops(entry) {
            if name(self.m, o) == "affine.for" && opaque_reason(self.m, o, &self.written).is_some()
            {
                self.opaque_nests.insert(o);
            }
        }
        for &a in self.m.block_args(entry) {
            if is_memref(self.m, a) {
                if let Some(s) = self.m.value_type(a).shape() {
                    self.shapes.insert(a, s.to_vec());
                }
                self.observable.insert(a);
            }
        }
        self.exec_block(entry)?;
        if let Some(r) = self.reference {
            let mut mine: FxHashMap<(u32, u128), Prov> = FxHashMap::default();
            for (k, (p, _)) in &self.mem {
                if self.observable.contains(&ValueId(k.0)) {
                    mine.insert(*k, *p);
                }
            }
            if mine != r.finals {
                return Err("the final contents of a caller-visible buffer would differ".into());
            }
        } else {
            for (k, (p, _)) in &self.mem {
                if self.observable.contains(&ValueId(k.0)) {
                    self.record.finals.insert(*k, *p);
                }
            }
        }
        Ok(())
    }

    fn tick(&mut self) -> Result<(), String> {
        self.events += 1;
        if self.events > SIM_BUDGET {
            return Err("too many iterations for the exact check".into());
        }
        Ok(())
    }

    fn eval(&self, v: ValueId, depth: u32) -> Option<i64> {
        if let Some(&x) = self.env.get(&v) {
            return Some(x);
        }
        if depth > 64 {
            return None;
        }
        let op = self.m.defining_op(v)?;
        let ops = self.m.operands(op);
        match name(self.m, op) {
            "arith.constant" | "index.constant" => self
                .m
                .op(op)
                .props
                .get("value")
                .or(self.m.op(op).attrs.get("value"))?
                .as_int()
                .and_then(|x| i64::try_from(x).ok()),
            "arith.addi" => self
                .eval(ops[0], depth + 1)?
                .checked_add(self.eval(ops[1], depth + 1)?),
            "arith.subi" => self
                .eval(ops[0], depth + 1)?
                .checked_sub(self.eval(ops[1], depth + 1)?),
            "arith.muli" => self
                .eval(ops[0], depth + 1)?
                .checked_mul(self.eval(ops[1], depth + 1)?),
            "affine.apply" | "affine.min" | "affine.max" => {
                let map = map_prop(self.m, op, "map")?;
                let vals = self.eval_map(&map, ops, depth + 1)?;
                match name(self.m, op) {
                    "affine.apply" => vals.first().copied(),
                    "affine.min" => vals.into_iter().min(),
                    _ => vals.into_iter().max(),
                }
            }
            _ => None,
        }
    }

    fn eval_map(&self, map: &AffineMap, ops: &[ValueId], depth: u32) -> Option<Vec<i64>> {
        let nd = map.num_dims as usize;
        let mut vals = Vec::with_capacity(ops.len());
        for &o in ops {
            vals.push(self.eval(o, depth)?);
        }
        if vals.len() != nd + map.num_symbols as usize {
            return None;
        }
        map.results
            .iter()
            .map(|e| eval_expr(e, &vals[..nd], &vals[nd..]))
            .collect()
    }

    /// Identity of an instance of `op`: its original op and the ivs of its original loops.
    fn identity(&self, op: OpId) -> Result<(OpId, u128), String> {
        let o = self.origin(op);
        let loops = self.orig_loops.get(&o).ok_or("an op of unknown origin")?;
        let mut vals = Vec::with_capacity(loops.len());
        for l in loops {
            let v = self
                .stack
                .iter()
                .rev()
                .find(|(cur, _)| self.origin(*cur) == *l)
                .ok_or("an op outside its original loops")?
                .1;
            vals.push(v);
        }
        Ok((
            o,
            pack(vals.into_iter()).ok_or("iteration vector out of range")?,
        ))
    }

    fn root(&self, v: ValueId) -> Result<ValueId, String> {
        root_of(self.m, v).ok_or_else(|| "a memref that is not an allocation or argument".into())
    }

    fn location(&self, root: ValueId, idx: &[i64]) -> Result<u128, String> {
        if let Some(shape) = self.shapes.get(&root) {
            if shape.len() != idx.len() {
                return Err("subscript count differs from rank".into());
            }
            for (&i, &s) in idx.iter().zip(shape) {
                if i < 0 || (s >= 0 && i >= s) {
                    return Err("an access out of bounds".into());
                }
            }
        }
        pack(idx.iter().copied()).ok_or_else(|| "subscript out of range".into())
    }

    fn access(
        &mut self,
        op: OpId,
        mref: ValueId,
        map: &AffineMap,
        operands: &[ValueId],
        write: bool,
    ) -> Result<(), String> {
        self.tick()?;
        let root = self.root(mref)?;
        if self.freed.contains(&root) {
            return Err("an access to a deallocated buffer".into());
        }
        let Some(idx) = self.eval_map(map, operands, 0) else {
            if !write && !self.written.contains(&root) {
                // A buffer the function never writes: the same subscripts read the same data.
                return Ok(());
            }
            return Err("subscripts that do not evaluate to constants".into());
        };
        let loc = self.location(root, &idx)?;
        let key = (root.0, loc);
        let id = self.identity(op)?;
        if let Some(obs) = self.observer.as_mut() {
            let prev = self.mem.get(&key).map(|x| x.1);
            obs(&Access {
                op,
                write,
                root,
                idx: &idx,
                stack: &self.stack,
                prev,
            });
        }
        if write {
            match self.reference {
                Some(r) => {
                    if !r.stores.contains(&id) {
                        return Err("a store instance that the original never executes".into());
                    }
                }
                None => {
                    self.record.stores.insert(id);
                }
            }
            let w = Writer {
                op: id.0,
                ivs: id.1,
            };
            self.mem.insert(key, (Prov::Inst(id.0, id.1), w));
        } else {
            let p = self
                .mem
                .get(&key)
                .map(|x| x.0)
                .unwrap_or(Prov::Init(root.0, loc));
            match self.reference {
                Some(r) => match r.loads.get(&id) {
                    None => return Err("a load instance that the original never executes".into()),
                    Some(q) if *q != p => {
                        return Err(format!(
                            "the load at {} would read a value other than the original's",
                            (self.place)(self.orig.op(self.origin(op)).span)
                        ))
                    }
                    _ => {}
                },
                None => {
                    self.record.loads.insert(id, p);
                }
            }
        }
        Ok(())
    }

    /// Reads then clobbers every element of a buffer (an op the pass does not model).
    fn opaque(&mut self, op: OpId, v: ValueId, writes: bool) -> Result<(), String> {
        let root = self.root(v)?;
        let shape = self
            .shapes
            .get(&root)
            .filter(|s| s.iter().all(|&d| d >= 0))
            .cloned()
            .ok_or("an unmodelled op on a dynamically shaped buffer")?;
        let total: i64 = shape.iter().product();
        if total > 1 << 22 {
            return Err("an unmodelled op on a large buffer".into());
        }
        let o = self.origin(op);
        let mut idx = vec![0i64; shape.len()];
        for _ in 0..total {
            self.tick()?;
            let loc = self.location(root, &idx)?;
            let key = (root.0, loc);
            let p = self
                .mem
                .get(&key)
                .map(|x| x.0)
                .unwrap_or(Prov::Init(root.0, loc));
            match self.reference {
                Some(r) => {
                    if r.opaque_reads.get(&(o, root.0, loc)) != Some(&p) {
                        return Err(format!(
                            "'{}' would see different buffer contents",
                            name(self.m, op)
                        ));
                    }
                }
                None => {
                    self.record.opaque_reads.insert((o, root.0, loc), p);
                }
            }
            if writes {
                let w = Writer { op: o, ivs: 0 };
                self.mem.insert(key, (Prov::Opaque(o), w));
            }
            for k in (0..shape.len()).rev() {
                idx[k] += 1;
                if idx[k] < shape[k] {
                    break;
                }
                idx[k] = 0;
            }
        }
        Ok(())
    }

    fn exec_block(&mut self, b: BlockId) -> Result<(), String> {
        let ops: Vec<OpId> = self.m.block_ops(b).collect();
        for op in ops {
            self.exec_op(op)?;
        }
        Ok(())
    }

    fn exec_op(&mut self, op: OpId) -> Result<(), String> {
        let m = self.m;
        let n = name(m, op);
        // Op instances as upstream's cost model counts them: loop bodies' ops but for the
        // loops, ifs (and what they hold) and terminators.
        if !matches!(n, "affine.for" | "affine.if" | "affine.yield")
            && m.parent_op(op).is_none_or(|p| name(m, p) != "affine.if")
        {
            *self.counts.entry(op).or_default() += 1;
        }
        match n {
            "affine.for" if self.stack.is_empty() && self.opaque_nests.contains(&op) => {
                // Read everything it touches (written buffers too: a partial write keeps the
                // rest), then overwrite everything it writes.
                let roots = roots_used(m, op);
                let written: Vec<ValueId> = m
                    .walk_ops(op)
                    .into_iter()
                    .filter_map(|o| match access_parts(m, o) {
                        Some((mref, _, _, true)) => Some(mref),
                        _ => match name(m, o) {
                            "affine.load" | "memref.load" => None,
                            _ => m.operands(o).iter().copied().find(|&v| is_memref(m, v)),
                        },
                    })
                    .filter_map(|v| root_of(m, v))
                    .collect();
                for r in roots {
                    let w = written.contains(&r);
                    self.opaque(op, r, w)?;
                }
            }
            "affine.for" => {
                let p = for_parts(m, op).ok_or("malformed affine.for")?;
                let lb = self
                    .eval_map(&p.lb, &p.lb_ops, 0)
                    .and_then(|v| v.into_iter().max())
                    .ok_or("a loop bound that does not evaluate to a constant")?;
                let ub = self
                    .eval_map(&p.ub, &p.ub_ops, 0)
                    .and_then(|v| v.into_iter().min())
                    .ok_or("a loop bound that does not evaluate to a constant")?;
                if p.step <= 0 {
                    return Err("a non-positive step".into());
                }
                let b = body(m, op, 0).ok_or("loop without body")?;
                let iv = m.block_args(b)[0];
                let mut i = lb;
                while i < ub {
                    self.tick()?;
                    self.env.insert(iv, i);
                    self.stack.push((op, i));
                    self.exec_block(b)?;
                    self.stack.pop();
                    i = i.checked_add(p.step).ok_or("loop overflow")?;
                }
                self.env.remove(&iv);
            }
            "affine.if" => {
                let set = set_prop(m, op, "condition").ok_or("malformed affine.if")?;
                let ops = m.operands(op);
                let mut vals = Vec::new();
                for &v in ops {
                    vals.push(
                        self.eval(v, 0)
                            .ok_or("an affine.if operand that does not evaluate")?,
                    );
                }
                let nd = set.num_dims as usize;
                if vals.len() != nd + set.num_symbols as usize {
                    return Err("malformed affine.if".into());
                }
                let mut holds = true;
                for (e, eq) in &set.constraints {
                    let v = eval_expr(e, &vals[..nd], &vals[nd..])
                        .ok_or("an affine.if condition that does not evaluate")?;
                    if (*eq && v != 0) || (!*eq && v < 0) {
                        holds = false;
                    }
                }
                let region = if holds { 0 } else { 1 };
                if let Some(b) = body(m, op, region) {
                    self.exec_block(b)?;
                }
            }
            "affine.load" | "affine.store" => {
                let (mref, map, idx, write) = access_parts(m, op).ok_or("malformed access")?;
                self.access(op, mref, &map, &idx, write)?;
            }
            "memref.load" | "memref.store" => {
                let ops = m.operands(op);
                let write = n == "memref.store";
                if ops.len() < 1 + usize::from(write) {
                    return Err(format!("malformed '{n}'"));
                }
                let mref = if write { ops[1] } else { ops[0] };
                let idx = if write { &ops[2..] } else { &ops[1..] };
                let map = AffineMap {
                    num_dims: idx.len() as u32,
                    num_symbols: 0,
                    results: (0..idx.len() as u32).map(AffineExpr::Dim).collect(),
                };
                self.access(op, mref, &map, idx, write)?;
            }
            "memref.alloc" | "memref.alloca" => {
                if !self.stack.is_empty() {
                    return Err("an allocation inside a loop".into());
                }
                let r = m.result(op, 0);
                let shape = m
                    .value_type(r)
                    .shape()
                    .ok_or("unranked allocation")?
                    .to_vec();
                self.shapes.insert(r, shape);
                // A new buffer: forget anything an earlier run of this op left.
                self.mem.retain(|k, _| k.0 != r.0);
                self.freed.remove(&r);
            }
            "memref.dealloc" => {
                if !self.stack.is_empty() {
                    return Err("a deallocation inside a loop".into());
                }
                let v = *m.operands(op).first().ok_or("malformed memref.dealloc")?;
                let r = self.root(v)?;
                self.freed.insert(r);
            }
            "func.return" => {
                for &v in m.operands(op) {
                    if is_memref(m, v) {
                        let r = self.root(v)?;
                        self.observable.insert(r);
                    }
                }
            }
            _ => {
                if !m.regions(op).is_empty() {
                    return Err(format!(
                        "'{n}' (an op with regions the pass does not model)"
                    ));
                }
                if m.results(op).iter().any(|&r| is_memref(m, r)) {
                    return Err(format!("'{n}' (a view or cast of a buffer)"));
                }
                let mrefs: Vec<ValueId> = m
                    .operands(op)
                    .iter()
                    .copied()
                    .filter(|&v| is_memref(m, v))
                    .collect();
                if !mrefs.is_empty() {
                    if !self.stack.is_empty() {
                        return Err(format!("'{n}' on a buffer inside a loop"));
                    }
                    for v in mrefs {
                        self.opaque(op, v, true)?;
                    }
                }
            }
        }
        Ok(())
    }
}

// ======================================================================================
// The pass
// ======================================================================================

#[derive(Clone)]
struct State {
    m: Module,
    origin: FxHashMap<OpId, OpId>,
}

struct FnCtx<'a> {
    /// The module before the pass (source positions of original ops).
    orig: Module,
    func: OpId,
    entry: BlockId,
    orig_loops: FxHashMap<OpId, Vec<OpId>>,
    reference: Reference,
    opts: &'a AffineFusionOptions,
    place: &'a dyn Fn(Span) -> String,
    remarks: Vec<Remark>,
    fusions: usize,
    shrunk: usize,
}

impl FnCtx<'_> {
    fn remark(&mut self, st: &State, op: OpId, msg: String) {
        let span = st.m.op(op).span;
        let text = format!("affine-loop-fusion: {msg}");
        if !self
            .remarks
            .iter()
            .any(|r| r.message == text && r.span == span)
        {
            self.remarks.push(Remark {
                op,
                span,
                message: text,
            });
        }
    }

    fn simulate<'s>(
        &'s self,
        st: &'s State,
        observer: Option<&'s mut dyn FnMut(&Access<'_>)>,
    ) -> Result<FxHashMap<OpId, u64>, String> {
        let mut sim = Sim::new(
            &st.m,
            &st.origin,
            &self.orig_loops,
            Some(&self.reference),
            &self.orig,
            self.place,
        );
        sim.observer = observer;
        sim.run(self.func)?;
        Ok(sim.counts)
    }

    fn nests(&self, st: &State) -> Vec<OpId> {
        st.m.block_ops(self.entry)
            .filter(|&o| name(&st.m, o) == "affine.for")
            .collect()
    }
}

fn pos(m: &Module, b: BlockId, op: OpId) -> usize {
    m.block_ops(b).position(|o| o == op).unwrap_or(usize::MAX)
}

fn run_function(
    m: &mut Module,
    f: OpId,
    opts: &AffineFusionOptions,
    place: &dyn Fn(Span) -> String,
    report: &mut FusionReport,
) {
    let Some(entry) = body(m, f, 0) else {
        return;
    };
    if m.region_blocks(m.regions(f)[0]).len() != 1 {
        return;
    }
    let nests: Vec<OpId> = m
        .block_ops(entry)
        .filter(|&o| name(m, o) == "affine.for")
        .collect();
    if nests.len() < 2 && !has_shrinkable(m, entry) {
        return;
    }
    // Original loops of every op (the identity of its instances).
    let mut orig_loops: FxHashMap<OpId, Vec<OpId>> = FxHashMap::default();
    for o in m.walk_ops(f) {
        let mut l = Vec::new();
        let mut cur = m.parent_op(o);
        while let Some(p) = cur {
            if p == f {
                break;
            }
            if name(m, p) == "affine.for" {
                l.push(p);
            }
            cur = m.parent_op(p);
        }
        l.reverse();
        orig_loops.insert(o, l);
    }
    let origin = FxHashMap::default();
    let reference = {
        let mut sim = Sim::new(m, &origin, &orig_loops, None, m, place);
        match sim.run(f) {
            Ok(()) => std::mem::take(&mut sim.record),
            Err(why) => {
                if nests.len() >= 2 {
                    report.remarks.push(Remark {
                        op: f,
                        span: m.op(f).span,
                        message: format!(
                            "affine-loop-fusion: function left alone: the exact dependence check cannot model it: {why}"
                        ),
                    });
                }
                return;
            }
        }
    };
    let mut ctx = FnCtx {
        orig: m.clone(),
        func: f,
        entry,
        orig_loops,
        reference,
        opts,
        place,
        remarks: Vec::new(),
        fusions: 0,
        shrunk: 0,
    };
    let mut st = State {
        m: m.clone(),
        origin,
    };
    match opts.mode {
        FusionMode::Greedy => {
            producer_consumer(&mut ctx, &mut st);
            sibling(&mut ctx, &mut st);
            producer_consumer(&mut ctx, &mut st);
        }
        FusionMode::Producer => producer_consumer(&mut ctx, &mut st),
        FusionMode::Sibling => sibling(&mut ctx, &mut st),
    }
    shrink_all(&mut ctx, &mut st, true);
    promote_single_iteration(&mut st, f);
    *m = st.m;
    report.remarks.append(&mut ctx.remarks);
    report.fusions += ctx.fusions;
    report.shrunk += ctx.shrunk;
}

fn has_shrinkable(m: &Module, entry: BlockId) -> bool {
    m.block_ops(entry)
        .any(|o| matches!(name(m, o), "memref.alloc" | "memref.alloca"))
        && m.block_ops(entry).any(|o| name(m, o) == "affine.for")
}

/// Roots of the buffers `nest` stores to / loads from.
fn roots_accessed(m: &Module, nest: OpId, write: bool) -> Vec<ValueId> {
    let mut out = Vec::new();
    for o in m.walk_ops(nest) {
        if let Some((mref, _, _, w)) = access_parts(m, o) {
            if w == write {
                if let Some(r) = root_of(m, mref) {
                    if !out.contains(&r) {
                        out.push(r);
                    }
                }
            }
        }
    }
    out
}

fn accesses_to(m: &Module, nest: OpId, roots: &[ValueId], want: Option<bool>) -> Vec<OpId> {
    m.walk_ops(nest)
        .into_iter()
        .filter(|&o| {
            access_parts(m, o).is_some_and(|(mref, _, _, w)| {
                want.is_none_or(|x| x == w) && root_of(m, mref).is_some_and(|r| roots.contains(&r))
            })
        })
        .collect()
}

/// Builds bounds for the slice loops of `chain` (in the source) from `covers`, as functions
/// of `xs` (the destination's induction variables, whose value ranges are `xr` when
/// known). A `None` cover keeps the loop's bounds. A constant bound of the source loop that
/// the cover never crosses is dropped (and the cover, when it never passes the constant).
fn slice_bounds(
    m: &Module,
    chain: &[OpId],
    covers: &[Option<Cover>],
    xs: &[ValueId],
    xr: &[Option<(i64, i64)>],
) -> Result<Bounds, String> {
    let mut out = FxHashMap::default();
    let d = xs.len() as u32;
    // Range of `Σ slope·x + c` over the destination's iteration box, when known.
    let range = |c: &Cover, add: i64| -> Option<(i64, i64)> {
        if c.expr.is_some() {
            return None;
        }
        let (mut lo, mut hi) = (c.c0.checked_add(add)?, c.c0.checked_add(add)?);
        for (k, &a) in c.slope.iter().enumerate() {
            if a == 0 {
                continue;
            }
            let (l, h) = (*xr.get(k)?)?;
            let (p, q) = (a.checked_mul(l)?, a.checked_mul(h)?);
            lo = lo.checked_add(p.min(q))?;
            hi = hi.checked_add(p.max(q))?;
        }
        Some((lo, hi))
    };
    let constant = |map: &AffineMap| match map.results.as_slice() {
        [AffineExpr::Const(c)] => Some(*c),
        _ => None,
    };
    for (l, c) in chain.iter().zip(covers) {
        let Some(c) = c else { continue };
        let p = for_parts(m, *l).ok_or("malformed loop")?;
        // lower: max(cover, orig); upper: min(cover + width, orig).
        let build = |orig: &AffineMap, ops: &[ValueId], add: i64, lower: bool| {
            let extra = simplify(&(c.lower(0) + AffineExpr::Const(add)));
            let r = range(c, add);
            if let (Some(k), Some((lo, hi))) = (constant(orig), r) {
                let (keep_extra, keep_orig) = if lower {
                    (hi > k, lo < k)
                } else {
                    (lo < k, hi > k)
                };
                if !keep_orig {
                    return (
                        AffineMap {
                            num_dims: d,
                            num_symbols: 0,
                            results: vec![extra],
                        },
                        xs.to_vec(),
                    );
                }
                if !keep_extra {
                    return (orig.clone(), ops.to_vec());
                }
            }
            let mut results = vec![extra];
            results.extend(orig.results.iter().map(|e| shift_dims(e, 0, d)));
            let map = AffineMap {
                num_dims: orig.num_dims + d,
                num_symbols: orig.num_symbols,
                results,
            };
            let mut operands = xs.to_vec();
            operands.extend_from_slice(ops);
            (map, operands)
        };
        let w = c.width;
        let (lbm, lbo) = build(&p.lb, &p.lb_ops, 0, true);
        let (ubm, ubo) = build(&p.ub, &p.ub_ops, w, false);
        let (lbm, lbo) = compact(&lbm, &lbo);
        let (ubm, ubo) = compact(&ubm, &ubo);
        out.insert(*l, (lbm, lbo, ubm, ubo));
    }
    Ok(out)
}

/// Constant `[lb, ub - 1]` of each loop, when its bounds are constants.
fn const_ranges(m: &Module, loops: &[OpId]) -> Vec<Option<(i64, i64)>> {
    loops
        .iter()
        .map(|&l| {
            let p = for_parts(m, l)?;
            match (p.lb.results.as_slice(), p.ub.results.as_slice()) {
                ([AffineExpr::Const(a)], [AffineExpr::Const(b)]) if a < b => Some((*a, *b - 1)),
                _ => None,
            }
        })
        .collect()
}

/// The subscripts of access `op` as expressions over `xs` (dim `k` is `xs[k]`), where they
/// use only those values and constants.
fn subscripts_over(m: &Module, op: OpId, xs: &[ValueId]) -> Vec<Option<AffineExpr>> {
    let Some((_, map, idx, _)) = access_parts(m, op) else {
        return Vec::new();
    };
    let nd = map.num_dims as usize;
    let dims: Vec<Option<u32>> = idx[..nd]
        .iter()
        .map(|v| xs.iter().position(|x| x == v).map(|p| p as u32))
        .collect();
    map.results
        .iter()
        .map(|e| {
            let mut ud = vec![false; nd];
            let mut us = vec![false; map.num_symbols as usize];
            uses_of(e, &mut ud, &mut us);
            if us.iter().any(|&u| u) || ud.iter().zip(&dims).any(|(&u, d)| u && d.is_none()) {
                return None;
            }
            Some(simplify(&rename(e, &dims, &[])))
        })
        .collect()
}

/// Candidate lower corners of the slice, per source chain level, as expressions over the
/// destination's `xs`: where a source store's subscript is `±y + c` in one chain loop's
/// induction variable `y`, a destination load of the same buffer with subscript `g(xs)`
/// there needs `y = ±(g(xs) - c)` (this keeps `mod`/`floordiv` subscripts exact).
fn slice_candidates(
    m: &Module,
    src_stores: &[OpId],
    src_chain: &[OpId],
    dst_loads: &[OpId],
    xs: &[ValueId],
) -> Vec<Vec<AffineExpr>> {
    let ivs: Vec<Option<ValueId>> = src_chain.iter().map(|&l| for_iv(m, l)).collect();
    let mut out: Vec<Vec<AffineExpr>> = vec![Vec::new(); src_chain.len()];
    for &s in src_stores {
        let Some((mref, map, idx, true)) = access_parts(m, s) else {
            continue;
        };
        let root = root_of(m, mref);
        let loads: Vec<Vec<Option<AffineExpr>>> = dst_loads
            .iter()
            .filter(|&&l| access_parts(m, l).is_some_and(|a| root_of(m, a.0) == root))
            .map(|&l| subscripts_over(m, l, xs))
            .collect();
        for (r, e) in map.results.iter().enumerate() {
            let Some(lin) = linearize(e) else { continue };
            if lin.syms.values().any(|&k| k != 0) {
                continue;
            }
            let used: Vec<(u32, i64)> = lin
                .dims
                .iter()
                .filter(|(_, &k)| k != 0)
                .map(|(&d, &k)| (d, k))
                .collect();
            let [(p, a)] = used.as_slice() else { continue };
            if a.abs() != 1 {
                continue;
            }
            let Some(j) = idx
                .get(*p as usize)
                .and_then(|v| ivs.iter().position(|x| *x == Some(*v)))
            else {
                continue;
            };
            for g in loads.iter().filter_map(|l| l.get(r).cloned().flatten()) {
                let c = AffineExpr::Const(lin.c);
                let cand = simplify(&if *a == 1 { g - c } else { c - g });
                if !out[j].contains(&cand) {
                    out[j].push(cand);
                }
            }
        }
    }
    out
}

/// Candidate offsets for dimension `j` of a shrunk buffer: the accesses' own subscripts
/// over the induction variables of `chain`.
fn shrink_candidates(st: &State, ops: &[OpId], chain: &[OpId], j: usize) -> Vec<AffineExpr> {
    let xs: Vec<ValueId> = chain.iter().filter_map(|&l| for_iv(&st.m, l)).collect();
    let mut out: Vec<AffineExpr> = Vec::new();
    for &o in ops {
        if let Some(Some(e)) = subscripts_over(&st.m, o, &xs).get(j) {
            if !out.contains(e) {
                out.push(e.clone());
            }
        }
    }
    out
}

/// Per destination prefix (first `d` values of the recorded x), the min/max of each
/// source chain level; then a cover per level.
#[allow(clippy::needless_range_loop)]
fn covers_at(
    records: &[(Vec<i64>, Vec<i64>)],
    d: usize,
    k: usize,
    candidates: &[Vec<AffineExpr>],
) -> Option<Vec<Cover>> {
    let mut per: Boxes = FxHashMap::default();
    for (x, y) in records {
        let e = per
            .entry(x[..d].to_vec())
            .or_insert_with(|| vec![(i64::MAX, i64::MIN); k]);
        for (ej, &yj) in e.iter_mut().zip(y) {
            ej.0 = ej.0.min(yj);
            ej.1 = ej.1.max(yj);
        }
    }
    let mut keys: Vec<&Vec<i64>> = per.keys().collect();
    keys.sort();
    let mut out = Vec::new();
    for j in 0..k {
        let pts: Vec<(Vec<i64>, i64, i64)> = keys
            .iter()
            .map(|x| ((*x).clone(), per[*x][j].0, per[*x][j].1))
            .collect();
        out.push(fit_cover(
            &pts,
            candidates.get(j).map_or(&[], Vec::as_slice),
        )?);
    }
    Some(out)
}

/// Ops of `st` nested in `nest` (itself included).
fn cost_of(m: &Module, counts: &FxHashMap<OpId, u64>, nest: OpId) -> u64 {
    m.walk_ops(nest)
        .iter()
        .map(|o| counts.get(o).copied().unwrap_or(0))
        .sum()
}

/// Upper corner minus lower corner of the boxes of `points` (per key) for the accesses.
fn region_elems(boxes: &Boxes) -> u64 {
    let mut ext: Vec<i64> = Vec::new();
    for b in boxes.values() {
        if ext.len() < b.len() {
            ext.resize(b.len(), 0);
        }
        for (j, (lo, hi)) in b.iter().enumerate() {
            ext[j] = ext[j].max(hi - lo + 1);
        }
    }
    ext.iter().map(|&e| e.max(0) as u64).product::<u64>().max(1)
}

fn elem_bytes(m: &Module, root: ValueId) -> u64 {
    m.value_type(root)
        .element_type()
        .and_then(|t| t.byte_size())
        .unwrap_or(4)
}

/// Kind of fusion attempted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Producer,
    Sibling,
}

struct Candidate {
    st: State,
    depth: usize,
    storage_reduction: f64,
    extra: f64,
}

/// Tries to fuse `src` into `dst`, returning the best candidate over the depths.
fn fuse_best(
    ctx: &FnCtx<'_>,
    st: &State,
    src: OpId,
    dst: OpId,
    kind: Kind,
    remove_src: bool,
) -> Result<Candidate, String> {
    let m = &st.m;
    movable(m, src).map_err(|e| format!("the source nest cannot be moved: {e}"))?;
    let written = written_set(m, ctx.func);
    if let Some(why) = opaque_reason(m, src, &written) {
        return Err(format!("the source nest holds {why}"));
    }
    if let Some(why) = opaque_reason(m, dst, &written) {
        return Err(format!("the destination nest holds {why}"));
    }
    let shared: Vec<ValueId> = match kind {
        Kind::Producer => {
            let w = roots_accessed(m, src, true);
            roots_accessed(m, dst, false)
                .into_iter()
                .filter(|r| w.contains(r))
                .collect()
        }
        Kind::Sibling => {
            let r = roots_accessed(m, src, false);
            roots_accessed(m, dst, false)
                .into_iter()
                .filter(|x| r.contains(x))
                .collect()
        }
    };
    if shared.is_empty() {
        return Err("no shared buffer".into());
    }
    let dst_ops = accesses_to(m, dst, &shared, None);
    let dst_chain = common_chain(m, &dst_ops, dst);
    let src_ops = match kind {
        Kind::Producer => accesses_to(m, src, &shared, Some(true)),
        Kind::Sibling => accesses_to(m, src, &shared, Some(false)),
    };
    let src_chain = common_chain(m, &src_ops, src);
    if dst_chain.is_empty() || src_chain.is_empty() {
        return Err("no common loop".into());
    }
    let k = src_chain.len();
    let dn = dst_chain.len();
    // One run of the current program: which source iterations each destination iteration
    // needs, and the costs.
    let mut records: Vec<(Vec<i64>, Vec<i64>)> = Vec::new();
    let mut sib_dst: Vec<(Vec<i64>, u32, u128)> = Vec::new();
    let mut sib_src: FxHashMap<(u32, u128), Vec<Vec<i64>>> = FxHashMap::default();
    let mut src_box: Vec<(i64, i64)> = Vec::new();
    let src_set: FxHashSet<OpId> = m.walk_ops(src).into_iter().collect();
    let dst_set: FxHashSet<OpId> = m.walk_ops(dst).into_iter().collect();
    let shared_set: FxHashSet<ValueId> = shared.iter().copied().collect();
    let origin_of = |o: &OpId| *st.origin.get(o).unwrap_or(o);
    let src_store_origins: FxHashSet<OpId> = src_ops.iter().map(origin_of).collect();
    let src_chain_origins: Vec<OpId> = src_chain.iter().map(origin_of).collect();
    let src_all_store_origins: FxHashSet<OpId> = src_set
        .iter()
        .filter(|&&o| access_parts(m, o).is_some_and(|(_, _, _, w)| w))
        .map(origin_of)
        .collect();
    // Values flowing inside the source: (reading iteration, writing iteration) of the source
    // chain loops, for loads that read what another source iteration stored.
    let mut inner_edges: FxHashSet<(Vec<i64>, Vec<i64>)> = FxHashSet::default();
    // The source chain values of a store instance (through the origins of its loops).
    let writer_chain = |w: Writer| -> Option<Vec<i64>> {
        let loops = ctx.orig_loops.get(&w.op)?;
        let ws = unpack(w.ivs, loops.len());
        src_chain_origins
            .iter()
            .map(|l| loops.iter().position(|x| x == l).map(|p| ws[p]))
            .collect()
    };
    let counts = {
        let mut obs = |a: &Access<'_>| {
            if !a.write && src_set.contains(&a.op) {
                if let Some(w) = a.prev.filter(|w| src_all_store_origins.contains(&w.op)) {
                    let reader: Option<Vec<i64>> = src_chain
                        .iter()
                        .map(|l| a.stack.iter().find(|(o, _)| o == l).map(|x| x.1))
                        .collect();
                    if let (Some(r), Some(wy)) = (reader, writer_chain(w)) {
                        if r != wy {
                            inner_edges.insert((r, wy));
                        }
                    }
                }
            }
            if !shared_set.contains(&a.root) {
                return;
            }
            let chain_vals = |chain: &[OpId], stack: &[(OpId, i64)]| -> Option<Vec<i64>> {
                chain
                    .iter()
                    .map(|l| stack.iter().find(|(o, _)| o == l).map(|x| x.1))
                    .collect()
            };
            if src_set.contains(&a.op) && a.write {
                if src_box.len() < a.idx.len() {
                    src_box.resize(a.idx.len(), (i64::MAX, i64::MIN));
                }
                for (j, &i) in a.idx.iter().enumerate() {
                    src_box[j].0 = src_box[j].0.min(i);
                    src_box[j].1 = src_box[j].1.max(i);
                }
            }
            match kind {
                Kind::Producer => {
                    if a.write || !dst_set.contains(&a.op) {
                        return;
                    }
                    let Some(w) = a.prev else { return };
                    if !src_store_origins.contains(&w.op) {
                        return;
                    }
                    // The writer's values of the source chain loops (through their origins).
                    let Some(y) = writer_chain(w) else { return };
                    if let Some(x) = chain_vals(&dst_chain, a.stack) {
                        records.push((x, y));
                    }
                }
                Kind::Sibling => {
                    if a.write {
                        return;
                    }
                    let Some(loc) = pack(a.idx.iter().copied()) else {
                        return;
                    };
                    if dst_set.contains(&a.op) {
                        if let Some(x) = chain_vals(&dst_chain, a.stack) {
                            sib_dst.push((x, a.root.0, loc));
                        }
                    } else if src_set.contains(&a.op) {
                        if let Some(y) = chain_vals(&src_chain, a.stack) {
                            sib_src.entry((a.root.0, loc)).or_default().push(y);
                        }
                    }
                }
            }
        };
        ctx.simulate(st, Some(&mut obs))?
    };
    if kind == Kind::Sibling {
        for (x, r, loc) in &sib_dst {
            if let Some(ys) = sib_src.get(&(*r, *loc)) {
                for y in ys {
                    records.push((x.clone(), y.clone()));
                }
            }
        }
    }
    if records.is_empty() {
        return Err("no dependence to fuse along".into());
    }
    // The slice of the needed iterations alone is tried first (earlier destination
    // iterations' slices may have run what they read); if that is not legal, the slice
    // closed under the source's own value flow.
    let mut variants = vec![records];
    if let Some(closed) = close_records(&variants[0], &inner_edges) {
        variants.push(closed);
    }
    let src_cost = cost_of(m, &counts, src) as f64;
    let dst_cost = cost_of(m, &counts, dst) as f64;
    let elem = shared.iter().map(|&r| elem_bytes(m, r)).max().unwrap_or(4);
    let src_region = src_box
        .iter()
        .map(|(lo, hi)| (hi - lo + 1).max(0) as u64)
        .product::<u64>()
        .max(1)
        * elem;
    let mut best: Option<Candidate> = None;
    let mut why: Vec<String> = Vec::new();
    for d in (1..=dn).rev() {
        let mut failed: Option<String> = None;
        for records in &variants {
            let xs: Vec<ValueId> = dst_chain[..d]
                .iter()
                .filter_map(|&l| for_iv(m, l))
                .collect();
            let cands = if kind == Kind::Producer {
                slice_candidates(
                    m,
                    &src_ops,
                    &src_chain,
                    &accesses_to(m, dst, &shared, Some(false)),
                    &xs,
                )
            } else {
                Vec::new()
            };
            let Some(covers) = covers_at(records, d, k, &cands) else {
                continue;
            };
            // Loops carrying values keep their full range.
            let covers: Vec<Option<Cover>> = covers
                .into_iter()
                .zip(&src_chain)
                .map(|(c, &l)| {
                    let carried = for_parts(m, l).is_some_and(|p| !p.inits.is_empty());
                    (!carried).then_some(c)
                })
                .collect();
            let xr = const_ranges(m, &dst_chain[..d]);
            let bounds = match slice_bounds(m, &src_chain, &covers, &xs, &xr) {
                Ok(b) => b,
                Err(e) => {
                    failed.get_or_insert(format!("depth {d}: {e}"));
                    continue;
                }
            };
            let mut cand = st.clone();
            let clone_root = match build_fused(
                &mut cand,
                ctx.entry,
                src,
                dst,
                &dst_chain[d - 1],
                kind,
                &bounds,
                remove_src,
            ) {
                Ok(c) => c,
                Err(e) => {
                    failed.get_or_insert(format!("depth {d}: {e}"));
                    continue;
                }
            };
            let clone_set: FxHashSet<OpId> = cand.m.walk_ops(clone_root).into_iter().collect();
            let mut slice_boxes: Boxes = FxHashMap::default();
            let chain_d: Vec<OpId> = dst_chain[..d].to_vec();
            let res = {
                let mut obs = |a: &Access<'_>| {
                    if !a.write || !clone_set.contains(&a.op) || !shared_set.contains(&a.root) {
                        return;
                    }
                    let x: Option<Vec<i64>> = chain_d
                        .iter()
                        .map(|l| a.stack.iter().find(|(o, _)| o == l).map(|v| v.1))
                        .collect();
                    if let Some(x) = x {
                        let e = slice_boxes
                            .entry(x)
                            .or_insert_with(|| vec![(i64::MAX, i64::MIN); a.idx.len()]);
                        for (j, &i) in a.idx.iter().enumerate() {
                            if j < e.len() {
                                e[j].0 = e[j].0.min(i);
                                e[j].1 = e[j].1.max(i);
                            }
                        }
                    }
                };
                ctx.simulate(&cand, Some(&mut obs))
            };
            let new_counts = match res {
                Ok(c) => c,
                Err(e) => {
                    failed.get_or_insert(format!("depth {d}: {e}"));
                    continue;
                }
            };
            let fused_cost = cost_of(&cand.m, &new_counts, dst) as f64;
            let extra = fused_cost / (src_cost + dst_cost).max(1.0) - 1.0;
            if !ctx.opts.maximal && extra > ctx.opts.compute_tolerance {
                failed.get_or_insert(format!(
                    "depth {d}: {:.0}% redundant computation exceeds the tolerance of {:.0}%",
                    extra * 100.0,
                    ctx.opts.compute_tolerance * 100.0
                ));
                break;
            }
            let slice_region = region_elems(&slice_boxes) * elem;
            let reduction = src_region as f64 / slice_region.max(1) as f64;
            if best
                .as_ref()
                .is_none_or(|b| reduction > b.storage_reduction)
            {
                best = Some(Candidate {
                    st: cand,
                    depth: d,
                    storage_reduction: reduction,
                    extra,
                });
            }
            failed = None;
            break;
        }
        why.extend(failed);
    }
    best.ok_or_else(|| {
        if why.is_empty() {
            "no slice could be computed".to_string()
        } else {
            why.join("; ")
        }
    })
}

/// Inserts a slice copy of `src` (with `bounds`) into `dst`'s loop `at`; returns the copy.
#[allow(clippy::too_many_arguments)]
fn build_fused(
    st: &mut State,
    entry: BlockId,
    src: OpId,
    dst: OpId,
    at: &OpId,
    kind: Kind,
    bounds: &Bounds,
    remove_src: bool,
) -> Result<OpId, String> {
    let m = &mut st.m;
    let src_pos = pos(m, entry, src);
    let dst_pos = pos(m, entry, dst);
    // Values the copy uses must be available at the destination.
    if kind == Kind::Sibling {
        let inside: FxHashSet<OpId> = m.walk_ops(src).into_iter().collect();
        let mut hoist = Vec::new();
        for o in m.walk_ops(src) {
            for &v in m.operands(o) {
                if let Some(d) = m.defining_op(v) {
                    if inside.contains(&d) {
                        continue;
                    }
                    if m.op_block(d) == Some(entry) && pos(m, entry, d) > dst_pos {
                        let n = name(m, d);
                        let ok = m.operands(d).is_empty()
                            && m.regions(d).is_empty()
                            && (n == "arith.constant"
                                || ((n == "memref.alloc" || n == "memref.alloca")
                                    && m.value_type(m.result(d, 0))
                                        .shape()
                                        .is_some_and(|s| s.iter().all(|&x| x >= 0))));
                        if !ok {
                            return Err(format!(
                                "the source uses a value defined by '{n}' after the destination"
                            ));
                        }
                        if !hoist.contains(&d) {
                            hoist.push(d);
                        }
                    }
                }
            }
        }
        hoist.sort_by_key(|&d| pos(m, entry, d));
        for d in hoist {
            m.move_before(d, dst);
        }
    }
    let mut vmap = FxHashMap::default();
    let copy = clone_op(m, src, &mut vmap, &mut st.origin, bounds);
    let b = body(m, *at, 0).ok_or("loop without body")?;
    match kind {
        Kind::Producer => m.prepend_op(b, copy),
        Kind::Sibling => {
            let term = m.last_op(b).ok_or("loop without terminator")?;
            m.insert_before(term, copy);
        }
    }
    if kind == Kind::Producer && src_pos < dst_pos {
        // Deallocations between the source and the destination of buffers the copy uses
        // go after the destination.
        let used: FxHashSet<ValueId> = m
            .walk_ops(copy)
            .into_iter()
            .flat_map(|o| m.operands(o).to_vec())
            .filter_map(|v| root_of(m, v))
            .collect();
        let between: Vec<OpId> = m
            .block_ops(entry)
            .skip(src_pos + 1)
            .take(dst_pos.saturating_sub(src_pos + 1))
            .filter(|&o| {
                name(m, o) == "memref.dealloc"
                    && m.operands(o)
                        .first()
                        .and_then(|&v| root_of(m, v))
                        .is_some_and(|r| used.contains(&r))
            })
            .collect();
        let mut anchor = dst;
        for d in between {
            m.detach_op(d);
            m.insert_after(anchor, d);
            anchor = d;
        }
    }
    if remove_src {
        m.erase_op(src);
    }
    Ok(copy)
}

fn producer_consumer(ctx: &mut FnCtx<'_>, st: &mut State) {
    let mut tried: FxHashSet<OpId> = FxHashSet::default();
    loop {
        let nests = ctx.nests(st);
        let mut progressed = false;
        for (i, &src) in nests.iter().enumerate().rev() {
            if tried.contains(&src) {
                continue;
            }
            let writes = roots_accessed(&st.m, src, true);
            if writes.is_empty() {
                continue;
            }
            let consumers: Vec<OpId> = nests[i + 1..]
                .iter()
                .copied()
                .filter(|&d| {
                    roots_accessed(&st.m, d, false)
                        .iter()
                        .any(|r| writes.contains(r))
                })
                .collect();
            if consumers.is_empty() {
                continue;
            }
            tried.insert(src);
            let mut work = st.clone();
            let mut ok = true;
            let mut done = Vec::new();
            for (ci, &dst) in consumers.iter().enumerate() {
                let last = ci + 1 == consumers.len();
                match fuse_best(ctx, &work, src, dst, Kind::Producer, last) {
                    Ok(c) => {
                        done.push((dst, c.depth, c.extra));
                        work = c.st;
                    }
                    Err(why) => {
                        let msg = format!(
                            "loop nest not fused into the consumer nest at {}: {why}",
                            span_text(ctx, &st.m, dst)
                        );
                        ctx.remark(st, src, msg);
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                for (dst, d, extra) in done {
                    let msg = format!(
                        "producer loop nest fused into the nest at {} at depth {d} ({:.0}% additional computation)",
                        span_text(ctx, &st.m, dst),
                        extra * 100.0
                    );
                    ctx.remark(st, src, msg);
                    ctx.fusions += 1;
                }
                *st = work;
                progressed = true;
                break;
            }
        }
        if !progressed {
            break;
        }
    }
}

fn span_text(ctx: &FnCtx<'_>, m: &Module, op: OpId) -> String {
    let s = m.op(op).span;
    if s.start == 0 && s.end == 0 {
        "a nest the pass created".to_string()
    } else {
        (ctx.place)(s)
    }
}

fn sibling(ctx: &mut FnCtx<'_>, st: &mut State) {
    let mut tried: FxHashSet<(OpId, OpId)> = FxHashSet::default();
    loop {
        let nests = ctx.nests(st);
        let mut progressed = false;
        'outer: for (i, &dst) in nests.iter().enumerate() {
            let reads = roots_accessed(&st.m, dst, false);
            for &src in &nests[i + 1..] {
                if tried.contains(&(dst, src)) {
                    continue;
                }
                if !roots_accessed(&st.m, src, false)
                    .iter()
                    .any(|r| reads.contains(r))
                {
                    continue;
                }
                tried.insert((dst, src));
                match fuse_best(ctx, st, src, dst, Kind::Sibling, true) {
                    Ok(c) => {
                        if ctx.opts.mode == FusionMode::Greedy {
                            // Keep it only if the buffers shrink at least as well.
                            let before = shrunk_bytes(ctx, st);
                            let after = shrunk_bytes(ctx, &c.st);
                            if after > before {
                                let msg = format!(
                                    "sibling loop nest not fused into the nest at {}: the private buffers would grow ({after} B > {before} B)",
                                    span_text(ctx, &st.m, dst)
                                );
                                ctx.remark(st, src, msg);
                                continue;
                            }
                        }
                        let msg = format!(
                            "sibling loop nest fused into the nest at {} at depth {} ({:.0}% additional computation)",
                            span_text(ctx, &st.m, dst),
                            c.depth,
                            c.extra * 100.0
                        );
                        ctx.remark(st, src, msg);
                        ctx.fusions += 1;
                        *st = c.st;
                        progressed = true;
                        break 'outer;
                    }
                    Err(why) => {
                        let msg = format!(
                            "sibling loop nest not fused into the nest at {}: {why}",
                            span_text(ctx, &st.m, dst)
                        );
                        ctx.remark(st, src, msg);
                    }
                }
            }
        }
        if !progressed {
            break;
        }
    }
}

/// Static bytes of the function's allocations after shrinking (on a copy).
fn shrunk_bytes(ctx: &mut FnCtx<'_>, st: &State) -> u64 {
    let mut copy = st.clone();
    let saved = (ctx.remarks.len(), ctx.shrunk);
    shrink_all(ctx, &mut copy, false);
    ctx.remarks.truncate(saved.0);
    ctx.shrunk = saved.1;
    copy.m
        .walk_ops(ctx.func)
        .into_iter()
        .filter(|&o| matches!(name(&copy.m, o), "memref.alloc" | "memref.alloca"))
        .filter_map(|o| copy.m.value_type(copy.m.result(o, 0)).static_byte_size())
        .sum()
}

// ======================================================================================
// Shrinking
// ======================================================================================

fn shrink_all(ctx: &mut FnCtx<'_>, st: &mut State, report: bool) {
    let allocs: Vec<OpId> =
        st.m.block_ops(ctx.entry)
            .filter(|&o| matches!(name(&st.m, o), "memref.alloc" | "memref.alloca"))
            .collect();
    for a in allocs {
        match shrink_one(ctx, st, a) {
            Ok(Some((new, old_b, new_b))) => {
                if report {
                    let ty = st.m.value_type(st.m.result(new, 0)).to_string();
                    let msg = format!("buffer shrunk from {old_b} B to {new_b} B ({ty})");
                    ctx.remark(st, a, msg);
                }
                ctx.shrunk += 1;
            }
            Ok(None) => {}
            Err(why) => {
                if report {
                    ctx.remark(st, a, format!("buffer not shrunk: {why}"));
                }
            }
        }
    }
}

/// Replaces the buffer of `alloc` by a smaller one if every use allows; returns the new
/// alloc and the byte sizes.
fn shrink_one(
    ctx: &FnCtx<'_>,
    st: &mut State,
    alloc: OpId,
) -> Result<Option<(OpId, u64, u64)>, String> {
    let m = &st.m;
    let buf = m.result(alloc, 0);
    let ty = m.value_type(buf).clone();
    let TypeKind::MemRef {
        shape,
        elem,
        layout,
        memory_space,
    } = ty.kind()
    else {
        return Ok(None);
    };
    if layout.is_some() || shape.iter().any(|&s| s < 0) || !m.operands(alloc).is_empty() {
        return Ok(None);
    }
    let old_bytes = ty.static_byte_size().unwrap_or(0);
    let mut groups: Vec<(OpId, Vec<OpId>)> = Vec::new();
    let mut deallocs = Vec::new();
    for u in m.uses(buf) {
        let n = name(m, u.op);
        match n {
            "memref.dealloc" => {
                if m.op_block(u.op) != Some(ctx.entry) {
                    return Err("it is deallocated inside a region".into());
                }
                deallocs.push(u.op);
            }
            "affine.load" | "affine.store" => {
                if n == "affine.store" && u.index == 0 {
                    return Err("it is stored as a value".into());
                }
                let top =
                    ancestor_in(m, u.op, ctx.entry).ok_or("a use outside the function body")?;
                if top == u.op || name(m, top) != "affine.for" {
                    return Ok(None);
                }
                match groups.iter_mut().find(|g| g.0 == top) {
                    Some(g) => g.1.push(u.op),
                    None => groups.push((top, vec![u.op])),
                }
            }
            _ => return Ok(None),
        }
    }
    if groups.is_empty() {
        return Ok(None);
    }
    let written = written_set(m, ctx.func);
    if let Some(why) = groups.iter().find_map(|g| opaque_reason(m, g.0, &written)) {
        return Err(format!("a nest using it holds {why}"));
    }
    groups.sort_by_key(|g| pos(m, ctx.entry, g.0));
    for g in &mut groups {
        g.1.sort();
    }
    let chains: Vec<Vec<OpId>> = groups
        .iter()
        .map(|(top, ops)| common_chain(m, ops, *top))
        .collect();
    let max_len = chains.iter().map(|c| c.len()).max().unwrap_or(0);
    let rank = shape.len();
    let mut last_err = String::from("no smaller footprint");
    for t in 0..=max_len {
        let depths: Vec<usize> = chains.iter().map(|c| c.len().saturating_sub(t)).collect();
        // Footprint per group and prefix.
        let mut boxes: Vec<Boxes> = vec![FxHashMap::default(); groups.len()];
        let group_of: FxHashMap<OpId, usize> = groups
            .iter()
            .enumerate()
            .flat_map(|(i, g)| g.1.iter().map(move |&o| (o, i)))
            .collect();
        {
            let mut obs = |a: &Access<'_>| {
                if a.root != buf {
                    return;
                }
                let Some(&g) = group_of.get(&a.op) else {
                    return;
                };
                let x: Option<Vec<i64>> = chains[g][..depths[g]]
                    .iter()
                    .map(|l| a.stack.iter().find(|(o, _)| o == l).map(|v| v.1))
                    .collect();
                let Some(x) = x else { return };
                let e = boxes[g]
                    .entry(x)
                    .or_insert_with(|| vec![(i64::MAX, i64::MIN); rank]);
                for (j, &i) in a.idx.iter().enumerate().take(rank) {
                    e[j].0 = e[j].0.min(i);
                    e[j].1 = e[j].1.max(i);
                }
            };
            ctx.simulate(st, Some(&mut obs))?;
        }
        let mut covers: Vec<Vec<Cover>> = Vec::new();
        let mut new_shape = vec![1i64; rank];
        let mut fail = false;
        for (gi, b) in boxes.iter().enumerate() {
            let mut keys: Vec<&Vec<i64>> = b.keys().collect();
            keys.sort();
            let mut per = Vec::new();
            for j in 0..rank {
                let pts: Vec<(Vec<i64>, i64, i64)> = keys
                    .iter()
                    .map(|x| ((*x).clone(), b[*x][j].0, b[*x][j].1))
                    .collect();
                match fit_cover(
                    &pts,
                    &shrink_candidates(st, &groups[gi].1, &chains[gi][..depths[gi]], j),
                ) {
                    Some(c) => {
                        new_shape[j] = new_shape[j].max(c.width);
                        per.push(c);
                    }
                    None => {
                        fail = true;
                        break;
                    }
                }
            }
            if fail || per.len() != rank {
                fail = true;
                break;
            }
            covers.push(per);
        }
        if fail {
            continue;
        }
        let elem_b = elem.byte_size().unwrap_or(4);
        let new_bytes = new_shape.iter().map(|&s| s.max(0) as u64).product::<u64>() * elem_b;
        if new_bytes >= old_bytes {
            continue;
        }
        // The rewrite, on a copy.
        let mut cand = st.clone();
        let space = match ctx.opts.fast_mem_space {
            Some(s) if new_bytes <= ctx.opts.local_buf_threshold_kib.saturating_mul(1024) => {
                (s != 0).then(|| Attribute::int(i128::from(s), Type::int(64)))
            }
            _ => memory_space.clone(),
        };
        let new_ty = Type::new(TypeKind::MemRef {
            shape: new_shape.clone(),
            elem: elem.clone(),
            layout: None,
            memory_space: space,
        });
        let cm = &mut cand.m;
        let mut ast = OperationState::new(cm.op(alloc).name.clone());
        ast.props = cm.op(alloc).props.clone();
        ast.attrs = cm.op(alloc).attrs.clone();
        ast.loc = cm.op(alloc).loc().clone();
        ast.result_types.push(new_ty);
        let new_alloc = cm.create_op(ast);
        cm.op_mut(new_alloc).span = cm.op(alloc).span;
        cm.insert_before(alloc, new_alloc);
        let nb = cm.result(new_alloc, 0);
        for (g, (_, ops)) in groups.iter().enumerate() {
            let xs: Vec<ValueId> = chains[g][..depths[g]]
                .iter()
                .filter_map(|&l| for_iv(cm, l))
                .collect();
            for &op in ops {
                let (_, map, idx, write) = access_parts(cm, op).ok_or("malformed access")?;
                let nd = map.num_dims;
                let d = xs.len() as u32;
                let results: Vec<AffineExpr> = map
                    .results
                    .iter()
                    .zip(&covers[g])
                    .map(|(e, c)| {
                        let off = c.lower(nd);
                        if off == AffineExpr::Const(0) {
                            e.clone()
                        } else {
                            simplify(&(e.clone() - off))
                        }
                    })
                    .collect();
                let new_map = AffineMap {
                    num_dims: nd + d,
                    num_symbols: map.num_symbols,
                    results,
                };
                let mut operands = Vec::new();
                let old_ops = cm.operands(op).to_vec();
                if write {
                    operands.push(old_ops[0]);
                }
                operands.push(nb);
                operands.extend_from_slice(&idx[..nd as usize]);
                operands.extend_from_slice(&xs);
                operands.extend_from_slice(&idx[nd as usize..]);
                let split = usize::from(write) + 1;
                let (new_map, idx_ops) = compact(&new_map, &operands[split..]);
                operands.truncate(split);
                operands.extend(idx_ops);
                replace_access(cm, &mut cand.origin, op, new_map, operands);
            }
        }
        for &dl in &deallocs {
            cm.set_operand(dl, 0, nb);
        }
        cm.erase_op(alloc);
        match ctx.simulate(&cand, None) {
            Ok(_) => {
                *st = cand;
                return Ok(Some((new_alloc, old_bytes, new_bytes)));
            }
            Err(e) => last_err = e,
        }
    }
    Err(last_err)
}

// ======================================================================================
// Clean-up: single-iteration slice loops
// ======================================================================================

/// Recreates an affine load/store with a new map and subscript operands.
fn rebuild_access(st: &mut State, op: OpId, map: AffineMap, idx: Vec<ValueId>) {
    let m = &mut st.m;
    let Some((mref, _, _, write)) = access_parts(m, op) else {
        return;
    };
    let mut operands = Vec::new();
    if write {
        operands.push(m.operands(op)[0]);
    }
    operands.push(mref);
    operands.extend(idx);
    replace_access(m, &mut st.origin, op, map, operands);
}

/// Replaces the affine load/store `op` by a copy with map `map` and operands `operands`
/// (value to store, memref, subscripts), keeping its results' uses and its origin.
fn replace_access(
    m: &mut Module,
    origin: &mut FxHashMap<OpId, OpId>,
    op: OpId,
    map: AffineMap,
    operands: Vec<ValueId>,
) {
    let mut s2 = OperationState::new(m.op(op).name.clone());
    s2.props = m.op(op).props.clone();
    s2.props.set("map", Attribute::AffineMap(map));
    s2.attrs = m.op(op).attrs.clone();
    s2.loc = m.op(op).loc().clone();
    s2.operands = operands;
    s2.result_types = m
        .results(op)
        .iter()
        .map(|&r| m.value_type(r).clone())
        .collect();
    let new_op = m.create_op(s2);
    m.op_mut(new_op).span = m.op(op).span;
    m.insert_before(op, new_op);
    for (i, r) in m.results(op).to_vec().into_iter().enumerate() {
        let nr = m.result(new_op, i);
        m.replace_all_uses(r, nr);
    }
    m.erase_op(op);
    let o = *origin.get(&op).unwrap_or(&op);
    origin.insert(new_op, o);
}

/// Replaces each loop the pass created that runs exactly once (`lb` to `lb + 1`, no
/// iteration arguments) by its body, its induction variable by the lower bound; then folds
/// the subscripts of every affine access of the function.
fn promote_single_iteration(st: &mut State, func: OpId) {
    let loops: Vec<OpId> =
        st.m.walk_ops(func)
            .into_iter()
            .filter(|&o| name(&st.m, o) == "affine.for" && st.origin.contains_key(&o))
            .collect();
    for l in loops {
        let m = &mut st.m;
        let Some(p) = for_parts(m, l) else { continue };
        if !p.inits.is_empty() || p.lb.results.len() != 1 || p.ub.results.len() != 1 {
            continue;
        }
        if p.lb_ops != p.ub_ops || p.lb.num_dims != p.ub.num_dims {
            continue;
        }
        let (Some(a), Some(b)) = (linearize(&p.lb.results[0]), linearize(&p.ub.results[0])) else {
            continue;
        };
        let mut diff = b;
        if diff.add(&a, -1).is_none()
            || diff.dims.values().any(|&v| v != 0)
            || diff.syms.values().any(|&v| v != 0)
            || diff.c != 1
        {
            continue;
        }
        let Some(iv) = for_iv(m, l) else { continue };
        // The value of the induction variable.
        let value = match (&p.lb.results[0], p.lb_ops.as_slice()) {
            (AffineExpr::Dim(0), [v]) if p.lb.num_dims == 1 => *v,
            (AffineExpr::Symbol(0), [v]) if p.lb.num_dims == 0 => *v,
            _ => {
                let mut s2 = OperationState::new("affine.apply");
                s2.props.set("map", Attribute::AffineMap(p.lb.clone()));
                s2.operands = p.lb_ops.clone();
                s2.result_types.push(Type::index());
                let ap = m.create_op(s2);
                m.insert_before(l, ap);
                let o = *st.origin.get(&l).unwrap_or(&l);
                st.origin.insert(ap, o);
                st.m.result(ap, 0)
            }
        };
        let m = &mut st.m;
        m.replace_all_uses(iv, value);
        let Some(b) = body(m, l, 0) else { continue };
        let ops: Vec<OpId> = m.block_ops(b).collect();
        for o in ops {
            if name(m, o) == "affine.yield" {
                continue;
            }
            m.detach_op(o);
            m.insert_before(l, o);
        }
        m.erase_op(l);
    }
    let accesses: Vec<OpId> =
        st.m.walk_ops(func)
            .into_iter()
            .filter(|&o| access_parts(&st.m, o).is_some())
            .collect();
    for op in accesses {
        let Some((_, map, idx, _)) = access_parts(&st.m, op) else {
            continue;
        };
        let (nm, nidx) = compact(&map, &idx);
        if nm != map || nidx != idx {
            rebuild_access(st, op, nm, nidx);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse() {
        let o = AffineFusionOptions::parse("mode=producer maximal compute-tolerance=0.5").unwrap();
        assert_eq!(o.mode, FusionMode::Producer);
        assert!(o.maximal);
        assert_eq!(o.compute_tolerance, 0.5);
        assert!(AffineFusionOptions::parse("mode=bogus").is_err());
        assert!(AffineFusionOptions::parse("fusion-maximal").is_err());
        assert!(AffineFusionOptions::parse("{mode=sibling,maximal=false}").is_ok());
    }

    #[test]
    fn cover_fits_clamped_windows() {
        // min(x) = max(x - 1, 0), max(x) = x + 1: slope 1, offset -1, width 3.
        let pts: Vec<(Vec<i64>, i64, i64)> =
            (0..10).map(|x| (vec![x], (x - 1).max(0), x + 1)).collect();
        let c = fit_cover(&pts, &[]).unwrap();
        assert_eq!(c.slope, vec![1]);
        assert_eq!(c.c0, -1);
        assert_eq!(c.width, 3);
    }

    #[test]
    fn pack_roundtrip() {
        let v = vec![-3, 0, 17, 1000];
        assert_eq!(unpack(pack(v.iter().copied()).unwrap(), 4), v);
    }
}
