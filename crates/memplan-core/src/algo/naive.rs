//! `naive`: no reuse at all. Buffers are stacked in id order, each at the lowest
//! aligned address above the previous one (and clear of every fixed buffer).
//! This is what one allocation per buffer costs; every report compares to it.

use crate::problem::Problem;

/// Stacks the buffers; fixed buffers keep their offsets and the others go above them all.
pub fn plan(problem: &Problem) -> Vec<u64> {
    let mut top = problem
        .buffers
        .iter()
        .filter_map(|b| b.fixed_offset.map(|o| o + b.size))
        .max()
        .unwrap_or(0);
    problem
        .buffers
        .iter()
        .map(|b| match b.fixed_offset {
            Some(o) => o,
            None => {
                let off = top.next_multiple_of(b.align);
                top = off + b.size;
                off
            }
        })
        .collect()
}
