//! Memref-level lifetime markers, the "lifelines" of seed 002's RFC:
//!
//! ```text
//! %l = "memplan.lifetime_start"(%buf) : (memref<..>) -> memref<..>   // uses inside use %l
//! "memplan.lifetime_end"(%l) : (memref<..>) -> ()
//! ```
//!
//! - [`insert_lifetime_markers`]: for each `memref.alloca` / `memref.alloc` whose value does
//!   not escape (stored as a value, passed to a call, returned), the start goes right before
//!   the first op of the buffer's block that uses it (directly, through a view, or inside a
//!   nested region), the end right after the last one; every use in between is rewired to
//!   the lifeline. A use inside a loop or a branch therefore keeps the whole loop/branch
//!   inside the lifetime: nothing is ended inside a loop.
//! - [`verify_lifetime_markers`]: a may-dataflow over the structured IR (`scf.if` /
//!   `affine.if` / `scf.index_switch` regions run once and exclusively, `scf.execute_region`
//!   once, every other region op may run
//!   its regions any number of times, multi-block regions by fixed point over the CFG)
//!   rejects a use of a lifeline (or of a view derived from it) after its end on some path,
//!   and a start while an earlier lifeline of the same buffer may still be live.
//! - [`strip_lifetime_markers`]: removes the ops, rewiring uses back to the buffer.

use memplan_ir::{BlockId, Diagnostic, Module, OpId, OperationState, RegionId, ValueId};

use crate::remarks::Remark;

/// `memplan.lifetime_start`.
pub const START: &str = "memplan.lifetime_start";
/// `memplan.lifetime_end`.
pub const END: &str = "memplan.lifetime_end";

fn is_memref(m: &Module, v: ValueId) -> bool {
    m.value_type(v).to_string().starts_with("memref<")
}

/// The buffer's value and every memref-typed value derived from it (views, casts).
pub(crate) fn derived(m: &Module, root: ValueId) -> Vec<ValueId> {
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        let v = out[i];
        i += 1;
        for u in m.uses(v) {
            let name = m.op(u.op).name.as_str();
            if name == "memref.load" || name == START {
                continue;
            }
            for &r in m.results(u.op) {
                if is_memref(m, r) && !out.contains(&r) {
                    out.push(r);
                }
            }
        }
    }
    out
}

fn escapes(m: &Module, vals: &[ValueId]) -> Option<String> {
    for &v in vals {
        for u in m.uses(v) {
            let name = m.op(u.op).name.as_str();
            match name {
                "memref.store" | "affine.store" | "vector.store" if u.index == 0 => {
                    return Some("it is stored to memory as a value".into())
                }
                "func.call" | "func.call_indirect" | "llvm.call" => {
                    return Some("it is passed to a call".into())
                }
                "func.return" | "gpu.return" => return Some("it is returned".into()),
                "memplan.lifetime_end" | "memplan.lifetime_start" => {
                    return Some("it already has lifetime markers".into())
                }
                _ => {}
            }
        }
    }
    None
}

/// The ancestor of `op` (itself included) that lies in block `b`.
fn ancestor_in(m: &Module, mut op: OpId, b: BlockId) -> Option<OpId> {
    loop {
        if m.op_block(op) == Some(b) {
            return Some(op);
        }
        op = m.parent_op(op)?;
    }
}

/// Inserts lifelines around every non-escaping `memref.alloca` / `memref.alloc`.
/// Returns one remark per buffer left alone.
pub fn insert_lifetime_markers(m: &mut Module) -> Vec<Remark> {
    let mut remarks = Vec::new();
    let bufs: Vec<OpId> = m
        .walk_ops(m.top)
        .into_iter()
        .filter(|&op| matches!(m.op(op).name.as_str(), "memref.alloca" | "memref.alloc"))
        .collect();
    for a in bufs {
        let span = m.op(a).span;
        let note = |why: &str| Remark {
            op: a,
            span,
            message: format!("insert-lifetime-markers: buffer left alone: {why}"),
        };
        let Some(b) = m.op_block(a) else { continue };
        let root = m.result(a, 0);
        let vals = derived(m, root);
        if let Some(why) = escapes(m, &vals) {
            remarks.push(note(&why));
            continue;
        }
        let order: Vec<OpId> = m.block_ops(b).collect();
        let mut first: Option<usize> = None;
        let mut last: Option<usize> = None;
        let mut ok = true;
        // A `memref.dealloc` of the buffer after its last use frees it after its lifetime
        // has ended: it neither extends the lifetime nor goes through the lifeline.
        let is_dealloc = |m: &Module, op: OpId| m.op(op).name.as_str() == "memref.dealloc";
        for &v in &vals {
            for u in m.uses(v) {
                if v == root && is_dealloc(m, u.op) {
                    continue;
                }
                match ancestor_in(m, u.op, b).and_then(|x| order.iter().position(|&o| o == x)) {
                    Some(p) => {
                        first = Some(first.map_or(p, |f: usize| f.min(p)));
                        last = Some(last.map_or(p, |l: usize| l.max(p)));
                    }
                    None => ok = false,
                }
            }
        }
        if !ok {
            remarks.push(note("it is used outside the block that allocates it"));
            continue;
        }
        let (Some(first), Some(last)) = (first, last) else {
            remarks.push(note("it is never used"));
            continue;
        };
        if m.last_op(b) == Some(order[last]) {
            remarks.push(note("it is used by the block's terminator"));
            continue;
        }
        let ty = m.value_type(root).clone();
        let mut st = OperationState::new(START);
        st.operands = vec![root];
        st.result_types = vec![ty];
        let s = m.create_op(st);
        m.insert_before(order[first], s);
        let l = m.result(s, 0);
        // A dealloc after the end (in the block or nested in a later op) keeps the buffer.
        let after_end = |m: &Module, op: OpId| {
            is_dealloc(m, op)
                && ancestor_in(m, op, b)
                    .and_then(|x| order.iter().position(|&o| o == x))
                    .is_some_and(|p| p > last)
        };
        let uses: Vec<_> = m
            .uses(root)
            .iter()
            .filter(|u| u.op != s && !after_end(m, u.op))
            .copied()
            .collect();
        for u in uses {
            m.set_operand(u.op, u.index as usize, l);
        }
        let mut st = OperationState::new(END);
        st.operands = vec![l];
        let e = m.create_op(st);
        m.insert_after(order[last], e);
    }
    remarks
}

/// Removes every `memplan.lifetime_*` op.
pub fn strip_lifetime_markers(m: &mut Module) {
    let ops: Vec<OpId> = m
        .walk_ops(m.top)
        .into_iter()
        .filter(|&op| matches!(m.op(op).name.as_str(), START | END))
        .collect();
    let (starts, ends): (Vec<OpId>, Vec<OpId>) = ops
        .into_iter()
        .partition(|&op| m.op(op).name.as_str() == START);
    for op in ends {
        m.erase_op(op);
    }
    for op in starts {
        let buf = m.operands(op)[0];
        let l = m.result(op, 0);
        m.replace_all_uses(l, buf);
        m.erase_op(op);
    }
}

/// Lifeline state: which lifelines may have ended and which may be live.
#[derive(Clone, PartialEq, Eq, Default)]
struct State {
    ended: Vec<usize>,
    live: Vec<usize>,
}

impl State {
    fn union(&mut self, o: &State) {
        for &x in &o.ended {
            if !self.ended.contains(&x) {
                self.ended.push(x);
            }
        }
        for &x in &o.live {
            if !self.live.contains(&x) {
                self.live.push(x);
            }
        }
        self.ended.sort_unstable();
        self.live.sort_unstable();
    }
}

struct Verifier {
    /// value -> lifeline index (the lifeline and the views derived from it).
    family: Vec<(ValueId, usize)>,
    /// lifeline index -> its buffer.
    buffer: Vec<ValueId>,
    errors: Vec<(OpId, String)>,
}

impl Verifier {
    fn lifeline_of(&self, v: ValueId) -> Option<usize> {
        self.family.iter().find(|(x, _)| *x == v).map(|&(_, i)| i)
    }

    fn error(&mut self, op: OpId, msg: String) {
        if !self.errors.iter().any(|(o, _)| *o == op) {
            self.errors.push((op, msg));
        }
    }

    fn op(&mut self, m: &Module, op: OpId, s: &mut State) {
        let name = m.op(op).name.as_str();
        for &v in m.operands(op) {
            if let Some(k) = self.lifeline_of(v) {
                if s.ended.contains(&k) {
                    let msg = if name == END {
                        "lifetime_end of a lifeline that may already have ended on some path"
                    } else {
                        "use of a lifeline after its memplan.lifetime_end on some path"
                    };
                    self.error(op, msg.to_string());
                }
            }
        }
        if name == START {
            let buf = m.operands(op).first().copied();
            if let Some(k) = self.lifeline_of(m.result(op, 0)) {
                if s.live.iter().any(|&j| Some(self.buffer[j]) == buf) {
                    self.error(
                        op,
                        "lifetime_start while a lifetime of the same buffer may still be live"
                            .into(),
                    );
                }
                s.live.push(k);
                s.live.sort_unstable();
                s.ended.retain(|&j| j != k);
            }
            return;
        }
        if name == END {
            if let Some(k) = m.operands(op).first().and_then(|&v| self.lifeline_of(v)) {
                if !s.ended.contains(&k) {
                    s.ended.push(k);
                    s.ended.sort_unstable();
                }
                s.live.retain(|&j| j != k);
            }
            return;
        }
        let regions = m.regions(op).to_vec();
        if regions.is_empty() {
            return;
        }
        if name == "scf.execute_region" {
            for r in regions {
                self.region(m, r, s);
            }
            return;
        }
        if matches!(name, "scf.if" | "affine.if" | "scf.index_switch") {
            let input = s.clone();
            let mut out: Option<State> = None;
            let mut skipped = regions.len() < 2 && name != "scf.index_switch";
            for r in regions {
                if m.region_blocks(r).is_empty() {
                    skipped = true;
                    continue;
                }
                let mut t = input.clone();
                self.region(m, r, &mut t);
                match &mut out {
                    Some(o) => o.union(&t),
                    None => out = Some(t),
                }
            }
            let mut out = out.unwrap_or_else(|| input.clone());
            if skipped {
                out.union(&input);
            }
            *s = out;
            return;
        }
        // Any other region op: its regions may run any number of times, in any order.
        let mut cur = s.clone();
        for _ in 0..64 {
            let mut next = cur.clone();
            for &r in &regions {
                let mut t = cur.clone();
                self.region(m, r, &mut t);
                next.union(&t);
            }
            if next == cur {
                break;
            }
            cur = next;
        }
        *s = cur;
    }

    fn block(&mut self, m: &Module, b: BlockId, s: &mut State) {
        let ops: Vec<OpId> = m.block_ops(b).collect();
        for op in ops {
            self.op(m, op, s);
        }
    }

    fn region(&mut self, m: &Module, r: RegionId, s: &mut State) {
        let blocks = m.region_blocks(r).to_vec();
        match blocks.len() {
            0 => {}
            1 => self.block(m, blocks[0], s),
            n => {
                let mut at_entry: Vec<Option<State>> = vec![None; n];
                at_entry[0] = Some(s.clone());
                let mut exit = s.clone();
                let mut work = vec![0usize];
                let mut rounds = 0;
                while let Some(i) = work.pop() {
                    rounds += 1;
                    if rounds > 64 * n {
                        break;
                    }
                    let mut t = at_entry[i].clone().unwrap_or_default();
                    self.block(m, blocks[i], &mut t);
                    let succs = m
                        .last_op(blocks[i])
                        .map(|o| m.op(o).successors.clone())
                        .unwrap_or_default();
                    if succs.is_empty() {
                        exit.union(&t);
                    }
                    for sb in succs {
                        let Some(j) = blocks.iter().position(|&x| x == sb) else {
                            continue;
                        };
                        let mut merged = at_entry[j].clone().unwrap_or_default();
                        let before = at_entry[j].clone();
                        merged.union(&t);
                        if before.as_ref() != Some(&merged) {
                            at_entry[j] = Some(merged);
                            work.push(j);
                        }
                    }
                }
                *s = exit;
            }
        }
    }
}

/// Checks every lifeline: no use after its end on any path, no start while the buffer
/// may still be live. The first error in source order is returned, at the offending op.
pub fn verify_lifetime_markers(m: &Module) -> Result<(), Diagnostic> {
    let mut v = Verifier {
        family: Vec::new(),
        buffer: Vec::new(),
        errors: Vec::new(),
    };
    for op in m.walk_ops(m.top) {
        let d = m.op(op);
        if d.name.as_str() == START {
            let (Some(&buf), Some(&l)) = (m.operands(op).first(), m.results(op).first()) else {
                return Err(Diagnostic::new(
                    d.span,
                    "memplan.lifetime_start takes one buffer and returns its lifeline",
                ));
            };
            let k = v.buffer.len();
            v.buffer.push(buf);
            for x in derived(m, l) {
                v.family.push((x, k));
            }
        } else if d.name.as_str() == END {
            let ok = m.operands(op).len() == 1
                && m.results(op).is_empty()
                && m.defining_op(m.operands(op)[0])
                    .is_some_and(|s| m.op(s).name.as_str() == START);
            if !ok {
                return Err(Diagnostic::new(
                    d.span,
                    "memplan.lifetime_end takes the result of a memplan.lifetime_start",
                ));
            }
        }
    }
    if v.buffer.is_empty() {
        return Ok(());
    }
    for f in m.block_ops(m.body()).collect::<Vec<_>>() {
        for &r in m.regions(f) {
            let mut s = State::default();
            v.region(m, r, &mut s);
        }
    }
    match v.errors.iter().min_by_key(|(op, _)| m.op(*op).span.start) {
        Some((op, msg)) => Err(Diagnostic::new(m.op(*op).span, msg.clone())),
        None => Ok(()),
    }
}
