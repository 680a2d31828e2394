//! Sinking sequential loops of a destination nest before fusing into it (what upstream's
//! `sinkSequentialLoops` does): in a perfect band, the loops along which some store keeps
//! writing the same element (a reduction, as `linalg` lowers one along its outer dimension)
//! move innermost, the others keep their relative order outside. A producer can then be
//! fused at the depth of the outer, parallel loops. The permuted nest is only a candidate:
//! like every fusion, it is kept only when the abstract execution accepts the result.

use super::*;

/// Whether `v` (computed inside `nest`) depends on the induction variable `iv`.
fn depends_on(m: &Module, v: ValueId, iv: ValueId, depth: u32) -> bool {
    if v == iv {
        return true;
    }
    if depth > 64 {
        return true;
    }
    match m.value_def(v) {
        ValueDef::OpResult { op, .. } => m
            .operands(op)
            .iter()
            .any(|&o| depends_on(m, o, iv, depth + 1)),
        _ => false,
    }
}

/// The perfect band of constant-bound loops rooted at `nest` (outermost first).
fn perfect_band(m: &Module, nest: OpId) -> Vec<OpId> {
    let mut band = Vec::new();
    let mut cur = nest;
    while let Some(p) = for_parts(m, cur) {
        if !p.lb_ops.is_empty()
            || !p.ub_ops.is_empty()
            || !p.inits.is_empty()
            || !m.results(cur).is_empty()
            || p.step <= 0
        {
            break;
        }
        band.push(cur);
        let Some(b) = body(m, cur, 0) else { break };
        let inner: Vec<OpId> = m
            .block_ops(b)
            .filter(|&o| name(m, o) != "affine.yield")
            .collect();
        if inner.len() == 1 && name(m, inner[0]) == "affine.for" {
            cur = inner[0];
        } else {
            break;
        }
    }
    band
}

/// `st` with the sequential loops of `dst`'s perfect band sunk innermost, or `None` when
/// there is nothing to move.
pub(super) fn sink_sequential(st: &State, dst: OpId) -> Option<State> {
    let m = &st.m;
    let band = perfect_band(m, dst);
    if band.len() < 2 {
        return None;
    }
    let ivs: Vec<ValueId> = band.iter().map(|&l| for_iv(m, l)).collect::<Option<_>>()?;
    let inner = *band.last()?;
    let stores: Vec<OpId> = m
        .walk_ops(inner)
        .into_iter()
        .filter(|&o| name(m, o) == "affine.store")
        .collect();
    let sequential: Vec<bool> = ivs
        .iter()
        .map(|&iv| {
            stores.iter().any(|&s| {
                access_parts(m, s)
                    .is_some_and(|(_, _, idx, _)| !idx.iter().any(|&v| depends_on(m, v, iv, 0)))
            })
        })
        .collect();
    let order: Vec<usize> = (0..band.len())
        .filter(|&k| !sequential[k])
        .chain((0..band.len()).filter(|&k| sequential[k]))
        .collect();
    if order.iter().enumerate().all(|(k, &o)| k == o) {
        return None;
    }
    let mut out = st.clone();
    let headers: Vec<(Option<Attribute>, Option<Attribute>, Option<Attribute>)> = band
        .iter()
        .map(|&l| {
            let p = &m.op(l).props;
            (
                p.get("lowerBoundMap").cloned(),
                p.get("upperBoundMap").cloned(),
                p.get("step").cloned(),
            )
        })
        .collect();
    let origins: Vec<OpId> = band
        .iter()
        .map(|&l| *st.origin.get(&l).unwrap_or(&l))
        .collect();
    // Uses of each old IV inside the band, collected before any rewrite.
    let uses: Vec<Vec<(OpId, u32)>> = ivs
        .iter()
        .map(|&iv| {
            m.uses(iv)
                .iter()
                .filter(|u| ancestor_or_self(m, u.op, inner))
                .map(|u| (u.op, u.index))
                .collect()
        })
        .collect();
    for (k, &src) in order.iter().enumerate() {
        let l = band[k];
        let (lb, ub, step) = headers[src].clone();
        let props = &mut out.m.op_mut(l).props;
        props.set("lowerBoundMap", lb?);
        props.set("upperBoundMap", ub?);
        props.set("step", step?);
        out.origin.insert(l, origins[src]);
        for &(op, i) in &uses[src] {
            out.m.set_operand(op, i as usize, ivs[k]);
        }
    }
    Some(out)
}
