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
//!   constant width (or, when narrower, taken from the subscripts: a source store at
//!   `±y + c` read at `g(x)` gives `y = ±(g(x) - c)`, `mod`/`floordiv` included), and
//!   clamped to `S`'s own bounds (`max`/`min` bound maps). When that slice is refused, the
//!   slice closed under `S`'s own value flow (an iteration that reads what another one of
//!   the same slice point wrote needs it too) is tried.
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
//!   the function never writes) and at most a few million accesses per function. Index
//!   arguments used directly as loop bound, `affine.if` or subscript operands (*symbols*) are
//!   modelled by `symbolic`: the check runs at every point of a finite set of their values
//!   and must pass at each, the set being one that provably covers all values (the others
//!   behave like its ends, or the original goes out of bounds there); the rewritten function
//!   must settle on the same ends. A nest that does not qualify (a symbol through arithmetic,
//!   in a written buffer's subscript without a finite in-bounds range, symbols whose values
//!   cannot be covered with a few hundred runs) is one opaque step (it reads, and may overwrite, every element of every
//!   buffer it touches) and is never fused. As upstream does, distinct memref
//!   arguments are assumed not to alias. Slices come from the same execution, not from
//!   integer sets: exact for the nests the check accepts.
//! - **Cost** (upstream's): the op instances of the fused nest against those of the two
//!   nests (`compute-tolerance`, default 0.30, ignored with `maximal`); among acceptable
//!   depths the one whose slice writes the smallest region wins (ties: the deeper one).
//! - **Shrinking.** A buffer allocated in the function and used only by affine loads and
//!   stores inside top-level nests (and `memref.dealloc`s, which are not escaping uses) is
//!   replaced by one holding, per nest, the footprint of one iteration of the loops
//!   enclosing all its accesses there, with indices rebased on an affine offset of those
//!   loops' induction variables (or one of the accesses' own subscripts, when narrower);
//!   checked the same way.
//!
//! Layout: `ir` (IR helpers), `expr` (affine expressions on values), `sim` (the abstract
//! execution: legality), `symbolic` (the values of symbols the check runs at), `slice` (covers and slice bounds), `fuse` (one fusion: candidates
//! per depth, cost), `shrink` (private buffers); this file holds the options and the
//! driver.
//!
//! Greedy mode runs producer-consumer fusion (a source with several consumers is fused
//! into all of them and then removed, or not at all), sibling fusion (kept only when it does
//! not make shrinking worse), producer-consumer fusion again, then shrinking; `producer` and
//! `sibling` run only their kind. Producer-consumer fusion visits the sources from the last
//! one back, and, where that order differs, again in upstream's order (destinations front to
//! back); the whole pipeline's result with fewer static bytes is kept (the first on a tie).

use memplan_ir::fxhash::{FxHashMap, FxHashSet};
use memplan_ir::{
    AffineExpr, AffineMap, Attribute, BlockId, IntegerSet, Module, OpId, OperationState, Span,
    Type, TypeKind, ValueDef, ValueId,
};

use crate::remarks::Remark;

mod expr;
mod fuse;
mod ir;
mod nested;
mod permute;
mod shrink;
mod sim;
mod slice;
mod symbolic;

use expr::*;
use fuse::*;
use ir::*;
use nested::*;
use permute::*;
use shrink::*;
use sim::*;
use slice::*;
use symbolic::*;

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

// The pass

#[derive(Clone)]
struct State {
    m: Module,
    origin: FxHashMap<OpId, OpId>,
}

struct FnCtx<'a> {
    /// The module before the pass (source positions of original ops).
    orig: Module,
    func: OpId,
    /// The block whose nests are fused: the function body, or a loop body (nested.rs).
    entry: BlockId,
    orig_loops: FxHashMap<OpId, Vec<OpId>>,
    /// The original's runs: one, or one per checked value of the modelled symbol.
    runs: Runs,
    /// The modelled symbols and how their values are covered.
    syms: FxHashSet<ValueId>,
    /// The modelled symbols that may be subscripts (see `symbolic::defined_range`).
    subs: FxHashSet<ValueId>,
    plan: Option<SymPlan>,
    /// (store, load) pairs of original ops where the load reads a value the store wrote
    /// (in any run).
    flows: FxHashSet<(OpId, OpId)>,
    opts: &'a AffineFusionOptions,
    place: &'a dyn Fn(Span) -> String,
    remarks: Vec<Remark>,
    fusions: usize,
    shrunk: usize,
    /// Set when a producer-consumer step had candidates that the two [`Order`]s visit in
    /// different orders (otherwise both runs of the pipeline are the same).
    order_matters: bool,
}

/// The order in which producer-consumer fusion visits the sources (FINDINGS G5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    /// The last source first.
    LastSource,
    /// Upstream's: destinations front to back, and for each the closest source first (a
    /// source is visited at its first consumer).
    FirstDestination,
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

    /// Runs `st` next to the original, once per checked value of the modelled symbol (the
    /// observer sees every run; the counts are summed over them).
    fn simulate<'s>(
        &'s self,
        st: &'s State,
        mut observer: Option<&'s mut dyn FnMut(&Access<'_>)>,
    ) -> Result<FxHashMap<OpId, u64>, String> {
        if let Some(p) = &self.plan {
            p.check(&st.m, self.func)?;
        }
        let mut total: FxHashMap<OpId, u64> = FxHashMap::default();
        for (val, reference) in &self.runs {
            let mut sim = Sim::new(
                &st.m,
                &st.origin,
                &self.orig_loops,
                Some(reference),
                &self.orig,
                self.place,
            );
            sim.syms.extend(val.iter().copied());
            sim.subs.clone_from(&self.subs);
            if let Some(o) = observer.as_mut() {
                sim.observer = Some(&mut **o);
            }
            sim.run(self.func).map_err(|e| {
                if val.is_empty() {
                    e
                } else {
                    let at: Vec<String> = val
                        .iter()
                        .map(|(s, v)| format!("{} = {v}", symbol_name(&self.orig, *s)))
                        .collect();
                    format!("{e} (when {})", at.join(", "))
                }
            })?;
            for (k, c) in sim.counts {
                *total.entry(k).or_default() += c;
            }
        }
        Ok(total)
    }

    fn nests(&self, st: &State) -> Vec<OpId> {
        st.m.block_ops(self.entry)
            .filter(|&o| name(&st.m, o) == "affine.for")
            .collect()
    }
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
    if nests.len() < 2 && !has_shrinkable(m, entry) && loop_body_blocks(m, f).is_empty() {
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
    // A symbol in loop bounds or guards: the check runs once per value it needs.
    let mut syms: FxHashSet<ValueId> = FxHashSet::default();
    let mut subs: FxHashSet<ValueId> = FxHashSet::default();
    let mut plan = None;
    let mut runs: Runs = Vec::new();
    let cands = candidate_symbols(m, f, &orig_loops, place);
    if !cands.is_empty() {
        // All symbols at once; when their points cannot be covered, each one alone (the
        // nests with the others stay opaque).
        let mut tries: Vec<Vec<ValueId>> = vec![cands.clone()];
        if cands.len() > 1 {
            tries.extend(cands.iter().map(|&c| vec![c]));
        }
        let mut first_err: Option<String> = None;
        for t in &tries {
            match plan_symbols(m, f, t, &orig_loops, place) {
                Ok((p, r)) => {
                    syms.extend(p.syms());
                    subs.extend(p.subs());
                    plan = Some(p);
                    runs = r;
                    break;
                }
                Err(why) => {
                    first_err.get_or_insert(why);
                }
            }
        }
        if let (Some(why), true) = (first_err, nests.len() >= 2) {
            let left: Vec<String> = cands
                .iter()
                .filter(|c| !syms.contains(c))
                .map(|&c| symbol_name(m, c))
                .collect();
            if !left.is_empty() {
                report.remarks.push(Remark {
                    op: f,
                    span: m.op(f).span,
                    message: format!(
                        "affine-loop-fusion: nests with {} in their bounds stay opaque: {why}",
                        left.join(", ")
                    ),
                });
            }
        }
    }
    if runs.is_empty() {
        let mut sim = Sim::new(m, &origin, &orig_loops, None, m, place);
        match sim.run(f) {
            Ok(()) => runs.push((Vec::new(), std::mem::take(&mut sim.record))),
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
    }
    // Loads, and ops the check does not model (an opaque nest reads what it may read), that
    // see a stored value: such a nest is a consumer of the store's nest.
    let flows: FxHashSet<(OpId, OpId)> = runs
        .iter()
        .flat_map(|(_, reference)| {
            let loads = reference.loads.iter().map(|(&(load, _), p)| (load, p));
            let opaque = reference
                .opaque_reads
                .iter()
                .map(|(&(op, _, _), p)| (op, p));
            loads.chain(opaque)
        })
        .filter_map(|(reader, p)| match p {
            Prov::Inst(store, _) => Some((*store, reader)),
            _ => None,
        })
        .collect();
    let mut ctx = FnCtx {
        order_matters: false,
        orig: m.clone(),
        func: f,
        entry,
        orig_loops,
        runs,
        syms,
        subs,
        plan,
        flows,
        opts,
        place,
        remarks: Vec::new(),
        fusions: 0,
        shrunk: 0,
    };
    // The pipeline in both visiting orders of producer-consumer fusion (when they differ):
    // the one with fewer static bytes wins, the first on a tie.
    let mut best: Option<(u64, State, Vec<Remark>, usize, usize)> = None;
    for order in [Order::LastSource, Order::FirstDestination] {
        if order != Order::LastSource && !ctx.order_matters {
            break;
        }
        ctx.remarks.clear();
        ctx.fusions = 0;
        ctx.shrunk = 0;
        let mut st = State {
            m: m.clone(),
            origin: origin.clone(),
        };
        // Loop bodies first, as upstream's post-order walk (nested.rs).
        fuse_in_loop_bodies(&mut ctx, &mut st, order);
        match opts.mode {
            FusionMode::Greedy => {
                producer_consumer(&mut ctx, &mut st, order);
                sibling(&mut ctx, &mut st);
                producer_consumer(&mut ctx, &mut st, order);
            }
            FusionMode::Producer => producer_consumer(&mut ctx, &mut st, order),
            FusionMode::Sibling => sibling(&mut ctx, &mut st),
        }
        shrink_all(&mut ctx, &mut st, true);
        promote_single_iteration(&mut st, f);
        let bytes = alloc_bytes(&st.m, f);
        if best.as_ref().is_none_or(|b| bytes < b.0) {
            best = Some((
                bytes,
                st,
                std::mem::take(&mut ctx.remarks),
                ctx.fusions,
                ctx.shrunk,
            ));
        }
    }
    let Some((_, st, mut remarks, fusions, shrunk)) = best else {
        return;
    };
    *m = st.m;
    report.remarks.append(&mut remarks);
    report.fusions += fusions;
    report.shrunk += shrunk;
}

/// Static bytes of the allocations in function `f`.
fn alloc_bytes(m: &Module, f: OpId) -> u64 {
    m.walk_ops(f)
        .into_iter()
        .filter(|&o| matches!(name(m, o), "memref.alloc" | "memref.alloca"))
        .filter_map(|o| m.value_type(m.result(o, 0)).static_byte_size())
        .sum()
}

fn has_shrinkable(m: &Module, entry: BlockId) -> bool {
    m.block_ops(entry)
        .any(|o| matches!(name(m, o), "memref.alloc" | "memref.alloca"))
        && m.block_ops(entry).any(|o| name(m, o) == "affine.for")
}

fn producer_consumer(ctx: &mut FnCtx<'_>, st: &mut State, order: Order) {
    let mut tried: FxHashSet<OpId> = FxHashSet::default();
    loop {
        let nests = ctx.nests(st);
        let mut progressed = false;
        // (source position, source, its consumers) for every source not tried yet.
        let mut cands: Vec<(usize, OpId, Vec<OpId>)> = Vec::new();
        for (i, &src) in nests.iter().enumerate() {
            if tried.contains(&src) {
                continue;
            }
            let writes = roots_accessed(&st.m, src, true);
            if writes.is_empty() {
                continue;
            }
            // Consumers: later nests that read a value `src` stored (in the original
            // program, which every fusion keeps: the same loads read the same stores). A
            // nest that only reads what others wrote into the same buffer is not one.
            let stores: FxHashSet<OpId> =
                st.m.walk_ops(src)
                    .into_iter()
                    .filter(|&o| name(&st.m, o) == "affine.store")
                    .map(|o| *st.origin.get(&o).unwrap_or(&o))
                    .collect();
            let consumers: Vec<OpId> = nests[i + 1..]
                .iter()
                .copied()
                .filter(|&d| {
                    roots_accessed(&st.m, d, false)
                        .iter()
                        .any(|r| writes.contains(r))
                        && std::iter::once(d).chain(st.m.walk_ops(d)).any(|o| {
                            let o = *st.origin.get(&o).unwrap_or(&o);
                            ctx.flows
                                .iter()
                                .any(|&(w, r)| r == o && stores.contains(&w))
                        })
                })
                .collect();
            if !consumers.is_empty() {
                cands.push((i, src, consumers));
            }
        }
        let first_consumer = |c: &(usize, OpId, Vec<OpId>)| {
            nests
                .iter()
                .position(|&n| n == c.2[0])
                .unwrap_or(usize::MAX)
        };
        let last_source: Vec<OpId> = cands.iter().rev().map(|c| c.1).collect();
        cands.sort_by_key(|c| (first_consumer(c), std::cmp::Reverse(c.0)));
        if cands.iter().map(|c| c.1).ne(last_source.iter().copied()) {
            ctx.order_matters = true;
        }
        if order == Order::LastSource {
            cands.sort_by_key(|c| std::cmp::Reverse(c.0));
        }
        for (_, src, consumers) in cands {
            tried.insert(src);
            let mut work = st.clone();
            let mut ok = true;
            let mut done = Vec::new();
            for (ci, &dst) in consumers.iter().enumerate() {
                let last = ci + 1 == consumers.len();
                let attempt =
                    fuse_best(ctx, &work, src, dst, Kind::Producer, last).or_else(|why| {
                        // As upstream: with the destination's sequential loops sunk innermost.
                        sink_sequential(&work, dst)
                            .and_then(|p| fuse_best(ctx, &p, src, dst, Kind::Producer, last).ok())
                            .ok_or(why)
                    });
                match attempt {
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
