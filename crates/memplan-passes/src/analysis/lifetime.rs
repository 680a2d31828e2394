//! Lifetime traces: allocation scopes and tick ranges of every `memref.alloc`.
//!
//! The tick-based trace collector of seed 000 ("Tick-based trace collection"): every op
//! of the module gets a tick from a pre-order walk, and every region op also knows the
//! last tick inside it. A buffer is live from the first to the last tick at which an op
//! *accesses* it through any alias ([`BufferViewFlow`]); view ops, `memref.dim` and
//! `memref.dealloc` are not accesses, and the allocation itself does not start the
//! lifetime.
//!
//! Loops and branches. When an op accesses a buffer from inside region ops that do not
//! contain the buffer's allocation, the access covers the whole of the *outermost* such
//! op (below the allocation's block): a buffer allocated before an `scf.for` and used
//! only inside an `scf.if` inside the loop is live over the entire loop, because the next
//! iteration reads what this one wrote. (The reference implementation only stretches over
//! the innermost op touching the buffer directly, which lets another buffer overwrite it
//! between iterations.) A buffer allocated inside a loop body and used only there is
//! per-iteration and keeps its own short range.
//!
//! Allocation scopes: the body of a function and of every `scf.forall`, `scf.parallel`,
//! `gpu.launch` (also `affine.parallel`, `memref.alloca_scope`); allocations under
//! `scf.for`, `scf.while` and `scf.if` belong to the enclosing scope. MLIR's
//! `AutomaticAllocationScope` trait is deliberately not used (MLIR 22 gives it to
//! `scf.for`).
//!
//! Besides ranges, the collector records the facts that decide whether a buffer may be
//! merged: how it escapes, where it is freed, and which IR it cannot reason about.

use std::collections::BTreeMap;
use std::fmt;

use memplan_ir::{Attribute, BlockId, Module, OpId};

use crate::analysis::alias::{BufferViewFlow, OTHER};
use crate::ops::{classify, is_pointer_like, OpKind, FUNCTION_OPS, SCOPE_OPS};

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
            stack.push((op, true));
            let mut children = Vec::new();
            for &r in m.regions(op) {
                for &b in m.region_blocks(r) {
                    children.extend(m.block_ops(b));
                }
            }
            stack.extend(children.into_iter().rev().map(|c| (c, false)));
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
    /// The op owning the block (`func.func`, `scf.parallel`, ...).
    pub op: OpId,
    /// The block that receives the arena.
    pub block: BlockId,
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
    /// Yielded out of a region (`scf.yield` of a loop, `scf.if`, ...).
    Yielded(String),
    /// Stored into memory.
    Stored(String),
    /// Passed to a function that is only declared (or cannot be found).
    ExternalCall(String),
    /// Passed to an indirect call.
    IndirectCall,
    /// Its address is extracted or handed to an op that takes ownership.
    PointerTaken(String),
    /// Freed through a value that may also be another buffer.
    AmbiguousDealloc,
    /// Touched inside (or by) an op with regions the pass does not understand.
    UnknownRegion(String),
    /// Allocated in a region with several blocks (control flow the ticks cannot order).
    UnstructuredControlFlow,
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
                "it is freed through a value that may also point to another buffer"
            ),
            Hazard::UnknownRegion(op) => write!(
                f,
                "it is used by or inside `{op}`, an op with regions the pass does not understand"
            ),
            Hazard::UnstructuredControlFlow => write!(
                f,
                "it is allocated in a region with several blocks (unstructured control flow)"
            ),
            Hazard::NoScope => write!(f, "it is not inside an allocation scope"),
        }
    }
}

/// What the collector learned about one `memref.alloc`.
#[derive(Clone, Debug)]
pub struct BufferTrace {
    /// The allocation.
    pub alloc: OpId,
    /// Index into [`Lifetimes::scopes`].
    pub scope: Option<usize>,
    /// First and last access tick (inclusive); `None` when never accessed.
    pub ticks: Option<(u32, u32)>,
    /// Everything that stops it from being merged, sorted and deduplicated.
    pub hazards: Vec<Hazard>,
    /// The `memref.dealloc` ops that free it (directly or through a view).
    pub deallocs: Vec<OpId>,
}

impl BufferTrace {
    /// The half-open live interval `[first, last + 1)`; an unused buffer gets one tick at its allocation.
    pub fn interval(&self, ticks: &Ticks) -> (u64, u64) {
        match self.ticks {
            Some((a, b)) => (u64::from(a), u64::from(b) + 1),
            None => {
                let t = u64::from(ticks.tick(self.alloc));
                (t, t + 1)
            }
        }
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
}

impl Lifetimes {
    /// Collects the traces of every `memref.alloc` nested in `root`.
    pub fn compute(m: &Module, root: OpId, flow: &BufferViewFlow) -> Lifetimes {
        let ticks = Ticks::compute(m, root);
        let labels = scope_labels(m, root);
        let functions = function_table(m);
        let mut scope_index: BTreeMap<(u32, u32), usize> = BTreeMap::new();
        let mut scopes: Vec<AllocScope> = Vec::new();
        let mut traces: Vec<BufferTrace> = Vec::with_capacity(flow.allocs.len());
        for &alloc in &flow.allocs {
            let mut hazards = Vec::new();
            let scope = match find_scope(m, alloc) {
                Ok((op, block)) => {
                    let key = (ticks.tick(op), block.0);
                    Some(*scope_index.entry(key).or_insert_with(|| {
                        let (function, label) = labels
                            .get(&op)
                            .cloned()
                            .unwrap_or_else(|| (String::new(), m.op(op).name.to_string()));
                        scopes.push(AllocScope {
                            op,
                            block,
                            function,
                            label,
                        });
                        scopes.len() - 1
                    }))
                }
                Err(h) => {
                    hazards.push(h);
                    None
                }
            };
            traces.push(BufferTrace {
                alloc,
                scope,
                ticks: None,
                hazards,
                deallocs: Vec::new(),
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
        };
        lt.collect_uses(m, root, flow, &functions);
        for t in &mut lt.traces {
            t.hazards.sort();
            t.hazards.dedup();
        }
        lt
    }

    fn collect_uses(
        &mut self,
        m: &Module,
        root: OpId,
        flow: &BufferViewFlow,
        functions: &BTreeMap<String, bool>,
    ) {
        let ops = m.walk_ops(root);
        for op in ops {
            let kind = classify(m, op);
            let name = &m.op(op).name;
            for (i, &v) in m.operands(op).iter().enumerate() {
                if !is_pointer_like(m.value_type(v)) {
                    continue;
                }
                let origins = flow.origins(v);
                if origins.is_empty() {
                    continue;
                }
                match kind {
                    OpKind::Alloc
                    | OpKind::View
                    | OpKind::Select
                    | OpKind::MetadataOnly
                    | OpKind::Branch => {}
                    OpKind::Dealloc => {
                        let ambiguous = origins.len() > 1;
                        for &c in origins.iter().filter(|&&c| c != OTHER) {
                            let t = &mut self.traces[c as usize];
                            t.deallocs.push(op);
                            if ambiguous {
                                t.hazards.push(Hazard::AmbiguousDealloc);
                            }
                        }
                    }
                    OpKind::Return => self.hazard(origins, Hazard::Returned),
                    OpKind::Yield => self.hazard(origins, Hazard::Yielded(name.to_string())),
                    OpKind::UnknownCall => self.hazard(origins, Hazard::IndirectCall),
                    OpKind::PointerEscape | OpKind::ForeignBuffer => {
                        self.hazard(origins, Hazard::PointerTaken(name.to_string()))
                    }
                    OpKind::UnknownRegion => {
                        self.hazard(origins, Hazard::UnknownRegion(name.to_string()))
                    }
                    OpKind::Store if i == 0 => {
                        self.hazard(origins, Hazard::Stored(name.to_string()))
                    }
                    OpKind::Call => {
                        let callee = m
                            .op(op)
                            .props
                            .get("callee")
                            .or_else(|| m.op(op).attrs.get("callee"))
                            .and_then(Attribute::as_symbol)
                            .unwrap_or("?")
                            .to_string();
                        if functions.get(&callee).copied().unwrap_or(false) {
                            self.access(m, op, origins);
                        } else {
                            self.hazard(origins, Hazard::ExternalCall(callee));
                        }
                    }
                    OpKind::Store | OpKind::KnownRegion | OpKind::Other => {
                        self.access(m, op, origins)
                    }
                }
            }
        }
    }

    fn hazard(&mut self, origins: &[u32], h: Hazard) {
        for &c in origins.iter().filter(|&&c| c != OTHER) {
            self.traces[c as usize].hazards.push(h.clone());
        }
    }

    /// Records an access by `op` to every allocation in `origins`, stretched over the
    /// outermost region op around `op` that does not contain the allocation.
    fn access(&mut self, m: &Module, op: OpId, origins: &[u32]) {
        for &c in origins.iter().filter(|&&c| c != OTHER) {
            let alloc = self.traces[c as usize].alloc;
            let (mut lo, mut hi) = (self.ticks.tick(op), self.ticks.end(op));
            let mut cur = op;
            let mut unknown = None;
            while let Some(p) = m.parent_op(cur) {
                if self.ticks.contains(p, alloc) {
                    break;
                }
                if classify(m, p) == OpKind::UnknownRegion {
                    unknown = Some(m.op(p).name.to_string());
                }
                lo = self.ticks.tick(p);
                hi = self.ticks.end(p);
                cur = p;
            }
            let t = &mut self.traces[c as usize];
            if let Some(u) = unknown {
                t.hazards.push(Hazard::UnknownRegion(u));
            }
            t.ticks = Some(match t.ticks {
                None => (lo, hi),
                Some((a, b)) => (a.min(lo), b.max(hi)),
            });
        }
    }
}

/// Walks up from an allocation to its scope block, refusing multi-block regions and ops
/// with regions the pass does not understand on the way.
fn find_scope(m: &Module, alloc: OpId) -> Result<(OpId, BlockId), Hazard> {
    let mut block = m.op_block(alloc).ok_or(Hazard::NoScope)?;
    loop {
        let region = m.block_region(block).ok_or(Hazard::NoScope)?;
        if m.region_blocks(region).len() > 1 {
            return Err(Hazard::UnstructuredControlFlow);
        }
        let owner = m.region_op(region).ok_or(Hazard::NoScope)?;
        let name = m.op(owner).name.as_str();
        if SCOPE_OPS.contains(&name) {
            return Ok((owner, block));
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

/// Every `func.func` of the module by name: true when it has a body.
fn function_table(m: &Module) -> BTreeMap<String, bool> {
    let mut out = BTreeMap::new();
    for op in m.walk_ops(m.top) {
        if m.op(op).name == "func.func" {
            let has_body = m
                .regions(op)
                .first()
                .is_some_and(|&r| !m.region_blocks(r).is_empty());
            out.insert(function_name(m, op), has_body);
        }
    }
    out
}
