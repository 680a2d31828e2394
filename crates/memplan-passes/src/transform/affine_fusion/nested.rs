//! Fusion of the nests inside a loop body (FINDINGS G6).
//!
//! mlir-opt-22's pass runs its greedy / producer / sibling driver on every block that holds
//! at least two `affine.for` ops, visiting the blocks in post-order (a loop body before the
//! block that holds the loop, the function body last), in every mode. memplan does the same:
//! before the function body's nests are fused, the nests of each block nested in a top-level
//! op are fused among themselves with the drivers of `mod.rs`, pointed at that block
//! (`FnCtx::entry` names the block whose nests are fused; it is the function body again
//! afterwards).
//!
//! Legality needs nothing new: every candidate is checked by the abstract execution of the
//! whole function next to the original, so each iteration of the enclosing loops is covered
//! (a load must read the value of the same store instance, identified by the iteration vector
//! of all its original loops, the enclosing ones included). A slice is computed over the
//! destination's and the source's own loops; the enclosing loops' induction variables stay
//! as they are in the copy, so the slice runs in the same iteration of the enclosing loops
//! as the destination does. Buffers are shrunk afterwards by the function-level step (the
//! footprint of one iteration of the loops enclosing all of a top-level nest's accesses,
//! the enclosing loops and the fused loops included).

use super::*;

/// Blocks nested in the function's top-level ops that hold at least two `affine.for` ops,
/// in post-order (inner blocks first; blocks of earlier ops first).
pub(super) fn loop_body_blocks(m: &Module, f: OpId) -> Vec<BlockId> {
    let mut out = Vec::new();
    let Some(entry) = body(m, f, 0) else {
        return out;
    };
    for top in m.block_ops(entry) {
        post_order(m, top, &mut out);
    }
    out
}

fn post_order(m: &Module, op: OpId, out: &mut Vec<BlockId>) {
    for &r in m.regions(op) {
        for &b in m.region_blocks(r) {
            for o in m.block_ops(b) {
                post_order(m, o, out);
            }
        }
    }
    for &r in m.regions(op) {
        for &b in m.region_blocks(r) {
            if m.block_ops(b)
                .filter(|&o| name(m, o) == "affine.for")
                .count()
                >= 2
            {
                out.push(b);
            }
        }
    }
}

/// Fuses the nests of every loop body (post-order) with the mode's drivers.
pub(super) fn fuse_in_loop_bodies(ctx: &mut FnCtx<'_>, st: &mut State, order: Order) {
    let entry = ctx.entry;
    for b in loop_body_blocks(&st.m, ctx.func) {
        // A block erased by an earlier fusion (it was inside a source nest that was removed)
        // is not visited: every block listed before `b` is nested in an op listed before it.
        if st.m.block_ops(b).next().is_none() || !block_in(&st.m, b, ctx.func) {
            continue;
        }
        ctx.entry = b;
        match ctx.opts.mode {
            FusionMode::Greedy => {
                producer_consumer(ctx, st, order);
                sibling(ctx, st);
                producer_consumer(ctx, st, order);
            }
            FusionMode::Producer => producer_consumer(ctx, st, order),
            FusionMode::Sibling => sibling(ctx, st),
        }
        ctx.entry = entry;
    }
    ctx.entry = entry;
}

/// True if block `b` is (still) nested in `f`.
fn block_in(m: &Module, b: BlockId, f: OpId) -> bool {
    match m.block_region(b).and_then(|r| m.region_op(r)) {
        Some(p) => !m.is_erased(p) && ancestor_or_self(m, p, f),
        None => false,
    }
}

/// The function's body block (`FnCtx::entry` may name a loop body while those are fused).
pub(super) fn func_body(ctx: &FnCtx<'_>, m: &Module) -> BlockId {
    body(m, ctx.func, 0).unwrap_or(ctx.entry)
}
