//! Structural verification, in the spirit of MLIR's `OperationVerifier`
//! (mlir/lib/IR/Verifier.cpp): terminators where registered ops need them, operand
//! visibility and dominance inside a block (ops before their users, nothing used across
//! an isolated-from-above boundary), entry-block rules, then each registered op's own
//! verifier. Regions of unregistered ops are treated as graph regions, as MLIR does.
//! Cross-block dominance is not checked yet (phase 1).

use crate::diag::{Diagnostic, Span};
use crate::ir::{Module, OpId, ValueDef};
use crate::registry::{traits, Registry};

/// Verifies the whole module; returns the first error found.
pub fn verify(m: &Module, reg: &Registry) -> Result<(), Diagnostic> {
    let ops = m.walk_ops(m.top);
    // Position of every op within its block, for O(1) "is before" checks.
    let mut order = vec![0u32; m.num_ops()];
    for &op in &ops {
        for &r in m.regions(op) {
            for &b in m.region_blocks(r) {
                for (i, o) in m.block_ops(b).enumerate() {
                    order[o.index()] = i as u32;
                }
            }
        }
    }
    for &op in &ops {
        verify_op(m, reg, op, &order)?;
    }
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

fn verify_op(m: &Module, reg: &Registry, op: OpId, order: &[u32]) -> Result<(), Diagnostic> {
    let d = m.op(op);
    let def = reg.get(&d.name);
    // Operands: visible and (within a block) defined before use.
    for (i, &v) in m.operands(op).iter().enumerate() {
        check_dominance(m, reg, op, i, v, order)?;
    }
    // Successors must be blocks of the same region.
    for &s in &d.successors {
        let here = m.op_block(op).and_then(|b| m.block_region(b));
        if m.block_region(s) != here || here.is_none() {
            return Err(err(m, op, "reference to block defined in another region"));
        }
    }
    let Some(def) = def else { return Ok(()) };
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
                for o in m.block_ops(b) {
                    if m.op(o).successors.contains(&entry) {
                        return Err(err(m, o, "entry block of region may not have predecessors"));
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
                    if let Some(ld) = reg.get(&m.op(last).name) {
                        if !ld.has(traits::TERMINATOR) {
                            return Err(Diagnostic::new(
                                span_of(m, last),
                                "block with no terminator",
                            )
                            .with_note(None, format!("last operation is '{}'", m.op(last).name)));
                        }
                    }
                }
            }
        }
    }
    if let Some(f) = def.verify {
        f(m, op).map_err(|e| err(m, op, e))?;
    }
    Ok(())
}

fn check_dominance(
    m: &Module,
    reg: &Registry,
    user: OpId,
    idx: usize,
    v: crate::ValueId,
    order: &[u32],
) -> Result<(), Diagnostic> {
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
            let owner = r.and_then(|r| m.region_op(r));
            let graph = owner.is_none_or(|o| {
                let n = &m.op(o).name;
                reg.get(n).is_none_or(|d| d.has(traits::GRAPH_REGION))
            });
            if b == def_block && !graph {
                if let Some(dop) = def_op {
                    if dop == cur || order[dop.index()] >= order[cur.index()] {
                        return Err(Diagnostic::new(
                            span_of(m, user),
                            format!("operand #{idx} does not dominate this use"),
                        )
                        .with_note(Some(span_of(m, dop)), "operand defined here"));
                    }
                }
            }
            return Ok(());
        }
        let Some(parent) = m.parent_op(cur) else {
            return Err(err(
                m,
                user,
                format!("operand #{idx} is not visible from here"),
            ));
        };
        if reg.has_trait(&m.op(parent).name, traits::ISOLATED_FROM_ABOVE) {
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
