//! `--llvm-lifetime-markers`: `llvm.intr.lifetime.start/end` around the live range of every
//! non-escaping static stack slot (`llvm.alloca`) of LLVM-dialect IR, so that LLVM's
//! StackColoring can overlap slots whose live ranges are disjoint (seed 002).
//!
//! Per slot (an `llvm.alloca` with a constant size):
//! 1. *Derived pointers*: the alloca result and, transitively, results of
//!    `getelementptr` (base), `bitcast`/`addrspacecast`, `select`, `insertvalue` /
//!    `extractvalue` (memref descriptors; an extracted field is derived when it is a pointer
//!    or an aggregate), and block arguments fed through `llvm.br`/`llvm.cond_br`.
//! 2. *Escape* (slot left alone, with a remark): a derived pointer stored as the value of
//!    `llvm.store`, passed to `llvm.call` (unless the callee's argument is
//!    `llvm.nocapture`), returned, `ptrtoint`, or used by any op not listed here.
//!    Every other use (load/store address, `icmp`, intrinsics) is an *access*.
//! 3. Placement: the start goes before the first access of the nearest common dominator
//!    of the accessing blocks, the end after the last access of their nearest common
//!    post-dominator; both are moved out of every CFG cycle (idom / ipdom chains), so a
//!    slot whose contents live across loop iterations is never started or ended inside the
//!    loop and a start never runs twice. Since the start block dominates and the end block
//!    post-dominates every access and neither lies on a cycle, every access on every path
//!    is between a start and an end.
//! 4. A static slot outside the entry block is moved to the entry block's top (with its
//!    size constant): StackColoring only handles entry-block allocas, and the markers now
//!    carry its lifetime.

use memplan_ir::{Attribute, BlockId, Module, OpId, OperationState, RegionId, Type, ValueId};

use crate::remarks::Remark;

/// What the pass did.
#[derive(Clone, Debug, Default)]
pub struct LlvmLifetimeReport {
    /// Slots that received markers.
    pub marked: usize,
    /// Slots moved to the entry block.
    pub hoisted: usize,
    /// One remark per slot left alone (and per hoisted slot).
    pub remarks: Vec<Remark>,
}

const PTR_LIKE_FORWARD: &[&str] = &["llvm.getelementptr", "llvm.bitcast", "llvm.addrspacecast"];

const ACCESS_OPS: &[&str] = &[
    "llvm.load",
    "llvm.icmp",
    "llvm.intr.memcpy",
    "llvm.intr.memmove",
    "llvm.intr.memset",
    "llvm.intr.memcpy.inline",
    "llvm.intr.memset.inline",
    "llvm.intr.prefetch",
    "llvm.intr.invariant.start",
];

/// Runs the pass over every `llvm.func` with a body.
pub fn llvm_lifetime_markers(m: &mut Module) -> LlvmLifetimeReport {
    let mut report = LlvmLifetimeReport::default();
    let funcs: Vec<OpId> = m
        .walk_ops(m.top)
        .into_iter()
        .filter(|&op| m.op(op).name.as_str() == "llvm.func")
        .collect();
    for f in funcs {
        let Some(&r) = m.regions(f).first() else {
            continue;
        };
        if m.region_blocks(r).is_empty() {
            continue;
        }
        run_func(m, f, r, &mut report);
    }
    report
}

fn func_name(m: &Module, f: OpId) -> String {
    m.op(f)
        .props
        .get("sym_name")
        .or_else(|| m.op(f).attrs.get("sym_name"))
        .and_then(|a| a.as_str())
        .unwrap_or("?")
        .to_string()
}

/// Whether argument `i` of the function `callee` is `llvm.nocapture`.
fn nocapture(m: &Module, callee: &str, i: usize) -> bool {
    for op in m.walk_ops(m.top) {
        let d = m.op(op);
        if d.name.as_str() != "llvm.func" {
            continue;
        }
        let name = d.props.get("sym_name").or_else(|| d.attrs.get("sym_name"));
        if name.and_then(|a| a.as_str()) != Some(callee) {
            continue;
        }
        let aa = d
            .props
            .get("arg_attrs")
            .or_else(|| d.attrs.get("arg_attrs"));
        if let Some(Attribute::Array(v)) = aa {
            if let Some(Attribute::Dict(dict)) = v.get(i) {
                return dict.contains("llvm.nocapture");
            }
        }
        return false;
    }
    false
}

fn is_aggregate_or_ptr(t: &Type) -> bool {
    let s = t.to_string();
    s.starts_with("!llvm.ptr") || s.starts_with("!llvm.struct") || s.starts_with("!llvm.array")
}

/// The block argument an operand of a branch feeds, if any.
fn branch_target(m: &Module, op: OpId, index: usize) -> Option<ValueId> {
    let d = m.op(op);
    match d.name.as_str() {
        "llvm.br" => {
            let b = *d.successors.first()?;
            m.block_args(b).get(index).copied()
        }
        "llvm.cond_br" => {
            let seg = d
                .props
                .get("operandSegmentSizes")
                .or_else(|| d.attrs.get("operandSegmentSizes"))
                .and_then(|a| a.as_int_array())?;
            let (nc, nt) = (*seg.first()? as usize, *seg.get(1)? as usize);
            if index < nc {
                return None;
            }
            let k = index - nc;
            if k < nt {
                m.block_args(*d.successors.first()?).get(k).copied()
            } else {
                m.block_args(*d.successors.get(1)?).get(k - nt).copied()
            }
        }
        _ => None,
    }
}

enum SlotUse {
    /// Ops that access the slot.
    Accesses(Vec<OpId>),
    /// Why the slot is left alone.
    LeftAlone(String),
}

fn classify(m: &Module, alloca: OpId) -> SlotUse {
    let root = m.result(alloca, 0);
    let mut seen = vec![root];
    let mut work = vec![root];
    let mut accesses = Vec::new();
    while let Some(v) = work.pop() {
        for u in m.uses(v).to_vec() {
            let d = m.op(u.op);
            let name = d.name.as_str();
            let i = u.index as usize;
            let mut derive = |x: ValueId, work: &mut Vec<ValueId>| {
                if !seen.contains(&x) {
                    seen.push(x);
                    work.push(x);
                }
            };
            let line = format!("'{name}'");
            match name {
                n if PTR_LIKE_FORWARD.contains(&n) && i == 0 => {
                    derive(m.result(u.op, 0), &mut work)
                }
                "llvm.getelementptr" => accesses.push(u.op),
                "llvm.select" if i > 0 => derive(m.result(u.op, 0), &mut work),
                "llvm.insertvalue" => derive(m.result(u.op, 0), &mut work),
                "llvm.extractvalue" => {
                    let r = m.result(u.op, 0);
                    if is_aggregate_or_ptr(m.value_type(r)) {
                        derive(r, &mut work);
                    }
                }
                "llvm.br" | "llvm.cond_br" => match branch_target(m, u.op, i) {
                    Some(a) => derive(a, &mut work),
                    None => accesses.push(u.op),
                },
                "llvm.store" if i == 1 => accesses.push(u.op),
                "llvm.store" => {
                    return SlotUse::LeftAlone(
                        "its address is stored to memory (llvm.store value)".into(),
                    )
                }
                "llvm.call" => {
                    let callee = d
                        .props
                        .get("callee")
                        .or_else(|| d.attrs.get("callee"))
                        .and_then(|a| a.as_symbol())
                        .unwrap_or("")
                        .to_string();
                    if callee.is_empty() || !nocapture(m, &callee, i) {
                        return SlotUse::LeftAlone(format!(
                            "its address is passed to @{} (argument {i} not llvm.nocapture)",
                            if callee.is_empty() {
                                "<indirect>"
                            } else {
                                &callee
                            }
                        ));
                    }
                    accesses.push(u.op);
                }
                "llvm.intr.lifetime.start" | "llvm.intr.lifetime.end" => {
                    return SlotUse::LeftAlone("it already has lifetime markers".into())
                }
                n if ACCESS_OPS.contains(&n) => accesses.push(u.op),
                "llvm.return" => return SlotUse::LeftAlone("its address is returned".into()),
                "llvm.ptrtoint" => {
                    return SlotUse::LeftAlone(
                        "its address is converted to an integer (llvm.ptrtoint)".into(),
                    )
                }
                _ => {
                    return SlotUse::LeftAlone(format!(
                        "its address is used by {line}, which the escape analysis does not know"
                    ))
                }
            }
        }
    }
    SlotUse::Accesses(accesses)
}

/// The CFG of one region: successors, predecessors, dominators and post-dominators as
/// bit sets, and which blocks lie on a cycle.
struct Cfg {
    blocks: Vec<BlockId>,
    /// Block -> its index in `blocks`.
    index: std::collections::HashMap<BlockId, usize>,
    succ: Vec<Vec<usize>>,
    dom: Vec<Vec<bool>>,
    pdom: Vec<Vec<bool>>,
    /// Number of (post-)dominators of each block: the deeper, the more.
    dom_size: Vec<usize>,
    pdom_size: Vec<usize>,
    on_cycle: Vec<bool>,
    reachable: Vec<bool>,
}

fn dominators(n: usize, entries: &[usize], pred: &[Vec<usize>]) -> Vec<Vec<bool>> {
    let mut dom = vec![vec![true; n]; n];
    for &e in entries {
        dom[e] = vec![false; n];
        dom[e][e] = true;
    }
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..n {
            if entries.contains(&b) {
                continue;
            }
            let mut new = vec![true; n];
            let mut any = false;
            for &p in &pred[b] {
                any = true;
                for k in 0..n {
                    new[k] &= dom[p][k];
                }
            }
            if !any {
                new = vec![true; n];
            }
            new[b] = true;
            if new != dom[b] {
                dom[b] = new;
                changed = true;
            }
        }
    }
    dom
}

impl Cfg {
    fn new(m: &Module, r: RegionId) -> Cfg {
        let blocks: Vec<BlockId> = m.region_blocks(r).to_vec();
        let n = blocks.len();
        let index: std::collections::HashMap<BlockId, usize> =
            blocks.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        let idx = |b: BlockId| index.get(&b).copied();
        let mut succ = vec![Vec::new(); n];
        let mut pred = vec![Vec::new(); n];
        for (i, &b) in blocks.iter().enumerate() {
            if let Some(t) = m.last_op(b) {
                for &s in &m.op(t).successors {
                    if let Some(j) = idx(s) {
                        succ[i].push(j);
                        pred[j].push(i);
                    }
                }
            }
        }
        let mut reachable = vec![false; n];
        let mut st = vec![0];
        while let Some(b) = st.pop() {
            if !reachable[b] {
                reachable[b] = true;
                st.extend(succ[b].iter().copied());
            }
        }
        let dom = dominators(n, &[0], &pred);
        let exits: Vec<usize> = (0..n).filter(|&b| succ[b].is_empty()).collect();
        let pdom = dominators(n, &exits, &succ);
        // b is on a cycle iff b reaches itself through at least one edge.
        let mut on_cycle = vec![false; n];
        for (b, oc) in on_cycle.iter_mut().enumerate() {
            let mut seen = vec![false; n];
            let mut st: Vec<usize> = succ[b].clone();
            while let Some(x) = st.pop() {
                if x == b {
                    *oc = true;
                    break;
                }
                if !seen[x] {
                    seen[x] = true;
                    st.extend(succ[x].iter().copied());
                }
            }
        }
        let count = |sets: &[Vec<bool>]| -> Vec<usize> {
            sets.iter()
                .map(|s| s.iter().filter(|&&x| x).count())
                .collect()
        };
        let dom_size = count(&dom);
        let pdom_size = count(&pdom);
        Cfg {
            blocks,
            index,
            succ,
            dom,
            pdom,
            dom_size,
            pdom_size,
            on_cycle,
            reachable,
        }
    }

    fn index(&self, b: BlockId) -> Option<usize> {
        self.index.get(&b).copied()
    }

    /// The deepest block in all of `sets`' intersection (the nearest common (post-)dominator);
    /// `sizes[k]` = number of blocks in `sets[k]`.
    fn nearest_common(sets: &[Vec<bool>], sizes: &[usize], of: &[usize]) -> Option<usize> {
        let n = sets.len();
        let mut common = vec![true; n];
        for &b in of {
            for k in 0..n {
                common[k] &= sets[b][k];
            }
        }
        (0..n).filter(|&k| common[k]).max_by_key(|&k| sizes[k])
    }

    /// The immediate (post-)dominator of `b` in `sets`.
    fn immediate(sets: &[Vec<bool>], sizes: &[usize], b: usize) -> Option<usize> {
        (0..sets.len())
            .filter(|&k| k != b && sets[b][k])
            .max_by_key(|&k| sizes[k])
    }
}

fn hoist_to_entry(m: &mut Module, alloca: OpId, entry: BlockId) -> bool {
    let Some(&size) = m.operands(alloca).first() else {
        return false;
    };
    let Some(cst) = m.defining_op(size) else {
        return false;
    };
    if m.op(cst).name.as_str() != "llvm.mlir.constant" {
        return false;
    }
    let mut st = OperationState::new(m.op(cst).name.clone());
    st.props = m.op(cst).props.clone();
    st.attrs = m.op(cst).attrs.clone();
    st.result_types = vec![m.value_type(size).clone()];
    let c2 = m.create_op(st);
    let first = m.first_op(entry).expect("entry block has a terminator");
    m.insert_before(first, c2);
    m.detach_op(alloca);
    m.insert_after(c2, alloca);
    let nv = m.result(c2, 0);
    m.set_operand(alloca, 0, nv);
    true
}

fn marker(m: &mut Module, name: &'static str, p: ValueId) -> OpId {
    let mut st = OperationState::new(name);
    st.operands = vec![p];
    m.create_op(st)
}

fn run_func(m: &mut Module, f: OpId, r: RegionId, report: &mut LlvmLifetimeReport) {
    let fname = func_name(m, f);
    let entry = m.region_blocks(r)[0];
    let allocas: Vec<OpId> = m
        .walk_ops(f)
        .into_iter()
        .filter(|&op| m.op(op).name.as_str() == "llvm.alloca")
        .collect();
    let mut cfg: Option<Cfg> = None;
    for a in allocas {
        let span = m.op(a).span;
        let left_alone = |why: String, report: &mut LlvmLifetimeReport| {
            report.remarks.push(Remark {
                op: a,
                span,
                message: format!("llvm-lifetime-markers: @{fname}: stack slot left alone: {why}"),
            });
        };
        if m.op_block(a).and_then(|b| m.block_region(b)) != Some(r) {
            left_alone("it is inside a nested region".into(), report);
            continue;
        }
        let accesses = match classify(m, a) {
            SlotUse::LeftAlone(why) => {
                left_alone(why, report);
                continue;
            }
            SlotUse::Accesses(v) => v,
        };
        if m.op_block(a) != Some(entry) {
            let static_size = m
                .operands(a)
                .first()
                .and_then(|&s| m.defining_op(s))
                .is_some_and(|c| m.op(c).name.as_str() == "llvm.mlir.constant");
            if !static_size {
                left_alone("dynamic size outside the entry block".into(), report);
                continue;
            }
            if !hoist_to_entry(m, a, entry) {
                left_alone("cannot move it to the entry block".into(), report);
                continue;
            }
            report.hoisted += 1;
            report.remarks.push(Remark {
                op: a,
                span,
                message: format!(
                    "llvm-lifetime-markers: @{fname}: static stack slot moved to the entry block"
                ),
            });
        }
        // Markers and hoisted allocas never change the CFG: built once per function.
        let cfg = cfg.get_or_insert_with(|| Cfg::new(m, r));
        let mut blocks: Vec<usize> = Vec::new();
        for &op in &accesses {
            if let Some(b) = m.op_block(op).and_then(|b| cfg.index(b)) {
                if cfg.reachable[b] && !blocks.contains(&b) {
                    blocks.push(b);
                }
            }
        }
        if blocks.is_empty() {
            left_alone("it is never accessed".into(), report);
            continue;
        }
        let mut s = Cfg::nearest_common(&cfg.dom, &cfg.dom_size, &blocks);
        while let Some(b) = s {
            if !cfg.on_cycle[b] {
                break;
            }
            s = Cfg::immediate(&cfg.dom, &cfg.dom_size, b);
        }
        let mut e = Cfg::nearest_common(&cfg.pdom, &cfg.pdom_size, &blocks);
        while let Some(b) = e {
            if !cfg.on_cycle[b] {
                break;
            }
            e = Cfg::immediate(&cfg.pdom, &cfg.pdom_size, b);
        }
        let (Some(s), Some(e)) = (s, e) else {
            left_alone(
                "no block outside every loop dominates (or post-dominates) its accesses".into(),
                report,
            );
            continue;
        };
        // The end block must not be the exit-less virtual root (a function ending in a loop).
        if cfg.pdom_size[e] == cfg.blocks.len() && !cfg.succ[e].is_empty() {
            left_alone("no exit post-dominates its accesses".into(), report);
            continue;
        }
        let p = m.result(a, 0);
        let (sb, eb) = (cfg.blocks[s], cfg.blocks[e]);
        let in_block = |m: &Module, b: BlockId| -> Vec<OpId> {
            m.block_ops(b).filter(|op| accesses.contains(op)).collect()
        };
        let first = in_block(m, sb).first().copied();
        let last = in_block(m, eb).last().copied();
        let start = marker(m, "llvm.intr.lifetime.start", p);
        match first {
            Some(op) => m.insert_before(op, start),
            None => {
                let t = m.last_op(sb).expect("block has a terminator");
                m.insert_before(t, start);
            }
        }
        if sb == entry {
            // The start must follow the alloca (when the first access precedes nothing).
            let pos = |m: &Module, x: OpId| m.block_ops(entry).position(|o| o == x);
            if pos(m, start) < pos(m, a) {
                m.detach_op(start);
                m.insert_after(a, start);
            }
        }
        let end = marker(m, "llvm.intr.lifetime.end", p);
        match last {
            Some(op) => m.insert_after(op, end),
            None => match m.first_op(eb) {
                Some(first) => m.insert_before(first, end),
                None => m.append_op(eb, end),
            },
        }
        report.marked += 1;
    }
}
