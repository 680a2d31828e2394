//! From IR facts to planning problems: one [`memplan_core::Problem`] per (allocation
//! scope, memory space).
//!
//! This is the seam of ARCHITECTURE.md's data flow (`extract ──▶ Problem`): the planner
//! never sees IR. Each mergeable allocation becomes a [`Buffer`] whose size is its byte
//! size, whose alignment is the largest of the pass alignment, the allocation's own
//! `alignment` attribute and its element's natural alignment, and whose lifetime is the
//! set of half-open tick intervals from the lifetime traces (seed 000's "linearised
//! lifetime trace"; several intervals when the scope is a CFG).

use std::collections::BTreeMap;

use memplan_core::{Buffer, Interval, MemSpace, Problem};
use memplan_ir::{Attribute, OpId};

use crate::analysis::lifetime::Lifetimes;

/// A mergeable allocation, as the legality check describes it.
#[derive(Clone, Debug)]
pub struct MergeableAlloc {
    /// The `memref.alloc` op.
    pub alloc: OpId,
    /// Index into [`Lifetimes::traces`].
    pub trace: usize,
    /// Bytes of the memref.
    pub bytes: u64,
    /// Required alignment of its offset.
    pub align: u64,
    /// The memory space attribute of the memref type (`None` = default space).
    pub space_attr: Option<Attribute>,
    /// A printable name (`%a`).
    pub name: String,
}

/// The problem of one (scope, memory space).
#[derive(Clone, Debug)]
pub struct ScopeProblem {
    /// Index into [`Lifetimes::scopes`].
    pub scope: usize,
    /// The memory space attribute shared by the buffers.
    pub space_attr: Option<Attribute>,
    /// The allocations, in the order of [`Problem::buffers`].
    pub allocs: Vec<MergeableAlloc>,
    /// The planning problem (all buffers in `MemSpace(0)`: one problem per space already).
    pub problem: Problem,
}

/// Groups mergeable allocations by (scope, memory space) and builds their problems, in
/// scope order, then memory-space order (by the attribute's text).
pub fn extract(lt: &Lifetimes, mergeable: &[MergeableAlloc], alignment: u64) -> Vec<ScopeProblem> {
    let mut groups: BTreeMap<(usize, String), Vec<&MergeableAlloc>> = BTreeMap::new();
    for a in mergeable {
        let Some(scope) = lt.traces[a.trace].scope else {
            continue;
        };
        let key = a
            .space_attr
            .as_ref()
            .map(|s| s.to_string())
            .unwrap_or_default();
        groups.entry((scope, key)).or_default().push(a);
    }
    groups
        .into_iter()
        .map(|((scope, _), allocs)| {
            let buffers = allocs
                .iter()
                .map(|a| {
                    let live: Vec<Interval> = lt.traces[a.trace]
                        .intervals(&lt.ticks)
                        .into_iter()
                        .map(|(s, e)| Interval::new(s, e))
                        .collect();
                    let (start, end) = (live[0].start, live[live.len() - 1].end);
                    // Sizes stay exact: only offsets need the alignment (rounding every
                    // size up, as seed 000 does, wastes bytes between small buffers).
                    let size = a.bytes;
                    Buffer::new(size, start, end)
                        .with_align(a.align.max(alignment))
                        .in_space(MemSpace(0))
                        .with_live(live)
                })
                .collect();
            ScopeProblem {
                scope,
                space_attr: allocs[0].space_attr.clone(),
                allocs: allocs.into_iter().cloned().collect(),
                problem: Problem::new(buffers),
            }
        })
        .collect()
}
