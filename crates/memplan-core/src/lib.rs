//! memplan-core: compile-time memory planning on plain data.
//!
//! A [`Problem`] is a list of buffers (size, alignment, half-open lifetime
//! intervals, memory space, optional fixed offset). [`plan()`] places every buffer
//! at an offset inside one arena per memory space, so that buffers live at the
//! same moment never share a byte, using the [`Algorithm`] named in the
//! [`Options`]. [`check()`] verifies any plan independently, and
//! [`bounds::max_load`] gives the lower bound no plan can beat.
//!
//! ```
//! use memplan_core::{plan, check, Algorithm, Buffer, Options, Problem};
//!
//! // a and b overlap in time; c starts when a ends, so it can reuse a's bytes.
//! let problem = Problem::new(vec![
//!     Buffer::new(64, 0, 2),
//!     Buffer::new(64, 1, 3),
//!     Buffer::new(64, 2, 4),
//! ]);
//! let p = plan(&problem, &Options::with_algorithm(Algorithm::Naive)).unwrap();
//! check::check(&problem, &p).unwrap();
//! assert_eq!(p.peak(), 192);
//! assert_eq!(memplan_core::bounds::max_load(&problem), 128);
//! ```

pub mod algo;
pub mod bounds;
pub mod check;
pub mod plan;
pub mod problem;

pub use algo::{plan, Algorithm, Options, PlanError, Progress, SpacePlan};
pub use check::{check, check_offsets, CheckError};
pub use plan::{Plan, PlanStats, StopReason};
pub use problem::{Buffer, BufferId, Interval, MemSpace, Problem, ProblemError};
