//! reorder-for-memory: move independent ops within a block so that buffers die
//! earlier, with the schedulers of [`memplan_sched`] (issue 15).
//!
//! For every block (function bodies, loop and branch bodies; not symbol tables
//! such as `builtin.module`) the pass builds a dependency DAG over the block's
//! ops, its last op (the terminator) pinned at the end:
//!
//! - **SSA**: an op follows the op of the same block defining any value it, or
//!   an op nested in its regions, uses;
//! - **memory effects**: every op gets the buffers it reads and writes, as
//!   alias classes from [`BufferViewFlow`] (one class per `memref.alloc` of
//!   the module; every other origin — function arguments, foreign buffers —
//!   falls into one shared class, since those may alias each other). Loads
//!   read, stores and `memref.dealloc` write, `memref.copy` reads its source
//!   and writes its target, a linalg op reads its `ins` and writes its `outs`;
//!   an op with regions that the pass understands (`scf.*`, `affine.*`, ...)
//!   has the effects of the ops nested in it. Pure ops (`arith`, `math`,
//!   `index`, views, `memref.alloc`, `memref.dim`, ...) have none. Anything
//!   else — calls, unknown ops, printing — is a **barrier**: ordered against
//!   every op with an effect. Two ops are ordered, in their original order,
//!   when one writes a class the other reads or writes, or one is a barrier and
//!   the other has any effect.
//!
//! Any topological order of that DAG computes the same values. The memory
//! model handed to the scheduler: a buffer per static `memref.alloc` of the
//! block (its bytes), made by the alloc op, read by every op of the block that
//! touches its class (directly, through a view, or inside its regions; a free
//! is not a use, as in merge-alloc's lifetimes), and live to the end when the
//! terminator touches it. The chosen scheduler orders
//! the block (sizes rounded up to the alignment, as merge-alloc places them);
//! the new order is applied only when both its peak and its placed arena
//! (memplan-core's portfolio) are below the original order's — otherwise the
//! block is left alone, with a remark — after an independent check that it
//! respects every edge. Last, since the model is not merge-alloc's own (whose
//! lifetimes run from first to last access, and which leaves escaping buffers
//! out), merge-alloc runs on copies of the module with and without the new
//! orders: a function keeps its new orders only when its static heap bytes
//! after merge-alloc do not grow.

use std::collections::HashMap;
use std::time::Duration;

use memplan_ir::{Attribute, BlockId, Module, OpId, TypeKind};
use memplan_sched::{schedule, Graph, ScheduleOptions, Scheduler};

use crate::analysis::alias::BufferViewFlow;
use crate::ops::{classify, element_bytes, is_pointer_like, OpKind};
use crate::remarks::Remark;

/// Options: `schedule=NAME` (default `best`), `alignment=N` (default 64),
/// `time-limit=SECS` of the `exact` scheduler per block (default 2),
/// `node-limit=N` of its search (default 200000).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReorderOptions {
    /// The scheduler.
    pub scheduler: Scheduler,
    /// Wall-clock limit of `exact` per block.
    pub time_limit: Duration,
    /// Node budget of `exact` per block (keeps the output deterministic).
    pub node_limit: u64,
    /// Buffer sizes are rounded up to this (merge-alloc's default alignment, 64).
    pub alignment: u64,
    /// The merge-alloc options a new order is checked with (a function keeps its new order
    /// only when its heap bytes after merge-alloc do not grow).
    pub merge: super::merge_alloc::MergeAllocOptions,
}

impl Default for ReorderOptions {
    fn default() -> Self {
        ReorderOptions {
            scheduler: Scheduler::Best,
            time_limit: Duration::from_secs(2),
            node_limit: 200_000,
            alignment: 64,
            merge: super::merge_alloc::MergeAllocOptions::default(),
        }
    }
}

impl ReorderOptions {
    /// Parses `schedule=NAME time-limit=SECS node-limit=N`.
    pub fn parse(text: &str) -> Result<ReorderOptions, String> {
        let mut o = ReorderOptions::default();
        for (k, v) in super::option_items(text) {
            match k {
                "schedule" => {
                    o.scheduler = Scheduler::from_name(v).ok_or_else(|| {
                        format!(
                            "reorder-for-memory: unknown scheduler `{v}`; valid names: {}",
                            Scheduler::all_names()
                        )
                    })?
                }
                "time-limit" => {
                    let s: f64 = v
                        .parse()
                        .ok()
                        .filter(|s: &f64| s.is_finite() && *s >= 0.0 && *s < 1e6)
                        .ok_or_else(|| {
                            format!("reorder-for-memory: bad time-limit `{v}` (seconds)")
                        })?;
                    o.time_limit = Duration::from_secs_f64(s);
                }
                "alignment" => {
                    o.alignment = v
                        .parse()
                        .ok()
                        .filter(|a: &u64| a.is_power_of_two() && *a <= 1 << 30)
                        .ok_or_else(|| {
                            format!("reorder-for-memory: bad alignment `{v}` (a power of two)")
                        })?
                }
                "node-limit" => {
                    o.node_limit = v
                        .parse()
                        .map_err(|_| format!("reorder-for-memory: bad node-limit `{v}`"))?
                }
                _ => {
                    return Err(format!(
                        "reorder-for-memory: unknown option `{k}` (schedule=NAME, alignment=N, time-limit=SECS, node-limit=N)"
                    ))
                }
            }
        }
        Ok(o)
    }
}

/// What the pass did to one block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockReport {
    /// The enclosing function.
    pub function: String,
    /// The op owning the block.
    pub owner: OpId,
    /// Ops of the block scheduled (the terminator excluded).
    pub ops: usize,
    /// Static alloc buffers of the block.
    pub buffers: usize,
    /// Peak live bytes of those buffers in the original order.
    pub before: u64,
    /// Peak in the order kept (equal to `before` when the block was left alone).
    pub after: u64,
    /// True when the block was reordered.
    pub reordered: bool,
}

/// What the pass did.
#[derive(Clone, Debug, Default)]
pub struct ReorderReport {
    /// Every block with at least one static alloc.
    pub blocks: Vec<BlockReport>,
    /// One remark per such block.
    pub remarks: Vec<Remark>,
}

/// The shared class of every origin that is not an alloc of the module.
const UNKNOWN: u32 = u32::MAX;

#[derive(Clone, Debug, Default)]
struct Effects {
    reads: Vec<u32>,
    writes: Vec<u32>,
    barrier: bool,
    /// Every class of a pointer-like operand of the op or of an op nested in it.
    touched: Vec<u32>,
}

impl Effects {
    fn any(&self) -> bool {
        self.barrier || !self.reads.is_empty() || !self.writes.is_empty()
    }
    fn finish(&mut self) {
        for v in [&mut self.reads, &mut self.writes, &mut self.touched] {
            v.sort_unstable();
            v.dedup();
        }
    }
}

fn intersects(a: &[u32], b: &[u32]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

fn conflict(a: &Effects, b: &Effects) -> bool {
    (a.barrier && b.any())
        || (b.barrier && a.any())
        || intersects(&a.writes, &b.writes)
        || intersects(&a.writes, &b.reads)
        || intersects(&a.reads, &b.writes)
}

/// Ops that read their pointer-like operands only.
const READS: &[&str] = &[
    "memref.load",
    "affine.load",
    "affine.vector_load",
    "vector.load",
    "vector.maskedload",
    "vector.transfer_read",
    "vector.gather",
    "vector.expandload",
];

/// Ops that write their pointer-like operands (treated as writes, which also orders reads).
const WRITES: &[&str] = &[
    "memref.store",
    "affine.store",
    "affine.vector_store",
    "vector.store",
    "vector.maskedstore",
    "vector.transfer_write",
    "vector.scatter",
    "vector.compressstore",
    "memref.dealloc",
    "memplan.lifetime_end",
];

/// Dialects whose ops without pointer-like operands have no memory effect.
const PURE_PREFIXES: &[&str] = &["arith.", "math.", "index.", "complex.", "tensor.", "ub."];

const PURE_OPS: &[&str] = &[
    "affine.apply",
    "affine.min",
    "affine.max",
    "affine.delinearize_index",
    "affine.linearize_index",
    "linalg.index",
    "memref.alloc",
    "memref.alloca",
    "memref.get_global",
    "vector.broadcast",
    "vector.splat",
    "vector.extract",
    "vector.insert",
    "vector.extractelement",
    "vector.insertelement",
    "vector.shape_cast",
    "vector.fma",
    "vector.reduction",
    "vector.contract",
    "vector.transpose",
    "vector.shuffle",
    "vector.constant_mask",
    "vector.create_mask",
    "vector.bitcast",
    "vector.step",
    "vector.from_elements",
    "vector.extract_strided_slice",
    "vector.insert_strided_slice",
    "vector.outerproduct",
    "vector.multi_reduction",
];

struct Ctx<'a> {
    m: &'a Module,
    bvf: &'a BufferViewFlow,
}

impl Ctx<'_> {
    fn classes(&self, v: memplan_ir::ValueId, out: &mut Vec<u32>) {
        if !is_pointer_like(self.m.value_type(v)) {
            return;
        }
        let o = self.bvf.origins(v);
        if o.is_empty() {
            // A pointer with no known origin: it may be anything.
            out.push(UNKNOWN);
        }
        for &c in o {
            out.push(if self.bvf.is_alloc(c) { c } else { UNKNOWN });
        }
    }

    /// Adds the effects of `op` and everything nested in it to `e`.
    fn effects(&self, op: OpId, e: &mut Effects) {
        let m = self.m;
        let name = m.op(op).name.as_str();
        let operands = m.operands(op);
        let mut mine = Vec::new();
        for &v in operands {
            self.classes(v, &mut mine);
        }
        // A free is not a use: merge-alloc's lifetimes end at the last access.
        if !matches!(name, "memref.dealloc" | "bufferization.dealloc") {
            e.touched.extend_from_slice(&mine);
        }
        let has_regions = !m.regions(op).is_empty();
        if name.starts_with("linalg.") && name != "linalg.index" && name != "linalg.yield" {
            // Structured op: ins are read, outs written.
            let seg = m
                .op(op)
                .props
                .get("operandSegmentSizes")
                .or_else(|| m.op(op).attrs.get("operandSegmentSizes"))
                .and_then(Attribute::as_int_array);
            match seg {
                Some(s) if s.len() == 2 && (s[0] + s[1]) as usize == operands.len() => {
                    let n_ins = s[0] as usize;
                    for (i, &v) in operands.iter().enumerate() {
                        let dst = if i < n_ins {
                            &mut e.reads
                        } else {
                            &mut e.writes
                        };
                        self.classes(v, dst);
                    }
                }
                _ => {
                    e.reads.extend_from_slice(&mine);
                    e.writes.extend_from_slice(&mine);
                }
            }
            self.nested(op, e);
            return;
        }
        if has_regions {
            match classify(m, op) {
                OpKind::KnownRegion => {}
                _ => {
                    e.barrier = true;
                    e.reads.extend_from_slice(&mine);
                    e.writes.extend_from_slice(&mine);
                }
            }
            self.nested(op, e);
            return;
        }
        if READS.contains(&name) {
            e.reads.extend_from_slice(&mine);
            return;
        }
        if WRITES.contains(&name) {
            e.writes.extend_from_slice(&mine);
            return;
        }
        if name == "memref.copy" && operands.len() == 2 {
            self.classes(operands[0], &mut e.reads);
            self.classes(operands[1], &mut e.writes);
            return;
        }
        match classify(m, op) {
            // No memory access: views, metadata, selects, allocations, region terminators.
            OpKind::View
            | OpKind::Select
            | OpKind::MetadataOnly
            | OpKind::Alloc
            | OpKind::ForeignBuffer
            | OpKind::Yield => return,
            _ => {}
        }
        let pure_name =
            PURE_OPS.contains(&name) || PURE_PREFIXES.iter().any(|p| name.starts_with(p));
        if pure_name && mine.is_empty() {
            return;
        }
        // Calls, unknown ops, printing, pointer escapes: ordered against every effect.
        e.barrier = true;
        e.reads.extend_from_slice(&mine);
        e.writes.extend_from_slice(&mine);
    }

    fn nested(&self, op: OpId, e: &mut Effects) {
        for &r in self.m.regions(op) {
            for &b in self.m.region_blocks(r) {
                for inner in self.m.block_ops(b) {
                    self.effects(inner, e);
                }
            }
        }
    }
}

fn static_alloc_bytes(m: &Module, op: OpId) -> Option<u64> {
    if m.op(op).name.as_str() != "memref.alloc" {
        return None;
    }
    let r = *m.results(op).first()?;
    match m.value_type(r).kind() {
        TypeKind::MemRef { shape, elem, .. } => {
            shape.iter().try_fold(element_bytes(elem)?, |acc, &d| {
                acc.checked_mul(u64::try_from(d).ok()?)
            })
        }
        _ => None,
    }
}

fn enclosing_function_op(m: &Module, mut op: OpId) -> Option<OpId> {
    loop {
        if crate::ops::FUNCTION_OPS.contains(&m.op(op).name.as_str()) {
            return Some(op);
        }
        op = m.parent_op(op)?;
    }
}

fn enclosing_function(m: &Module, mut op: OpId) -> String {
    loop {
        if crate::ops::FUNCTION_OPS.contains(&m.op(op).name.as_str()) {
            return crate::analysis::lifetime::function_name(m, op);
        }
        match m.parent_op(op) {
            Some(p) => op = p,
            None => return String::new(),
        }
    }
}

/// The dependency DAG of a block's ops (all but the last): `preds` per op.
fn dependencies(cx: &Ctx, block: BlockId, ops: &[OpId], effects: &[Effects]) -> Vec<Vec<usize>> {
    let m = cx.m;
    let pos: HashMap<OpId, usize> = ops.iter().enumerate().map(|(i, &o)| (o, i)).collect();
    let mut preds = vec![Vec::new(); ops.len()];
    for (j, &op) in ops.iter().enumerate() {
        for inner in m.walk_ops(op) {
            for &v in m.operands(inner) {
                if let Some(d) = m.defining_op(v) {
                    if m.op_block(d) == Some(block) {
                        if let Some(&i) = pos.get(&d) {
                            if i != j && !preds[j].contains(&i) {
                                preds[j].push(i);
                            }
                        }
                    }
                }
            }
        }
    }
    let effectful: Vec<usize> = (0..ops.len()).filter(|&i| effects[i].any()).collect();
    for (k, &j) in effectful.iter().enumerate() {
        for &i in &effectful[..k] {
            if conflict(&effects[i], &effects[j]) && !preds[j].contains(&i) {
                preds[j].push(i);
            }
        }
    }
    for p in &mut preds {
        p.sort_unstable();
    }
    preds
}

/// Runs the pass over every block of the module.
pub fn reorder_for_memory(m: &mut Module, opts: &ReorderOptions) -> ReorderReport {
    let bvf = BufferViewFlow::compute(m, m.top);
    let mut report = ReorderReport::default();
    // (function op, report index, new order of the block's ops, its last op)
    let mut plans: Vec<(Option<OpId>, usize, Vec<OpId>, OpId)> = Vec::new();
    {
        let cx = Ctx { m, bvf: &bvf };
        let mut blocks = Vec::new();
        for op in m.walk_ops(m.top) {
            let name = m.op(op).name.as_str();
            if name == "builtin.module" || name == "gpu.module" {
                continue;
            }
            for &r in m.regions(op) {
                blocks.extend(m.region_blocks(r).iter().map(|&b| (op, b)));
            }
        }
        for (owner, block) in blocks {
            let all: Vec<OpId> = m.block_ops(block).collect();
            if all.len() < 3 {
                continue;
            }
            let (last, ops) = all.split_last().expect("non-empty");
            let allocs: Vec<(usize, u64)> = ops
                .iter()
                .enumerate()
                .filter_map(|(i, &o)| static_alloc_bytes(m, o).map(|b| (i, b)))
                .collect();
            if allocs.is_empty() {
                continue;
            }
            let mut effects: Vec<Effects> = ops
                .iter()
                .map(|&o| {
                    let mut e = Effects::default();
                    cx.effects(o, &mut e);
                    e.finish();
                    e
                })
                .collect();
            let mut term = Effects::default();
            cx.effects(*last, &mut term);
            term.finish();
            let preds = dependencies(&cx, block, ops, &effects);
            let mut buffers = Vec::new();
            for &(i, bytes) in &allocs {
                let Some(class) = bvf.alloc_index(m, ops[i]) else {
                    continue;
                };
                let consumers: Vec<usize> = (0..ops.len())
                    .filter(|&j| j != i && effects[j].touched.binary_search(&class).is_ok())
                    .collect();
                let out = term.touched.binary_search(&class).is_ok();
                let bytes = bytes
                    .div_ceil(opts.alignment)
                    .saturating_mul(opts.alignment);
                buffers.push((bytes, Some(i), consumers, out));
            }
            effects.clear();
            let nbuf = buffers.len();
            let graph = match Graph::from_parts(preds, buffers) {
                Ok(g) => g,
                Err(e) => {
                    report.remarks.push(Remark {
                        op: owner,
                        span: m.op(owner).span,
                        message: format!("reorder-for-memory: block left alone: {e}"),
                    });
                    continue;
                }
            };
            let before = graph.peak(&graph.given_order);
            let sched = schedule(
                &graph,
                opts.scheduler,
                &ScheduleOptions {
                    time_limit: Some(opts.time_limit),
                    node_limit: Some(opts.node_limit),
                },
            );
            // Applied only when the new order's placed arena (what merge-alloc plans) is
            // smaller too, and the order is re-checked against every dependency.
            let arena = |order: &[usize]| {
                memplan_sched::place(&graph, order, &memplan_core::Options::default())
                    .map_or(u64::MAX, |p| p.peak)
            };
            let better = sched.peak < before
                && memplan_sched::check::check_order(&graph, &sched.order).is_ok()
                && arena(&sched.order) < arena(&graph.given_order);
            let function = enclosing_function(m, owner);
            report.blocks.push(BlockReport {
                function: function.clone(),
                owner,
                ops: ops.len(),
                buffers: nbuf,
                before,
                after: if better { sched.peak } else { before },
                reordered: better,
            });
            report.remarks.push(Remark {
                op: owner,
                span: m.op(owner).span,
                message: if better {
                    format!(
                        "reorder-for-memory: @{function}: {} ops reordered by {}: live alloc bytes {before} -> {}",
                        ops.len(),
                        opts.scheduler.name(),
                        sched.peak
                    )
                } else {
                    format!(
                        "reorder-for-memory: @{function}: {} ops kept in order: {} finds no order below {before} live alloc bytes",
                        ops.len(),
                        opts.scheduler.name()
                    )
                },
            });
            if better {
                plans.push((
                    enclosing_function_op(m, owner),
                    report.blocks.len() - 1,
                    sched.order.iter().map(|&i| ops[i]).collect(),
                    *last,
                ));
            }
        }
    }
    if plans.is_empty() {
        return report;
    }
    // The model is not merge-alloc's own (it plans with access-based lifetimes, and leaves
    // out buffers it cannot merge): run merge-alloc on both versions and keep a function's
    // new order only where its heap bytes after merge-alloc do not grow.
    let apply = |m: &mut Module, plans: &[(Option<OpId>, usize, Vec<OpId>, OpId)]| {
        for (_, _, order, last) in plans {
            for &op in order {
                m.move_before(op, *last);
            }
        }
    };
    let mut reordered = m.clone();
    apply(&mut reordered, &plans);
    let before = merged_bytes_per_function(m, &opts.merge);
    let after = merged_bytes_per_function(&reordered, &opts.merge);
    let mut kept = Vec::new();
    for plan in plans {
        let f = plan.0;
        let (b, a) = (before.get(&f).copied(), after.get(&f).copied());
        if a <= b {
            kept.push(plan);
        } else {
            let r = &mut report.blocks[plan.1];
            r.reordered = false;
            r.after = r.before;
            let owner = r.owner;
            let message = format!(
                "reorder-for-memory: @{}: order kept: the new order would take {} heap bytes after merge-alloc, the original {}",
                r.function,
                a.unwrap_or(0),
                b.unwrap_or(0)
            );
            // Replace the block's remark.
            if let Some(rm) = report.remarks.iter_mut().find(|x| x.op == owner) {
                rm.message = message;
            }
        }
    }
    apply(m, &kept);
    report
}

/// Static `memref.alloc` bytes per function after merge-alloc (on a copy of `m`).
fn merged_bytes_per_function(
    m: &Module,
    opts: &super::merge_alloc::MergeAllocOptions,
) -> HashMap<Option<OpId>, u64> {
    let mut copy = m.clone();
    let mut opts = opts.clone();
    opts.analysis_only = false;
    let _ = super::merge_alloc::merge_alloc(&mut copy, &opts);
    let mut out: HashMap<Option<OpId>, u64> = HashMap::new();
    for op in copy.walk_ops(copy.top) {
        if let Some(b) = static_alloc_bytes(&copy, op) {
            *out.entry(enclosing_function_op(&copy, op)).or_default() += b;
        }
    }
    out
}
