//! Structural verification, in the spirit of MLIR's `OperationVerifier`
//! (mlir/lib/IR/Verifier.cpp) and `SymbolTable` verification (mlir/lib/IR/SymbolTable.cpp):
//!
//! * terminators where registered ops need them, nothing after a terminator, entry blocks
//!   without predecessors, single-block regions where required;
//! * successors in the same region, and successor operands matching the target block's
//!   arguments in number and type (for the branch ops whose operand layout we know);
//! * dominance: within a block a value is defined before its use; across blocks of an
//!   SSA-CFG region the defining block dominates the using block. Dominator trees are
//!   computed per multi-block region with the Cooper–Harvey–Kennedy iterative algorithm
//!   ("A Simple, Fast Dominance Algorithm", 2001). Uses in unreachable blocks are accepted;
//!   graph regions (`builtin.module`, regions of unregistered ops) waive the order inside a
//!   block but, as in MLIR's `DominanceInfo`, not dominance across blocks.
//!   Values from enclosing regions are visible unless an `IsolatedFromAbove` op lies between;
//! * symbol tables: no duplicate `sym_name` among the children of a symbol-table op, and
//!   `func.call` / `func.constant` resolve to a `func.func` of matching type;
//! * then each registered op's own verifier.
//!
//! Errors point at the offending (using) op. Nothing here panics on malformed IR.

use std::collections::HashMap;

use crate::attrs::Attribute;
use crate::diag::{Diagnostic, Span};
use crate::ir::{BlockId, Module, OpId, RegionId, ValueDef, ValueId};
use crate::registry::{traits, OpDef, Registry};
use crate::types::Type;

/// Verifies the whole module; returns the first error found.
pub fn verify(m: &Module, reg: &Registry) -> Result<(), Diagnostic> {
    let ops = m.walk_ops(m.top);
    // Position of every op within its block, for O(1) "is before" checks.
    let mut order = vec![0u32; m.num_ops()];
    let mut dom = DomInfo::new(m.num_blocks());
    // Whether each region is a graph region (regions not reached count as graph).
    let mut graph_region = vec![true; m.num_regions()];
    // The registry entry of every op, looked up once.
    let mut defs: Vec<Option<&OpDef>> = vec![None; m.num_ops()];
    for &op in &ops {
        defs[op.index()] = reg.lookup(&m.op(op).name);
    }
    for &op in &ops {
        let graph = defs[op.index()].is_none_or(|d| d.has(traits::GRAPH_REGION));
        for &r in m.regions(op) {
            graph_region[r.index()] = graph;
            for &b in m.region_blocks(r) {
                for (i, o) in m.block_ops(b).enumerate() {
                    order[o.index()] = i as u32;
                }
            }
            // Graph regions only waive the order inside a block; across blocks MLIR
            // always consults the dominator tree (unregistered ops included).
            if m.region_blocks(r).len() > 1 {
                dom.compute(m, r);
            }
        }
    }
    let cx = Ctx {
        m,
        reg,
        order: &order,
        dom: &dom,
        graph_region: &graph_region,
        defs: &defs,
    };
    for &op in &ops {
        cx.verify_op(op)?;
    }
    verify_symbols(m, &defs, &ops)?;
    Ok(())
}

fn span_of(m: &Module, op: OpId) -> Span {
    m.op(op).span
}

fn err(m: &Module, op: OpId, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::new(
        span_of(m, op),
        format!("'{}' op {}", m.op(op).name, msg.into()),
    )
}

/// Dominator trees of the multi-block SSA regions, indexed by block id.
struct DomInfo {
    /// Immediate dominator (`u32::MAX`: none — entry block, unreachable, or not computed).
    idom: Vec<u32>,
    /// Depth in the dominator tree (0 for entries).
    depth: Vec<u32>,
    /// Whether the block is reachable from its region's entry (only for computed regions).
    reachable: Vec<bool>,
    /// Whether the block's region had its tree computed.
    computed: Vec<bool>,
}

const NONE: u32 = u32::MAX;

impl DomInfo {
    fn new(n: usize) -> DomInfo {
        DomInfo {
            idom: vec![NONE; n],
            depth: vec![0; n],
            reachable: vec![false; n],
            computed: vec![false; n],
        }
    }

    /// Cooper–Harvey–Kennedy over the region's CFG (successors of each block's last op).
    fn compute(&mut self, m: &Module, r: RegionId) {
        let blocks = m.region_blocks(r);
        let Some(&entry) = blocks.first() else {
            return;
        };
        // Local numbering of the region's blocks.
        let local: HashMap<BlockId, usize> =
            blocks.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        let succs: Vec<Vec<usize>> = blocks
            .iter()
            .map(|&b| {
                m.last_op(b)
                    .map(|t| {
                        m.op(t)
                            .successors
                            .iter()
                            .filter_map(|s| local.get(s).copied())
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .collect();
        // Reverse post-order by an explicit-stack DFS.
        let n = blocks.len();
        let mut post = Vec::with_capacity(n);
        let mut seen = vec![false; n];
        let mut stack = vec![(local[&entry], 0usize)];
        seen[local[&entry]] = true;
        while let Some(&mut (b, ref mut k)) = stack.last_mut() {
            if let Some(&s) = succs[b].get(*k) {
                *k += 1;
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        let mut po_num = vec![usize::MAX; n];
        for (i, &b) in post.iter().enumerate() {
            po_num[b] = i;
        }
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (b, ss) in succs.iter().enumerate() {
            if seen[b] {
                for &s in ss {
                    preds[s].push(b);
                }
            }
        }
        let e = local[&entry];
        let mut idom = vec![usize::MAX; n];
        idom[e] = e;
        let mut changed = true;
        while changed {
            changed = false;
            for &b in post.iter().rev() {
                if b == e {
                    continue;
                }
                let mut new = usize::MAX;
                for &p in &preds[b] {
                    if idom[p] == usize::MAX {
                        continue;
                    }
                    new = if new == usize::MAX {
                        p
                    } else {
                        intersect(&idom, &po_num, p, new)
                    };
                }
                if new != usize::MAX && idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        // Depths in reverse post-order (a block's idom comes earlier).
        let mut depth = vec![0u32; n];
        for &b in post.iter().rev() {
            if b != e && idom[b] != usize::MAX {
                depth[b] = depth[idom[b]] + 1;
            }
        }
        for (i, &b) in blocks.iter().enumerate() {
            let g = b.index();
            self.computed[g] = true;
            self.reachable[g] = seen[i];
            self.depth[g] = depth[i];
            self.idom[g] = if i == e || idom[i] == usize::MAX {
                NONE
            } else {
                blocks[idom[i]].0
            };
        }
    }

    /// True if block `a` dominates block `b` (same region). Unreachable `b` is dominated by
    /// everything; regions without a computed tree (single block, graph) always answer true.
    fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        if a == b || !self.computed[b.index()] || !self.reachable[b.index()] {
            return true;
        }
        if !self.reachable[a.index()] {
            return false;
        }
        let mut cur = b.index();
        while self.depth[cur] > self.depth[a.index()] {
            let up = self.idom[cur];
            if up == NONE {
                return false;
            }
            cur = up as usize;
        }
        cur == a.index()
    }
}

fn intersect(idom: &[usize], po: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while po[a] < po[b] {
            a = idom[a];
        }
        while po[b] < po[a] {
            b = idom[b];
        }
    }
    a
}

struct Ctx<'a> {
    m: &'a Module,
    reg: &'a Registry,
    order: &'a [u32],
    dom: &'a DomInfo,
    graph_region: &'a [bool],
    defs: &'a [Option<&'a OpDef>],
}

impl Ctx<'_> {
    fn verify_op(&self, op: OpId) -> Result<(), Diagnostic> {
        let m = self.m;
        let d = m.op(op);
        // Like MLIR, an unknown op of a dialect whose op set is known is an error, even where
        // unregistered dialects are allowed.
        if self.defs[op.index()].is_none() {
            if let Some((dia, _)) = d.name.split_once('.') {
                if self.reg.is_closed_dialect(dia) {
                    return Err(err(
                        m,
                        op,
                        format!(
                            "unregistered operation '{}' found in dialect ('{dia}') that does not allow unknown operations",
                            d.name
                        ),
                    ));
                }
            }
        }
        // Operands: visible and dominating.
        for (i, &v) in m.operands(op).iter().enumerate() {
            self.check_dominance(op, i, v)?;
        }
        // Successors must be blocks of the same region.
        for &s in &d.successors {
            let here = m.op_block(op).and_then(|b| m.block_region(b));
            if m.block_region(s) != here || here.is_none() {
                return Err(err(m, op, "reference to block defined in another region"));
            }
            // The printer leaves an entry block without arguments unlabelled, so a branch
            // to it could not be printed (found by cargo-fuzz); MLIR forbids it too.
            if here.and_then(|r| m.entry_block(r)) == Some(s) {
                return Err(err(
                    m,
                    op,
                    "entry block of region may not have predecessors",
                ));
            }
        }
        self.check_successor_operands(op)?;
        // The bufferization dialect's discardable attribute is checked on every op, as
        // MLIR's dialect attribute verifier does; only tensor allocations may carry it.
        if d.attrs.get("bufferization.escape").is_some() && d.name != "bufferization.alloc_tensor" {
            return Err(err(
                m,
                op,
                "'bufferization.escape' only valid for allocation results",
            ));
        }
        crate::dialects::gpu::verify_discardable_attrs(m, op).map_err(|e| err(m, op, e))?;
        crate::dialects::nvvm::verify_discardable_attrs(m, op).map_err(|e| err(m, op, e))?;
        crate::dialects::rocdl::verify_discardable_attrs(m, op).map_err(|e| err(m, op, e))?;
        crate::dialects::llvm::verify_discardable_attrs(m, op).map_err(|e| err(m, op, e))?;
        // MLIR reports data-layout errors at the op without the "'op' op" prefix.
        crate::dialects::dlti::verify_discardable_attrs(m, op)
            .map_err(|e| Diagnostic::new(span_of(m, op), e))?;
        if d.name == "gpu.module" {
            // `gpu.module`'s verifier runs each target's `verifyTarget` (NVVM: the chip
            // against the ops' NVVMRequiresSM traits), reported where MLIR reports it
            crate::cpp_rules::nvvm::verify_targets(m, op).map_err(|(at, e, prefixed)| {
                if prefixed {
                    err(m, at, e)
                } else {
                    Diagnostic::new(span_of(m, at), e)
                }
            })?;
        }
        // Symbol visibility (MLIR's SymbolOpInterface): registered ops only.
        let sym_visibility = d
            .props
            .get("sym_visibility")
            .or(d.attrs.get("sym_visibility"));
        if let (Some(v), Some(_)) = (sym_visibility, self.defs[op.index()]) {
            if !v
                .as_str()
                .is_some_and(|s| matches!(s, "public" | "private" | "nested"))
            {
                return Err(err(
                    m,
                    op,
                    format!(
                        "visibility expected to be one of [\"public\", \"private\", \"nested\"], but got {v}"
                    ),
                ));
            }
        }
        let Some(def) = self.defs[op.index()] else {
            return Ok(());
        };
        if def.has(traits::TERMINATOR) {
            if let Some(b) = m.op_block(op) {
                if m.last_op(b) != Some(op) {
                    return Err(err(m, op, "must be the last operation in the parent block"));
                }
            }
        }
        for &r in m.regions(op) {
            let blocks = m.region_blocks(r);
            if def.has(traits::SINGLE_BLOCK) && blocks.len() > 1 {
                return Err(err(m, op, "expects a single block in its regions"));
            }
            if let Some(&entry) = blocks.first() {
                // The entry block has no predecessors.
                for &b in blocks {
                    if let Some(o) = m.last_op(b) {
                        if m.op(o).successors.contains(&entry) {
                            return Err(err(
                                m,
                                o,
                                "entry block of region may not have predecessors",
                            ));
                        }
                    }
                }
            }
            if def.has(traits::NO_TERMINATOR) {
                continue;
            }
            for &b in blocks {
                match m.last_op(b) {
                    None => return Err(err(m, op, "empty block: expect at least a terminator")),
                    Some(last) => {
                        if let Some(ld) = self.reg.lookup(&m.op(last).name) {
                            if !ld.has(traits::TERMINATOR) {
                                return Err(Diagnostic::new(
                                    span_of(m, last),
                                    "block with no terminator",
                                )
                                .with_note(
                                    None,
                                    format!("last operation is '{}'", m.op(last).name),
                                ));
                            }
                        }
                    }
                }
            }
        }
        if d.name == "builtin.unrealized_conversion_cast" && m.results(op).is_empty() {
            return Err(err(
                m,
                op,
                "expected at least one result for cast operation",
            ));
        }
        if d.name == "func.func" {
            check_func_attr_names(m, op)?;
        }
        crate::ods::verify_result_count(m, op).map_err(|e| err(m, op, e))?;
        if let Some(f) = def.verify {
            f(m, op).map_err(|e| err(m, op, e))?;
        }
        crate::ods::verify_cpp_rules(m, op).map_err(|e| err(m, op, e))?;
        crate::cpp_rules::verify(m, op).map_err(|e| err(m, op, e))?;
        Ok(())
    }

    /// Successor operands vs. block arguments, for branch ops with a known operand layout.
    fn check_successor_operands(&self, op: OpId) -> Result<(), Diagnostic> {
        let m = self.m;
        let d = m.op(op);
        if d.successors.is_empty() {
            return Ok(());
        }
        let Some(groups) = successor_operands(m, op) else {
            return Ok(());
        };
        for (i, (&s, vals)) in d.successors.iter().zip(&groups).enumerate() {
            let args = m.block_args(s);
            if args.len() != vals.len() {
                return Err(err(
                    m,
                    op,
                    format!(
                        "branch has {} operands for successor #{i}, but target block has {}",
                        vals.len(),
                        args.len()
                    ),
                ));
            }
            for (j, (&a, &v)) in args.iter().zip(vals.iter()).enumerate() {
                if m.value_type(a) != m.value_type(v) {
                    return Err(err(
                        m,
                        op,
                        format!(
                            "type mismatch for bb argument #{j} of successor #{i}: '{}' vs '{}'",
                            m.value_type(v),
                            m.value_type(a)
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    fn check_dominance(&self, user: OpId, idx: usize, v: ValueId) -> Result<(), Diagnostic> {
        let m = self.m;
        let (def_block, def_op) = match m.value_def(v) {
            ValueDef::OpResult { op, .. } => match m.op_block(op) {
                Some(b) => (b, Some(op)),
                None => {
                    return Err(err(
                        m,
                        user,
                        format!("operand #{idx} is defined by an op that is not in the IR"),
                    ))
                }
            },
            ValueDef::BlockArg { block, .. } => (block, None),
            ValueDef::Placeholder => {
                return Err(err(
                    m,
                    user,
                    format!("operand #{idx} is an unresolved forward reference"),
                ))
            }
        };
        let def_region = m.block_region(def_block);
        let mut cur = user;
        loop {
            let Some(b) = m.op_block(cur) else {
                return Err(err(
                    m,
                    user,
                    format!("operand #{idx} is not visible from here"),
                ));
            };
            let r = m.block_region(b);
            if r == def_region {
                let graph = r.is_none_or(|r| self.graph_region[r.index()]);
                let ok = if b == def_block {
                    graph
                        || match def_op {
                            Some(dop) => {
                                dop != cur && self.order[dop.index()] < self.order[cur.index()]
                            }
                            None => true,
                        }
                } else {
                    self.dom.dominates(def_block, b)
                };
                if ok {
                    return Ok(());
                }
                let mut d = Diagnostic::new(
                    span_of(m, user),
                    format!("operand #{idx} does not dominate this use"),
                );
                if let Some(dop) = def_op {
                    d = d.with_note(Some(span_of(m, dop)), "operand defined here");
                }
                return Err(d);
            }
            let Some(parent) = m.parent_op(cur) else {
                return Err(err(
                    m,
                    user,
                    format!("operand #{idx} is not visible from here"),
                ));
            };
            if self
                .reg
                .lookup(&m.op(parent).name)
                .is_some_and(|d| d.has(traits::ISOLATED_FROM_ABOVE))
            {
                return Err(Diagnostic::new(
                    span_of(m, user),
                    "using value defined outside the region",
                )
                .with_note(
                    Some(span_of(m, parent)),
                    "required by region isolation constraints",
                ));
            }
            cur = parent;
        }
    }
}

/// The operands passed to each successor of a branch op whose layout memplan knows
/// (`cf.br`, `cf.cond_br`, `cf.switch`); `None` for other ops.
pub fn successor_operands(m: &Module, op: OpId) -> Option<Vec<&[ValueId]>> {
    let d = m.op(op);
    let ops = m.operands(op);
    let seg = |name: &str| {
        d.props
            .get(name)
            .or_else(|| d.attrs.get(name))
            .and_then(|a| a.as_int_array())
    };
    match d.name.as_str() {
        "cf.br" | "llvm.br" if d.successors.len() == 1 => Some(vec![ops]),
        "cf.cond_br" | "llvm.cond_br" if d.successors.len() == 2 => {
            let s = seg("operandSegmentSizes")?;
            if s.len() != 3 || s.iter().any(|&x| x < 0) || s.iter().sum::<i64>() != ops.len() as i64
            {
                return None;
            }
            let (t, f) = (s[1] as usize, s[2] as usize);
            Some(vec![&ops[1..1 + t], &ops[1 + t..1 + t + f]])
        }
        "cf.switch" | "llvm.switch" => {
            let s = seg("operandSegmentSizes")?;
            let cases = seg("case_operand_segments").unwrap_or(&[]);
            if s.len() != 3 || s.iter().any(|&x| x < 0) || s.iter().sum::<i64>() != ops.len() as i64
            {
                return None;
            }
            if cases.len() + 1 != d.successors.len()
                || cases.iter().any(|&x| x < 0)
                || cases.iter().sum::<i64>() != s[2]
            {
                return None;
            }
            let mut out = Vec::with_capacity(d.successors.len());
            let mut at = 1usize;
            out.push(&ops[at..at + s[1] as usize]);
            at += s[1] as usize;
            for &c in cases {
                out.push(&ops[at..at + c as usize]);
                at += c as usize;
            }
            Some(out)
        }
        _ => None,
    }
}

/// `func.func` argument/result attribute dictionaries may only hold dialect attributes.
fn check_func_attr_names(m: &Module, op: OpId) -> Result<(), Diagnostic> {
    let d = m.op(op);
    for (key, what) in [("arg_attrs", "arguments"), ("res_attrs", "results")] {
        if let Some(Attribute::Array(v)) = d.props.get(key).or_else(|| d.attrs.get(key)) {
            for a in v {
                if let Attribute::Dict(dict) = a {
                    if dict.iter().any(|n| !n.name.contains('.')) {
                        return Err(err(
                            m,
                            op,
                            format!("{what} may only have dialect attributes"),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

fn sym_name(m: &Module, op: OpId) -> Option<&str> {
    let d = m.op(op);
    d.props
        .get("sym_name")
        .or_else(|| d.attrs.get("sym_name"))
        .and_then(|a| a.as_str())
}

/// Symbol tables: unique names per table, and `func.call` / `func.constant` targets.
fn verify_symbols(m: &Module, defs: &[Option<&OpDef>], ops: &[OpId]) -> Result<(), Diagnostic> {
    // name -> op, per symbol-table op
    let mut tables: HashMap<OpId, HashMap<&str, OpId>> = HashMap::new();
    for &op in ops {
        if !defs[op.index()].is_some_and(|d| d.has(traits::SYMBOL_TABLE)) {
            continue;
        }
        let mut names: HashMap<&str, OpId> = HashMap::new();
        for &r in m.regions(op) {
            for &b in m.region_blocks(r) {
                for o in m.block_ops(b) {
                    if let Some(n) = sym_name(m, o) {
                        if let Some(&prev) = names.get(n) {
                            return Err(Diagnostic::new(
                                span_of(m, o),
                                format!("redefinition of symbol named '{n}'"),
                            )
                            .with_note(
                                Some(span_of(m, prev)),
                                "see existing symbol definition here",
                            ));
                        }
                        names.insert(n, o);
                    }
                }
            }
        }
        tables.insert(op, names);
    }
    for &op in ops {
        let name = m.op(op).name.as_str();
        let key = match name {
            "func.call" => "callee",
            "func.constant" => "value",
            _ => continue,
        };
        // generic form puts the inherent attribute among the attributes
        let d = m.op(op);
        let Some(Attribute::SymbolRef { root, nested }) =
            d.props.get(key).or_else(|| d.attrs.get(key))
        else {
            continue;
        };
        if !nested.is_empty() {
            continue;
        }
        // The nearest enclosing symbol table.
        let mut table = m.parent_op(op);
        while let Some(t) = table {
            if tables.contains_key(&t) {
                break;
            }
            table = m.parent_op(t);
        }
        let Some(t) = table else { continue };
        let target = tables.get(&t).and_then(|n| n.get(root.as_str())).copied();
        let fty = target
            .filter(|&f| m.op(f).name == "func.func")
            .and_then(|f| {
                let d = m.op(f);
                d.props
                    .get("function_type")
                    .or_else(|| d.attrs.get("function_type"))
            })
            .and_then(|a| a.as_type())
            .and_then(|t| t.as_function());
        if name == "func.constant" {
            let Some((ins, outs)) = fty else {
                return Err(err(
                    m,
                    op,
                    format!("reference to undefined function '{root}'"),
                ));
            };
            let want = Type::function(ins.to_vec(), outs.to_vec());
            if m.results(op).len() != 1 || *m.value_type(m.result(op, 0)) != want {
                return Err(err(m, op, "reference to function with mismatched type"));
            }
            continue;
        }
        let Some((ins, outs)) = fty else {
            return Err(err(
                m,
                op,
                format!("'{root}' does not reference a valid function"),
            ));
        };
        let args = m.operands(op);
        if args.len() != ins.len() {
            return Err(err(m, op, "incorrect number of operands for callee"));
        }
        for (i, (&a, t)) in args.iter().zip(ins).enumerate() {
            if m.value_type(a) != t {
                return Err(err(
                    m,
                    op,
                    format!(
                        "operand type mismatch: expected operand type '{t}', but provided '{}' for operand number {i}",
                        m.value_type(a)
                    ),
                ));
            }
        }
        let res = m.results(op);
        if res.len() != outs.len() {
            return Err(err(m, op, "incorrect number of results for callee"));
        }
        for (i, (&r, t)) in res.iter().zip(outs).enumerate() {
            if m.value_type(r) != t {
                return Err(err(m, op, format!("result type mismatch at index {i}")));
            }
        }
    }
    Ok(())
}
