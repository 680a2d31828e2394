//! `exact`: branch and bound for a provably minimal peak (MiniMalloc, Moffitt,
//! ASPLOS 2024, reworked).
//!
//! The core is a decision search (`search`): "does everything fit below
//! capacity C?", over canonical placements with dominance pruning, section
//! inference, twin symmetry breaking and dynamic decomposition, run on an
//! explicit stack. Minimisation wraps it honestly: the best heuristic plan
//! (the portfolio's and a few lowest-fit greedy orders of our own) is the
//! upper bound, the max-load bound is the lower bound, and probes at the
//! lower bound and just below the best peak tighten them in rounds of growing
//! node budgets, each probe cycling through several static orders (MiniMalloc's
//! round robin). "Proved infeasible at C" raises the lower bound; "ran out of
//! budget" proves nothing. The plan is optimal only when the bounds meet.
//! With the `parallel` feature, the orders of a probe race on rayon's threads;
//! an order that decides a probe stops only the orders after it, each order
//! gets the node budget it would get in a sequential run, and a probe is
//! charged only the nodes of the orders a sequential run would have run (not
//! those cancelled orders spent, which depend on thread timing). So under a
//! node budget the plan, its node count and its stop reason are bit-identical
//! with and without `parallel`, run after run; only a time limit makes runs
//! differ.
//!
//! Problems of at most 64 movable buffers also get a second decision
//! procedure (`pairs`), run by every probe before the canonical search with a
//! quarter of one order's budget (a whole order's, the orders a quarter each,
//! once it has decided clearly more probes than they have): a search over the
//! below/above orientation of co-live pairs with CP-style propagation over the
//! maximal cliques of the co-live graph, strong where the canonical search is
//! weak (refuting capacities just below a mid-size optimum); the heaviest
//! clique is a lower bound of its own. A descent round never probes a
//! capacity twice at the same budget.
//!
//! The opt-in restart phase (`Options::restarts`) spends the second half of the
//! budget on band moves (`band`: the decision search re-places the top of the
//! best plan, the rest kept) and randomised restarts of the whole problem.
//!
//! Dense traces (thousands of buffers, each overlapping dozens or more) skip the
//! full search: the portfolio's plan is improved by peak rip-up (`lns`),
//! memplan's own addition.

mod band;
mod deep;
mod domains;
mod lns;
mod model;
mod pairs;
mod relax;
mod restarts;
mod search;

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use super::{Options, Progress, SpacePlan};
use crate::bounds;
use crate::plan::StopReason;
use crate::problem::Problem;
pub use deep::{deep_bound, DeepBound, DeepOptions, DeepProof};
use domains::{Domains, Filtered};
use model::Model;
use pairs::PairSearch;
pub use relax::{relax, relax_bound, RelaxBound, RelaxOptions, RelaxProof, Relaxation};
pub use restarts::{decide_restarts, luby, Decision, RestartOptions, RestartResult};
use search::{Key, Order, Search, Status};

/// Above this many overlapping pairs the overlap lists would not fit comfortably in
/// memory; such problems get the portfolio's plan improved by peak rip-up (`lns`).
pub const MAX_OVERLAP_PAIRS: u64 = 20_000_000;

/// Above this many buffers, with more than [`LNS_MIN_DEGREE`] overlaps per
/// buffer on average, the full search gives way to peak rip-up (`lns`): every
/// search node would cost thousands of updates (training traces).
pub const LNS_MIN_BUFFERS: usize = 4_000;

/// See [`LNS_MIN_BUFFERS`].
pub const LNS_MIN_DEGREE: u64 = 64;

/// Node budget used when neither a time limit nor a node limit is given.
pub const DEFAULT_NODE_BUDGET: u64 = 2_000_000;

const NONE: u64 = u64::MAX;

/// The pair search gets one order's node budget divided by this.
const PAIR_BUDGET_DIV: u64 = 4;

/// `Prober::winner` when the pair search found the last solution.
const PAIRS: usize = usize::MAX;

/// Word operations one capacity's domain filtering may spend (about 10-50 ms).
const DOMAIN_BUDGET: u64 = 50_000_000;

/// The capacities a descent round probes: the best peak minus the gap to the
/// lower bound divided by each of these, in turn (boldest first).
const DESCENT_DIVS: [u64; 4] = [4, 8, 16, 32];

/// The offset-domain lower bound of a single-space problem (see the `domains`
/// module): the capacity just above the largest one in `[max-load, hi]` that
/// domain filtering refutes, found by bisection (each probe may spend `budget`
/// word operations). It is a valid lower bound on every plan's peak whatever
/// the bisection meets: a refuted capacity has no plan, nor has any smaller one.
/// Returns the bound and the number of filterings run.
pub fn domain_bound(problem: &Problem, hi: u64, budget: u64) -> (u64, u32) {
    let model = Model::build(problem);
    let fixed_top = problem
        .buffers
        .iter()
        .filter_map(|b| b.fixed_offset.map(|o| o.saturating_add(b.size)))
        .max()
        .unwrap_or(0);
    let lo = bounds::max_load(problem).max(fixed_top);
    if model.n() == 0 || lo == 0 {
        return (lo, 0);
    }
    // `refuted` is refuted (or below every plan's peak); `open` is not refuted.
    let (mut refuted, mut open) = (lo - 1, hi.max(lo));
    let mut runs = 0;
    while open - refuted > 1 {
        let mid = refuted + (open - refuted) / 2;
        runs += 1;
        match domains::filter(&model, mid, budget) {
            Filtered::Infeasible => refuted = mid,
            _ => open = mid,
        }
    }
    (refuted + 1, runs)
}

/// Runs the exact search on a single-space problem.
pub fn plan(problem: &Problem, opts: &Options) -> SpacePlan {
    let started = Instant::now();
    let deadline = opts.time_limit.map(|t| started + t);
    let node_limit = match (opts.node_limit, opts.time_limit) {
        (Some(n), _) => n,
        (None, Some(_)) => u64::MAX,
        (None, None) => DEFAULT_NODE_BUDGET,
    };
    let n = problem.buffers.len();
    if n == 0 {
        return SpacePlan {
            offsets: Vec::new(),
            optimal: true,
            stop_reason: StopReason::ReachedLowerBound,
            nodes: 0,
            winner: None,
            proved_infeasible: false,
            lower_bound: 0,
        };
    }
    let lb = bounds::max_load(problem);
    let pairs = Model::overlap_pairs(problem);
    if pairs > MAX_OVERLAP_PAIRS || (n > LNS_MIN_BUFFERS && pairs > LNS_MIN_DEGREE * n as u64) {
        return plan_large(problem, opts, lb, deadline, node_limit);
    }
    let model = Model::build(problem);
    let orders = orders(&model);
    // With restarts (opt-in) the search below gets half the time and half the
    // nodes; the restarts get the rest (see `restart_descent`).
    let (full_deadline, full_node_limit) = (deadline, node_limit);
    let (deadline, node_limit) = match opts.restarts {
        Some(_) => (
            deadline.map(|d| started + (d - started) / 2),
            if node_limit == u64::MAX {
                u64::MAX
            } else {
                node_limit / 2
            },
        ),
        None => (deadline, node_limit),
    };

    // Upper bound: the best of the portfolio and our own lowest-fit greedy orders.
    let mut best = initial_plan(
        problem,
        &model,
        &orders,
        opts,
        deadline.map(|d| (started, d)),
    );
    let mut hi = peak(problem, &best);
    let mut lo = lb;
    let report = |best_peak: u64, lower: u64, nodes: u64| {
        if let Some(p) = &opts.progress {
            p(&Progress {
                best_peak,
                lower_bound: lower,
                nodes,
            });
        }
    };
    report(hi, lo, 0);

    let stops: Vec<AtomicBool> = orders.iter().map(|_| AtomicBool::new(false)).collect();
    let mut search = Prober::new(&model, &stops, deadline);
    let mut proved_infeasible = false;
    let mut stopped: Option<StopReason> = None;
    let fixed_top = problem
        .buffers
        .iter()
        .filter_map(|b| b.fixed_offset.map(|o| o + b.size))
        .max()
        .unwrap_or(0);
    lo = lo.max(fixed_top);
    // Each movable buffer alone must clear the fixed blocks it is co-live with.
    lo = lo.max(
        (0..model.n())
            .map(|b| model.fit(b, 0).saturating_add(model.size[b]))
            .max()
            .unwrap_or(0),
    );

    // Pairwise co-live buffers are pairwise apart: with holes in lifetimes the
    // heaviest such set can outweigh every section (mid-size problems only).
    if let Some(p) = &search.pairs {
        lo = lo.max(p.clique_bound());
    }

    let base = (2 * model.n() as u64).max(256);
    let mut round = 0u32;

    // A capacity asks first of all for a plan within it.
    if let Some(cap) = problem.capacity {
        if hi > cap {
            if lo > cap {
                proved_infeasible = true;
            } else {
                loop {
                    let budget = base << round.min(40);
                    match search.probe(&orders, cap, budget, node_limit) {
                        Status::Found => {
                            best = solution(problem, &model, search.sol());
                            hi = peak(problem, &best);
                            report(hi, lo, search.nodes());
                            break;
                        }
                        Status::Infeasible => {
                            proved_infeasible = true;
                            break;
                        }
                        Status::NodeLimit if search.nodes() < node_limit => round += 1,
                        Status::NodeLimit => {
                            stopped = Some(StopReason::NodeLimit);
                            break;
                        }
                        Status::TimeLimit => {
                            stopped = Some(StopReason::TimeLimit);
                            break;
                        }
                    }
                }
            }
        }
    }

    if !proved_infeasible && stopped.is_none() {
        // Whether the last descent lowered the best peak: then the next round skips
        // the lower-bound probe and keeps descending (instances like D, whose
        // optimum is far above the max-load bound, gain nothing from that probe).
        let mut descending = false;
        // Refutations of the lower bound gallop: after k in a row the next probe
        // is 2^k - 1 bytes above it (refuting a capacity refutes every smaller
        // one), so a bound that is refuted at the root every time does not creep
        // up one byte per probe.
        let mut lo_step = 1u64;
        'rounds: while lo < hi {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                stopped = Some(StopReason::TimeLimit);
                break;
            }
            let budget = base << round.min(40);
            // Capacities that ran out of this round's budget.
            let mut spent: Vec<u64> = Vec::new();
            // Probe the lower bound: a hit is optimal, a refutation raises the bound.
            let lo_cap = lo.saturating_add(lo_step - 1).min(hi - 1);
            let at_lo = if descending {
                Status::NodeLimit
            } else {
                search.probe(&orders, lo_cap, budget, node_limit)
            };
            match at_lo {
                Status::Found => {
                    best = solution(problem, &model, search.sol());
                    hi = peak(problem, &best);
                    report(hi, lo, search.nodes());
                    lo_step = 1;
                    continue;
                }
                Status::Infeasible => {
                    lo = lo_cap + 1;
                    lo_step = lo_step.saturating_mul(2);
                    report(hi, lo, search.nodes());
                    continue;
                }
                Status::NodeLimit if search.nodes() < node_limit => {
                    lo_step = 1;
                    if !descending {
                        spent.push(lo_cap);
                    }
                }
                Status::NodeLimit => {
                    stopped = Some(StopReason::NodeLimit);
                    break;
                }
                Status::TimeLimit => {
                    stopped = Some(StopReason::TimeLimit);
                    break;
                }
            }
            // Every other round (every round while that pays off), probe a few
            // capacities at fixed fractions of the gap below the best peak, the
            // boldest first. A budget-out proves nothing and the same fractions come
            // back next round with twice the budget; the first plan found ends the
            // descent (the fractions are then taken of the new, smaller gap); a
            // refutation raises the proved bound.
            if round % 2 == 1 || descending {
                let before = hi;
                for div in DESCENT_DIVS {
                    if lo >= hi {
                        break;
                    }
                    let cap = hi - ((hi - lo) / div).max(1);
                    // Near the optimum the fractions meet (gap / div rounds to 1) and
                    // may meet the lower-bound probe: a capacity that ran out of this
                    // round's budget once would only do so again.
                    if spent.contains(&cap) {
                        continue;
                    }
                    spent.push(cap);
                    match search.probe(&orders, cap, budget, node_limit) {
                        Status::Found => {
                            best = solution(problem, &model, search.sol());
                            hi = peak(problem, &best);
                            report(hi, lo, search.nodes());
                            break;
                        }
                        Status::Infeasible => {
                            lo = cap + 1;
                            report(hi, lo, search.nodes());
                            break;
                        }
                        Status::NodeLimit if search.nodes() < node_limit => {}
                        Status::NodeLimit => {
                            stopped = Some(StopReason::NodeLimit);
                            break 'rounds;
                        }
                        Status::TimeLimit => {
                            stopped = Some(StopReason::TimeLimit);
                            break 'rounds;
                        }
                    }
                }
                descending = hi < before;
            }
            // Budgets grow only while nothing improves.
            if !descending {
                round += 1;
            }
        }
    }
    let mut nodes = search.nodes();
    if let Some(seed) = opts.restarts {
        if !proved_infeasible && lo < hi {
            let r = restart_descent(
                problem,
                &model,
                seed,
                problem.capacity,
                (&mut best, &mut hi, &mut lo),
                full_deadline,
                full_node_limit.saturating_sub(nodes),
                &mut nodes,
                &report,
            );
            stopped = r.or(stopped.filter(|_| lo < hi));
            if problem.capacity.is_some_and(|c| hi > c && lo > c) {
                proved_infeasible = true;
            }
        }
    }
    report(hi, lo, nodes);
    let optimal = !proved_infeasible && lo >= hi;
    let stop_reason = match stopped {
        Some(r) if !optimal => r,
        _ if optimal && hi == lb => StopReason::ReachedLowerBound,
        _ => StopReason::Completed,
    };
    SpacePlan {
        offsets: best,
        optimal,
        stop_reason,
        nodes,
        winner: None,
        proved_infeasible,
        lower_bound: lo.min(hi),
    }
}

/// The restart phase of `exact` (opt-in, [`Options::restarts`]): band moves
/// from the best plan (`band`: three questions of four, once the best plan is
/// within the capacity; they never move the lower bound) and restarts of
/// the decision search, each with a random order, a Luby node budget and a
/// capacity drawn from the top quarter of the gap (at least one unit below
/// the best peak; see `domains::unit`: every plan that cannot be lowered has
/// its offsets, so its peak, on that grid), or the capacity itself while the
/// best plan exceeds it; each plan found becomes the best, each refutation
/// raises the lower bound, until the bounds meet (or the capacity is refuted)
/// or the time or the `node_limit` nodes are spent. Returns why it stopped short
/// (`None`: the bounds met).
#[allow(clippy::too_many_arguments)]
fn restart_descent(
    problem: &Problem,
    model: &Model,
    seed: u64,
    capacity: Option<u64>,
    (best, hi, lo): (&mut Vec<u64>, &mut u64, &mut u64),
    deadline: Option<Instant>,
    node_limit: u64,
    nodes: &mut u64,
    report: &dyn Fn(u64, u64, u64),
) -> Option<StopReason> {
    let unit = domains::unit(model);
    let base = RestartOptions::default().base_budget;
    let mut rng = restarts::Rng(seed);
    let mut left = node_limit;
    let mut i = 0u64;
    let mut bands = band::BandState::default();
    let mut whole = 0u64;
    while *lo < *hi {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Some(StopReason::TimeLimit);
        }
        if left == 0 {
            return Some(StopReason::NodeLimit);
        }
        i += 1;
        // Three moves of four are band moves from the best plan (`band`), once
        // that plan is within the capacity; the fourth restarts the whole problem.
        if i % 4 != 1 && capacity.is_none_or(|c| *hi <= c) {
            let m = bands.next_move(problem, best, *hi, unit, &mut rng);
            let budget = band::BAND_NODES.min(left);
            let opts = RestartOptions {
                seed: rng.next(),
                node_limit: budget,
                deadline,
                ..RestartOptions::default()
            };
            let r = restarts::decide_restarts(&m.sub, m.cap, &opts);
            *nodes = nodes.saturating_add(r.nodes);
            left = left.saturating_sub(r.nodes);
            let answer = match r.decision {
                // The sub-problem keeps every other buffer where `best` has it, so
                // its plan is a plan of the whole problem.
                Decision::Plan(off) => {
                    let p = peak(problem, &off);
                    if p < *hi || (m.shake && p <= *hi) {
                        *hi = p;
                        *best = off;
                    }
                    Some(true)
                }
                // Refutes this neighbourhood only: the lower bound stays.
                Decision::Infeasible => Some(false),
                Decision::Unknown => {
                    if r.nodes == 0 {
                        return Some(StopReason::TimeLimit);
                    }
                    None
                }
            };
            bands.record(&m, answer);
            report(*hi, *lo, *nodes);
            continue;
        }
        whole += 1;
        let budget = base.saturating_mul(restarts::luby(whole)).min(left);
        // Within the capacity first; then a capacity drawn from the top quarter
        // of the gap, at least one unit below the best peak: a lower capacity
        // sometimes falls sooner than a higher one (filtering and section
        // inference bite harder there; on D, 989-992 fell where 994-998 did not).
        let cap = match capacity {
            Some(c) if *hi > c => c,
            _ => {
                let span = ((*hi - *lo) / 4 / unit).max(1);
                hi.saturating_sub(unit.saturating_mul(1 + rng.below(span)))
                    .max(*lo)
            }
        };
        let opts = RestartOptions {
            seed: rng.next(),
            base_budget: budget,
            node_limit: budget,
            deadline,
            ..RestartOptions::default()
        };
        let r = restarts::decide_restarts(problem, cap, &opts);
        *nodes = nodes.saturating_add(r.nodes);
        left = left.saturating_sub(r.nodes);
        match r.decision {
            Decision::Plan(off) => {
                *hi = peak(problem, &off);
                *best = off;
            }
            // Nothing on the grid fits within `cap`, so nothing below the next
            // grid point above it does.
            Decision::Infeasible => {
                *lo = (cap + 1).div_ceil(unit).saturating_mul(unit).min(*hi);
                if capacity.is_some_and(|c| cap == c && *hi > c) {
                    return None;
                }
            }
            Decision::Unknown => {
                if r.nodes == 0 {
                    // The deadline passed before the restart began.
                    return Some(StopReason::TimeLimit);
                }
                continue;
            }
        }
        report(*hi, *lo, *nodes);
    }
    None
}

/// Large problems: the portfolio's plan (given at most a third of the time
/// limit), then peak rip-up ([`lns`]) for the rest. Optimal only at the lower bound.
fn plan_large(
    problem: &Problem,
    opts: &Options,
    lb: u64,
    deadline: Option<Instant>,
    node_limit: u64,
) -> SpacePlan {
    let mut popts = opts.clone();
    popts.time_limit = opts.time_limit.map(|t| t / 3);
    popts.progress = None;
    // The portfolio checks the plan it keeps (an invalid one is a loud error, never
    // replaced by another planner's here); `plan()` checks the final result again.
    let mut best = super::portfolio::plan(problem, &popts).offsets;
    let mut nodes = 0u64;
    let before = peak(problem, &best);
    if let Some(p) = &opts.progress {
        p(&Progress {
            best_peak: before,
            lower_bound: lb,
            nodes,
        });
    }
    let improved = lns::improve(problem, best.clone(), lb, deadline, node_limit, &mut nodes);
    if peak(problem, &improved) <= before {
        best = improved;
    }
    let hi = peak(problem, &best);
    if let Some(p) = &opts.progress {
        p(&Progress {
            best_peak: hi,
            lower_bound: lb,
            nodes,
        });
    }
    let optimal = hi <= lb;
    SpacePlan {
        offsets: best,
        optimal,
        stop_reason: if optimal {
            StopReason::ReachedLowerBound
        } else if deadline.is_some_and(|d| Instant::now() >= d) {
            StopReason::TimeLimit
        } else if nodes >= node_limit {
            StopReason::NodeLimit
        } else {
            StopReason::Completed
        },
        nodes,
        winner: None,
        proved_infeasible: false,
        lower_bound: lb,
    }
}

/// The searchers of the capacity probes: one, or with the `parallel` feature one
/// per order, raced on rayon's threads.
///
/// Node accounting is deterministic and the same with and without `parallel`:
/// a probe is charged the nodes a sequential run would spend, that is those of
/// the orders up to the one that decides it (each earlier order spent exactly
/// its budget). Nodes that orders after the decider spent before they were
/// cancelled are not charged, since how many there were depends on thread
/// timing. Each order also gets the budget it would get in a sequential run,
/// so under a node budget the result is bit-identical whichever way it runs;
/// only a time limit makes runs differ.
struct Prober<'m> {
    model: &'m Model,
    searches: Vec<Search<'m>>,
    /// The pair search of mid-size problems, run first by every probe.
    pairs: Option<PairSearch<'m>>,
    /// Offset domains of recent capacities (`None`: refuted by filtering).
    domains: Vec<(u64, Option<Option<Arc<Domains>>>)>,
    /// The lowest capacity at which filtering removed nothing: larger ones are
    /// not filtered (their slack is larger still; a saving, not a proof).
    useless_from: u64,
    /// Per order: set when a lower-numbered order has decided the probe.
    #[cfg_attr(not(feature = "parallel"), allow(dead_code))]
    stops: &'m [AtomicBool],
    /// The searcher holding the last solution found.
    winner: usize,
    /// Nodes charged so far (see above).
    charged: u64,
    /// Probes the pair search decided beyond its root, and those the canonical
    /// search decided: the one that has decided clearly more gets the larger
    /// share of the next probes' budgets (deterministic: counts, not times).
    pair_wins: u32,
    canon_wins: u32,
}

impl<'m> Prober<'m> {
    fn new(model: &'m Model, stops: &'m [AtomicBool], deadline: Option<Instant>) -> Self {
        let workers = if cfg!(feature = "parallel") {
            stops.len().max(1)
        } else {
            1
        };
        let searches = (0..workers)
            .map(|k| {
                let mut s = Search::new(model);
                s.deadline = deadline;
                if workers > 1 {
                    s.stop = stops.get(k);
                }
                s
            })
            .collect();
        let pairs = PairSearch::new(model).map(|mut p| {
            p.deadline = deadline;
            p
        });
        Prober {
            model,
            searches,
            pairs,
            domains: Vec::new(),
            useless_from: u64::MAX,
            stops,
            winner: 0,
            charged: 0,
            pair_wins: 0,
            canon_wins: 0,
        }
    }

    /// The offset domains at `cap` (`None`: filtering refuted `cap`; `Some(None)`:
    /// no domains), computed once per capacity.
    fn filtered(&mut self, cap: u64) -> Option<Option<Arc<Domains>>> {
        if cap >= self.useless_from {
            return Some(None);
        }
        if let Some((_, d)) = self.domains.iter().find(|(c, _)| *c == cap) {
            return d.clone();
        }
        let d = match domains::filter(self.model, cap, DOMAIN_BUDGET) {
            Filtered::Infeasible => None,
            Filtered::Domains(d) => Some(Some(Arc::new(d))),
            Filtered::Unavailable => {
                self.useless_from = self.useless_from.min(cap);
                Some(None)
            }
        };
        if self.domains.len() >= 64 {
            self.domains.remove(0);
        }
        self.domains.push((cap, d.clone()));
        d
    }

    /// Nodes charged over all probes (deterministic; see [`Prober`]).
    fn nodes(&self) -> u64 {
        self.charged
    }

    /// Movable offsets of the last solution found.
    fn sol(&self) -> &[u64] {
        if self.winner == PAIRS {
            if let Some(p) = &self.pairs {
                return &p.sol;
            }
        }
        &self.searches[self.winner].sol
    }

    /// The node budget order `k` of a probe gets in a sequential run, when
    /// `remaining` nodes of the global limit are left before the probe and every
    /// earlier order spent its whole `budget`.
    fn budget_of(k: usize, budget: u64, remaining: u64) -> u64 {
        budget.min(remaining.saturating_sub(budget.saturating_mul(k as u64)))
    }

    /// One capacity probe: every order with `budget` nodes (capped by the global
    /// limit). The result is that of the first order, in the orders' sequence,
    /// that decides the probe, as in a sequential run; with `parallel` the orders
    /// race and an order that decides stops only those after it.
    fn probe(&mut self, orders: &[Order], cap: u64, budget: u64, node_limit: u64) -> Status {
        if self.charged >= node_limit {
            return Status::NodeLimit;
        }
        // Offset domains first: an empty one refutes the capacity at the cost of
        // one node; otherwise every order searches within them.
        let Some(dom) = self.filtered(cap) else {
            self.charged += 1;
            return Status::Infeasible;
        };
        for s in &mut self.searches {
            s.dom = dom.clone();
        }
        // The pair search first, sequentially in both builds (so node counts do
        // not depend on `parallel`), with a quarter of one order's budget (its
        // nodes cost 10-20 times a canonical node: this keeps it to about a
        // third of a probe's time). It leads when it has decided at least two probes more
        // than the canonical search: it then gets a whole order's budget and
        // each order a quarter of it (the reverse of the default split).
        let pair_led = self.pairs.is_some() && self.pair_wins >= self.canon_wins + 2;
        if let Some(p) = &mut self.pairs {
            p.dom = dom.clone();
            let share = if pair_led {
                budget
            } else {
                budget / PAIR_BUDGET_DIV
            };
            let mine = share.max(1).min(node_limit - self.charged);
            let before = p.nodes;
            p.node_stop = before.saturating_add(mine);
            let st = p.decide(cap);
            self.charged += p.nodes - before;
            if matches!(st, Status::Found | Status::Infeasible) && p.nodes - before > 1 {
                self.pair_wins += 1;
            }
            match st {
                Status::Found => {
                    self.winner = PAIRS;
                    return st;
                }
                Status::Infeasible | Status::TimeLimit => return st,
                Status::NodeLimit if self.charged >= node_limit => return st,
                Status::NodeLimit => {}
            }
        }
        let budget = if pair_led {
            (budget / PAIR_BUDGET_DIV).max(1)
        } else {
            budget
        };
        let c0 = self.charged;
        let st = self.probe_orders(orders, cap, budget, node_limit);
        if matches!(st, Status::Found | Status::Infeasible)
            && self.pairs.is_some()
            && self.charged - c0 > 1
        {
            self.canon_wins += 1;
        }
        st
    }

    /// The canonical search's part of a probe: every order in turn (or raced).
    fn probe_orders(&mut self, orders: &[Order], cap: u64, budget: u64, node_limit: u64) -> Status {
        if self.searches.len() > 1 {
            return self.probe_parallel(orders, cap, budget, node_limit);
        }
        let remaining = node_limit.saturating_sub(self.charged);
        let search = &mut self.searches[0];
        let mut last = Status::NodeLimit;
        self.winner = 0;
        for (k, order) in orders.iter().enumerate() {
            let mine = Self::budget_of(k, budget, remaining);
            if mine == 0 {
                return Status::NodeLimit;
            }
            let before = search.nodes;
            search.node_stop = before.saturating_add(mine);
            let st = search.decide(cap, order);
            self.charged += search.nodes - before;
            match st {
                Status::Found | Status::Infeasible | Status::TimeLimit => return st,
                Status::NodeLimit => last = st,
            }
        }
        last
    }

    #[cfg(not(feature = "parallel"))]
    fn probe_parallel(&mut self, _: &[Order], _: u64, _: u64, _: u64) -> Status {
        Status::NodeLimit
    }

    #[cfg(feature = "parallel")]
    fn probe_parallel(
        &mut self,
        orders: &[Order],
        cap: u64,
        budget: u64,
        node_limit: u64,
    ) -> Status {
        use rayon::prelude::*;
        use std::sync::atomic::Ordering;
        let remaining = node_limit.saturating_sub(self.charged);
        if remaining == 0 {
            return Status::NodeLimit;
        }
        for s in self.stops {
            s.store(false, Ordering::Relaxed);
        }
        let stops = self.stops;
        // (status, nodes spent) per order.
        let results: Vec<(Status, u64)> = self
            .searches
            .par_iter_mut()
            .zip(orders.par_iter())
            .enumerate()
            .map(|(k, (search, order))| {
                let mine = Self::budget_of(k, budget, remaining);
                if mine == 0 {
                    return (Status::NodeLimit, 0);
                }
                let before = search.nodes;
                search.node_stop = before.saturating_add(mine);
                let st = search.decide(cap, order);
                if matches!(st, Status::Found | Status::Infeasible) {
                    for s in &stops[k + 1..] {
                        s.store(true, Ordering::Relaxed);
                    }
                }
                (st, search.nodes - before)
            })
            .collect();
        // As in a sequential run: the first order (in sequence) that does not run
        // out of nodes ends the probe: it decided it, or the deadline passed. Only
        // the orders up to it are charged.
        let end = results
            .iter()
            .position(|(st, _)| *st != Status::NodeLimit)
            .unwrap_or(results.len().saturating_sub(1));
        self.charged += results[..=end].iter().map(|&(_, n)| n).sum::<u64>();
        let status = results.get(end).map_or(Status::NodeLimit, |&(st, _)| st);
        if matches!(status, Status::Found | Status::Infeasible) {
            self.winner = end;
        }
        status
    }
}

fn peak(problem: &Problem, offsets: &[u64]) -> u64 {
    problem
        .buffers
        .iter()
        .zip(offsets)
        .map(|(b, &o)| o.saturating_add(b.size))
        .max()
        .unwrap_or(0)
}

/// Full offsets (fixed buffers included) from movable offsets.
fn solution(problem: &Problem, m: &Model, movable: &[u64]) -> Vec<u64> {
    let mut out: Vec<u64> = problem
        .buffers
        .iter()
        .map(|b| b.fixed_offset.unwrap_or(0))
        .collect();
    for (k, &i) in m.ids.iter().enumerate() {
        out[i] = movable[k];
    }
    out
}

/// What makes two buffers interchangeable: size, alignment, live sections, fixed neighbours.
type TwinKey<'a> = (u64, u64, &'a [(u32, u32)], &'a [(u64, u64)]);

/// The static orders tried by every probe: MiniMalloc's lifetime width (W), area (A)
/// and section total (T) keys in three priorities, all descending, each once with
/// re-ranking after splits and once without.
fn orders(m: &Model) -> Vec<Order> {
    let n = m.n();
    let keys = restarts::KeyValues::new(m);
    // Each key triple twice: re-ranked after splits (MiniMalloc's behaviour, best on
    // most instances) and with fixed static ranks (much better on some, e.g. F).
    [true, false]
        .iter()
        .flat_map(|&rerank| restarts::PREORDERS.iter().map(move |&spec| (rerank, spec)))
        .map(|(rerank, spec)| {
            let k = spec.map(|key| keys.of(key));
            let mut perm: Vec<u32> = (0..n as u32).collect();
            perm.sort_by(|&a, &b| {
                let (a, b) = (a as usize, b as usize);
                k[0][b]
                    .cmp(&k[0][a])
                    .then(k[1][b].cmp(&k[1][a]))
                    .then(k[2][b].cmp(&k[2][a]))
                    .then(a.cmp(&b))
            });
            order_from_perm(m, spec, rerank, &perm)
        })
        .collect()
}

/// The order that ranks the movable buffers as `perm` lists them (first =
/// rank 0), with twins (same size, alignment, live sections and fixed
/// neighbours) chained in rank order.
fn order_from_perm(m: &Model, keys: [Key; 3], rerank: bool, perm: &[u32]) -> Order {
    let n = m.n();
    let mut rank = vec![0u32; n];
    for (r, &b) in perm.iter().enumerate() {
        rank[b as usize] = r as u32;
    }
    let mut classes: BTreeMap<TwinKey<'_>, Vec<u32>> = BTreeMap::new();
    for b in 0..n {
        classes
            .entry((m.size[b], m.align[b], m.live.row(b), m.fixed.row(b)))
            .or_default()
            .push(b as u32);
    }
    let mut twin_prev = vec![u32::MAX; n];
    for members in classes.values() {
        let mut g = members.clone();
        g.sort_by_key(|&b| rank[b as usize]);
        for w in g.windows(2) {
            twin_prev[w[1] as usize] = w[0];
        }
    }
    Order {
        keys,
        rerank,
        rank,
        twin_prev,
    }
}

/// Lowest-fit greedy: buffers in the order given, each at the lowest aligned offset
/// clear of placed co-live buffers and fixed blocks. Returns movable offsets.
fn greedy(m: &Model, seq: &[u32]) -> Vec<u64> {
    let mut off = vec![NONE; m.n()];
    let mut taken: Vec<(u64, u64)> = Vec::new();
    for &b in seq {
        let b = b as usize;
        taken.clear();
        taken.extend(m.fixed.row(b).iter().copied());
        for &q in m.adj.row(b) {
            let o = off[q as usize];
            if o != NONE {
                taken.push((o, o + m.size[q as usize]));
            }
        }
        taken.sort_unstable();
        let (a, size) = (m.align[b], m.size[b]);
        let mut y = 0u64;
        for &(lo, hi) in &taken {
            if hi <= y {
                continue;
            }
            if lo >= y + size {
                break;
            }
            y = hi.next_multiple_of(a);
        }
        off[b] = y;
    }
    off
}

fn initial_plan(
    problem: &Problem,
    m: &Model,
    orders: &[Order],
    opts: &Options,
    deadline: Option<(Instant, Instant)>,
) -> Vec<u64> {
    // The portfolio gets a third of the time: on huge traces its members alone
    // could take all of it.
    let mut popts = opts.clone();
    popts.time_limit = deadline.map(|(_, d)| d.saturating_duration_since(Instant::now()) / 3);
    popts.progress = None;
    // The portfolio checks the plan it keeps (an invalid one is a loud error, never
    // replaced by another planner's here); `plan()` checks the final result again.
    let mut best = super::portfolio::plan(problem, &popts).offsets;
    let mut best_peak = peak(problem, &best);
    let n = m.n();
    let mut seqs: Vec<Vec<u32>> = orders
        .iter()
        .filter(|o| o.rerank)
        .map(|o| {
            let mut s: Vec<u32> = (0..n as u32).collect();
            s.sort_by_key(|&b| o.rank[b as usize]);
            s
        })
        .collect();
    let mut by_size: Vec<u32> = (0..n as u32).collect();
    by_size.sort_by_key(|&b| {
        (
            std::cmp::Reverse(m.size[b as usize]),
            std::cmp::Reverse(m.ticks[b as usize]),
            b,
        )
    });
    seqs.push(by_size);
    for (k, s) in seqs.iter().enumerate() {
        // Big problems: every extra order costs a pass over all overlaps; stop once a
        // third of the time limit is gone (the first order always runs).
        if k > 0 && deadline.is_some_and(|(t0, d)| Instant::now() >= t0 + (d - t0) / 3) {
            break;
        }
        let cand = solution(problem, m, &greedy(m, s));
        let p = peak(problem, &cand);
        if p < best_peak {
            best = cand;
            best_peak = p;
        }
    }
    best
}
