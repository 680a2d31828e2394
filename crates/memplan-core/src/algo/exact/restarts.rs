//! Randomised restarts of the decision search: "is there a plan within `cap`?",
//! asked many times with random static orders and growing node budgets (the
//! Luby sequence), for instances where one fixed order's tree is too deep to
//! finish but some other order's finds a plan early (heavy-tailed search,
//! Gomes, Selman and Kautz, 1998). Opt-in, like [`deep_bound`](super::deep_bound):
//! `exact` itself keeps its deterministic six orders.
//!
//! Every order is a valid tie-break rank of the canonical search, so a plan
//! found under any of them is a plan (and is checked again by the caller), and
//! a refutation under any of them is a proof. Only the primary sort key is
//! perturbed (multiplied by a random factor in `[1, 1 + noise)`), the other two
//! and a random tie-break keep the order close to MiniMalloc's preorders.
//! Runs are reproducible for a given seed and node limit; a deadline can only
//! cut them short.

use std::sync::Arc;
use std::time::Instant;

use super::domains::{self, Filtered};
use super::model::Model;
use super::search::{Key, Order, Search, Status};
use super::{order_from_perm, solution, DOMAIN_BUDGET};
use crate::problem::Problem;

/// Options of [`decide_restarts`].
#[derive(Clone, Debug)]
pub struct RestartOptions {
    /// Seed of the random orders.
    pub seed: u64,
    /// Node budget of a restart at Luby value 1.
    pub base_budget: u64,
    /// Nodes over all restarts (at most).
    pub node_limit: u64,
    /// Stop at this instant (the restart in flight stops too).
    pub deadline: Option<Instant>,
    /// Width of the primary key's random factor, in percent.
    pub noise_percent: u64,
}

impl Default for RestartOptions {
    fn default() -> Self {
        RestartOptions {
            seed: 1,
            base_budget: 100_000,
            node_limit: u64::MAX,
            deadline: None,
            noise_percent: 3,
        }
    }
}

/// What [`decide_restarts`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// A plan within the capacity: every buffer's offset (fixed ones included).
    Plan(Vec<u64>),
    /// Proved: nothing fits within the capacity.
    Infeasible,
    /// Budget or time ran out first.
    Unknown,
}

/// The result of [`decide_restarts`].
#[derive(Clone, Debug)]
pub struct RestartResult {
    /// The answer.
    pub decision: Decision,
    /// Restarts begun.
    pub restarts: u64,
    /// Search nodes over all restarts.
    pub nodes: u64,
}

/// The `i`-th term (from 1) of the Luby sequence 1 1 2 1 1 2 4 1 1 2 ...
pub fn luby(i: u64) -> u64 {
    let mut i = i.max(1);
    loop {
        // The smallest k with 2^k - 1 >= i.
        let k = 64 - i.leading_zeros() as u64;
        if i == (1u64 << k) - 1 {
            return 1u64 << (k - 1);
        }
        i -= (1u64 << (k - 1)) - 1;
    }
}

/// SplitMix64: small, well mixed, enough for shuffling orders.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
}

/// Decides whether every buffer of `problem` (one memory space, valid per
/// [`Problem::validate`]) fits within `cap` bytes, by restarts of the
/// decision search under random orders (see the module documentation).
pub fn decide_restarts(problem: &Problem, cap: u64, opts: &RestartOptions) -> RestartResult {
    let mut out = RestartResult {
        decision: Decision::Unknown,
        restarts: 0,
        nodes: 0,
    };
    let fixed_over = problem.buffers.iter().any(|b| {
        b.fixed_offset
            .is_some_and(|o| o.saturating_add(b.size) > cap)
    });
    if fixed_over {
        out.decision = Decision::Infeasible;
        return out;
    }
    let model = Model::build(problem);
    if model.n() == 0 {
        out.decision = Decision::Plan(solution(problem, &model, &[]));
        return out;
    }
    let dom = match domains::filter(&model, cap, DOMAIN_BUDGET) {
        Filtered::Infeasible => {
            out.decision = Decision::Infeasible;
            return out;
        }
        Filtered::Domains(d) => Some(Arc::new(d)),
        Filtered::Unavailable => None,
    };
    let keys = KeyValues::new(&model);
    let mut rng = Rng(opts.seed);
    let mut search = Search::new(&model);
    search.deadline = opts.deadline;
    search.dom = dom;
    let mut i = 1u64;
    while out.nodes < opts.node_limit {
        if opts.deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let order = keys.random_order(&model, &mut rng, opts.noise_percent);
        let budget = opts
            .base_budget
            .max(1)
            .saturating_mul(luby(i))
            .min(opts.node_limit - out.nodes);
        let before = search.nodes;
        search.node_stop = before.saturating_add(budget);
        let st = search.decide(cap, &order);
        out.nodes += search.nodes - before;
        out.restarts += 1;
        i += 1;
        match st {
            Status::Found => {
                out.decision = Decision::Plan(solution(problem, &model, &search.sol));
                return out;
            }
            Status::Infeasible => {
                out.decision = Decision::Infeasible;
                return out;
            }
            Status::NodeLimit => {}
            Status::TimeLimit => break,
        }
    }
    out
}

/// MiniMalloc's default preorders (WAT, TAW, TWA), most significant key first.
pub(crate) const PREORDERS: [[Key; 3]; 3] = [
    [Key::Width, Key::Area, Key::Total],
    [Key::Total, Key::Area, Key::Width],
    [Key::Total, Key::Width, Key::Area],
];

/// MiniMalloc's three static keys of every movable buffer (shared by `exact`'s
/// static orders and the random ones).
pub(crate) struct KeyValues {
    width: Vec<u64>,
    area: Vec<u64>,
    total: Vec<u64>,
}

impl KeyValues {
    pub(crate) fn new(m: &Model) -> Self {
        let n = m.n();
        let width: Vec<u64> = (0..n).map(|b| m.t_end[b] - m.t_start[b]).collect();
        let area = (0..n).map(|b| m.size[b].saturating_mul(width[b])).collect();
        let total = (0..n)
            .map(|b| {
                m.live
                    .row(b)
                    .iter()
                    .flat_map(|&(lo, hi)| lo..hi)
                    .map(|s| m.sec_total[s as usize])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        KeyValues { width, area, total }
    }

    pub(crate) fn of(&self, k: Key) -> &[u64] {
        match k {
            Key::Width => &self.width,
            Key::Area => &self.area,
            Key::Total => &self.total,
        }
    }

    /// One of MiniMalloc's three key triples, the primary key scaled by a
    /// random factor per buffer, random tie-breaks, re-ranking after splits
    /// on or off at random.
    pub(crate) fn random_order(&self, m: &Model, rng: &mut Rng, noise_percent: u64) -> Order {
        let spec = PREORDERS[rng.below(3) as usize];
        let rerank = rng.below(2) == 0;
        let n = m.n();
        let (k0, k1, k2) = (self.of(spec[0]), self.of(spec[1]), self.of(spec[2]));
        let scaled: Vec<(u128, u64)> = (0..n)
            .map(|b| {
                let f = 1000 + rng.below(noise_percent.saturating_mul(10).max(1));
                (u128::from(k0[b]) * u128::from(f), rng.next())
            })
            .collect();
        let mut perm: Vec<u32> = (0..n as u32).collect();
        perm.sort_by(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            scaled[b]
                .0
                .cmp(&scaled[a].0)
                .then(k1[b].cmp(&k1[a]))
                .then(k2[b].cmp(&k2[a]))
                .then(scaled[a].1.cmp(&scaled[b].1))
        });
        order_from_perm(m, spec, rerank, &perm)
    }
}

#[cfg(test)]
mod tests {
    use super::luby;

    #[test]
    fn luby_sequence() {
        let got: Vec<u64> = (1..=15).map(luby).collect();
        assert_eq!(got, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
    }
}
