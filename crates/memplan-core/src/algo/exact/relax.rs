//! A lower bound by relaxation into smaller problems: subsets by size, sizes
//! rounded down, time windows (opt-in; issue 11, for problems like
//! MiniMalloc's D and J whose optimum is unknown and above the max-load bound).
//!
//! A *relaxation* keeps the buffers of one memory space whose size is at least
//! `min_size` and that are live in a window of consecutive time sections,
//! cuts their lifetimes to the window, and rounds every movable size down to a
//! multiple of `round` (fixed blocks stay as they are). Every plan of the
//! whole problem, restricted to those buffers, is a plan of the relaxation
//! with no larger peak: dropping a buffer, shortening a lifetime or shrinking
//! a size only removes conflicts. So "nothing fits below capacity `c`" proved
//! for a relaxation by the complete decision search (the canonical search of
//! `search`, and the pair search of `pairs` when at most 64 buffers remain)
//! proves that every plan of the whole problem peaks above `c`. A probe that
//! runs out of nodes proves nothing and is not used.
//!
//! Every plan of the whole problem can be lowered to one in which every
//! offset, hence the peak, is a multiple of its unit (`domains::unit`), so a
//! refuted `c` gives the bound `c + 1` rounded up to that unit.
//!
//! Why these relaxations: the large buffers fragment memory most, and small
//! ones mostly fill the gaps; a subset of the large buffers (or all buffers at
//! a coarser size unit) has far fewer placements to refute than the whole
//! problem, yet its own max-load over a long span can stay close to the whole
//! problem's. Rounding sizes down to a unit `round` also makes every offset of
//! a lowered plan of the relaxation a multiple of `round`, which the search's
//! canonical placements exploit.
//!
//! The candidates: for each rounding unit (the problem's unit times 1, 2, 4,
//! ..., up to `max_round_factor`), each size threshold that keeps a given
//! number of the largest buffers (`keep`, plus "all"), and each window (the
//! whole span, and windows of `window_widths` sections centred on the
//! heaviest sections), the relaxation is built once; those whose own max-load
//! is within `max_gap` of the bound are probed, closest first, in rounds of
//! doubling node budgets, like `deep`. A relaxation shown to fit at the bound
//! (a heuristic plan or the search's) is dropped for good with every
//! relaxation it contains (a narrower window, a larger threshold, a rounding
//! unit that is a multiple of its own: a relaxation of a relaxation that fits
//! fits too, and the bound only grows).

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::deep::clip;
use super::model::Model;
use super::search::Status;
use super::{domains, initial_plan, orders, peak, Prober};
use crate::algo::{Algorithm, Options};
use crate::bounds;
use crate::problem::{Buffer, MemSpace, Problem};

/// Options of [`relax_bound`].
#[derive(Clone, Debug)]
pub struct RelaxOptions {
    /// A known plan's peak (or any upper bound): probes stay below it.
    pub upper: Option<u64>,
    /// Stop starting probes at this instant (a probe in flight stops too).
    pub deadline: Option<Instant>,
    /// Node budget per order of the first round's probes (doubles every round).
    pub first_budget: u64,
    /// Rounds of doubling budgets (at most).
    pub rounds: u32,
    /// Size thresholds: keep this many of the largest movable buffers (ties
    /// kept too), and also all of them.
    pub keep: Vec<usize>,
    /// Rounding units: the problem's unit times each power of two up to this.
    pub max_round_factor: u64,
    /// Window widths in sections besides the whole span (each centred on the
    /// heaviest sections, see the module documentation).
    pub window_widths: Vec<usize>,
    /// Windows of each width tried (the heaviest first).
    pub windows_per_width: usize,
    /// Probe only relaxations whose max-load is at least the bound minus this
    /// fraction of the bound (`0.05`: within 5%).
    pub max_gap: f64,
    /// Leave out the relaxation that is the whole problem (no size threshold,
    /// the problem's own unit, the whole span), to study the others.
    pub skip_whole: bool,
}

impl Default for RelaxOptions {
    fn default() -> Self {
        RelaxOptions {
            upper: None,
            deadline: None,
            first_budget: 1024,
            rounds: 12,
            keep: vec![8, 12, 16, 24, 32, 48, 64, 96, 128],
            max_round_factor: 16,
            window_widths: vec![4, 8, 16, 32, 64],
            windows_per_width: 4,
            max_gap: 0.05,
            skip_whole: false,
        }
    }
}

/// One relaxation, as the bound reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relaxation {
    /// The window, in ticks: `[start, end)`.
    pub start: u64,
    /// See `start`.
    pub end: u64,
    /// Movable buffers smaller than this were dropped.
    pub min_size: u64,
    /// Movable sizes were rounded down to a multiple of this.
    pub round: u64,
    /// Buffers left (fixed blocks included).
    pub buffers: usize,
    /// The relaxation's own max-load (a lower bound of its optimum).
    pub max_load: u64,
}

/// How the bound of one memory space was proved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelaxProof {
    /// The relaxation refuted.
    pub relaxation: Relaxation,
    /// The largest capacity the search proved infeasible for it.
    pub refuted: u64,
    /// Search nodes of that refutation.
    pub nodes: u64,
}

/// The relaxation bound of one memory space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelaxBound {
    /// The space.
    pub space: MemSpace,
    /// Its max-load bound (with the tops of fixed blocks).
    pub max_load: u64,
    /// The proved bound: every plan of this space peaks at or above it.
    pub bound: u64,
    /// The unit every lowered plan's peak is a multiple of (1 when unknown).
    pub unit: u64,
    /// The refutation that set `bound`, if it is above `max_load`.
    pub proof: Option<RelaxProof>,
    /// Distinct relaxations built, and those within `max_gap` (probed).
    pub built: usize,
    /// See `built`.
    pub candidates: usize,
    /// Search probes run, and how many of them were refutations.
    pub probes: u64,
    /// See `probes`.
    pub refutations: u64,
    /// Search nodes over all probes.
    pub nodes: u64,
    /// Rounds of budgets completed (all candidates probed or dropped).
    pub rounds: u32,
    /// Candidates shown to fit at the final bound.
    pub fitting: usize,
    /// The candidates left undecided, heaviest first (max-load closest to the
    /// bound): a refutation can only come from these.
    pub open: Vec<Relaxation>,
}

/// The relaxation lower bound of every memory space of `problem` (see the
/// module documentation), which should be valid ([`Problem::validate`]).
/// Sound whatever the budgets: only refutations count.
pub fn relax_bound(problem: &Problem, opts: &RelaxOptions) -> Vec<RelaxBound> {
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

/// The relaxation of `problem` (one space) to the window `[a, b)` (ticks), the
/// movable buffers of at least `min_size` bytes, sizes rounded down to a
/// multiple of `round` (>= 1).
pub fn relax(problem: &Problem, a: u64, b: u64, min_size: u64, round: u64) -> Problem {
    let round = round.max(1);
    let kept: Vec<Buffer> = problem
        .buffers
        .iter()
        .filter(|x| x.fixed_offset.is_some() || (x.size >= min_size && x.size >= round))
        .map(|x| {
            let mut y = x.clone();
            if y.fixed_offset.is_none() {
                y.size -= y.size % round;
            }
            y
        })
        .collect();
    clip(&Problem::new(kept), a, b)
}

struct Cand {
    /// Section range `[lo, hi)`.
    lo: usize,
    hi: usize,
    min_size: u64,
    round: u64,
    problem: Problem,
    max_load: u64,
}

impl Cand {
    /// Every plan of `self` gives one of `other` (a relaxation of a relaxation).
    fn contains(&self, other: &Cand) -> bool {
        other.lo >= self.lo
            && other.hi <= self.hi
            && other.min_size >= self.min_size
            && other.round.is_multiple_of(self.round)
    }

    fn report(&self, times: &[u64]) -> Relaxation {
        Relaxation {
            start: times[self.lo],
            end: times[self.hi],
            min_size: self.min_size,
            round: self.round,
            buffers: self.problem.buffers.len(),
            max_load: self.max_load,
        }
    }
}

fn fixed_top(problem: &Problem) -> u64 {
    problem
        .buffers
        .iter()
        .filter_map(|b| b.fixed_offset.map(|o| o.saturating_add(b.size)))
        .max()
        .unwrap_or(0)
}

fn space_bound(problem: &Problem, space: MemSpace, opts: &RelaxOptions) -> RelaxBound {
    let max_load = bounds::max_load(problem).max(fixed_top(problem));
    let mut out = RelaxBound {
        space,
        max_load,
        bound: max_load,
        unit: 1,
        proof: None,
        built: 0,
        candidates: 0,
        probes: 0,
        refutations: 0,
        nodes: 0,
        rounds: 0,
        fitting: 0,
        open: Vec::new(),
    };
    if problem.buffers.iter().all(|b| b.fixed_offset.is_some()) {
        return out;
    }
    let model = Model::build(problem);
    out.unit = domains::unit(&model);
    let round_up = |x: u64, unit: u64| x.div_ceil(unit).saturating_mul(unit);
    let (times, load) = super::deep::sections(problem, &model);
    let nsec = model.nsec;
    // Section ranges: the whole span, then per width the windows centred on the
    // heaviest sections (distinct ones, heaviest first).
    let mut ranges: Vec<(usize, usize)> = vec![(0, nsec)];
    let mut by_load: Vec<usize> = (0..nsec).collect();
    by_load.sort_by_key(|&s| (std::cmp::Reverse(load[s]), s));
    for &w in &opts.window_widths {
        if w == 0 || w >= nsec {
            continue;
        }
        let mut these = 0;
        for &s in &by_load {
            if these >= opts.windows_per_width {
                break;
            }
            let lo = s.saturating_sub(w / 2).min(nsec - w);
            if !ranges.contains(&(lo, lo + w)) {
                ranges.push((lo, lo + w));
                these += 1;
            }
        }
    }
    // Size thresholds: keep the `k` largest movable buffers (ties too), and all.
    let mut sizes: Vec<u64> = problem
        .buffers
        .iter()
        .filter(|b| b.fixed_offset.is_none())
        .map(|b| b.size)
        .collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    let mut thresholds: Vec<u64> = opts
        .keep
        .iter()
        .filter(|&&k| k > 0 && k < sizes.len())
        .map(|&k| sizes[k - 1])
        .collect();
    thresholds.push(0);
    thresholds.sort_unstable();
    thresholds.dedup();
    let mut rounds_u: Vec<u64> = Vec::new();
    let mut f = 1u64;
    while f <= opts.max_round_factor.max(1) {
        rounds_u.push(out.unit.saturating_mul(f));
        f = f.saturating_mul(2);
    }
    let mut cands: Vec<Cand> = Vec::new();
    for &(lo, hi) in &ranges {
        for &min_size in &thresholds {
            for &round in &rounds_u {
                if opts.deadline.is_some_and(|d| Instant::now() >= d) {
                    break;
                }
                let p = relax(problem, times[lo], times[hi], min_size, round);
                if p.buffers.iter().all(|b| b.fixed_offset.is_some())
                    || (opts.skip_whole
                        && (lo, hi) == (0, nsec)
                        && min_size == 0
                        && round == out.unit)
                {
                    continue;
                }
                let ml = bounds::max_load(&p).max(fixed_top(&p));
                cands.push(Cand {
                    lo,
                    hi,
                    min_size,
                    round,
                    problem: p,
                    max_load: ml,
                });
            }
        }
    }
    out.built = cands.len();
    let floor = max_load - (max_load as f64 * opts.max_gap.clamp(0.0, 1.0)) as u64;
    cands.retain(|c| c.max_load >= floor);
    // Heaviest first (closest to the bound), then fewest buffers.
    cands.sort_by_key(|c| {
        (
            std::cmp::Reverse(c.max_load),
            c.problem.buffers.len(),
            c.lo,
            c.hi,
            c.min_size,
            c.round,
        )
    });
    out.candidates = cands.len();
    let upper = opts.upper.unwrap_or(u64::MAX);
    let mut alive = vec![true; cands.len()];
    let mut heuristic: Vec<Option<u64>> = vec![None; cands.len()];
    let expired = || opts.deadline.is_some_and(|d| Instant::now() >= d);
    'rounds: for round in 0..opts.rounds {
        let budget = opts.first_budget.max(1) << round.min(40);
        for k in 0..cands.len() {
            if !alive[k] {
                continue;
            }
            if out.bound >= upper || expired() {
                break 'rounds;
            }
            let c = &cands[k];
            let m = Model::build(&c.problem);
            let ords = orders(&m);
            let stops: Vec<AtomicBool> = ords.iter().map(|_| AtomicBool::new(false)).collect();
            let mut prober = Prober::new(&m, &stops, opts.deadline);
            prober.useless_from = 0;
            let heur = *heuristic[k].get_or_insert_with(|| {
                let o = Options::with_algorithm(Algorithm::Exact);
                let plan = initial_plan(&c.problem, &m, &ords, &o, None);
                peak(&c.problem, &plan)
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
                let st = if heur <= cap {
                    Status::Found
                } else {
                    let before = prober.nodes();
                    let st = prober.probe(&ords, cap, budget, u64::MAX);
                    let spent = prober.nodes() - before;
                    out.probes += 1;
                    out.nodes += spent;
                    if st == Status::Infeasible {
                        out.refutations += 1;
                        out.bound = round_up(cap + 1, out.unit);
                        out.proof = Some(RelaxProof {
                            relaxation: c.report(&times),
                            refuted: cap,
                            nodes: spent,
                        });
                    }
                    st
                };
                match st {
                    Status::Infeasible => {
                        step = step.saturating_mul(2);
                        if out.bound >= upper {
                            break;
                        }
                    }
                    Status::Found | Status::NodeLimit if step > 1 => step = 1,
                    Status::Found => {
                        for j in 0..cands.len() {
                            if c.contains(&cands[j]) {
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
    out.open = cands
        .iter()
        .zip(&alive)
        .filter(|(_, &a)| a)
        .map(|(c, _)| c.report(&times))
        .collect();
    out
}
