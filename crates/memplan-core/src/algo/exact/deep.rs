//! A deeper lower bound by relaxation into time windows (opt-in; memplan's
//! addition, for problems like MiniMalloc's D and J whose optimum lies well
//! above the max-load bound).
//!
//! Take a window of consecutive time sections `[a, b)`, keep the buffers live
//! in it and cut their lifetimes to it. Any plan of the whole problem, cut the
//! same way, is a plan of that sub-problem with no larger peak, so "nothing
//! fits below capacity `c`" proved for the sub-problem (by the complete
//! decision search, `search::Search::decide`, with the offset domains of
//! `domains` when they help) proves it for the whole problem: its optimum is
//! above `c`. Windows are small enough for the search to finish where the
//! whole problem is not, and large enough (a few sections around the heavy
//! ones) to contain the buffers that cross section boundaries with different
//! neighbours, which is what forces holes. A probe that runs out of nodes
//! proves nothing and is simply not used.
//!
//! Every plan can be lowered, one buffer at a time, to a plan no buffer of
//! which can move down; in such a plan every offset, hence the peak, is a
//! multiple of the unit of `domains::unit` (the gcd of the sizes and fixed
//! offsets, when the alignments allow). So a refuted capacity `c` gives the
//! bound `c + 1` rounded up to that unit.
//!
//! The windows: every range of up to `max_sections` consecutive sections that
//! contains a *heavy* section (load within the gap between max-load and the
//! given upper bound, or within 5% of max-load when none is given), narrowest
//! first; each gets the planners' heuristic plan first (the portfolio and the
//! greedy orders `exact` starts from: a plan within the bound settles it), then
//! is probed at the current bound with a node budget that doubles every round. A window where the search finds a plan at the bound is dropped
//! for good with every window inside it (they have plans too, and the bound
//! only grows); one that is refuted raises the bound and is probed again at
//! once, galloping (`2^k - 1` units above the bound after `k` refutations in a
//! row).

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::model::Model;
use super::search::Status;
use super::{domains, initial_plan, orders, peak, Prober};
use crate::algo::{Algorithm, Options};
use crate::bounds;
use crate::problem::{Buffer, Interval, MemSpace, Problem};

/// Options of [`deep_bound`].
#[derive(Clone, Debug)]
pub struct DeepOptions {
    /// A known plan's peak (or any upper bound): probes stay below it, and it
    /// sets which sections count as heavy. `None`: unbounded.
    pub upper: Option<u64>,
    /// Stop starting probes at this instant (a probe in flight stops too).
    pub deadline: Option<Instant>,
    /// Node budget per order of the first round's probes (doubles every round).
    pub first_budget: u64,
    /// Rounds of doubling budgets (at most).
    pub rounds: u32,
    /// The widest window tried, in sections.
    pub max_sections: usize,
    /// Filter offset domains in each probe (costs time per probe; see `domains`).
    pub domains: bool,
}

impl Default for DeepOptions {
    fn default() -> Self {
        DeepOptions {
            upper: None,
            deadline: None,
            first_budget: 256,
            rounds: 12,
            max_sections: 24,
            domains: false,
        }
    }
}

/// How the bound of one memory space was proved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeepProof {
    /// The window, in ticks: `[start, end)`.
    pub start: u64,
    /// See `start`.
    pub end: u64,
    /// Buffers of the sub-problem (live in the window).
    pub buffers: usize,
    /// The largest capacity the search proved infeasible for the sub-problem.
    pub refuted: u64,
    /// Search nodes of that refutation.
    pub nodes: u64,
}

/// The deep bound of one memory space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeepBound {
    /// The space.
    pub space: MemSpace,
    /// Its max-load bound (with the tops of fixed blocks).
    pub max_load: u64,
    /// The proved bound: every plan of this space peaks at or above it.
    pub bound: u64,
    /// The unit every optimal peak is a multiple of (1 when unknown).
    pub unit: u64,
    /// The refutation that set `bound`, if it is above `max_load`.
    pub proof: Option<DeepProof>,
    /// Windows considered.
    pub windows: usize,
    /// Search probes run, and how many of them were refutations.
    pub probes: u64,
    /// See `probes`.
    pub refutations: u64,
    /// Search nodes over all probes.
    pub nodes: u64,
    /// Rounds of budgets completed (all windows probed or dropped).
    pub rounds: u32,
    /// Windows shown to fit at the final bound (a plan found for them or for a
    /// window containing them): no refutation can come from them.
    pub fitting: usize,
    /// The narrowest window left undecided, if any, as `(start, end, sections)`
    /// (ticks `[start, end)`): every considered window of fewer sections fits
    /// at the final bound.
    pub narrowest_open: Option<(u64, u64, usize)>,
}

/// The deep lower bound of every memory space of `problem` (see the module
/// documentation), which should be valid ([`Problem::validate`]). Sound
/// whatever the budgets: only refutations count.
pub fn deep_bound(problem: &Problem, opts: &DeepOptions) -> Vec<DeepBound> {
    problem
        .spaces()
        .into_iter()
        .map(|space| {
            let sub = Problem::new(
                problem
                    .buffers
                    .iter()
                    .filter(|b| b.space == space)
                    .cloned()
                    .collect(),
            );
            space_bound(&sub, space, opts)
        })
        .collect()
}

struct Window {
    lo: usize,
    hi: usize,
}

fn space_bound(problem: &Problem, space: MemSpace, opts: &DeepOptions) -> DeepBound {
    let fixed_top = problem
        .buffers
        .iter()
        .filter_map(|b| b.fixed_offset.map(|o| o.saturating_add(b.size)))
        .max()
        .unwrap_or(0);
    let max_load = bounds::max_load(problem).max(fixed_top);
    let mut out = DeepBound {
        space,
        max_load,
        bound: max_load,
        unit: 1,
        proof: None,
        windows: 0,
        probes: 0,
        refutations: 0,
        nodes: 0,
        rounds: 0,
        fitting: 0,
        narrowest_open: None,
    };
    if problem.buffers.iter().all(|b| b.fixed_offset.is_some()) {
        return out;
    }
    let model = Model::build(problem);
    out.unit = domains::unit(&model);
    let round_up = |x: u64, unit: u64| x.div_ceil(unit).saturating_mul(unit);
    let (times, load) = sections(problem, &model);
    let nsec = model.nsec;
    let upper = opts.upper.unwrap_or(u64::MAX);
    let margin = match opts.upper {
        Some(u) => u.saturating_sub(max_load),
        None => max_load / 20,
    };
    let heavy: Vec<bool> = load
        .iter()
        .map(|&l| l.saturating_add(margin) >= max_load)
        .collect();
    // Windows `[lo, hi)` of sections holding a heavy one, narrowest first (the
    // cheapest proofs come first, and a deadline leaves a clean "every window up
    // to this width fits"), then heaviest first.
    let mut windows: Vec<Window> = Vec::new();
    for w in 1..=opts.max_sections.min(nsec) {
        let mut these: Vec<(u64, Window)> = (0..=nsec - w)
            .filter(|&lo| heavy[lo..lo + w].iter().any(|&h| h))
            .map(|lo| {
                let top = load[lo..lo + w].iter().copied().max().unwrap_or(0);
                (top, Window { lo, hi: lo + w })
            })
            .collect();
        these.sort_by_key(|(top, w)| (std::cmp::Reverse(*top), w.lo));
        windows.extend(these.into_iter().map(|(_, w)| w));
    }
    out.windows = windows.len();
    let mut alive: Vec<bool> = vec![true; windows.len()];
    // Peak of the heuristic plan of each window, once computed.
    let mut heuristic: Vec<Option<u64>> = vec![None; windows.len()];
    let expired = || opts.deadline.is_some_and(|d| Instant::now() >= d);
    'rounds: for round in 0..opts.rounds {
        let budget = opts.first_budget.max(1) << round.min(40);
        for (k, win) in windows.iter().enumerate() {
            if !alive[k] {
                continue;
            }
            if out.bound >= upper {
                break 'rounds;
            }
            if expired() {
                break 'rounds;
            }
            let sub = clip(problem, times[win.lo], times[win.hi]);
            let m = Model::build(&sub);
            let ords = orders(&m);
            let stops: Vec<AtomicBool> = ords.iter().map(|_| AtomicBool::new(false)).collect();
            let mut prober = Prober::new(&m, &stops, opts.deadline);
            if !opts.domains {
                prober.useless_from = 0;
            }
            // The planners' own plans first (the portfolio and a few greedy
            // orders, as `exact` starts): a window far below the bound often
            // has one at once, where the search at a loose capacity can wander.
            let heur = *heuristic[k].get_or_insert_with(|| {
                let o = Options::with_algorithm(Algorithm::Exact);
                let plan = initial_plan(&sub, &m, &ords, &o, None);
                peak(&sub, &plan)
            });
            let mut step = 1u64;
            loop {
                let cap = out
                    .bound
                    .saturating_add(step.saturating_mul(out.unit) - 1)
                    .min(upper - 1);
                if cap < out.bound {
                    break;
                }
                let st0 = if heur <= cap {
                    Some(Status::Found)
                } else {
                    None
                };
                let before = prober.nodes();
                let st = match st0 {
                    Some(st) => st,
                    None => prober.probe(&ords, cap, budget, u64::MAX),
                };
                let spent = prober.nodes() - before;
                out.probes += u64::from(st0.is_none());
                out.nodes += spent;
                match st {
                    Status::Infeasible => {
                        out.refutations += 1;
                        out.bound = round_up(cap + 1, out.unit);
                        out.proof = Some(DeepProof {
                            start: times[win.lo],
                            end: times[win.hi],
                            buffers: sub.buffers.len(),
                            refuted: cap,
                            nodes: spent,
                        });
                        step = step.saturating_mul(2);
                        if out.bound >= upper {
                            break;
                        }
                    }
                    // A gallop overshot: back to one unit above the bound.
                    Status::Found | Status::NodeLimit if step > 1 => step = 1,
                    // Found at one unit above the bound: this window and every
                    // narrower one inside it fit at every capacity probed from now
                    // on (the bound only grows).
                    Status::Found => {
                        for (j, w) in windows.iter().enumerate() {
                            if w.lo >= win.lo && w.hi <= win.hi {
                                alive[j] = false;
                            }
                        }
                        break;
                    }
                    Status::NodeLimit => break,
                    Status::TimeLimit => break 'rounds,
                }
            }
        }
        out.rounds = round + 1;
        if !alive.iter().any(|&a| a) {
            break;
        }
    }
    out.fitting = alive.iter().filter(|&&a| !a).count();
    out.narrowest_open = windows
        .iter()
        .zip(&alive)
        .filter(|(_, &a)| a)
        .map(|(w, _)| (times[w.lo], times[w.hi], w.hi - w.lo))
        .min_by_key(|&(start, _, width)| (width, start));
    out
}

/// The sub-problem of the buffers live in `[a, b)`, their lifetimes cut to it.
pub(super) fn clip(problem: &Problem, a: u64, b: u64) -> Problem {
    let buffers = problem
        .buffers
        .iter()
        .filter_map(|buf| {
            let live: Vec<Interval> = buf
                .live
                .iter()
                .filter(|iv| iv.start < b && iv.end > a)
                .map(|iv| Interval::new(iv.start.max(a), iv.end.min(b)))
                .collect();
            if live.is_empty() {
                return None;
            }
            Some(Buffer {
                live,
                ..buf.clone()
            })
        })
        .collect();
    Problem::new(buffers)
}

/// Section boundaries (as in `Model::build`: movable buffers only) and the load of each
/// section (movable and fixed bytes), shared by the window and subset relaxations.
pub(super) fn sections(problem: &Problem, model: &Model) -> (Vec<u64>, Vec<u64>) {
    let mut times: Vec<u64> = problem
        .buffers
        .iter()
        .filter(|b| b.fixed_offset.is_none())
        .flat_map(|b| b.live.iter().flat_map(|iv| [iv.start, iv.end]))
        .collect();
    times.sort_unstable();
    times.dedup();
    let load: Vec<u64> = (0..model.nsec)
        .map(|s| {
            model
                .sec_fixed
                .row(s)
                .iter()
                .fold(model.sec_total[s], |acc, &(_, size)| {
                    acc.saturating_add(size)
                })
        })
        .collect();
    (times, load)
}
