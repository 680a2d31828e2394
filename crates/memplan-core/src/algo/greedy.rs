//! TFLite greedy planners. (Placeholder: delegates to `naive` until they land.)

use crate::problem::Problem;

/// Greedy by size.
pub fn plan_by_size(problem: &Problem) -> Vec<u64> {
    super::naive::plan(problem)
}

/// Greedy by breadth.
pub fn plan_by_breadth(problem: &Problem) -> Vec<u64> {
    super::naive::plan(problem)
}
