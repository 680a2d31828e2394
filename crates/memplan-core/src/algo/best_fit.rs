//! XLA best fit.
//! (Placeholder: delegates to `naive` until the real algorithm lands.)

use crate::problem::Problem;
/// Sort order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Size then duration.
    Spatial,
    /// Duration then size.
    Temporal,
}

/// Plans the space.
pub fn plan(problem: &Problem, _order: Order) -> Vec<u64> {
    super::naive::plan(problem)
}
