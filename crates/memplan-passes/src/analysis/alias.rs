//! Buffer view flow: which allocations a value may point into.
//!
//! This is memplan's counterpart of MLIR's `BufferViewFlowAnalysis`, the first stage of
//! the merge-alloc pipeline (seed 000, "Collect the memory alias via
//! BufferViewFlowAnalysis"). Every `memref.alloc` in the module is an *origin*; values
//! that may hold an address not coming from one of them carry the origin [`OTHER`]
//! (`memref.alloca`, results of calls, ...). The pointer arguments of every function-like
//! op's entry block are origins of their own ([`BufferViewFlow::arg_origin`]), so that the
//! same facts summarise what a callee does with its arguments; for everything about
//! allocations they count like [`OTHER`]. Origins flow along:
//! - view ops (`memref.view`, `subview`, `cast`, `reinterpret_cast`, `expand_shape`,
//!   `collapse_shape`, `transpose`, `memory_space_cast`, `assume_alignment`, ...): operand
//!   0 to result 0;
//! - `arith.select`: both choices to the result;
//! - region ops: operands and the operands of their regions' terminators to their results
//!   and to their regions' block arguments (`scf.for` iter_args and results, `scf.if`
//!   results, `scf.while` before/after arguments; deliberately coarser than MLIR's
//!   per-successor edges, which only makes more values alias);
//! - branches (`cf.br`, `cf.cond_br`): operands to the successors' block arguments;
//! - any other op: every buffer operand to every buffer result (the conservative fallback).
//!
//! The result is a may-point-to set per value, computed to a fixed point with a worklist.
//! Sets are sorted vectors, so everything derived from them is deterministic.

use std::collections::BTreeMap;

use memplan_ir::{Module, OpId, ValueId};

use crate::ops::{classify, is_pointer_like, OpKind, FUNCTION_OPS};

/// The origin of addresses that do not come from a `memref.alloc` of the module.
pub const OTHER: u32 = u32::MAX;

/// Index of a `memref.alloc` in [`BufferViewFlow::allocs`].
pub type AllocIndex = u32;

/// May-point-to sets of every value of a module.
#[derive(Clone, Debug)]
pub struct BufferViewFlow {
    /// Every `memref.alloc` of the module, in pre-order; the position is its [`AllocIndex`].
    pub allocs: Vec<OpId>,
    /// Origins standing for function arguments: origin `allocs.len() + k` is entry
    /// argument `args[k].1` of the function-like op `args[k].0`.
    pub args: Vec<(OpId, usize)>,
    /// Values seeded as origins of their own by [`BufferViewFlow::compute_with_roots`]:
    /// origin `allocs.len() + args.len() + k` is `roots[k]`.
    pub roots: Vec<ValueId>,
    origins: Vec<Vec<u32>>,
}

impl BufferViewFlow {
    /// Runs the analysis over every op nested in `root` (normally the module's top op).
    pub fn compute(m: &Module, root: OpId) -> BufferViewFlow {
        Self::compute_with(m, root, None, &[])
    }

    /// Like [`BufferViewFlow::compute`], but every value of `roots` (a block argument such
    /// as a GPU workgroup attribution, or any result) is an origin of its own, replacing
    /// what the analysis would give it; see [`BufferViewFlow::root_origin`]. Everything
    /// else flows as usual, so a view of a root points into that root.
    pub fn compute_with_roots(m: &Module, root: OpId, roots: &[ValueId]) -> BufferViewFlow {
        Self::compute_with(m, root, None, roots)
    }

    /// Like [`BufferViewFlow::compute`], but the results of a `func.call` to a function
    /// with a body only alias the operands whose argument that function may return (found
    /// by a first, conservative run). Sound because the first run over-approximates.
    pub fn compute_interprocedural(m: &Module, root: OpId) -> BufferViewFlow {
        let first = Self::compute_with(m, root, None, &[]);
        // Only calls with pointer results can be made more precise.
        let mut any = false;
        m.walk(root, &mut |m, op| {
            any |= m.op(op).name == "func.call"
                && m.results(op)
                    .iter()
                    .any(|&r| is_pointer_like(m.value_type(r)));
        });
        if !any {
            return first;
        }
        let returns = first.returned_args(m, root);
        if returns.is_empty() {
            return first;
        }
        Self::compute_with(m, root, Some(&returns), &[])
    }

    /// Per function with a body (by symbol name): which pointer arguments a `func.return`
    /// inside it may return.
    fn returned_args(&self, m: &Module, root: OpId) -> BTreeMap<String, Vec<bool>> {
        let mut out: BTreeMap<String, Vec<bool>> = BTreeMap::new();
        let mut names: BTreeMap<OpId, String> = BTreeMap::new();
        for op in m.walk_ops(root) {
            if m.op(op).name == "func.func" {
                let has_body = m
                    .regions(op)
                    .first()
                    .is_some_and(|&r| !m.region_blocks(r).is_empty());
                if has_body {
                    let name = crate::analysis::lifetime::function_name(m, op);
                    let nargs = m
                        .regions(op)
                        .first()
                        .and_then(|&r| m.entry_block(r))
                        .map_or(0, |b| m.block_args(b).len());
                    out.insert(name.clone(), vec![false; nargs]);
                    names.insert(op, name);
                }
            }
        }
        for op in m.walk_ops(root) {
            if m.op(op).name != "func.return" {
                continue;
            }
            for &v in m.operands(op) {
                for &c in self.origins(v) {
                    if let Some((f, i)) = self.arg_origin(c) {
                        if let Some(v) = names.get(&f).and_then(|n| out.get_mut(n)) {
                            if let Some(slot) = v.get_mut(i) {
                                *slot = true;
                            }
                        }
                    }
                }
            }
        }
        out
    }

    fn compute_with(
        m: &Module,
        root: OpId,
        returns: Option<&BTreeMap<String, Vec<bool>>>,
        roots: &[ValueId],
    ) -> BufferViewFlow {
        let n = m.num_values();
        let mut origins: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut allocs = Vec::new();
        let mut fn_args: Vec<(OpId, ValueId, usize)> = Vec::new();
        // succ[v] = values that may hold whatever v holds.
        let mut edges: Vec<(ValueId, ValueId)> = Vec::new();
        let mut seeds: Vec<ValueId> = Vec::new();
        let ptr = |v: ValueId| is_pointer_like(m.value_type(v));
        m.walk(root, &mut |m, op| {
            let kind = classify(m, op);
            let results = m.results(op);
            let operands = m.operands(op);
            match kind {
                OpKind::Alloc => {
                    let idx = allocs.len() as u32;
                    allocs.push(op);
                    for &r in results {
                        origins[r.index()] = vec![idx];
                        seeds.push(r);
                    }
                }
                OpKind::View => {
                    if let (Some(&src), Some(&dst)) = (operands.first(), results.first()) {
                        edges.push((src, dst));
                    }
                }
                OpKind::Select => {
                    if let Some(&dst) = results.first() {
                        for &src in operands.iter().skip(1) {
                            edges.push((src, dst));
                        }
                    }
                }
                OpKind::Branch => {
                    let srcs: Vec<ValueId> = operands.iter().copied().filter(|&v| ptr(v)).collect();
                    for &b in &m.op(op).successors {
                        for &arg in m.block_args(b) {
                            if ptr(arg) {
                                edges.extend(srcs.iter().map(|&s| (s, arg)));
                            }
                        }
                    }
                }
                OpKind::KnownRegion | OpKind::UnknownRegion => {
                    if FUNCTION_OPS.contains(&m.op(op).name.as_str()) {
                        if let Some(entry) = m.regions(op).first().and_then(|&r| m.entry_block(r)) {
                            for (i, &arg) in m.block_args(entry).iter().enumerate() {
                                if ptr(arg) {
                                    fn_args.push((op, arg, i));
                                }
                            }
                        }
                        return;
                    }
                    let mut srcs: Vec<ValueId> =
                        operands.iter().copied().filter(|&v| ptr(v)).collect();
                    let mut dsts: Vec<ValueId> =
                        results.iter().copied().filter(|&v| ptr(v)).collect();
                    for &r in m.regions(op) {
                        for &b in m.region_blocks(r) {
                            dsts.extend(m.block_args(b).iter().copied().filter(|&v| ptr(v)));
                            if let Some(t) = m.last_op(b) {
                                if m.op(t).successors.is_empty() && m.regions(t).is_empty() {
                                    srcs.extend(m.operands(t).iter().copied().filter(|&v| ptr(v)));
                                }
                            }
                        }
                    }
                    for &s in &srcs {
                        for &d in &dsts {
                            edges.push((s, d));
                        }
                    }
                }
                OpKind::ForeignBuffer | OpKind::Call | OpKind::UnknownCall | OpKind::Other => {
                    let returned = (kind == OpKind::Call)
                        .then(|| {
                            let d = m.op(op);
                            let callee = d
                                .props
                                .get("callee")
                                .or_else(|| d.attrs.get("callee"))
                                .and_then(memplan_ir::Attribute::as_symbol)?;
                            returns?.get(callee)
                        })
                        .flatten();
                    let srcs: Vec<ValueId> = operands
                        .iter()
                        .enumerate()
                        .filter(|&(i, &v)| {
                            ptr(v) && returned.is_none_or(|r| r.get(i).copied().unwrap_or(true))
                        })
                        .map(|(_, &v)| v)
                        .collect();
                    for &r in results {
                        if ptr(r) {
                            origins[r.index()] = vec![OTHER];
                            seeds.push(r);
                            edges.extend(srcs.iter().map(|&s| (s, r)));
                        }
                    }
                }
                OpKind::PointerEscape => {
                    for &r in results {
                        if ptr(r) {
                            origins[r.index()] = vec![OTHER];
                            seeds.push(r);
                        }
                    }
                }
                OpKind::MetadataOnly
                | OpKind::Dealloc
                | OpKind::BufferizationDealloc
                | OpKind::Return
                | OpKind::Store
                | OpKind::Yield => {}
            }
        });
        // Argument origins are numbered after the allocations.
        let mut args = Vec::with_capacity(fn_args.len());
        for (f, arg, i) in fn_args {
            origins[arg.index()] = vec![(allocs.len() + args.len()) as u32];
            seeds.push(arg);
            args.push((f, i));
        }
        // Root origins are numbered after the arguments and replace what the value had.
        let base = allocs.len() + args.len();
        for (k, &v) in roots.iter().enumerate() {
            origins[v.index()] = vec![(base + k) as u32];
            seeds.push(v);
        }
        // Block arguments of non-entry blocks reached by nobody, and any block argument of
        // a function-like op's later blocks, are left empty: they can only receive values
        // through the edges above.
        let mut succ_start = vec![0u32; n + 1];
        for &(s, _) in &edges {
            succ_start[s.index() + 1] += 1;
        }
        for i in 0..n {
            succ_start[i + 1] += succ_start[i];
        }
        let mut fill = succ_start.clone();
        let mut succ = vec![ValueId(0); edges.len()];
        for &(s, d) in &edges {
            succ[fill[s.index()] as usize] = d;
            fill[s.index()] += 1;
        }
        let mut queued = vec![false; n];
        let mut work: Vec<ValueId> = Vec::new();
        for s in seeds {
            if !queued[s.index()] {
                queued[s.index()] = true;
                work.push(s);
            }
        }
        while let Some(v) = work.pop() {
            queued[v.index()] = false;
            let (a, b) = (
                succ_start[v.index()] as usize,
                succ_start[v.index() + 1] as usize,
            );
            if a == b || origins[v.index()].is_empty() {
                continue;
            }
            let src = origins[v.index()].clone();
            for &d in &succ[a..b] {
                if union_into(&mut origins[d.index()], &src) && !queued[d.index()] {
                    queued[d.index()] = true;
                    work.push(d);
                }
            }
        }
        BufferViewFlow {
            allocs,
            args,
            roots: roots.to_vec(),
            origins,
        }
    }

    /// True when origin `c` is a `memref.alloc` of the module (not [`OTHER`], not an argument).
    pub fn is_alloc(&self, c: u32) -> bool {
        (c as usize) < self.allocs.len()
    }

    /// The (function, argument index) an origin stands for, if it is an argument origin.
    pub fn arg_origin(&self, c: u32) -> Option<(OpId, usize)> {
        let k = (c as usize).checked_sub(self.allocs.len())?;
        self.args.get(k).copied()
    }

    /// The position in [`BufferViewFlow::roots`] an origin stands for, if it is a root.
    pub fn root_origin(&self, c: u32) -> Option<usize> {
        let k = (c as usize).checked_sub(self.allocs.len() + self.args.len())?;
        (k < self.roots.len()).then_some(k)
    }

    /// The roots `v` may point into (positions in [`BufferViewFlow::roots`]), sorted.
    pub fn root_origins(&self, v: ValueId) -> impl Iterator<Item = usize> + '_ {
        self.origins(v).iter().filter_map(|&c| self.root_origin(c))
    }

    /// The allocations `v` may point into (argument and [`OTHER`] origins left out).
    pub fn alloc_origins(&self, v: ValueId) -> impl Iterator<Item = AllocIndex> + '_ {
        self.origins(v)
            .iter()
            .copied()
            .filter(|&c| self.is_alloc(c))
    }

    /// True when `v` may point to something that is not an allocation of the module.
    pub fn may_be_foreign(&self, v: ValueId) -> bool {
        self.origins(v).iter().any(|&c| !self.is_alloc(c))
    }

    /// The allocations (and possibly [`OTHER`]) `v` may point into, sorted.
    pub fn origins(&self, v: ValueId) -> &[u32] {
        self.origins.get(v.index()).map_or(&[], Vec::as_slice)
    }

    /// The [`AllocIndex`] of a `memref.alloc` op, if it is one.
    pub fn alloc_index(&self, m: &Module, op: OpId) -> Option<AllocIndex> {
        let r = *m.results(op).first()?;
        match self.origins(r) {
            [i] if self.is_alloc(*i) && self.allocs.get(*i as usize) == Some(&op) => Some(*i),
            _ => None,
        }
    }
}

/// Adds the elements of `src` to the sorted set `dst`; true if it grew.
fn union_into(dst: &mut Vec<u32>, src: &[u32]) -> bool {
    if src.iter().all(|x| dst.binary_search(x).is_ok()) {
        return false;
    }
    let mut out = Vec::with_capacity(dst.len() + src.len());
    let (mut i, mut j) = (0, 0);
    while i < dst.len() || j < src.len() {
        let next = match (dst.get(i), src.get(j)) {
            (Some(&a), Some(&b)) if a == b => {
                i += 1;
                j += 1;
                a
            }
            (Some(&a), Some(&b)) if a < b => {
                i += 1;
                a
            }
            (Some(_), Some(&b)) => {
                j += 1;
                b
            }
            (Some(&a), None) => {
                i += 1;
                a
            }
            (None, Some(&b)) => {
                j += 1;
                b
            }
            (None, None) => unreachable!(),
        };
        out.push(next);
    }
    *dst = out;
    true
}

#[cfg(test)]
mod tests {
    use super::union_into;

    #[test]
    fn union_keeps_sets_sorted() {
        let mut a = vec![1, 5];
        assert!(union_into(&mut a, &[0, 5, 9]));
        assert_eq!(a, vec![0, 1, 5, 9]);
        assert!(!union_into(&mut a, &[1, 9]));
    }
}
