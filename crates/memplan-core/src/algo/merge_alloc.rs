//! merge-alloc static planner.
//! (Placeholder: delegates to `naive` until the real algorithm lands.)

use crate::problem::Problem;
/// Chunk choice policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Smallest fitting chunk.
    SizeFirst,
    /// Cost model.
    CostModel,
}

/// Plans the space.
pub fn plan(problem: &Problem, _policy: Policy) -> Vec<u64> {
    super::naive::plan(problem)
}
