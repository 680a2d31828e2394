//! tvm-layers (TVM FindAlloc).
//! (Placeholder: delegates to `naive` until the real algorithm lands.)

use crate::problem::Problem;
/// Plans the space.
pub fn plan(problem: &Problem) -> Vec<u64> {
    super::naive::plan(problem)
}
