//! Lifetime traces: allocation scopes and live tick ranges of every `memref.alloc`.
//!
//! The tick-based trace collector of seed 000 ("Tick-based trace collection"): every op
//! of the module gets a tick from a pre-order walk, and every region op also knows the
//! last tick inside it. A buffer is live from the first to the last tick at which an op
//! *accesses* it through any alias ([`BufferViewFlow`]); view ops (for their source),
//! `memref.dim` and frees are not accesses, and the allocation itself does not start the
//! lifetime. Every other memref operand of an op is an access (`memref.reshape` reads its
//! shape operand, a call passes its arguments to the callee, ...).
//!
//! Loops and branches. When an op accesses a buffer from inside region ops that do not
//! contain the buffer's allocation, the access covers the whole of the outermost such op
//! that may *repeat* or run its body in parallel (loops, `scf.parallel`, `gpu.launch`,
//! linalg bodies, multi-block regions): a buffer allocated before an `scf.for` and used
//! only inside an `scf.if` nested in the loop is live over the entire loop, because the
//! next iteration reads what this one wrote. Ops that run their regions at most once
//! ([`NON_REPEATING_OPS`]: `scf.if`, `scf.execute_region`, `scf.index_switch`, `affine.if`)
//! do not stretch lifetimes: pre-order ticks already follow their execution order.
//!
//! Asynchronous GPU ops. An op producing a `!gpu.async.token` (`gpu.launch async`,
//! `gpu.memcpy async`, ...) may still use its buffers until the token is awaited by a
//! blocking `gpu.wait`; such accesses also count at every wait the token reaches, and a
//! token that escapes the analysis makes its buffers unmergeable.
//!
//! Unstructured control flow. When the allocation scope's region has several blocks
//! (after `--convert-scf-to-cf`), liveness is a dataflow problem over the CFG: a buffer
//! is live at an op when some path reaches the op from an access of the same allocation
//! instance and continues to another access of it (forward "accessed since the
//! allocation" meets backward "accessed before the next allocation"; the allocation kills
//! both, since it starts a new instance). The result is a set of tick ranges, one
//! multi-interval lifetime. A buffer whose allocation sits on a CFG cycle and that is
//! passed through block arguments could be live in two instances at once; it is left
//! alone.
//!
//! Allocation scopes: the body of a function and of every `scf.forall`, `scf.parallel`,
//! `gpu.launch` (also `affine.parallel`, `memref.alloca_scope`); allocations under
//! `scf.for`, `scf.while` and `scf.if` belong to the enclosing scope. MLIR's
//! `AutomaticAllocationScope` trait is deliberately not used (MLIR 22 gives it to
//! `scf.for`).
//!
//! Besides ranges, the collector records the facts that decide whether a buffer may be
//! merged: how it escapes, where and through which values it is freed
//! ([`FreeSite`]: `memref.dealloc` and the memref list of `bufferization.dealloc`), whose
//! addresses it is compared with, and which IR it cannot reason about. Calls to functions
//! with a body are summarised ([`ArgSummary`]): a callee that frees or captures an
//! argument makes the caller's buffer unmergeable; one that only reads or writes it is an
//! access at the call.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use memplan_ir::{Attribute, BlockId, Module, OpId, RegionId, TypeKind, ValueId};

use crate::analysis::alias::{AllocIndex, BufferViewFlow};
use crate::ops::{
    classify, is_pointer_like, OpKind, FUNCTION_OPS, LOOP_OPS, NON_REPEATING_OPS, SCOPE_OPS,
};

/// Pre-order ticks of every op (indexed by op id).
#[derive(Clone, Debug)]
pub struct Ticks {
    tick: Vec<u32>,
    end: Vec<u32>,
}

impl Ticks {
    /// Numbers every op nested in `root` in pre-order.
    pub fn compute(m: &Module, root: OpId) -> Ticks {
        let n = m.num_ops();
        let mut tick = vec![0u32; n];
        let mut end = vec![0u32; n];
        let mut counter = 0u32;
        // (op, children visited?)
        let mut stack: Vec<(OpId, bool)> = vec![(root, false)];
        while let Some((op, done)) = stack.pop() {
            if done {
                end[op.index()] = counter.saturating_sub(1);
                continue;
            }
            tick[op.index()] = counter;
            counter += 1;
            let regions = m.regions(op);
            if regions.is_empty() {
                end[op.index()] = tick[op.index()];
                continue;
            }
            stack.push((op, true));
            // Children in reverse, so that they pop in order (no scratch list).
            for &r in regions.iter().rev() {
                for &b in m.region_blocks(r).iter().rev() {
                    let mut o = m.last_op(b);
                    while let Some(c) = o {
                        stack.push((c, false));
                        o = m.prev_op(c);
                    }
                }
            }
        }
        Ticks { tick, end }
    }

    /// The tick of `op`.
    pub fn tick(&self, op: OpId) -> u32 {
        self.tick[op.index()]
    }

    /// The last tick inside `op` (its own tick when it has no nested ops).
    pub fn end(&self, op: OpId) -> u32 {
        self.end[op.index()].max(self.tick[op.index()])
    }

    /// True when `outer` is `inner` or one of its ancestors.
    pub fn contains(&self, outer: OpId, inner: OpId) -> bool {
        let t = self.tick(inner);
        self.tick(outer) <= t && t <= self.end(outer)
    }
}

/// A block whose mergeable allocations share one arena.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllocScope {
    /// The op owning the region (`func.func`, `scf.parallel`, ...).
    pub op: OpId,
    /// The block that receives the arena (the entry block of the scope's region).
    pub block: BlockId,
    /// The scope's region when it has several blocks (liveness over the CFG).
    pub cfg: Option<RegionId>,
    /// The function the scope belongs to.
    pub function: String,
    /// `func`, or `scf.parallel#K` / `scf.forall#K` (pre-order per op name in the function).
    pub label: String,
}

/// Why a buffer's address leaves what the pass can see, or why the pass cannot order it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Hazard {
    /// Returned from the function.
    Returned,
    /// Yielded out of a region (`scf.yield` of a loop that allocates it, ...).
    Yielded(String),
    /// Stored into memory.
    Stored(String),
    /// Passed to a function that is only declared (or cannot be found).
    ExternalCall(String),
    /// Passed to an indirect call.
    IndirectCall,
    /// Its address is extracted or handed to an op that takes ownership.
    PointerTaken(String),
    /// Freed through a value that may also be a buffer that is not merged.
    AmbiguousDealloc,
    /// Retained by a `bufferization.dealloc` (ownership answered by comparing addresses).
    Retained,
    /// Freed by a callee.
    FreedByCallee(String),
    /// Captured (stored, returned to unknown code, ...) by a callee.
    CapturedByCallee(String),
    /// Touched inside (or by) an op with regions the pass does not understand.
    UnknownRegion(String),
    /// Used by the terminator of its allocation scope (the arena's free cannot follow it).
    UsedByScopeTerminator(String),
    /// Used by an asynchronous op whose completion the pass cannot place.
    Async(String),
    /// Allocated on a CFG cycle and carried across it through block arguments.
    LoopCarried,
    /// Allocated in a region with several blocks that is not an allocation scope.
    UnstructuredControlFlow,
    /// Used outside its multi-block region, which lies inside another multi-block region.
    UsedOutsideNestedCfg,
    /// Not inside any allocation scope the pass knows.
    NoScope,
}

impl fmt::Display for Hazard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Hazard::Returned => write!(f, "it is returned from the function"),
            Hazard::Yielded(op) => write!(f, "it is yielded out of a region by `{op}`"),
            Hazard::Stored(op) => write!(f, "it is stored into memory by `{op}`"),
            Hazard::ExternalCall(c) => write!(f, "it is passed to the external function @{c}"),
            Hazard::IndirectCall => write!(f, "it is passed to an indirect call"),
            Hazard::PointerTaken(op) => write!(f, "its address is taken by `{op}`"),
            Hazard::AmbiguousDealloc => write!(
                f,
                "it is freed through a value that may also point to a buffer that is not merged"
            ),
            Hazard::Retained => write!(
                f,
                "it is retained by a `bufferization.dealloc` (ownership decided by address)"
            ),
            Hazard::FreedByCallee(c) => write!(f, "it is freed by the callee @{c}"),
            Hazard::CapturedByCallee(c) => {
                write!(f, "the callee @{c} lets its address escape")
            }
            Hazard::UnknownRegion(op) => write!(
                f,
                "it is used by or inside `{op}`, an op with regions the pass does not understand"
            ),
            Hazard::UsedByScopeTerminator(op) => write!(
                f,
                "it is used by `{op}`, the terminator of its allocation scope, after which no free can follow"
            ),
            Hazard::Async(why) => write!(f, "{why}"),
            Hazard::LoopCarried => write!(
                f,
                "it is allocated on a control-flow cycle and carried around it through block arguments"
            ),
            Hazard::UnstructuredControlFlow => write!(
                f,
                "it is allocated in a region with several blocks that is not an allocation scope"
            ),
            Hazard::UsedOutsideNestedCfg => write!(
                f,
                "it is used outside its region with several blocks, which lies inside another such region (ops there are not ordered by execution)"
            ),
            Hazard::NoScope => write!(f, "it is not inside an allocation scope"),
        }
    }
}

/// One place where a buffer may be freed: a `memref.dealloc` operand or an entry of the
/// memref list of a `bufferization.dealloc`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreeSite {
    /// The freeing op.
    pub op: OpId,
    /// The operand index of the freed value.
    pub operand: usize,
    /// The allocations the freed value may point into.
    pub allocs: Vec<AllocIndex>,
    /// True when it may also point to something that is not an allocation of the module.
    pub foreign: bool,
}

/// What the collector learned about one `memref.alloc`.
#[derive(Clone, Debug)]
pub struct BufferTrace {
    /// The allocation.
    pub alloc: OpId,
    /// Index into [`Lifetimes::scopes`].
    pub scope: Option<usize>,
    /// First and last live tick (inclusive); `None` when never accessed.
    pub ticks: Option<(u32, u32)>,
    /// The live ticks as sorted, disjoint inclusive ranges (one range for structured code;
    /// several when the scope's region is a CFG). Empty when never accessed.
    pub live: Vec<(u32, u32)>,
    /// Everything that stops it from being merged, sorted and deduplicated.
    pub hazards: Vec<Hazard>,
    /// Indices into [`Lifetimes::frees`] of the sites that may free it.
    pub frees: Vec<usize>,
    /// Lifetime markers (`memplan.lifetime_start` lifelines of this buffer), when the
    /// analysis was asked to use them ([`Lifetimes::compute_with_markers`]):
    /// `None` when the buffer has none.
    pub markers: Option<MarkerUse>,
}

/// What the lifetime analysis did with a buffer's `memplan.lifetime_start` lifelines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MarkerUse {
    /// `live` is the union of the lifelines (`count` of them); `analysis` is what the
    /// analysis alone would have given.
    Used {
        /// Number of lifelines.
        count: usize,
        /// The analysis' live ranges without the markers.
        analysis: Vec<(u32, u32)>,
    },
    /// The markers were not trusted for this buffer (the analysis' ranges are used).
    Ignored(String),
}

/// Values whose addresses are compared with one another (directly with `arith.cmpi eq/ne`,
/// or as integers stored into pointer tables that a callee only compares, as the lowered
/// `bufferization.dealloc` helper does). Merging keeps every such comparison's outcome when
/// distinct merged buffers among the values' origins get distinct addresses.
pub type AddressGroup = Vec<ValueId>;

impl BufferTrace {
    /// The half-open live intervals; an unused buffer gets one tick at its allocation.
    pub fn intervals(&self, ticks: &Ticks) -> Vec<(u64, u64)> {
        if self.live.is_empty() {
            let t = u64::from(ticks.tick(self.alloc));
            return vec![(t, t + 1)];
        }
        self.live
            .iter()
            .map(|&(a, b)| (u64::from(a), u64::from(b) + 1))
            .collect()
    }
}

/// What a function does with one of its pointer arguments (through any alias).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArgSummary {
    /// Reads or writes its memory.
    pub accessed: bool,
    /// May free it.
    pub freed: bool,
    /// May let its address escape (stored, external call, address taken, ...).
    pub escapes: bool,
}

impl ArgSummary {
    fn join(&mut self, o: &ArgSummary) -> bool {
        let before = self.clone();
        self.accessed |= o.accessed;
        self.freed |= o.freed;
        self.escapes |= o.escapes;
        *self != before
    }
}

/// The lifetime analysis of a whole module.
#[derive(Clone, Debug)]
pub struct Lifetimes {
    /// The ticks.
    pub ticks: Ticks,
    /// Allocation scopes that hold at least one allocation, in pre-order.
    pub scopes: Vec<AllocScope>,
    /// One trace per `memref.alloc`, indexed like [`BufferViewFlow::allocs`].
    pub traces: Vec<BufferTrace>,
    /// Every place that may free an allocation of the module.
    pub frees: Vec<FreeSite>,
    /// Per function-like op with a body: what it does with each entry argument.
    pub summaries: BTreeMap<OpId, Vec<ArgSummary>>,
    /// Sets of values whose addresses are compared with one another.
    pub address_groups: Vec<AddressGroup>,
    /// Per trace: the multi-block region whose CFG its liveness is computed over.
    live_regions: Vec<Option<RegionId>>,
    /// Per trace: another multi-block region encloses its liveness region.
    nested_cfg: Vec<bool>,
}

/// How one operand of one op uses the buffers it may point to.
enum UseKind {
    /// No effect on memory or ownership.
    None,
    /// Reads or writes the memory.
    Access,
    /// Frees it.
    Free,
    /// Lets it escape (a hazard for allocations; `escapes` for arguments).
    Escape(Hazard),
    /// Returned from the function (a hazard for allocations only: callers see call results
    /// as aliases of the arguments).
    Returned,
    /// Retained by a `bufferization.dealloc`.
    Retained,
    /// Yielded by a terminator to its parent op.
    Yield(OpId),
    /// Its address only feeds equality comparisons with these values.
    Compared(Vec<ValueId>),
    /// Its address only goes into pointer tables that these calls compare.
    Tabled(Vec<OpId>),
    /// Passed as argument `index` to a function with a body.
    Call {
        callee: OpId,
        name: String,
        index: usize,
    },
}

/// Per-collection state: where each allocation is accessed.
#[derive(Default)]
struct Points {
    /// (lo, hi) inclusive, already stretched over repeating region ops.
    ranges: Vec<(u32, u32)>,
    /// Top-level ops of the liveness CFG region that contain an access.
    anchors: BTreeSet<OpId>,
    /// Accesses outside the liveness region (after the op owning it), already stretched.
    outside: Vec<(u32, u32)>,
    /// Per lifeline of this buffer (index into [`Lifelines::starts`]): the hull of its
    /// accesses, each stretched over the repeating ops that do not contain its start.
    lifeline_hulls: BTreeMap<usize, (u32, u32)>,
    /// Why the lifelines of this buffer cannot be trusted (an access not through one).
    untrusted: Option<String>,
}

/// The `memplan.lifetime_start` ops of a module that the analysis may trust.
#[derive(Default)]
struct Lifelines {
    /// Start ops, with the allocation each one starts.
    starts: Vec<(OpId, AllocIndex)>,
    /// Value -> lifelines whose family (the lifeline and its views) holds it.
    family: BTreeMap<ValueId, Vec<usize>>,
    /// Allocation -> why its lifelines are not trusted, found before any access.
    rejected: BTreeMap<AllocIndex, String>,
}

impl Lifetimes {
    /// Collects the traces of every `memref.alloc` nested in `root`.
    pub fn compute(m: &Module, root: OpId, flow: &BufferViewFlow) -> Lifetimes {
        Lifetimes::compute_with_markers(m, root, flow, false)
    }

    /// Like [`Lifetimes::compute`]; with `markers`, a buffer whose every access goes
    /// through one of its `memplan.lifetime_start` lifelines is live only over those
    /// lifelines (each access stretched over the loops inside its lifeline's start, not
    /// over the loops inside the allocation), which may be shorter than what the analysis
    /// finds. The caller must have checked the markers with
    /// [`crate::transform::memref_lifetime::verify_lifetime_markers`]. Buffers whose
    /// liveness is computed over a CFG, whose lifeline starts sit under an op that may run
    /// iterations in parallel, or that are also accessed outside a lifeline keep the
    /// analysis' ranges ([`MarkerUse::Ignored`] says why).
    pub fn compute_with_markers(
        m: &Module,
        root: OpId,
        flow: &BufferViewFlow,
        markers: bool,
    ) -> Lifetimes {
        let ticks = Ticks::compute(m, root);
        let labels = scope_labels(m, root);
        let mut scope_index: BTreeMap<(u32, u32), usize> = BTreeMap::new();
        let mut scopes: Vec<AllocScope> = Vec::new();
        let mut traces: Vec<BufferTrace> = Vec::with_capacity(flow.allocs.len());
        let mut live_regions: Vec<Option<RegionId>> = Vec::with_capacity(flow.allocs.len());
        let mut nested_cfg: Vec<bool> = Vec::with_capacity(flow.allocs.len());
        for &alloc in &flow.allocs {
            let mut hazards = Vec::new();
            let scope = match find_scope(m, alloc) {
                Ok(FoundScope {
                    op,
                    block,
                    cfg,
                    live_region,
                    nested,
                }) => {
                    live_regions.push(live_region);
                    nested_cfg.push(nested);
                    let key = (ticks.tick(op), block.0);
                    Some(*scope_index.entry(key).or_insert_with(|| {
                        let (function, label) = labels
                            .get(&op)
                            .cloned()
                            .unwrap_or_else(|| (String::new(), m.op(op).name.to_string()));
                        scopes.push(AllocScope {
                            op,
                            block,
                            cfg,
                            function,
                            label,
                        });
                        scopes.len() - 1
                    }))
                }
                Err(h) => {
                    live_regions.push(None);
                    nested_cfg.push(false);
                    hazards.push(h);
                    None
                }
            };
            traces.push(BufferTrace {
                alloc,
                scope,
                ticks: None,
                live: Vec::new(),
                hazards,
                frees: Vec::new(),
                markers: None,
            });
        }
        // Scopes in pre-order of their ops.
        let mut order: Vec<usize> = (0..scopes.len()).collect();
        order.sort_by_key(|&i| (ticks.tick(scopes[i].op), scopes[i].block.0));
        let mut remap = vec![0usize; scopes.len()];
        for (new, &old) in order.iter().enumerate() {
            remap[old] = new;
        }
        let scopes: Vec<AllocScope> = order.iter().map(|&i| scopes[i].clone()).collect();
        for t in &mut traces {
            t.scope = t.scope.map(|s| remap[s]);
        }

        let mut lt = Lifetimes {
            ticks,
            scopes,
            traces,
            frees: Vec::new(),
            summaries: BTreeMap::new(),
            address_groups: Vec::new(),
            live_regions,
            nested_cfg,
        };
        let functions = function_table(m);
        lt.summarise(m, root, flow, &functions);
        let mut points: Vec<Points> = (0..lt.traces.len()).map(|_| Points::default()).collect();
        let lifelines = if markers {
            lt.lifelines(m, root, flow)
        } else {
            Lifelines::default()
        };
        lt.collect_uses(m, root, flow, &functions, &mut points, &lifelines);
        lt.finish(m, flow, &points);
        if markers {
            lt.apply_markers(&lifelines, &points);
        }
        for t in &mut lt.traces {
            t.hazards.sort();
            t.hazards.dedup();
        }
        lt
    }

    /// How operand `i` of `op` uses what it points to.
    fn use_kind(
        m: &Module,
        op: OpId,
        kind: OpKind,
        i: usize,
        functions: &BTreeMap<String, (OpId, bool)>,
    ) -> UseKind {
        let name = m.op(op).name.as_str();
        match kind {
            OpKind::Alloc | OpKind::Select | OpKind::MetadataOnly | OpKind::Branch => UseKind::None,
            OpKind::View => {
                if i == 0 {
                    UseKind::None
                } else {
                    UseKind::Access
                }
            }
            OpKind::Dealloc => UseKind::Free,
            OpKind::BufferizationDealloc => {
                let seg = m
                    .op(op)
                    .props
                    .get("operandSegmentSizes")
                    .and_then(Attribute::as_int_array)
                    .filter(|s| s.len() == 3 && s.iter().all(|&x| x >= 0));
                match seg {
                    Some(s) if (i as i64) < s[0] => {
                        // An entry whose condition is the constant `false` frees nothing.
                        let cond = m.operands(op).get(i + s[0] as usize).copied();
                        if cond.is_some_and(|c| is_const_false(m, c)) {
                            UseKind::None
                        } else {
                            UseKind::Free
                        }
                    }
                    Some(s) if (i as i64) >= s[0] + s[1] => UseKind::Retained,
                    Some(_) => UseKind::None,
                    None => UseKind::Escape(Hazard::PointerTaken(name.to_string())),
                }
            }
            OpKind::Return => UseKind::Returned,
            OpKind::Yield => match m.parent_op(op) {
                Some(p) => UseKind::Yield(p),
                None => UseKind::Escape(Hazard::Yielded(name.to_string())),
            },
            OpKind::UnknownCall => UseKind::Escape(Hazard::IndirectCall),
            OpKind::PointerEscape => {
                if name == "memref.extract_aligned_pointer_as_index" {
                    if let Some(partners) = compared_only(m, op) {
                        return UseKind::Compared(partners);
                    }
                    if let Some(calls) = stored_in_pointer_tables(m, op, functions) {
                        return UseKind::Tabled(calls);
                    }
                }
                UseKind::Escape(Hazard::PointerTaken(name.to_string()))
            }
            OpKind::ForeignBuffer => UseKind::Escape(Hazard::PointerTaken(name.to_string())),
            OpKind::UnknownRegion => UseKind::Escape(Hazard::UnknownRegion(name.to_string())),
            OpKind::Store if i == 0 => UseKind::Escape(Hazard::Stored(name.to_string())),
            OpKind::Call => {
                let callee = m
                    .op(op)
                    .props
                    .get("callee")
                    .or_else(|| m.op(op).attrs.get("callee"))
                    .and_then(Attribute::as_symbol)
                    .unwrap_or("?")
                    .to_string();
                match functions.get(&callee) {
                    Some(&(f, true)) => UseKind::Call {
                        callee: f,
                        name: callee,
                        index: i,
                    },
                    _ => UseKind::Escape(Hazard::ExternalCall(callee)),
                }
            }
            OpKind::Store | OpKind::KnownRegion | OpKind::Other => UseKind::Access,
        }
    }

    /// Computes [`ArgSummary`]s of every function with a body, to a fixed point over calls.
    fn summarise(
        &mut self,
        m: &Module,
        root: OpId,
        flow: &BufferViewFlow,
        functions: &BTreeMap<String, (OpId, bool)>,
    ) {
        let mut summaries: BTreeMap<OpId, Vec<ArgSummary>> = BTreeMap::new();
        for &(f, i) in &flow.args {
            let v = summaries.entry(f).or_default();
            if v.len() <= i {
                v.resize(i + 1, ArgSummary::default());
            }
        }
        // Summaries only matter at calls of functions with a body.
        let mut calls_bodies = false;
        if !flow.args.is_empty() {
            m.walk(root, &mut |m, op| {
                calls_bodies |= classify(m, op) == OpKind::Call
                    && m.op(op)
                        .props
                        .get("callee")
                        .or_else(|| m.op(op).attrs.get("callee"))
                        .and_then(Attribute::as_symbol)
                        .and_then(|c| functions.get(c))
                        .is_some_and(|&(_, body)| body);
            });
        }
        if !calls_bodies {
            self.summaries = summaries;
            return;
        }
        // (caller arg origins, callee, callee arg index)
        let mut calls: Vec<(Vec<u32>, OpId, usize)> = Vec::new();
        m.walk(root, &mut |m, op| {
            let kind = classify(m, op);
            for (i, &v) in m.operands(op).iter().enumerate() {
                if !is_pointer_like(m.value_type(v)) {
                    continue;
                }
                let args: Vec<u32> = flow
                    .origins(v)
                    .iter()
                    .copied()
                    .filter(|&c| flow.arg_origin(c).is_some())
                    .collect();
                if args.is_empty() {
                    continue;
                }
                let effect = match Lifetimes::use_kind(m, op, kind, i, functions) {
                    UseKind::None
                    | UseKind::Returned
                    | UseKind::Retained
                    | UseKind::Yield(_)
                    | UseKind::Compared(_)
                    | UseKind::Tabled(_) => ArgSummary::default(),
                    UseKind::Access => ArgSummary {
                        accessed: true,
                        ..ArgSummary::default()
                    },
                    UseKind::Free => ArgSummary {
                        freed: true,
                        ..ArgSummary::default()
                    },
                    UseKind::Escape(_) => ArgSummary {
                        escapes: true,
                        ..ArgSummary::default()
                    },
                    UseKind::Call { callee, index, .. } => {
                        calls.push((args.clone(), callee, index));
                        ArgSummary {
                            accessed: true,
                            ..ArgSummary::default()
                        }
                    }
                };
                for c in args {
                    if let Some((f, k)) = flow.arg_origin(c) {
                        if let Some(s) = summaries.get_mut(&f).and_then(|v| v.get_mut(k)) {
                            s.join(&effect);
                        }
                    }
                }
            }
        });
        loop {
            let mut changed = false;
            for (args, callee, index) in &calls {
                let effect = summaries
                    .get(callee)
                    .and_then(|v| v.get(*index))
                    .cloned()
                    .unwrap_or(ArgSummary {
                        accessed: true,
                        freed: true,
                        escapes: true,
                    });
                for &c in args {
                    if let Some((f, k)) = flow.arg_origin(c) {
                        if let Some(s) = summaries.get_mut(&f).and_then(|v| v.get_mut(k)) {
                            changed |= s.join(&effect);
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        self.summaries = summaries;
    }

    fn collect_uses(
        &mut self,
        m: &Module,
        root: OpId,
        flow: &BufferViewFlow,
        functions: &BTreeMap<String, (OpId, bool)>,
        points: &mut [Points],
        lifelines: &Lifelines,
    ) {
        let ops = m.walk_ops(root);
        let mut tables: BTreeMap<OpId, Vec<ValueId>> = BTreeMap::new();
        for op in ops {
            let kind = classify(m, op);
            for (i, &v) in m.operands(op).iter().enumerate() {
                if !is_pointer_like(m.value_type(v)) {
                    continue;
                }
                let allocs: Vec<AllocIndex> = flow.alloc_origins(v).collect();
                if allocs.is_empty() {
                    continue;
                }
                match Lifetimes::use_kind(m, op, kind, i, functions) {
                    UseKind::None => {}
                    UseKind::Access => {
                        self.access(m, op, &allocs, points);
                        self.lifeline_access(m, op, v, &allocs, points, lifelines);
                    }
                    UseKind::Free => {
                        let site = self.frees.len();
                        self.frees.push(FreeSite {
                            op,
                            operand: i,
                            allocs: allocs.clone(),
                            foreign: flow.may_be_foreign(v),
                        });
                        for &c in &allocs {
                            self.traces[c as usize].frees.push(site);
                        }
                    }
                    UseKind::Escape(h) => self.hazard(&allocs, h),
                    UseKind::Returned => self.hazard(&allocs, Hazard::Returned),
                    UseKind::Retained => self.hazard(&allocs, Hazard::Retained),
                    UseKind::Yield(parent) => {
                        let pname = m.op(parent).name.as_str();
                        let why = Hazard::Yielded(m.op(op).name.to_string());
                        if NON_REPEATING_OPS.contains(&pname) {
                            // The parent's results alias the value (alias analysis).
                        } else if LOOP_OPS.contains(&pname) {
                            // A buffer allocated inside the loop and carried to the next
                            // iteration would live in two instances at once.
                            for &c in &allocs {
                                if self.ticks.contains(parent, self.traces[c as usize].alloc) {
                                    self.traces[c as usize].hazards.push(why.clone());
                                }
                            }
                        } else {
                            self.hazard(&allocs, why);
                        }
                    }
                    UseKind::Compared(partners) => {
                        let mut group = vec![v];
                        group.extend(partners);
                        self.address_groups.push(group);
                    }
                    UseKind::Tabled(calls) => {
                        for c in calls {
                            tables.entry(c).or_default().push(v);
                        }
                    }
                    UseKind::Call {
                        callee,
                        name,
                        index,
                    } => {
                        let s = self
                            .summaries
                            .get(&callee)
                            .and_then(|v| v.get(index))
                            .cloned();
                        match s {
                            Some(s) if !s.freed && !s.escapes => {
                                self.access(m, op, &allocs, points);
                                self.lifeline_access(m, op, v, &allocs, points, lifelines);
                            }
                            Some(s) if s.freed => self.hazard(&allocs, Hazard::FreedByCallee(name)),
                            _ => self.hazard(&allocs, Hazard::CapturedByCallee(name)),
                        }
                    }
                }
            }
        }
        for (_, mut group) in tables {
            group.sort();
            group.dedup();
            self.address_groups.push(group);
        }
    }

    /// Finds the lifelines the analysis may use: starts whose operand is the allocation's
    /// own result, none of them under an op that may run its iterations in parallel
    /// between the allocation and the start.
    fn lifelines(&self, m: &Module, root: OpId, flow: &BufferViewFlow) -> Lifelines {
        use crate::transform::memref_lifetime::{derived, START};
        let mut out = Lifelines::default();
        for op in m.walk_ops(root) {
            if m.op(op).name.as_str() != START {
                continue;
            }
            let (Some(&buf), Some(&l)) = (m.operands(op).first(), m.results(op).first()) else {
                continue;
            };
            let origins: Vec<AllocIndex> = flow.alloc_origins(buf).collect();
            let direct = m
                .defining_op(buf)
                .and_then(|d| flow.alloc_index(m, d))
                .filter(|&c| origins == [c]);
            let Some(c) = direct else {
                for c in origins {
                    out.rejected.entry(c).or_insert_with(|| {
                        "a lifetime_start takes a view of it, not the allocation itself".into()
                    });
                }
                continue;
            };
            let alloc = self.traces[c as usize].alloc;
            let mut p = m.parent_op(op);
            while let Some(q) = p {
                if self.ticks.contains(q, alloc) {
                    break;
                }
                let name = m.op(q).name.as_str();
                if !LOOP_OPS.contains(&name) && !NON_REPEATING_OPS.contains(&name) {
                    out.rejected.entry(c).or_insert_with(|| {
                        format!("a lifetime_start sits inside `{name}`, which may run iterations at once")
                    });
                }
                p = m.parent_op(q);
            }
            let k = out.starts.len();
            out.starts.push((op, c));
            for v in derived(m, l) {
                out.family.entry(v).or_default().push(k);
            }
        }
        out
    }

    /// Records an access by `op` through operand `v` against the lifelines of `allocs`.
    fn lifeline_access(
        &self,
        m: &Module,
        op: OpId,
        v: ValueId,
        allocs: &[AllocIndex],
        points: &mut [Points],
        lifelines: &Lifelines,
    ) {
        if lifelines.starts.is_empty() {
            return;
        }
        let family = lifelines.family.get(&v).map(Vec::as_slice).unwrap_or(&[]);
        for &c in allocs {
            let k = family.iter().copied().find(|&k| lifelines.starts[k].1 == c);
            let pts = &mut points[c as usize];
            let Some(k) = k else {
                if pts.untrusted.is_none() {
                    pts.untrusted = Some(format!(
                        "`{}` accesses it without going through a lifeline",
                        m.op(op).name
                    ));
                }
                continue;
            };
            if has_async_token(m, op) {
                pts.untrusted = Some(format!("`{}` accesses it asynchronously", m.op(op).name));
                continue;
            }
            let start = lifelines.starts[k].0;
            let (mut lo, mut hi) = (self.ticks.tick(op), self.ticks.end(op));
            let mut cur = op;
            while let Some(p) = m.parent_op(cur) {
                if self.ticks.contains(p, start) {
                    break;
                }
                if repeats(m, p) {
                    lo = self.ticks.tick(p);
                    hi = self.ticks.end(p);
                }
                if has_async_token(m, p) {
                    pts.untrusted = Some(format!("`{}` accesses it asynchronously", m.op(p).name));
                }
                cur = p;
            }
            let h = pts.lifeline_hulls.entry(k).or_insert((lo, hi));
            h.0 = h.0.min(lo);
            h.1 = h.1.max(hi);
        }
    }

    /// Replaces the live ranges of every buffer whose lifelines can be trusted.
    fn apply_markers(&mut self, lifelines: &Lifelines, points: &[Points]) {
        let mut has: BTreeSet<AllocIndex> = BTreeSet::new();
        for &(_, c) in &lifelines.starts {
            has.insert(c);
        }
        for c in has {
            let i = c as usize;
            let pts = &points[i];
            let why = if let Some(why) = lifelines.rejected.get(&c) {
                Some(why.clone())
            } else if let Some(why) = &pts.untrusted {
                Some(why.clone())
            } else if self.live_regions[i].is_some() {
                Some("its liveness is computed over a multi-block region".to_string())
            } else if pts.lifeline_hulls.is_empty() {
                Some("it is never accessed".to_string())
            } else {
                None
            };
            let t = &mut self.traces[i];
            if let Some(why) = why {
                t.markers = Some(MarkerUse::Ignored(why));
                continue;
            }
            let live = merge_ranges(pts.lifeline_hulls.values().copied().collect());
            let analysis = std::mem::replace(&mut t.live, live);
            t.ticks = match (t.live.first(), t.live.last()) {
                (Some(a), Some(b)) => Some((a.0, b.1)),
                _ => None,
            };
            t.markers = Some(MarkerUse::Used {
                count: pts.lifeline_hulls.len(),
                analysis,
            });
        }
    }

    fn hazard(&mut self, allocs: &[AllocIndex], h: Hazard) {
        for &c in allocs {
            self.traces[c as usize].hazards.push(h.clone());
        }
    }

    /// Records an access by `op` to every allocation in `allocs`, stretched over the
    /// outermost repeating region op around `op` that does not contain the allocation,
    /// and extended to the waits of any asynchronous op on the way.
    fn access(&mut self, m: &Module, op: OpId, allocs: &[AllocIndex], points: &mut [Points]) {
        for &c in allocs {
            self.access_one(m, op, c, points, true);
        }
    }

    fn access_one(
        &mut self,
        m: &Module,
        op: OpId,
        c: AllocIndex,
        points: &mut [Points],
        follow_async: bool,
    ) {
        let t = &self.traces[c as usize];
        let alloc = t.alloc;
        let scope = t.scope.map(|s| self.scopes[s].op);
        let (mut lo, mut hi) = (self.ticks.tick(op), self.ticks.end(op));
        let mut cur = op;
        let mut hazards = Vec::new();
        let mut asyncs = Vec::new();
        if has_async_token(m, op) {
            asyncs.push(op);
        }
        while let Some(p) = m.parent_op(cur) {
            if self.ticks.contains(p, alloc) {
                break;
            }
            if classify(m, p) == OpKind::UnknownRegion {
                hazards.push(Hazard::UnknownRegion(m.op(p).name.to_string()));
            }
            if repeats(m, p) {
                lo = self.ticks.tick(p);
                hi = self.ticks.end(p);
            }
            if has_async_token(m, p) {
                asyncs.push(p);
            }
            cur = p;
        }
        // The terminator of the scope's body cannot be followed by the arena's free.
        if let Some(sop) = scope {
            let mut top = op;
            while let Some(p) = m.parent_op(top) {
                if p == sop {
                    break;
                }
                top = p;
            }
            if m.parent_op(top) == Some(sop) {
                let is_last = m.op_block(top).and_then(|b| m.last_op(b)) == Some(top);
                if is_last && !m.regions(top).is_empty() {
                    hazards.push(Hazard::UsedByScopeTerminator(m.op(top).name.to_string()));
                }
            }
        }
        // The op of the liveness region that holds the access, if the access is inside it.
        if let Some(region) = self.live_regions[c as usize] {
            let mut anchor = Some(op);
            while let Some(a) = anchor {
                if m.op_block(a).and_then(|b| m.block_region(b)) == Some(region) {
                    break;
                }
                anchor = m.parent_op(a);
            }
            match anchor {
                Some(a) => {
                    points[c as usize].anchors.insert(a);
                }
                None => points[c as usize].outside.push((lo, hi)),
            }
        }
        points[c as usize].ranges.push((lo, hi));
        self.traces[c as usize].hazards.extend(hazards);
        if follow_async {
            for a in asyncs {
                match async_waits(m, a) {
                    Ok(waits) => {
                        for w in waits {
                            self.access_one(m, w, c, points, false);
                        }
                    }
                    Err(why) => self.traces[c as usize].hazards.push(Hazard::Async(why)),
                }
            }
        }
    }

    /// Turns the access points into live ranges.
    fn finish(&mut self, m: &Module, flow: &BufferViewFlow, points: &[Points]) {
        for (c, pts) in points.iter().enumerate() {
            if pts.ranges.is_empty() {
                continue;
            }
            let t = &self.traces[c];
            if self.nested_cfg[c] && !pts.outside.is_empty() {
                // Used outside its CFG region, which sits inside another CFG: the tick order
                // out there is not the execution order.
                self.traces[c].hazards.push(Hazard::UsedOutsideNestedCfg);
                continue;
            }
            let structured = || {
                let lo = pts.ranges.iter().map(|r| r.0).min().unwrap_or(0);
                let hi = pts.ranges.iter().map(|r| r.1).max().unwrap_or(0);
                vec![(lo, hi)]
            };
            let live = match self.live_regions[c] {
                None => structured(),
                Some(region) => {
                    let mut alloc_anchor = t.alloc;
                    while let Some(b) = m.op_block(alloc_anchor) {
                        if m.block_region(b) == Some(region) {
                            break;
                        }
                        match m.parent_op(alloc_anchor) {
                            Some(p) => alloc_anchor = p,
                            None => break,
                        }
                    }
                    if pts.outside.is_empty() && pts.anchors.iter().all(|&a| a == alloc_anchor) {
                        structured()
                    } else {
                        if carried_around_cycle(m, flow, region, alloc_anchor, c as u32) {
                            self.traces[c].hazards.push(Hazard::LoopCarried);
                        }
                        let mut anchors = pts.anchors.clone();
                        let mut extra = Vec::new();
                        if !pts.outside.is_empty() {
                            // Used after the op owning the region: live up to every exit
                            // of the region, and from the op's end to the last use after it.
                            for &b in m.region_blocks(region) {
                                if let Some(t) = m.last_op(b) {
                                    if m.op(t).successors.is_empty() {
                                        anchors.insert(t);
                                    }
                                }
                            }
                            if let Some(owner) = m.region_op(region) {
                                let hi = pts.outside.iter().map(|r| r.1).max().unwrap_or(0);
                                extra.push((self.ticks.end(owner), hi.max(self.ticks.end(owner))));
                            }
                        }
                        let mut live = cfg_live(m, &self.ticks, region, alloc_anchor, &anchors);
                        live.extend(extra);
                        live.extend(pts.outside.iter().copied());
                        merge_ranges(live)
                    }
                }
            };
            let t = &mut self.traces[c];
            t.ticks = match (live.first(), live.last()) {
                (Some(a), Some(b)) => Some((a.0, b.1)),
                _ => None,
            };
            t.live = live;
        }
    }
}

fn is_const_false(m: &Module, v: ValueId) -> bool {
    m.defining_op(v).is_some_and(|d| {
        m.op(d).name == "arith.constant"
            && m.op(d)
                .props
                .get("value")
                .or_else(|| m.op(d).attrs.get("value"))
                .and_then(Attribute::as_int)
                == Some(0)
            && m.results(d).first().is_some_and(|&r| {
                matches!(m.value_type(r).kind(), TypeKind::Integer { width: 1, .. })
            })
    })
}

/// True when `op` may run its regions more than once or in parallel instances.
pub fn repeats(m: &Module, op: OpId) -> bool {
    !NON_REPEATING_OPS.contains(&m.op(op).name.as_str())
        || m.regions(op).iter().any(|&r| m.region_blocks(r).len() > 1)
}

fn is_async_token(t: &memplan_ir::Type) -> bool {
    matches!(t.kind(), TypeKind::Opaque(s) if s == "!gpu.async.token")
}

fn has_async_token(m: &Module, op: OpId) -> bool {
    m.results(op)
        .iter()
        .any(|&r| is_async_token(m.value_type(r)))
}

/// The blocking `gpu.wait`s that the async token of `op` reaches through chains of
/// async ops; an error text when the token goes anywhere else or is never awaited.
fn async_waits(m: &Module, op: OpId) -> Result<Vec<OpId>, String> {
    let name = m.op(op).name.to_string();
    let mut waits = BTreeSet::new();
    let mut seen = BTreeSet::new();
    let mut work = vec![op];
    while let Some(o) = work.pop() {
        if !seen.insert(o) {
            continue;
        }
        for &r in m.results(o) {
            if !is_async_token(m.value_type(r)) {
                continue;
            }
            for u in m.uses(r) {
                let user = u.op;
                if m.op(user).name == "gpu.wait" && m.results(user).is_empty() {
                    waits.insert(user);
                } else if has_async_token(m, user) && m.regions(user).is_empty()
                    || m.op(user).name == "gpu.launch" && has_async_token(m, user)
                {
                    work.push(user);
                } else {
                    return Err(format!(
                        "it is used by the asynchronous `{name}`, whose token reaches `{}`, where the pass cannot tell when it completes",
                        m.op(user).name
                    ));
                }
            }
        }
    }
    if waits.is_empty() {
        return Err(format!(
            "it is used by the asynchronous `{name}`, whose token is never awaited by a blocking `gpu.wait`"
        ));
    }
    Ok(waits.into_iter().collect())
}

/// Its address feeds only `arith.cmpi eq/ne`: the other operands of those comparisons
/// (`None` when the address goes anywhere else).
fn compared_only(m: &Module, op: OpId) -> Option<Vec<ValueId>> {
    let r = *m.results(op).first()?;
    let mut partners = Vec::new();
    for u in m.uses(r) {
        let d = m.op(u.op);
        if d.name != "arith.cmpi" {
            return None;
        }
        let pred = d
            .props
            .get("predicate")
            .or_else(|| d.attrs.get("predicate"));
        // eq = 0, ne = 1 in MLIR's arith::CmpIPredicate.
        let pred = pred.and_then(Attribute::as_int)?;
        if pred != 0 && pred != 1 {
            return None;
        }
        let other = m.operands(u.op)[1 - (u.index as usize).min(1)];
        // Compared with another buffer's address: remember that buffer.
        if let Some(def) = m.defining_op(other) {
            if m.op(def).name == "memref.extract_aligned_pointer_as_index" {
                partners.push(m.operands(def)[0]);
                continue;
            }
            if m.op(def).name == "arith.constant" {
                continue;
            }
        }
        return None;
    }
    Some(partners)
}

/// The lowered `bufferization.dealloc` idiom: the address of a buffer is stored (as an
/// index) into local pointer tables that are only written, freed, viewed, and passed to
/// functions that merely load entries and compare them for equality. Returns those calls
/// (`None` when the address or a table goes anywhere else).
fn stored_in_pointer_tables(
    m: &Module,
    op: OpId,
    functions: &BTreeMap<String, (OpId, bool)>,
) -> Option<Vec<OpId>> {
    let r = *m.results(op).first()?;
    let mut calls = BTreeSet::new();
    if m.uses(r).is_empty() {
        return None;
    }
    for u in m.uses(r) {
        if m.op(u.op).name != "memref.store" || u.index != 0 {
            return None;
        }
        let mut table = m.operands(u.op)[1];
        // Back to the table's allocation through views.
        while let Some(d) = m.defining_op(table) {
            if classify(m, d) == OpKind::View {
                table = m.operands(d)[0];
            } else {
                break;
            }
        }
        let def = m.defining_op(table)?;
        if !matches!(m.op(def).name.as_str(), "memref.alloc" | "memref.alloca") {
            return None;
        }
        table_calls(m, table, functions, &mut calls, 0)?;
    }
    Some(calls.into_iter().collect())
}

fn table_calls(
    m: &Module,
    t: ValueId,
    functions: &BTreeMap<String, (OpId, bool)>,
    calls: &mut BTreeSet<OpId>,
    depth: u32,
) -> Option<()> {
    if depth > 8 {
        return None;
    }
    for u in m.uses(t) {
        let d = m.op(u.op);
        match classify(m, u.op) {
            OpKind::Dealloc | OpKind::MetadataOnly => {}
            OpKind::Store if d.name == "memref.store" && u.index == 1 => {}
            OpKind::View if u.index == 0 => {
                for &r in m.results(u.op) {
                    if is_pointer_like(m.value_type(r)) {
                        table_calls(m, r, functions, calls, depth + 1)?;
                    }
                }
            }
            OpKind::Call => {
                let callee = d
                    .props
                    .get("callee")
                    .or_else(|| d.attrs.get("callee"))
                    .and_then(Attribute::as_symbol)?;
                let &(f, true) = functions.get(callee)? else {
                    return None;
                };
                if !compare_only_param(m, f, u.index as usize) {
                    return None;
                }
                calls.insert(u.op);
            }
            _ => return None,
        }
    }
    Some(())
}

/// True when parameter `i` of function `f` is only read (`memref.load`, `memref.dim`) and
/// every loaded value only feeds `arith.cmpi eq/ne`.
fn compare_only_param(m: &Module, f: OpId, i: usize) -> bool {
    let Some(entry) = m.regions(f).first().and_then(|&r| m.entry_block(r)) else {
        return false;
    };
    let Some(&q) = m.block_args(entry).get(i) else {
        return false;
    };
    m.uses(q).iter().all(|u| {
        let d = m.op(u.op);
        match d.name.as_str() {
            "memref.dim" => true,
            "memref.load" if u.index == 0 => m.results(u.op).iter().all(|&r| {
                m.uses(r).iter().all(|lu| {
                    let ld = m.op(lu.op);
                    ld.name == "arith.cmpi"
                        && ld
                            .props
                            .get("predicate")
                            .or_else(|| ld.attrs.get("predicate"))
                            .and_then(Attribute::as_int)
                            .is_some_and(|p| p == 0 || p == 1)
                })
            }),
            _ => false,
        }
    })
}

/// True when the allocation anchored at `anchor` lies on a CFG cycle of `region` and
/// allocation `c` reaches a block argument of the region.
fn carried_around_cycle(
    m: &Module,
    flow: &BufferViewFlow,
    region: RegionId,
    anchor: OpId,
    c: u32,
) -> bool {
    let blocks = m.region_blocks(region);
    let through_args = blocks.iter().any(|&b| {
        m.block_args(b)
            .iter()
            .any(|&a| flow.origins(a).binary_search(&c).is_ok())
    });
    if !through_args {
        return false;
    }
    let Some(start) = m.op_block(anchor) else {
        return true;
    };
    let mut seen = BTreeSet::new();
    let mut work: Vec<BlockId> = successors(m, start);
    while let Some(b) = work.pop() {
        if b == start {
            return true;
        }
        if seen.insert(b) {
            work.extend(successors(m, b));
        }
    }
    false
}

fn successors(m: &Module, b: BlockId) -> Vec<BlockId> {
    m.last_op(b)
        .map(|t| m.op(t).successors.to_vec())
        .unwrap_or_default()
}

/// Live ranges over the CFG of `region`: an op is live when it accesses the buffer, or
/// when an access of the current instance precedes it on some path and another follows
/// on some path (the allocation anchor starts a new instance and kills both).
fn cfg_live(
    m: &Module,
    ticks: &Ticks,
    region: RegionId,
    alloc_anchor: OpId,
    accesses: &BTreeSet<OpId>,
) -> Vec<(u32, u32)> {
    let blocks: Vec<BlockId> = m.region_blocks(region).to_vec();
    let index: BTreeMap<BlockId, usize> = blocks.iter().enumerate().map(|(i, &b)| (b, i)).collect();
    let n = blocks.len();
    let ops: Vec<Vec<OpId>> = blocks.iter().map(|&b| m.block_ops(b).collect()).collect();
    let succ: Vec<Vec<usize>> = blocks
        .iter()
        .map(|&b| {
            successors(m, b)
                .iter()
                .filter_map(|s| index.get(s).copied())
                .collect()
        })
        .collect();
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, ss) in succ.iter().enumerate() {
        for &s in ss {
            pred[s].push(i);
        }
    }
    let acc = |o: OpId| accesses.contains(&o);
    // Forward: accessed since the allocation.
    let fwd_out = |b: usize, mut s: bool| {
        for &o in &ops[b] {
            if acc(o) {
                s = true;
            } else if o == alloc_anchor {
                s = false;
            }
        }
        s
    };
    // Backward: accessed again before the next allocation.
    let bwd_in = |b: usize, mut t: bool| {
        for &o in ops[b].iter().rev() {
            if o == alloc_anchor {
                t = false;
            } else if acc(o) {
                t = true;
            }
        }
        t
    };
    let mut fin = vec![false; n];
    let mut fout = vec![false; n];
    let mut bin = vec![false; n];
    let mut bout = vec![false; n];
    loop {
        let mut changed = false;
        for b in 0..n {
            let i = pred[b].iter().any(|&p| fout[p]);
            let o = fwd_out(b, i);
            if i != fin[b] || o != fout[b] {
                fin[b] = i;
                fout[b] = o;
                changed = true;
            }
        }
        for b in (0..n).rev() {
            let o = succ[b].iter().any(|&s| bin[s]);
            let i = bwd_in(b, o);
            if o != bout[b] || i != bin[b] {
                bout[b] = o;
                bin[b] = i;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut live: Vec<(u32, u32)> = Vec::new();
    for b in 0..n {
        // t_after for each op, from the block's end backwards.
        let mut after = vec![false; ops[b].len()];
        let mut t = bout[b];
        for (k, &o) in ops[b].iter().enumerate().rev() {
            after[k] = t;
            if o == alloc_anchor {
                t = false;
            } else if acc(o) {
                t = true;
            }
        }
        let mut s = fin[b];
        for (k, &o) in ops[b].iter().enumerate() {
            let is_live = acc(o) || (o != alloc_anchor && s && after[k]);
            if acc(o) {
                s = true;
            } else if o == alloc_anchor {
                s = false;
            }
            if is_live {
                let (lo, hi) = (ticks.tick(o), ticks.end(o));
                match live.last_mut() {
                    Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
                    _ => live.push((lo, hi)),
                }
            }
        }
    }
    merge_ranges(live)
}

/// Sorts inclusive tick ranges and joins those that overlap or touch.
fn merge_ranges(mut live: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    live.sort_unstable();
    let mut merged: Vec<(u32, u32)> = Vec::new();
    for r in live {
        match merged.last_mut() {
            Some(last) if r.0 <= last.1.saturating_add(1) => last.1 = last.1.max(r.1),
            _ => merged.push(r),
        }
    }
    merged
}

/// Where an allocation's arena goes and over which CFG its liveness runs.
struct FoundScope {
    /// The scope op.
    op: OpId,
    /// The block receiving the arena (the entry block of the scope's region).
    block: BlockId,
    /// The scope's region when it has several blocks (frees go before each exit).
    cfg: Option<RegionId>,
    /// The innermost multi-block region between the allocation and its scope (or the
    /// scope's own region), if any: liveness is computed over its CFG.
    live_region: Option<RegionId>,
    /// Another multi-block region encloses `live_region`: sound only while every use
    /// stays inside `live_region` (checked once the uses are known).
    nested: bool,
}

/// Walks up from an allocation to its scope, refusing multi-block regions of ops with
/// several regions and ops with regions the pass does not understand on the way.
fn find_scope(m: &Module, alloc: OpId) -> Result<FoundScope, Hazard> {
    let mut block = m.op_block(alloc).ok_or(Hazard::NoScope)?;
    let mut live_region: Option<RegionId> = None;
    let mut nested = false;
    loop {
        let region = m.block_region(block).ok_or(Hazard::NoScope)?;
        let multi = m.region_blocks(region).len() > 1;
        let owner = m.region_op(region).ok_or(Hazard::NoScope)?;
        let name = m.op(owner).name.as_str();
        if multi {
            if !SCOPE_OPS.contains(&name) && m.regions(owner).len() != 1 {
                return Err(Hazard::UnstructuredControlFlow);
            }
            // Liveness runs over the innermost multi-block region. An enclosing one may
            // run the op owning it several times (a CFG cycle), which only re-creates
            // the buffer; its uses must then all stay inside the inner region.
            if live_region.is_some() {
                nested = true;
            } else {
                live_region = Some(region);
            }
        }
        if SCOPE_OPS.contains(&name) {
            let entry = m.entry_block(region).ok_or(Hazard::NoScope)?;
            return Ok(FoundScope {
                op: owner,
                block: entry,
                cfg: multi.then_some(region),
                live_region,
                nested,
            });
        }
        if classify(m, owner) == OpKind::UnknownRegion {
            return Err(Hazard::UnknownRegion(name.to_string()));
        }
        if FUNCTION_OPS.contains(&name) || m.op_block(owner).is_none() {
            return Err(Hazard::NoScope);
        }
        block = m.op_block(owner).ok_or(Hazard::NoScope)?;
    }
}

/// The symbol name of a function-like op.
pub fn function_name(m: &Module, op: OpId) -> String {
    let d = m.op(op);
    d.props
        .get("sym_name")
        .or_else(|| d.attrs.get("sym_name"))
        .and_then(|a| a.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// `(function, label)` of every scope op: `func` for a function body, `NAME#K` for the
/// K-th op named NAME in pre-order inside its function.
fn scope_labels(m: &Module, root: OpId) -> BTreeMap<OpId, (String, String)> {
    let mut out = BTreeMap::new();
    for op in m.walk_ops(root) {
        if !FUNCTION_OPS.contains(&m.op(op).name.as_str()) {
            continue;
        }
        let fname = function_name(m, op);
        out.insert(op, (fname.clone(), "func".to_string()));
        let mut counters: BTreeMap<String, usize> = BTreeMap::new();
        for inner in m.walk_ops(op).into_iter().skip(1) {
            let name = &m.op(inner).name;
            if SCOPE_OPS.contains(&name.as_str()) && !FUNCTION_OPS.contains(&name.as_str()) {
                let k = counters.entry(name.to_string()).or_insert(0);
                out.insert(inner, (fname.clone(), format!("{name}#{k}")));
                *k += 1;
            }
        }
    }
    out
}

/// Every `func.func` of the module by name, with whether it has a body.
fn function_table(m: &Module) -> BTreeMap<String, (OpId, bool)> {
    let mut out = BTreeMap::new();
    for op in m.walk_ops(m.top) {
        if m.op(op).name == "func.func" {
            let has_body = m
                .regions(op)
                .first()
                .is_some_and(|&r| !m.region_blocks(r).is_empty());
            out.insert(function_name(m, op), (op, has_body));
        }
    }
    out
}
