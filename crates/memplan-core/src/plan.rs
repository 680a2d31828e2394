//! The result of planning: one offset per buffer, the peak of each arena, and
//! how the planner stopped (egg-style [`StopReason`]).

use crate::problem::{MemSpace, Problem};

/// Why a planner returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The planner ran to completion (a heuristic finished, or a search was exhaustive).
    Completed,
    /// The plan's peak equals the lower bound, so it is optimal.
    ReachedLowerBound,
    /// The node budget ran out.
    NodeLimit,
    /// The wall-clock limit ran out.
    TimeLimit,
}

/// Counters a planner may fill in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlanStats {
    /// Search nodes visited (exact search) or placement attempts (heuristics).
    pub nodes: u64,
    /// For the portfolio: which member algorithm produced the plan.
    pub winner: Option<String>,
    /// Per space (sorted), the best lower bound on its optimal peak that is
    /// proved: the max-load bound, raised by the exact search's refutations,
    /// and the peak itself where the plan is optimal.
    pub lower_bounds: Vec<(MemSpace, u64)>,
}

/// A placement of every buffer of a [`Problem`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// `offsets[i]` is the byte offset of buffer `i` inside the arena of its space.
    pub offsets: Vec<u64>,
    /// Peak bytes (max of offset + size) of each memory space that has buffers, sorted by space.
    pub peaks: Vec<(MemSpace, u64)>,
    /// True only when the planner proved that no plan has a smaller peak in any space.
    pub optimal: bool,
    /// How the planner stopped.
    pub stop_reason: StopReason,
    /// Counters.
    pub stats: PlanStats,
}

impl Plan {
    /// Builds a plan from offsets, computing the peak of every space.
    pub fn from_offsets(problem: &Problem, offsets: Vec<u64>) -> Plan {
        let peaks = peaks_of(problem, &offsets);
        Plan {
            offsets,
            peaks,
            optimal: false,
            stop_reason: StopReason::Completed,
            stats: PlanStats::default(),
        }
    }

    /// The largest peak over all spaces (the one number people compare).
    pub fn peak(&self) -> u64 {
        self.peaks.iter().map(|&(_, p)| p).max().unwrap_or(0)
    }

    /// The peak of one space (0 if the space has no buffers).
    pub fn peak_of(&self, space: MemSpace) -> u64 {
        self.peaks
            .iter()
            .find(|(s, _)| *s == space)
            .map_or(0, |&(_, p)| p)
    }
}

/// Max of `offset + size` per space.
pub fn peaks_of(problem: &Problem, offsets: &[u64]) -> Vec<(MemSpace, u64)> {
    let mut peaks: Vec<(MemSpace, u64)> = problem.spaces().into_iter().map(|s| (s, 0)).collect();
    for (b, &off) in problem.buffers.iter().zip(offsets) {
        if let Ok(k) = peaks.binary_search_by_key(&b.space, |&(s, _)| s) {
            peaks[k].1 = peaks[k].1.max(off.saturating_add(b.size));
        }
    }
    peaks
}
