//! merge-shared-memory: one workgroup (shared-memory) arena per GPU kernel, with the
//! barriers that reuse needs and a capacity check.
//!
//! Seed 004 (TVM's `MergeSharedMemoryAllocations`), with its innermost-scope fix. The
//! scopes are every `gpu.func` and every `gpu.launch` body; their workgroup buffers are the
//! `workgroup(...)` attributions and the static `memref.alloc`s in workgroup memory
//! (`#gpu.address_space<workgroup>` or memory space 3).
//!
//! Decide first:
//! - *Aliases*: [`BufferViewFlow::compute_with_roots`] with every workgroup buffer as a root,
//!   so accesses through views, casts, selects and loop-carried values count at any depth.
//! - *Lifetimes*: pre-order [`Ticks`]; an access is recorded at the innermost op (the seed's
//!   fix) and stretched over the outermost op that may repeat ([`repeats`]: loops, parallel
//!   ops) between it and the kernel (every buffer counts as defined at kernel level, which is
//!   where the arena lives). `scf.if` does not stretch.
//! - *Barriers*: a small CFG of the kernel (straight-line code, `scf.for` with its back edge
//!   and a skip edge unless the trip count is a constant >= 1, `scf.while`, `scf.if` with a
//!   then->else edge because other threads may run the other arm; any other region op is one
//!   opaque node). Two buffers are *separated* when no path from an access of one reaches an
//!   access of the other without passing a `gpu.barrier`, in either direction. Buffers with
//!   disjoint lifetimes may share bytes when they are separated, or when (with
//!   `barriers=free`, the default) every access of the earlier lies in kernel-level ops
//!   before every access of the later, so that one kernel-level barrier between them
//!   separates them: kernel level is never divergent. Any other pair is made to overlap in
//!   time, so the planner never puts it on shared bytes.
//! - *Planning*: through [`memplan_core::plan()`] (any planner; the default portfolio gets a
//!   budgeted exact search when above the lower bound), checked by [`memplan_core::check()`].
//!   Over the capacity: an error naming the kernel, its need and the capacity.
//! - *Fewest barriers*: each byte-sharing pair not separated yet needs a barrier in a window
//!   of kernel-level positions; the minimum set of points stabbing all windows is found
//!   greedily (by right end, which is optimal for intervals). With the default planner, the
//!   plans of every heuristic that reach the smallest peak compete, and the one needing the
//!   fewest barriers wins. The result is re-checked on the CFG with the new barriers before
//!   anything changes.
//!
//! Mutate second: the arena is a new first workgroup attribution (`{llvm.align = N}` on a
//! `gpu.func`) of type `memref<Pxi8, space>`, one `arith.constant` per offset at the top of
//! the body, one `memref.view` per buffer (an attribution's at the top, an alloc's in its
//! place; a `memref.memory_space_cast` back when the buffer spells workgroup memory differently
//! from the arena), the old attributions and allocs and their `memref.dealloc`s removed, and the
//! barriers inserted.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use memplan_core::{bounds, check, plan, Algorithm, Buffer, Interval, Options, Plan, Problem};
use memplan_ir::dialects::gpu::is_workgroup_memref;
use memplan_ir::{
    Attribute, BlockId, Dict, Module, OpId, OperationState, Span, Type, TypeKind, ValueId,
};

use crate::analysis::alias::BufferViewFlow;
use crate::analysis::lifetime::{function_name, repeats, Ticks};
use crate::ops::{classify, element_bytes, is_pointer_like, OpKind};
use crate::remarks::Remark;

/// How barriers may be traded for bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierMode {
    /// Barriers are free: share whenever lifetimes allow and add the barriers that needs.
    Free,
    /// Never add a barrier: only buffers that existing barriers separate share bytes.
    Min,
}

/// Options, mlir-opt style: `alignment=16 capacity=49152 planner=exact barriers=min`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeSharedOptions {
    /// Every offset is a multiple of this, and every buffer takes its size rounded up to it.
    pub alignment: u64,
    /// Workgroup bytes a kernel may use.
    pub capacity: u64,
    /// The planner.
    pub planner: Algorithm,
    /// Whether barriers may be added.
    pub barriers: BarrierMode,
    /// With the default planner, problems of at most this many buffers above the lower
    /// bound are also given to a budgeted `exact` search.
    pub exact_max_buffers: usize,
    /// Node budget of that search (deterministic).
    pub exact_nodes: u64,
}

/// Static shared memory a CUDA kernel may declare (48 KiB), the default capacity.
pub const DEFAULT_CAPACITY: u64 = 49152;

impl Default for MergeSharedOptions {
    fn default() -> Self {
        MergeSharedOptions {
            alignment: 16,
            capacity: DEFAULT_CAPACITY,
            planner: Algorithm::Portfolio,
            barriers: BarrierMode::Free,
            exact_max_buffers: 64,
            exact_nodes: 200_000,
        }
    }
}

/// Capacity presets: the most shared memory one block may use on the architecture
/// (`sm_80`: 163 KiB, `sm_90`: 227 KiB, both with the dynamic opt-in; `gfx942`: 64 KiB LDS).
pub const ARCH_PRESETS: &[(&str, u64)] = &[
    ("sm_80", 163 * 1024),
    ("sm_90", 227 * 1024),
    ("gfx942", 64 * 1024),
];

/// A malformed option string.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SharedOptionsError {
    /// Unknown key.
    #[error("unknown merge-shared-memory option `{0}` (known: alignment=N, capacity=BYTES, arch=sm_80|sm_90|gfx942, planner=NAME, barriers=free|min)")]
    UnknownKey(String),
    /// Bad value.
    #[error("bad value `{value}` for merge-shared-memory option `{key}`: {why}")]
    BadValue {
        /// The key.
        key: String,
        /// The value.
        value: String,
        /// What was expected.
        why: String,
    },
}

impl MergeSharedOptions {
    /// Parses `key=value` items separated by spaces or commas.
    pub fn parse(text: &str) -> Result<MergeSharedOptions, SharedOptionsError> {
        let mut o = MergeSharedOptions::default();
        for (key, value) in super::option_items(text) {
            let bad = |why: &str| SharedOptionsError::BadValue {
                key: key.to_string(),
                value: value.to_string(),
                why: why.to_string(),
            };
            let num = || value.parse::<u64>().map_err(|_| bad("expected a number"));
            match key {
                "alignment" => {
                    let a = num()?;
                    if a == 0 || !a.is_power_of_two() || a > 4096 {
                        return Err(bad("expected a power of two between 1 and 4096"));
                    }
                    o.alignment = a;
                }
                "capacity" => {
                    let c = num()?;
                    if c > 1 << 40 {
                        return Err(bad("expected at most 2^40 bytes"));
                    }
                    o.capacity = c;
                }
                "arch" => {
                    o.capacity = ARCH_PRESETS
                        .iter()
                        .find(|(n, _)| *n == value)
                        .map(|&(_, c)| c)
                        .ok_or_else(|| bad("expected sm_80, sm_90 or gfx942"))?;
                }
                "planner" | "algo" => {
                    o.planner = Algorithm::from_name(value).ok_or_else(|| {
                        bad(&format!("expected one of {}", Algorithm::all_names()))
                    })?;
                }
                "barriers" => {
                    o.barriers = match value {
                        "free" => BarrierMode::Free,
                        "min" => BarrierMode::Min,
                        _ => return Err(bad("expected free or min")),
                    }
                }
                "exact-max-buffers" => o.exact_max_buffers = num()? as usize,
                "exact-nodes" => o.exact_nodes = num()?,
                _ => return Err(SharedOptionsError::UnknownKey(key.to_string())),
            }
        }
        Ok(o)
    }
}

/// Failure of the pass; nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MergeSharedError {
    /// Bad options.
    #[error(transparent)]
    Options(#[from] SharedOptionsError),
    /// A kernel needs more workgroup memory than the capacity.
    #[error("merge-shared-memory: kernel @{kernel} needs {need} bytes of workgroup memory, above the capacity of {capacity} bytes")]
    OverCapacity {
        /// The kernel label.
        kernel: String,
        /// Bytes it needs after merging.
        need: u64,
        /// The capacity.
        capacity: u64,
        /// Where the kernel was written.
        span: Span,
    },
    /// Planning failed or a result did not pass the pass's own re-check (a bug).
    #[error("merge-shared-memory: kernel @{kernel}: {why}")]
    Internal {
        /// The kernel label.
        kernel: String,
        /// What went wrong.
        why: String,
    },
}

/// One merged buffer as reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedBuffer {
    /// `%name`.
    pub name: String,
    /// Raw bytes.
    pub bytes: u64,
    /// Offset in the arena.
    pub offset: u64,
    /// Live ticks (inclusive), `None` when never accessed.
    pub ticks: Option<(u32, u32)>,
}

/// What happened in one kernel.
#[derive(Clone, Debug)]
pub struct KernelReport {
    /// `gpu.func` symbol, or `FUNC/launch#K`.
    pub kernel: String,
    /// Raw bytes of all workgroup buffers before.
    pub bytes_before: u64,
    /// Workgroup bytes after (arena plus buffers left alone).
    pub bytes_after: u64,
    /// The arena's bytes.
    pub arena_bytes: u64,
    /// Max-load lower bound of the lifetimes (rounded sizes), before pairs that may not
    /// share were made to overlap.
    pub lower_bound: u64,
    /// Barriers inserted.
    pub barriers_added: usize,
    /// Pairs of buffers with disjoint lifetimes that may not share bytes, because no
    /// existing barrier separates them and no kernel-level point can (or `barriers=min`).
    pub unshareable_pairs: usize,
    /// The merged buffers.
    pub buffers: Vec<SharedBuffer>,
    /// Buffers left alone, with why.
    pub left_alone: Vec<(String, String)>,
    /// The problem given to the planner.
    pub problem: Problem,
    /// The plan.
    pub plan: Plan,
}

/// Everything the pass reports.
#[derive(Clone, Debug, Default)]
pub struct MergeSharedReport {
    /// One entry per merged kernel, in pre-order.
    pub kernels: Vec<KernelReport>,
    /// Remarks.
    pub remarks: Vec<Remark>,
}

/// A workgroup buffer of a kernel.
#[derive(Clone, Debug)]
struct Buf {
    value: ValueId,
    /// The alloc op, or `None` for an attribution.
    alloc: Option<OpId>,
    bytes: u64,
    align: u64,
    space: Option<Attribute>,
    name: String,
}

struct Kernel {
    op: OpId,
    label: String,
    entry: BlockId,
    /// Number of entry-block arguments before the workgroup attributions.
    n_fixed: usize,
    n_wg: usize,
    bufs: Vec<Buf>,
    left_alone: Vec<(ValueId, String, String)>,
    dynamic: bool,
    unstructured: bool,
}

/// The decisions for one kernel, before any mutation.
struct Decision {
    kernel: usize,
    /// Indices into the kernel's `bufs` of the merged buffers, in plan order.
    keep: Vec<usize>,
    plan: Plan,
    /// Kernel-level positions (indices into the entry block's ops) to put a barrier before.
    barriers: Vec<usize>,
    deallocs: Vec<OpId>,
    report: KernelReport,
}

fn memref_parts(t: &Type) -> Option<(Vec<i64>, Type, bool, Option<Attribute>)> {
    match t.kind() {
        TypeKind::MemRef {
            shape,
            elem,
            layout,
            memory_space,
        } => {
            let identity = layout.as_ref().is_none_or(|l| match l {
                Attribute::AffineMap(map) => {
                    let dims: Vec<String> = (0..shape.len()).map(|i| format!("d{i}")).collect();
                    map.to_string() == format!("({}) -> ({})", dims.join(", "), dims.join(", "))
                }
                _ => false,
            });
            Some((shape.clone(), elem.clone(), identity, memory_space.clone()))
        }
        _ => None,
    }
}

/// Bytes of a static memref type, with its element's natural alignment; or why not.
fn static_layout(t: &Type) -> Result<(u64, u64, Option<Attribute>), String> {
    let Some((shape, elem, identity, space)) = memref_parts(t) else {
        return Err("it is not a ranked memref".into());
    };
    if shape.iter().any(|&d| d < 0) {
        return Err("its shape is dynamic".into());
    }
    if !identity {
        return Err("its layout is not the identity".into());
    }
    let e = element_bytes(&elem).ok_or_else(|| format!("the size of {elem} is unknown"))?;
    let n = shape
        .iter()
        .try_fold(e, |acc, &d| acc.checked_mul(u64::try_from(d).ok()?))
        .filter(|&n| n <= 1 << 40)
        .ok_or("it is too large")?;
    if n == 0 {
        return Err("it has no bytes".into());
    }
    Ok((n, e.next_power_of_two().min(4096), space))
}

fn value_name(m: &Module, v: ValueId, k: usize) -> String {
    m.name_hint(v)
        .map_or_else(|| format!("buffer#{k}"), |h| format!("%{h}"))
}

fn attr_of<'m>(m: &'m Module, op: OpId, name: &str) -> Option<&'m Attribute> {
    let d = m.op(op);
    d.props.get(name).or_else(|| d.attrs.get(name))
}

/// Every kernel scope of the module with its workgroup buffers.
fn collect_kernels(m: &Module) -> Vec<Kernel> {
    let mut out = Vec::new();
    let mut launch_count: BTreeMap<OpId, usize> = BTreeMap::new();
    for op in m.walk_ops(m.top) {
        let name = m.op(op).name.as_str();
        if name != "gpu.func" && name != "gpu.launch" {
            continue;
        }
        let Some(&r) = m.regions(op).first() else {
            continue;
        };
        let Some(entry) = m.entry_block(r) else {
            continue;
        };
        let n_wg = attr_of(m, op, "workgroup_attributions")
            .and_then(Attribute::as_int)
            .and_then(|v| usize::try_from(v).ok())
            .unwrap_or(0);
        let args = m.block_args(entry);
        let (label, n_fixed, dynamic) = if name == "gpu.func" {
            let n_in = attr_of(m, op, "function_type")
                .and_then(Attribute::as_type)
                .and_then(Type::as_function)
                .map_or(0, |(i, _)| i.len());
            (function_name(m, op), n_in, false)
        } else {
            let n_fixed = args
                .iter()
                .take_while(|&&a| m.value_type(a).is_index())
                .count();
            let mut f = m.parent_op(op);
            while let Some(p) = f {
                if crate::ops::FUNCTION_OPS.contains(&m.op(p).name.as_str()) {
                    break;
                }
                f = m.parent_op(p);
            }
            let fop = f.unwrap_or(m.top);
            let k = launch_count.entry(fop).or_insert(0);
            let label = format!("{}/launch#{k}", function_name(m, fop));
            *k += 1;
            let dyn_smem = attr_of(m, op, "operandSegmentSizes")
                .and_then(Attribute::as_int_array)
                .is_some_and(|s| s.len() == 11 && s[10] == 1);
            (label, n_fixed, dyn_smem)
        };
        if n_fixed + n_wg > args.len() {
            continue;
        }
        let mut k = Kernel {
            op,
            label,
            entry,
            n_fixed,
            n_wg,
            bufs: Vec::new(),
            left_alone: Vec::new(),
            dynamic,
            unstructured: false,
        };
        let mut candidates: Vec<(ValueId, Option<OpId>)> = args[n_fixed..n_fixed + n_wg]
            .iter()
            .map(|&a| (a, None))
            .collect();
        for inner in m.walk_ops(op).into_iter().skip(1) {
            let d = m.op(inner);
            if d.name == "gpu.dynamic_shared_memory" {
                k.dynamic = true;
            }
            for &rg in m.regions(inner) {
                if m.region_blocks(rg).len() > 1 {
                    k.unstructured = true;
                }
            }
            if d.name == "memref.alloc" {
                if let Some(&res) = m.results(inner).first() {
                    if is_workgroup_memref(m.value_type(res)) {
                        candidates.push((res, Some(inner)));
                    }
                }
            }
        }
        if m.region_blocks(r).len() > 1 {
            k.unstructured = true;
        }
        for (i, (v, alloc)) in candidates.into_iter().enumerate() {
            let name = value_name(m, v, i);
            let layout = static_layout(m.value_type(v)).and_then(|l| {
                if alloc.is_some_and(|a| !m.operands(a).is_empty()) {
                    Err("it has dynamic sizes".to_string())
                } else {
                    Ok(l)
                }
            });
            match layout {
                Ok((bytes, align, space)) => k.bufs.push(Buf {
                    value: v,
                    alloc,
                    bytes,
                    align,
                    space,
                    name,
                }),
                Err(why) => k.left_alone.push((v, name, why)),
            }
        }
        if k.bufs.is_empty() && k.left_alone.is_empty() && !k.dynamic {
            continue;
        }
        out.push(k);
    }
    out
}

/// A small CFG of a kernel body: one node per op (an op with regions the model does not
/// know is one opaque node holding everything inside).
struct Cfg {
    succ: Vec<Vec<usize>>,
    barrier: Vec<bool>,
    node_of: BTreeMap<OpId, usize>,
}

impl Cfg {
    /// Builds the CFG of `block` (the kernel's entry block); `extra` are kernel-level
    /// positions with a barrier inserted before the op at that index.
    fn build(m: &Module, block: BlockId, extra: &BTreeSet<usize>) -> Cfg {
        let mut g = Cfg {
            succ: Vec::new(),
            barrier: Vec::new(),
            node_of: BTreeMap::new(),
        };
        let ops: Vec<OpId> = m.block_ops(block).collect();
        let mut front: Vec<usize> = Vec::new();
        for (i, &op) in ops.iter().enumerate() {
            if extra.contains(&i) {
                let n = g.node(true);
                g.link(&front, n);
                front = vec![n];
            }
            front = g.op(m, op, front);
        }
        g
    }

    fn node(&mut self, barrier: bool) -> usize {
        self.succ.push(Vec::new());
        self.barrier.push(barrier);
        self.succ.len() - 1
    }

    fn link(&mut self, from: &[usize], to: usize) {
        for &f in from {
            if !self.succ[f].contains(&to) {
                self.succ[f].push(to);
            }
        }
    }

    fn seq(&mut self, m: &Module, ops: Vec<OpId>, mut front: Vec<usize>) -> Vec<usize> {
        for op in ops {
            front = self.op(m, op, front);
        }
        front
    }

    fn region_ops(m: &Module, op: OpId, k: usize) -> Vec<OpId> {
        m.regions(op)
            .get(k)
            .and_then(|&r| m.entry_block(r))
            .map(|b| m.block_ops(b).collect())
            .unwrap_or_default()
    }

    fn op(&mut self, m: &Module, op: OpId, front: Vec<usize>) -> Vec<usize> {
        let name = m.op(op).name.as_str();
        let structured = m.regions(op).iter().all(|&r| m.region_blocks(r).len() <= 1);
        let n = self.node(name == "gpu.barrier");
        self.node_of.insert(op, n);
        self.link(&front, n);
        if m.regions(op).is_empty() {
            return vec![n];
        }
        match name {
            "scf.for" | "affine.for" if structured => {
                let body = self.seq(m, Self::region_ops(m, op, 0), vec![n]);
                self.link(&body, n);
                if name == "scf.for" && const_trip_at_least_one(m, op) {
                    body
                } else {
                    vec![n]
                }
            }
            "scf.while" if structured => {
                let before = self.seq(m, Self::region_ops(m, op, 0), vec![n]);
                let after = self.seq(m, Self::region_ops(m, op, 1), before.clone());
                self.link(&after, n);
                before
            }
            "scf.if" | "affine.if" if structured => {
                let then = self.seq(m, Self::region_ops(m, op, 0), vec![n]);
                let else_ops = Self::region_ops(m, op, 1);
                if else_ops.is_empty() {
                    let mut out = then;
                    out.push(n);
                    out
                } else {
                    // Other threads may run the other arm: then -> else.
                    let mut start = vec![n];
                    start.extend(&then);
                    let els = self.seq(m, else_ops, start);
                    let mut out = then;
                    out.extend(els);
                    out
                }
            }
            _ => {
                for inner in m.walk_ops(op).into_iter().skip(1) {
                    self.node_of.insert(inner, n);
                }
                // An opaque op may repeat what it holds.
                self.link(&[n], n);
                vec![n]
            }
        }
    }

    /// Nodes reachable in one or more steps from `starts` without entering a barrier.
    fn reach(&self, starts: &BTreeSet<usize>) -> BTreeSet<usize> {
        let mut seen = BTreeSet::new();
        let mut work: Vec<usize> = starts.iter().copied().collect();
        while let Some(n) = work.pop() {
            for &s in &self.succ[n] {
                if !self.barrier[s] && seen.insert(s) {
                    work.push(s);
                }
            }
        }
        seen
    }
}

fn const_index(m: &Module, v: ValueId) -> Option<i128> {
    let d = m.defining_op(v)?;
    if m.op(d).name != "arith.constant" {
        return None;
    }
    attr_of(m, d, "value").and_then(Attribute::as_int)
}

fn const_trip_at_least_one(m: &Module, op: OpId) -> bool {
    let ops = m.operands(op);
    if ops.len() < 3 {
        return false;
    }
    match (
        const_index(m, ops[0]),
        const_index(m, ops[1]),
        const_index(m, ops[2]),
    ) {
        (Some(lb), Some(ub), Some(step)) => step > 0 && ub > lb,
        _ => false,
    }
}

/// Per-buffer facts of one kernel.
struct Facts {
    /// Inclusive tick range (after stretching), `None` if never accessed.
    live: Vec<Option<(u32, u32)>>,
    /// Access ops.
    accesses: Vec<BTreeSet<OpId>>,
    /// First and last kernel-level op index holding an access.
    tops: Vec<Option<(usize, usize)>>,
    /// Why a buffer must stay.
    hazards: Vec<Vec<String>>,
    /// `memref.dealloc`s of each buffer.
    deallocs: Vec<Vec<OpId>>,
}

fn collect_facts(
    m: &Module,
    k: &Kernel,
    flow: &BufferViewFlow,
    root_base: usize,
    ticks: &Ticks,
) -> Facts {
    let n = k.bufs.len();
    let mut f = Facts {
        live: vec![None; n],
        accesses: vec![BTreeSet::new(); n],
        tops: vec![None; n],
        hazards: vec![Vec::new(); n],
        deallocs: vec![Vec::new(); n],
    };
    let top_index: BTreeMap<OpId, usize> = m
        .block_ops(k.entry)
        .enumerate()
        .map(|(i, o)| (o, i))
        .collect();
    for op in m.walk_ops(k.op).into_iter().skip(1) {
        let kind = classify(m, op);
        let name = m.op(op).name.to_string();
        for (i, &v) in m.operands(op).iter().enumerate() {
            if !is_pointer_like(m.value_type(v)) {
                continue;
            }
            let mine: Vec<usize> = flow
                .root_origins(v)
                .filter_map(|r| r.checked_sub(root_base))
                .filter(|&r| r < n)
                .collect();
            if mine.is_empty() {
                continue;
            }
            let hazard = |f: &mut Facts, why: String| {
                for &b in &mine {
                    f.hazards[b].push(why.clone());
                }
            };
            match kind {
                OpKind::Alloc
                | OpKind::Select
                | OpKind::MetadataOnly
                | OpKind::Branch
                | OpKind::Yield => {}
                OpKind::View if i == 0 => {}
                OpKind::Dealloc => {
                    if flow.origins(v).len() != mine.len() {
                        hazard(
                            &mut f,
                            "it is freed through a value that may point elsewhere".into(),
                        );
                    }
                    for &b in &mine {
                        f.deallocs[b].push(op);
                    }
                }
                OpKind::Return => hazard(&mut f, "it is returned".into()),
                OpKind::Store if i == 0 => hazard(&mut f, format!("it is stored by `{name}`")),
                OpKind::Call | OpKind::UnknownCall => {
                    hazard(&mut f, format!("it is passed to a call (`{name}`)"))
                }
                OpKind::PointerEscape | OpKind::ForeignBuffer | OpKind::BufferizationDealloc => {
                    hazard(&mut f, format!("its address is taken by `{name}`"))
                }
                OpKind::UnknownRegion => hazard(
                    &mut f,
                    format!(
                        "it is used by `{name}`, an op with regions the pass does not understand"
                    ),
                ),
                OpKind::View | OpKind::Store | OpKind::KnownRegion | OpKind::Other => {
                    // Recorded at the innermost op; stretched over the outermost op that may
                    // repeat between it and the kernel.
                    let (mut lo, mut hi) = (ticks.tick(op), ticks.end(op));
                    let mut cur = op;
                    while let Some(p) = m.parent_op(cur) {
                        if p == k.op {
                            break;
                        }
                        if repeats(m, p) {
                            lo = ticks.tick(p);
                            hi = ticks.end(p);
                        }
                        cur = p;
                    }
                    let top = top_index.get(&cur).copied();
                    for &b in &mine {
                        f.accesses[b].insert(op);
                        f.live[b] = Some(match f.live[b] {
                            Some((a, z)) => (a.min(lo), z.max(hi)),
                            None => (lo, hi),
                        });
                        if let Some(t) = top {
                            f.tops[b] = Some(match f.tops[b] {
                                Some((a, z)) => (a.min(t), z.max(t)),
                                None => (t, t),
                            });
                        }
                    }
                }
            }
        }
    }
    f
}

/// Access nodes of a buffer in `g`.
fn nodes_of(g: &Cfg, accesses: &BTreeSet<OpId>) -> BTreeSet<usize> {
    accesses
        .iter()
        .filter_map(|o| g.node_of.get(o).copied())
        .collect()
}

/// `sep[i][j]`: no barrier-free path between accesses of i and j, either way.
fn separation(g: &Cfg, accesses: &[BTreeSet<OpId>]) -> Vec<Vec<bool>> {
    let nodes: Vec<BTreeSet<usize>> = accesses.iter().map(|a| nodes_of(g, a)).collect();
    let reach: Vec<BTreeSet<usize>> = nodes.iter().map(|n| g.reach(n)).collect();
    let n = accesses.len();
    let mut sep = vec![vec![true; n]; n];
    for i in 0..n {
        for j in 0..n {
            if i != j
                && (!nodes[i].is_disjoint(&nodes[j])
                    || !reach[i].is_disjoint(&nodes[j])
                    || !reach[j].is_disjoint(&nodes[i]))
            {
                sep[i][j] = false;
            }
        }
    }
    sep
}

fn plan_problem(p: &Problem, opts: &MergeSharedOptions) -> Result<Plan, String> {
    let mut best = plan(p, &Options::with_algorithm(opts.planner)).map_err(|e| e.to_string())?;
    let lb = bounds::max_load(p);
    if opts.planner == Algorithm::Portfolio && best.peak() > lb && p.len() <= opts.exact_max_buffers
    {
        let mut o = Options::with_algorithm(Algorithm::Exact);
        o.node_limit = Some(opts.exact_nodes);
        if let Ok(e) = plan(p, &o) {
            if e.peak() < best.peak() && check(p, &e).is_ok() {
                best = e;
            }
        }
    }
    check(p, &best).map_err(|e| format!("the plan fails the checker: {e}"))?;
    Ok(best)
}

/// Buffers left alone in a kernel, with why (printable name, reason).
type LeftAlone = Vec<(String, String)>;

/// Decides one kernel: its merged buffers' plan and the barriers to add (`Ok(Err(..))` when
/// nothing in it is merged, with the buffers left alone), or an error (over capacity).
fn decide(
    m: &Module,
    ki: usize,
    k: &Kernel,
    flow: &BufferViewFlow,
    root_base: usize,
    ticks: &Ticks,
    opts: &MergeSharedOptions,
) -> Result<Result<Decision, LeftAlone>, MergeSharedError> {
    let internal = |why: String| MergeSharedError::Internal {
        kernel: k.label.clone(),
        why,
    };
    let facts = collect_facts(m, k, flow, root_base, ticks);
    let mut left_alone: Vec<(String, String)> = k
        .left_alone
        .iter()
        .map(|(_, n, w)| (n.clone(), w.clone()))
        .collect();
    let mut left_bytes: u64 = k
        .left_alone
        .iter()
        .filter_map(|(v, _, _)| static_layout(m.value_type(*v)).ok().map(|l| l.0))
        .sum();
    // Buffers with hazards stay (an attribution stays an attribution).
    let keep: Vec<usize> = (0..k.bufs.len())
        .filter(|&i| {
            if facts.hazards[i].is_empty() {
                return true;
            }
            let mut why = facts.hazards[i].clone();
            why.sort();
            why.dedup();
            left_alone.push((k.bufs[i].name.clone(), why.join("; ")));
            left_bytes += k.bufs[i].bytes;
            false
        })
        .collect();
    let bytes_before: u64 = k.bufs.iter().map(|b| b.bytes).sum::<u64>()
        + k.left_alone
            .iter()
            .filter_map(|(v, _, _)| static_layout(m.value_type(*v)).ok().map(|l| l.0))
            .sum::<u64>();
    if keep.is_empty() || k.unstructured {
        return Ok(Err(left_alone));
    }
    let accesses: Vec<BTreeSet<OpId>> = keep.iter().map(|&i| facts.accesses[i].clone()).collect();
    let g = Cfg::build(m, k.entry, &BTreeSet::new());
    let sep = separation(&g, &accesses);
    let n = keep.len();
    let base_tick = u64::from(ticks.tick(k.op));
    let mut live: Vec<(u64, u64)> = keep
        .iter()
        .map(|&i| match facts.live[i] {
            Some((a, b)) => (u64::from(a), u64::from(b) + 1),
            None => (base_tick, base_tick + 1),
        })
        .collect();
    let accessed: Vec<bool> = keep.iter().map(|&i| facts.live[i].is_some()).collect();
    let tops: Vec<Option<(usize, usize)>> = keep.iter().map(|&i| facts.tops[i]).collect();
    let size_of = |i: usize| k.bufs[keep[i]].bytes.next_multiple_of(opts.alignment);
    let align_of = |i: usize| k.bufs[keep[i]].align.max(opts.alignment);
    let problem_of = |live: &[(u64, u64)]| {
        Problem::new(
            (0..n)
                .map(|i| {
                    Buffer::new(size_of(i), live[i].0, live[i].1)
                        .with_align(align_of(i))
                        .with_live(vec![Interval::new(live[i].0, live[i].1)])
                })
                .collect(),
        )
    };
    let lower_bound = bounds::max_load(&problem_of(&live));
    // Which pairs may share; the others are made to overlap in time.
    let overlaps = |a: (u64, u64), b: (u64, u64)| a.0 < b.1 && b.0 < a.1;
    let original = live.clone();
    let mut unshareable_pairs = 0;
    for i in 0..n {
        for j in i + 1..n {
            if !accessed[i] || !accessed[j] || overlaps(original[i], original[j]) {
                continue;
            }
            if sep[i][j] {
                continue;
            }
            let (e, l) = if original[i].0 <= original[j].0 {
                (i, j)
            } else {
                (j, i)
            };
            let gap = matches!((tops[e], tops[l]), (Some(a), Some(b)) if a.1 < b.0);
            if opts.barriers == BarrierMode::Free && gap {
                continue;
            }
            live[e].1 = live[e].1.max(original[l].0 + 1);
            unshareable_pairs += 1;
        }
    }
    let problem = problem_of(&live);
    // Barriers a plan needs: windows of kernel-level positions (one per byte-sharing pair not
    // separated yet), stabbed greedily by right end (optimal for intervals).
    let bytes_of = |i: usize| k.bufs[keep[i]].bytes;
    let barriers_for = |p: &Plan| -> Result<Vec<usize>, String> {
        let shares = |i: usize, j: usize| {
            let (a, b) = (p.offsets[i], p.offsets[j]);
            a < b + bytes_of(j) && b < a + bytes_of(i)
        };
        let mut windows: Vec<(usize, usize)> = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                if !accessed[i] || !accessed[j] || !shares(i, j) || sep[i][j] {
                    continue;
                }
                let (e, l) = if original[i].0 <= original[j].0 {
                    (i, j)
                } else {
                    (j, i)
                };
                match (tops[e], tops[l]) {
                    (Some(a), Some(b)) if a.1 < b.0 => windows.push((a.1 + 1, b.0)),
                    _ => {
                        return Err(format!(
                            "{} and {} share bytes but no barrier can separate them",
                            k.bufs[keep[i]].name, k.bufs[keep[j]].name
                        ))
                    }
                }
            }
        }
        windows.sort_by_key(|&(a, b)| (b, a));
        let mut barriers: Vec<usize> = Vec::new();
        for (lo, hi) in windows {
            if barriers.last().is_some_and(|&b| b >= lo) {
                continue;
            }
            barriers.push(hi);
        }
        Ok(barriers)
    };
    let mut p = plan_problem(&problem, opts).map_err(internal)?;
    let mut barriers = barriers_for(&p).map_err(internal)?;
    // With the default planner, among the plans of the smallest peak the one needing the
    // fewest barriers wins (the heuristics often tie on bytes but differ in what they overlap).
    if opts.planner == Algorithm::Portfolio && !barriers.is_empty() {
        for alg in Algorithm::ALL {
            if matches!(
                alg,
                Algorithm::Portfolio | Algorithm::Exact | Algorithm::Naive
            ) {
                continue;
            }
            let Ok(q) = plan(&problem, &Options::with_algorithm(alg)) else {
                continue;
            };
            if q.peak() > p.peak() || check(&problem, &q).is_err() {
                continue;
            }
            if let Ok(b) = barriers_for(&q) {
                if b.len() < barriers.len() {
                    p = q;
                    barriers = b;
                }
            }
        }
    }
    let arena = p.peak();
    let need = arena + left_bytes;
    if need > opts.capacity {
        return Err(MergeSharedError::OverCapacity {
            kernel: k.label.clone(),
            need,
            capacity: opts.capacity,
            span: m.op(k.op).span,
        });
    }
    let shares = |i: usize, j: usize| {
        let (a, b) = (p.offsets[i], p.offsets[j]);
        a < b + bytes_of(j) && b < a + bytes_of(i)
    };
    // Re-check with the new barriers before changing anything.
    let g2 = Cfg::build(m, k.entry, &barriers.iter().copied().collect());
    let sep2 = separation(&g2, &accesses);
    for i in 0..n {
        for j in i + 1..n {
            if accessed[i] && accessed[j] && shares(i, j) {
                if overlaps(original[i], original[j]) {
                    return Err(internal(format!(
                        "{} and {} are live together but share bytes",
                        k.bufs[keep[i]].name, k.bufs[keep[j]].name
                    )));
                }
                if !sep2[i][j] {
                    return Err(internal(format!(
                        "{} and {} share bytes without a barrier between them",
                        k.bufs[keep[i]].name, k.bufs[keep[j]].name
                    )));
                }
            }
        }
    }
    let buffers = keep
        .iter()
        .enumerate()
        .map(|(x, &i)| SharedBuffer {
            name: k.bufs[i].name.clone(),
            bytes: k.bufs[i].bytes,
            offset: p.offsets[x],
            ticks: facts.live[i],
        })
        .collect();
    let mut deallocs: Vec<OpId> = keep
        .iter()
        .flat_map(|&i| facts.deallocs[i].iter().copied())
        .collect();
    deallocs.sort();
    deallocs.dedup();
    let report = KernelReport {
        kernel: k.label.clone(),
        bytes_before,
        bytes_after: need,
        arena_bytes: arena,
        lower_bound,
        barriers_added: barriers.len(),
        unshareable_pairs,
        buffers,
        left_alone,
        problem,
        plan: p.clone(),
    };
    Ok(Ok(Decision {
        kernel: ki,
        keep,
        plan: p,
        barriers,
        deallocs,
        report,
    }))
}

/// Runs the pass over every kernel of the module. On error nothing was changed.
pub fn merge_shared_memory(
    m: &mut Module,
    opts: &MergeSharedOptions,
) -> Result<MergeSharedReport, MergeSharedError> {
    let kernels = collect_kernels(m);
    let mut roots: Vec<ValueId> = Vec::new();
    let mut bases = Vec::new();
    for k in &kernels {
        bases.push(roots.len());
        roots.extend(k.bufs.iter().map(|b| b.value));
    }
    let flow = BufferViewFlow::compute_with_roots(m, m.top, &roots);
    let ticks = Ticks::compute(m, m.top);
    let mut report = MergeSharedReport::default();
    let mut decisions = Vec::new();
    for (ki, k) in kernels.iter().enumerate() {
        let span = m.op(k.op).span;
        if k.dynamic {
            report.remarks.push(Remark {
                op: k.op,
                span,
                message: format!(
                    "merge-shared-memory: @{}: dynamic shared memory is left alone",
                    k.label
                ),
            });
        }
        if k.unstructured {
            report.remarks.push(Remark {
                op: k.op,
                span,
                message: format!(
                    "merge-shared-memory: @{}: left alone: it has regions with several blocks (unstructured control flow)",
                    k.label
                ),
            });
        }
        match decide(m, ki, k, &flow, bases[ki], &ticks, opts)? {
            Ok(d) => decisions.push(d),
            Err(left_alone) => {
                for (name, why) in &left_alone {
                    report.remarks.push(Remark {
                        op: k.op,
                        span,
                        message: format!(
                            "merge-shared-memory: @{}: {name} left alone: {why}",
                            k.label
                        ),
                    });
                }
            }
        }
    }
    for d in &decisions {
        let k = &kernels[d.kernel];
        let r = &d.report;
        let span = m.op(k.op).span;
        report.remarks.push(Remark {
            op: k.op,
            span,
            message: format!(
                "merge-shared-memory: @{}: {} buffers, {} B before, {} B after (arena {} B, lower bound {} B), {} barriers added",
                r.kernel,
                r.buffers.len(),
                r.bytes_before,
                r.bytes_after,
                r.arena_bytes,
                r.lower_bound,
                r.barriers_added
            ),
        });
        for (name, why) in &r.left_alone {
            report.remarks.push(Remark {
                op: k.op,
                span,
                message: format!(
                    "merge-shared-memory: @{}: {name} left alone: {why}",
                    r.kernel
                ),
            });
        }
    }
    for d in &decisions {
        rewrite(m, &kernels[d.kernel], d);
    }
    report.kernels = decisions.into_iter().map(|d| d.report).collect();
    Ok(report)
}

fn rewrite(m: &mut Module, k: &Kernel, d: &Decision) {
    let merged: Vec<&Buf> = d.keep.iter().map(|&i| &k.bufs[i]).collect();
    let top_ops: Vec<OpId> = m.block_ops(k.entry).collect();
    let arena_bytes = d.plan.peak().max(1);
    let align = d
        .report
        .problem
        .buffers
        .iter()
        .map(|b| b.align)
        .max()
        .unwrap_or(1);
    let arena_ty = Type::new(TypeKind::MemRef {
        shape: vec![arena_bytes as i64],
        elem: Type::int(8),
        layout: None,
        memory_space: merged[0].space.clone(),
    });
    // The arena is the first workgroup attribution, so it is declared first (and, in a
    // gpu.launch, where no `llvm.align` can be written, sits at the start of shared memory).
    let arena = m.insert_block_arg(k.entry, k.n_fixed, arena_ty, None);
    let (old_lo, old_hi) = (k.n_fixed + 1, k.n_fixed + 1 + k.n_wg);
    m.set_name_hint(arena, Some("smem"));
    // Constants, then the attributions' views, at the top of the body.
    let first = m.first_op(k.entry);
    let mut consts: BTreeMap<u64, ValueId> = BTreeMap::new();
    let mut new_ops: Vec<OpId> = Vec::new();
    for &off in d.plan.offsets.iter().collect::<BTreeSet<_>>() {
        let mut st = OperationState::new("arith.constant");
        st.result_types.push(Type::index());
        st.props
            .set("value", Attribute::int(i128::from(off), Type::index()));
        let c = m.create_op(st);
        new_ops.push(c);
        let v = m.result(c, 0);
        m.set_name_hint(v, Some(&format!("smem_off{off}")));
        consts.insert(off, v);
    }
    let mut erased_args: Vec<ValueId> = Vec::new();
    let mut alloc_views: Vec<(OpId, Vec<OpId>)> = Vec::new();
    let arena_space = merged[0].space.clone();
    for (x, b) in merged.iter().enumerate() {
        let ty = m.value_type(b.value).clone();
        // A buffer whose workgroup space is spelled differently (`3` vs
        // `#gpu.address_space<workgroup>`) gets a view in the arena's spelling and a
        // `memref.memory_space_cast` back to its own type (a view keeps its source's space).
        let view_ty = match ty.kind() {
            TypeKind::MemRef {
                shape,
                elem,
                layout,
                memory_space,
            } if *memory_space != arena_space => Some(Type::new(TypeKind::MemRef {
                shape: shape.clone(),
                elem: elem.clone(),
                layout: layout.clone(),
                memory_space: arena_space.clone(),
            })),
            _ => None,
        };
        let mut st = OperationState::new("memref.view");
        st.operands = vec![arena, consts[&d.plan.offsets[x]]];
        st.result_types
            .push(view_ty.clone().unwrap_or_else(|| ty.clone()));
        if let Some(a) = b.alloc {
            st.loc = m.op(a).loc().clone();
        }
        let view = m.create_op(st);
        let mut ops = vec![view];
        let mut nv = m.result(view, 0);
        if view_ty.is_some() {
            let mut st = OperationState::new("memref.memory_space_cast");
            st.operands = vec![nv];
            st.result_types.push(ty);
            let cast = m.create_op(st);
            ops.push(cast);
            nv = m.result(cast, 0);
        }
        let hint = m.name_hint(b.value).map(str::to_string);
        m.set_name_hint(nv, hint.as_deref());
        match b.alloc {
            Some(a) => alloc_views.push((a, ops)),
            None => {
                new_ops.extend(ops);
                erased_args.push(b.value);
            }
        }
        m.replace_all_uses(b.value, nv);
    }
    for o in new_ops {
        match first {
            Some(f) => m.insert_before(f, o),
            None => m.append_op(k.entry, o),
        }
    }
    for (a, ops) in alloc_views {
        for o in ops {
            m.insert_before(a, o);
        }
        m.erase_op(a);
    }
    for &op in &d.deallocs {
        if !m.is_erased(op) {
            m.erase_op(op);
        }
    }
    for &p in &d.barriers {
        let b = m.create_op(OperationState::new("gpu.barrier"));
        m.insert_before(top_ops[p], b);
    }
    // Remove the merged attributions, keeping the others' attribute dicts.
    let args: Vec<ValueId> = m.block_args(k.entry).to_vec();
    let old_dicts: Vec<Dict> = match m.op(k.op).props.get("workgroup_attrib_attrs") {
        Some(Attribute::Array(a)) => a
            .iter()
            .map(|x| match x {
                Attribute::Dict(d) => d.clone(),
                _ => Dict::new(),
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut arena_dict = Dict::new();
    arena_dict.set(
        "llvm.align",
        Attribute::int(i128::from(align), Type::int(64)),
    );
    let mut dicts: Vec<Dict> = vec![arena_dict];
    for (i, &a) in args[old_lo..old_hi].iter().enumerate() {
        if !erased_args.contains(&a) {
            dicts.push(old_dicts.get(i).cloned().unwrap_or_default());
        }
    }
    for idx in (old_lo..old_hi).rev() {
        if erased_args.contains(&args[idx]) {
            m.erase_block_arg(k.entry, idx);
        }
    }
    let n_wg = k.n_wg - erased_args.len() + 1;
    m.op_mut(k.op).attrs.set(
        "workgroup_attributions",
        Attribute::int(n_wg as i128, Type::int(64)),
    );
    if m.op(k.op).name == "gpu.func" {
        m.op_mut(k.op).props.set(
            "workgroup_attrib_attrs",
            Attribute::Array(dicts.into_iter().map(Attribute::Dict).collect()),
        );
    }
}

impl fmt::Display for KernelReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "@{}: {} B -> {} B (lower bound {} B), {} barriers added",
            self.kernel, self.bytes_before, self.bytes_after, self.lower_bound, self.barriers_added
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse() {
        let o = MergeSharedOptions::parse("alignment=32 capacity=1000,planner=exact barriers=min")
            .unwrap();
        assert_eq!(o.alignment, 32);
        assert_eq!(o.capacity, 1000);
        assert_eq!(o.planner, Algorithm::Exact);
        assert_eq!(o.barriers, BarrierMode::Min);
        assert_eq!(
            MergeSharedOptions::parse("{arch=sm_90}").unwrap().capacity,
            227 * 1024
        );
        assert_eq!(
            MergeSharedOptions::parse("").unwrap(),
            MergeSharedOptions::default()
        );
        assert!(matches!(
            MergeSharedOptions::parse("alignment=3"),
            Err(SharedOptionsError::BadValue { .. })
        ));
        assert!(matches!(
            MergeSharedOptions::parse("arch=sm_70"),
            Err(SharedOptionsError::BadValue { .. })
        ));
        assert!(matches!(
            MergeSharedOptions::parse("nope=1"),
            Err(SharedOptionsError::UnknownKey(_))
        ));
    }
}
