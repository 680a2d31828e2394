//! memplan-sched: memory-aware operator scheduling.
//!
//! A [`Graph`] is the dataflow graph of activation buffers of a model
//! (read from the benchmarks' graph JSON). A schedule is a topological order
//! of its nodes; the buffers' lifetimes follow from the order, and
//! [`Graph::peak`] is the max-load of that order. [`schedule`] runs one of the
//! [`Scheduler`]s (PyTorch Inductor's and XLA's heuristics, their best, or
//! the exact branch and bound of [`exact`]); [`place`] assigns offsets for an
//! order through memplan-core; [`check::check_schedule_plan`] verifies an
//! order and its offsets independently.
//!
//! Two options change the memory model: in-place hints ([`Graph::add_inplace`],
//! [`Graph::add_elementwise_inplace`], or `"inplace"` in the JSON) let an
//! output take the bytes of an input its node reads last, and
//! [`place_branch_safe`] (seed 001's `--no-reuse-across-branches`) lets two
//! buffers share bytes only when one is dead before the other is born in
//! every parallel execution, checked by [`check_branch_safe`].
//!
//! ```
//! use memplan_sched::{place, schedule, check, Graph, Scheduler};
//! // 0 -> {1, 2} -> 3: node 0 makes a 100-byte buffer read by 1 and 2.
//! let g = Graph::from_parts(
//!     vec![vec![], vec![0], vec![0], vec![1, 2]],
//!     vec![(100, Some(0), vec![1, 2], false), (10, Some(1), vec![3], false),
//!          (10, Some(2), vec![3], false), (5, Some(3), vec![], true)],
//! ).unwrap();
//! let s = schedule(&g, Scheduler::Exact, &Default::default());
//! assert_eq!(s.peak, 120);
//! assert!(s.proved);
//! let p = place(&g, &s.order, &memplan_core::Options::default()).unwrap();
//! check::check_schedule_plan(&g, &s.order, &p.offsets, Some(p.peak)).unwrap();
//! ```

pub mod check;
pub mod concurrent;
pub mod exact;
pub mod graph;
pub mod heuristics;
pub mod joint;
pub mod onnx;
mod tail;

use std::time::Duration;

pub use concurrent::{check_branch_safe, place_branch_safe};
pub use exact::{must_live_bound, tail_lower_bound, ExactOptions, ExactResult};
pub use graph::{add_gradients, parse_gradients, Gradient, Graph, GraphError, OptimizerMode};
pub use joint::{joint, JointOptions, JointResult};
pub use onnx::read_onnx;

/// The schedulers, by the names the CLI uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scheduler {
    /// The order given in the graph file.
    Given,
    /// PyTorch Inductor least-peak-memory-first.
    Lpmf,
    /// PyTorch Inductor BFS.
    Bfs,
    /// PyTorch Inductor DFS.
    Dfs,
    /// XLA list scheduler.
    List,
    /// XLA DFS scheduler.
    XlaDfs,
    /// XLA post-order.
    Postorder,
    /// The lowest peak of all the above.
    Best,
    /// Branch and bound with a proven lower bound.
    Exact,
}

impl Scheduler {
    /// Every scheduler, in report order.
    pub const ALL: [Scheduler; 9] = [
        Scheduler::Given,
        Scheduler::Lpmf,
        Scheduler::Bfs,
        Scheduler::Dfs,
        Scheduler::List,
        Scheduler::XlaDfs,
        Scheduler::Postorder,
        Scheduler::Best,
        Scheduler::Exact,
    ];

    /// The heuristics `best` chooses among, in tie-breaking order.
    pub const HEURISTICS: [Scheduler; 7] = [
        Scheduler::Given,
        Scheduler::Lpmf,
        Scheduler::Bfs,
        Scheduler::Dfs,
        Scheduler::List,
        Scheduler::XlaDfs,
        Scheduler::Postorder,
    ];

    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            Scheduler::Given => "given",
            Scheduler::Lpmf => "lpmf",
            Scheduler::Bfs => "bfs",
            Scheduler::Dfs => "dfs",
            Scheduler::List => "list",
            Scheduler::XlaDfs => "xla-dfs",
            Scheduler::Postorder => "postorder",
            Scheduler::Best => "best",
            Scheduler::Exact => "exact",
        }
    }

    /// Looks a scheduler up by name.
    pub fn from_name(name: &str) -> Option<Scheduler> {
        Scheduler::ALL.iter().copied().find(|s| s.name() == name)
    }

    /// All names, comma separated.
    pub fn all_names() -> String {
        Scheduler::ALL.map(Scheduler::name).join(", ")
    }
}

/// Limits for the `exact` scheduler.
#[derive(Clone, Debug, Default)]
pub struct ScheduleOptions {
    /// Wall-clock limit of the exact search.
    pub time_limit: Option<Duration>,
    /// Node budget of the exact search (deterministic).
    pub node_limit: Option<u64>,
}

/// A schedule and what is known about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Node ids in execution order.
    pub order: Vec<usize>,
    /// The max-load of the order.
    pub peak: u64,
    /// A lower bound on the peak of every order of the graph.
    pub lower_bound: u64,
    /// `peak == lower_bound`.
    pub proved: bool,
    /// For `best`: which heuristic won.
    pub winner: Scheduler,
}

/// Runs one heuristic scheduler (not `best` or `exact`).
pub fn heuristic_order(g: &Graph, s: Scheduler) -> Vec<usize> {
    match s {
        Scheduler::Given => g.given_order.clone(),
        Scheduler::Lpmf => heuristics::lpmf(g),
        Scheduler::Bfs => heuristics::bfs(g),
        Scheduler::Dfs => heuristics::dfs(g),
        Scheduler::List => heuristics::xla_list(g),
        Scheduler::XlaDfs => heuristics::xla_dfs(g),
        Scheduler::Postorder => heuristics::xla_postorder(g),
        Scheduler::Best | Scheduler::Exact => best_heuristic(g).0,
    }
}

fn best_heuristic(g: &Graph) -> (Vec<usize>, u64, Scheduler) {
    let mut best: Option<(Vec<usize>, u64, Scheduler)> = None;
    for s in Scheduler::HEURISTICS {
        let order = heuristic_order(g, s);
        let peak = g.peak(&order);
        if best.as_ref().is_none_or(|b| peak < b.1) {
            best = Some((order, peak, s));
        }
    }
    best.expect("at least one heuristic")
}

/// Schedules `g` with `s`.
pub fn schedule(g: &Graph, s: Scheduler, opts: &ScheduleOptions) -> Schedule {
    match s {
        Scheduler::Exact => {
            let (initial, _, winner) = best_heuristic(g);
            let r = exact::exact(
                g,
                &ExactOptions {
                    time_limit: opts.time_limit,
                    node_limit: opts.node_limit,
                    initial: Some(initial),
                },
            );
            Schedule {
                order: r.order,
                peak: r.peak,
                lower_bound: r.lower_bound,
                proved: r.proved,
                winner,
            }
        }
        _ => {
            let (order, peak, winner) = if s == Scheduler::Best {
                best_heuristic(g)
            } else {
                let o = heuristic_order(g, s);
                let p = g.peak(&o);
                (o, p, s)
            };
            let lower_bound = must_live_bound(g).min(peak);
            Schedule {
                proved: lower_bound == peak,
                order,
                peak,
                lower_bound,
                winner,
            }
        }
    }
}

/// Offsets for an order: one per buffer, `None` for zero-size buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Byte offset of every buffer of non-zero size.
    pub offsets: Vec<Option<u64>>,
    /// The arena size (max of offset + size).
    pub peak: u64,
    /// The planner that placed them (the portfolio's winner when known).
    pub algorithm: String,
    /// True when the planner proved the placement optimal for this order.
    pub optimal: bool,
}

/// Places the buffers of `g` for `order` with memplan-core.
pub fn place(
    g: &Graph,
    order: &[usize],
    opts: &memplan_core::Options,
) -> Result<Placement, memplan_core::PlanError> {
    place_with_bound(g, order, opts).map(|(p, _)| p)
}

/// [`place`], also returning the planner's proved lower bound on the arena of
/// every placement of this order (the max-load, raised by the exact planner's
/// refutations, or the arena itself where it proved the plan optimal).
pub(crate) fn place_with_bound(
    g: &Graph,
    order: &[usize],
    opts: &memplan_core::Options,
) -> Result<(Placement, u64), memplan_core::PlanError> {
    let life = g.lifetimes(order);
    // An in-place output and its input become one buffer (same size, joined lifetimes).
    let mut group: Vec<usize> = (0..g.buffers.len()).collect();
    fn find(group: &mut [usize], mut x: usize) -> usize {
        while group[x] != x {
            group[x] = group[group[x]];
            x = group[x];
        }
        x
    }
    for (_, o, b) in g.inplace_pairs(order) {
        let (ro, rb) = (find(&mut group, o), find(&mut group, b));
        group[ro] = rb;
    }
    let mut span: Vec<Option<(usize, usize)>> = vec![None; g.buffers.len()];
    for (i, &(s, e)) in life.iter().enumerate() {
        let r = find(&mut group, i);
        span[r] = Some(span[r].map_or((s, e), |(a, z)| (a.min(s), z.max(e))));
    }
    let mut slot = vec![usize::MAX; g.buffers.len()];
    let mut buffers = Vec::new();
    for i in 0..g.buffers.len() {
        let r = find(&mut group, i);
        if r == i && g.buffers[i].size > 0 {
            let (s, e) = span[i].expect("every buffer has a lifetime");
            slot[i] = buffers.len();
            buffers.push(memplan_core::Buffer::new(
                g.buffers[i].size,
                s as u64,
                e as u64 + 1,
            ));
        }
    }
    let problem = memplan_core::Problem::new(buffers);
    let plan = memplan_core::plan(&problem, opts)?;
    let mut offsets = vec![None; g.buffers.len()];
    for (i, off) in offsets.iter_mut().enumerate() {
        let r = find(&mut group, i);
        if g.buffers[i].size > 0 {
            *off = Some(plan.offsets[slot[r]]);
        }
    }
    let bound = if plan.optimal {
        plan.peak()
    } else {
        plan.stats
            .lower_bounds
            .iter()
            .map(|&(_, b)| b)
            .max()
            .unwrap_or(0)
    };
    Ok((
        Placement {
            offsets,
            peak: plan.peak(),
            algorithm: plan
                .stats
                .winner
                .clone()
                .unwrap_or_else(|| opts.algorithm.name().to_string()),
            optimal: plan.optimal,
        },
        bound,
    ))
}
