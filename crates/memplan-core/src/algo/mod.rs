//! The planning algorithms, selected by name through one entry point,
//! [`plan`] (regalloc2's `run(func, env, &options)` shape).
//!
//! Every algorithm sees one memory space at a time: [`plan`] validates the
//! problem, splits it per space, runs the chosen algorithm on each part, merges
//! the offsets and, when a capacity is set, reports a space that does not fit.

use std::sync::Arc;
use std::time::Duration;

use crate::bounds;
use crate::plan::{Plan, PlanStats, StopReason};
use crate::problem::{MemSpace, Problem, ProblemError};

pub mod allocation_tree;
pub mod best_fit;
mod class_index;
pub mod exact;
mod fit;
pub mod greedy;
mod interval_index;
pub mod merge_alloc;
pub mod naive;
mod occupancy;
pub mod place;
pub mod portfolio;
pub mod reuse_exact;
pub mod tvm_layers;

/// Every planner memplan knows, by the name the CLI and the passes use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Algorithm {
    /// No reuse: buffers stacked in order (the baseline).
    Naive,
    /// PyTorch Inductor `memory_plan_reuse`: exact-size reuse, most recently freed first.
    ReuseExact,
    /// PyTorch Inductor `memory_plan`: AllocationTree with temporal / spatial splits.
    AllocationTree,
    /// MLIR merge-alloc static planner, smallest fitting free chunk.
    MergeAllocSizeFirst,
    /// MLIR merge-alloc static planner, cost model preferring recently freed chunks.
    MergeAllocCostModel,
    /// TVM shared-memory FindAlloc: reuse within [size, 16*size] or stack layers.
    TvmLayers,
    /// TFLite greedy by size.
    GreedySize,
    /// TFLite greedy by breadth.
    GreedyBreadth,
    /// XLA global decreasing-size best fit, size then duration.
    BestFitSpatial,
    /// XLA global decreasing-size best fit, duration then size.
    BestFitTemporal,
    /// Run the fast heuristics and keep the best plan (the default).
    Portfolio,
    /// Branch-and-bound search for a provably optimal plan.
    Exact,
}

impl Algorithm {
    /// Every algorithm, in the order reports list them.
    pub const ALL: [Algorithm; 12] = [
        Algorithm::Naive,
        Algorithm::ReuseExact,
        Algorithm::AllocationTree,
        Algorithm::MergeAllocSizeFirst,
        Algorithm::MergeAllocCostModel,
        Algorithm::TvmLayers,
        Algorithm::GreedySize,
        Algorithm::GreedyBreadth,
        Algorithm::BestFitSpatial,
        Algorithm::BestFitTemporal,
        Algorithm::Portfolio,
        Algorithm::Exact,
    ];

    /// The name used on the command line and in pass options.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Naive => "naive",
            Algorithm::ReuseExact => "reuse-exact",
            Algorithm::AllocationTree => "allocation-tree",
            Algorithm::MergeAllocSizeFirst => "merge-alloc-size-first",
            Algorithm::MergeAllocCostModel => "merge-alloc-cost-model",
            Algorithm::TvmLayers => "tvm-layers",
            Algorithm::GreedySize => "greedy-size",
            Algorithm::GreedyBreadth => "greedy-breadth",
            Algorithm::BestFitSpatial => "best-fit-spatial",
            Algorithm::BestFitTemporal => "best-fit-temporal",
            Algorithm::Portfolio => "portfolio",
            Algorithm::Exact => "exact",
        }
    }

    /// Looks an algorithm up by its name.
    pub fn from_name(name: &str) -> Option<Algorithm> {
        Algorithm::ALL.iter().copied().find(|a| a.name() == name)
    }

    /// The names of all algorithms, comma separated (for error messages).
    pub fn all_names() -> String {
        Algorithm::ALL.map(Algorithm::name).join(", ")
    }
}

impl std::fmt::Display for Algorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What a long-running planner reports while it works.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Best peak found so far.
    pub best_peak: u64,
    /// The lower bound being aimed at.
    pub lower_bound: u64,
    /// Search nodes visited so far.
    pub nodes: u64,
}

/// A callback receiving [`Progress`] reports.
pub type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

/// How to plan.
#[derive(Clone)]
pub struct Options {
    /// Which algorithm.
    pub algorithm: Algorithm,
    /// Wall-clock limit for searching planners (opt-in; `exact` defaults to 10 s in the CLI).
    pub time_limit: Option<Duration>,
    /// Deterministic node budget for searching planners.
    pub node_limit: Option<u64>,
    /// Progress reports (searching planners call it now and then).
    pub progress: Option<ProgressFn>,
    /// `exact` only, opt-in: after its search (given half the time and half the
    /// node budget) stops short of a proof, look for plans below the best peak,
    /// seeded by this value: three questions of four are band moves (the
    /// decision search re-places the buffers at the top of the best plan and
    /// their co-live neighbours one grid unit lower, everything else kept),
    /// the fourth a randomised restart of the decision search on the whole
    /// problem at a capacity from the top quarter of the gap to the lower bound
    /// (`exact::decide_restarts`). Only whole-problem refutations raise the
    /// lower bound. Deterministic under a node budget for a given seed;
    /// different seeds explore different orders.
    pub restarts: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            algorithm: Algorithm::Portfolio,
            time_limit: None,
            node_limit: None,
            progress: None,
            restarts: None,
        }
    }
}

impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("algorithm", &self.algorithm)
            .field("time_limit", &self.time_limit)
            .field("node_limit", &self.node_limit)
            .field("restarts", &self.restarts)
            .finish()
    }
}

impl Options {
    /// Options for one algorithm with no limits.
    pub fn with_algorithm(algorithm: Algorithm) -> Self {
        Options {
            algorithm,
            ..Options::default()
        }
    }
}

/// Why planning failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// The problem breaks a structural rule.
    #[error("invalid problem: {0}")]
    Invalid(#[from] ProblemError),
    /// No plan fits the capacity in this space: proved so (the lower bound is above
    /// it, or an exhaustive search found none).
    #[error("infeasible: memory space {space} needs at least {lower_bound} bytes, above the capacity {capacity}")]
    Infeasible {
        /// The space.
        space: u32,
        /// The capacity asked for.
        capacity: u64,
        /// A proven lower bound on the peak of that space.
        lower_bound: u64,
    },
    /// The algorithm's plan does not fit the capacity, but no proof that none does.
    #[error("the {algorithm} plan for memory space {space} needs {peak} bytes, above the capacity {capacity} (not proved infeasible; try --algo exact)")]
    DoesNotFit {
        /// The space.
        space: u32,
        /// The capacity asked for.
        capacity: u64,
        /// Best peak found.
        peak: u64,
        /// Which algorithm.
        algorithm: Algorithm,
    },
    /// The plan fails the independent checker: a bug in the planner, reported
    /// instead of returning a wrong plan.
    #[error("internal error: the {algorithm} plan fails the independent check: {error} (please report this)")]
    FailedCheck {
        /// Which algorithm.
        algorithm: Algorithm,
        /// What the checker found.
        error: crate::check::CheckError,
    },
}

/// What one algorithm returns for one space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpacePlan {
    /// One offset per buffer of the (single-space) sub-problem.
    pub offsets: Vec<u64>,
    /// True when proved optimal.
    pub optimal: bool,
    /// How it stopped.
    pub stop_reason: StopReason,
    /// Nodes or attempts.
    pub nodes: u64,
    /// The member that won (portfolio).
    pub winner: Option<Algorithm>,
    /// Proved: no plan fits the problem's capacity (exact search only).
    pub proved_infeasible: bool,
    /// A lower bound on this space's optimal peak that the planner proved beyond
    /// the max-load bound (exact search: refuted capacities), or 0.
    pub lower_bound: u64,
}

impl SpacePlan {
    /// A heuristic's result: completed, not proved optimal.
    pub fn heuristic(offsets: Vec<u64>) -> SpacePlan {
        SpacePlan {
            offsets,
            optimal: false,
            stop_reason: StopReason::Completed,
            nodes: 0,
            winner: None,
            proved_infeasible: false,
            lower_bound: 0,
        }
    }
}

/// Runs one algorithm on a problem whose buffers all live in one memory space.
///
/// Fixed offsets must be honoured. `problem.capacity` is a hint for searching
/// planners; heuristics ignore it (the caller checks the result against it).
pub fn plan_space(problem: &Problem, opts: &Options) -> SpacePlan {
    match opts.algorithm {
        Algorithm::Naive => SpacePlan::heuristic(naive::plan(problem)),
        Algorithm::ReuseExact => SpacePlan::heuristic(reuse_exact::plan(problem)),
        Algorithm::AllocationTree => SpacePlan::heuristic(allocation_tree::plan(problem)),
        Algorithm::MergeAllocSizeFirst => {
            SpacePlan::heuristic(merge_alloc::plan(problem, merge_alloc::Policy::SizeFirst))
        }
        Algorithm::MergeAllocCostModel => {
            SpacePlan::heuristic(merge_alloc::plan(problem, merge_alloc::Policy::CostModel))
        }
        Algorithm::TvmLayers => SpacePlan::heuristic(tvm_layers::plan(problem)),
        Algorithm::GreedySize => SpacePlan::heuristic(greedy::plan_by_size(problem)),
        Algorithm::GreedyBreadth => SpacePlan::heuristic(greedy::plan_by_breadth(problem)),
        Algorithm::BestFitSpatial => {
            SpacePlan::heuristic(best_fit::plan(problem, best_fit::Order::Spatial))
        }
        Algorithm::BestFitTemporal => {
            SpacePlan::heuristic(best_fit::plan(problem, best_fit::Order::Temporal))
        }
        Algorithm::Portfolio => portfolio::plan(problem, opts),
        Algorithm::Exact => exact::plan(problem, opts),
    }
}

/// Plans `problem` with `opts`: validates it (including that every byte count
/// fits in 64 bits), plans every memory space, checks the capacity and then runs
/// the independent checker ([`crate::check::check`]) on the result: the plan
/// returned has passed it, and a plan that fails it is an error
/// ([`PlanError::FailedCheck`]), never a result.
///
/// Across memory spaces, the plan is optimal only when every space is; its stop
/// reason is the most severe of the spaces' ([`StopReason::TimeLimit`], then
/// [`StopReason::NodeLimit`], then [`StopReason::Completed`]), and
/// [`StopReason::ReachedLowerBound`] only when every space reached its bound.
pub fn plan(problem: &Problem, opts: &Options) -> Result<Plan, PlanError> {
    problem.validate()?;
    let lbs = bounds::max_load_per_space(problem);
    let mut offsets = vec![0u64; problem.buffers.len()];
    let mut optimal = true;
    let mut reasons: Vec<StopReason> = Vec::new();
    let mut nodes = 0u64;
    let mut winner = None;
    let mut lower_bounds = Vec::new();
    // A proof of infeasibility in any space beats a heuristic's failure in another:
    // check every space's bound before planning any.
    if let Some(cap) = problem.capacity {
        if let Some(&(space, lb)) = lbs.iter().find(|&&(_, lb)| lb > cap) {
            return Err(PlanError::Infeasible {
                space: space.0,
                capacity: cap,
                lower_bound: lb,
            });
        }
    }
    for (space, lb) in lbs {
        let (sub, index) = sub_problem(problem, space);
        let sp = plan_space(&sub, opts);
        if sp.offsets.len() != sub.buffers.len() {
            return Err(PlanError::FailedCheck {
                algorithm: opts.algorithm,
                error: crate::check::CheckError::WrongLength {
                    got: sp.offsets.len(),
                    want: sub.buffers.len(),
                },
            });
        }
        // Saturating: an offset + size past 2^64 - 1 is a planner bug the checker reports below.
        let peak = sub
            .buffers
            .iter()
            .zip(&sp.offsets)
            .map(|(b, &o)| o.saturating_add(b.size))
            .max()
            .unwrap_or(0);
        if let Some(cap) = problem.capacity {
            if sp.proved_infeasible {
                return Err(PlanError::Infeasible {
                    space: space.0,
                    capacity: cap,
                    lower_bound: cap.saturating_add(1),
                });
            }
            if peak > cap {
                return Err(PlanError::DoesNotFit {
                    space: space.0,
                    capacity: cap,
                    peak,
                    algorithm: opts.algorithm,
                });
            }
        }
        let space_optimal = sp.optimal || peak == lb;
        // The best proved bound: max-load, the planner's own, the peak itself when optimal.
        let proved = if space_optimal {
            peak
        } else {
            lb.max(sp.lower_bound).min(peak)
        };
        lower_bounds.push((space, proved));
        optimal &= space_optimal;
        reasons.push(space_stop_reason(&sp, space_optimal, peak == lb));
        nodes += sp.nodes;
        winner = winner.or(sp.winner);
        for (k, &orig) in index.iter().enumerate() {
            offsets[orig] = sp.offsets[k];
        }
    }
    let mut plan = Plan::from_offsets(problem, offsets);
    plan.optimal = optimal;
    plan.stop_reason = combine_stop_reasons(&reasons);
    plan.stats = PlanStats {
        nodes,
        winner: winner.map(|a: Algorithm| a.name().to_string()),
        lower_bounds,
    };
    crate::check::check(problem, &plan).map_err(|error| PlanError::FailedCheck {
        algorithm: opts.algorithm,
        error,
    })?;
    Ok(plan)
}

/// The stop reason of one space: a space at its lower bound reached it, one
/// proved optimal otherwise completed, whatever limit its search hit; a space
/// not proved optimal keeps the reason its planner gave (a planner's claim to
/// have reached the bound is not believed when the peak is above it).
fn space_stop_reason(sp: &SpacePlan, space_optimal: bool, at_lb: bool) -> StopReason {
    match sp.stop_reason {
        _ if at_lb => StopReason::ReachedLowerBound,
        _ if space_optimal => StopReason::Completed,
        StopReason::ReachedLowerBound => StopReason::Completed,
        r => r,
    }
}

/// Combines the spaces' stop reasons: the most severe wins (time limit, node
/// limit, completed, reached the lower bound); no space at all is `Completed`.
pub fn combine_stop_reasons(reasons: &[StopReason]) -> StopReason {
    let severity = |r: &StopReason| match r {
        StopReason::ReachedLowerBound => 0,
        StopReason::Completed => 1,
        StopReason::NodeLimit => 2,
        StopReason::TimeLimit => 3,
    };
    reasons
        .iter()
        .copied()
        .max_by_key(severity)
        .unwrap_or(StopReason::Completed)
}

/// The buffers of one space as a problem of their own, with the original index of each.
pub fn sub_problem(problem: &Problem, space: MemSpace) -> (Problem, Vec<usize>) {
    let index: Vec<usize> = problem
        .buffers
        .iter()
        .enumerate()
        .filter(|(_, b)| b.space == space)
        .map(|(i, _)| i)
        .collect();
    let sub = Problem {
        buffers: index.iter().map(|&i| problem.buffers[i].clone()).collect(),
        capacity: problem.capacity,
    };
    (sub, index)
}
