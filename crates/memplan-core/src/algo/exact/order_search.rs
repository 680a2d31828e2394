//! Order search: late-acceptance hill climbing over placement *orders*, each
//! decoded by lowest-fit (the representation of TelaMalloc and idealloc; the
//! local search and its cost are memplan's own).
//!
//! Every plan is reachable: sort any plan's buffers by offset and place them in
//! that order, each at its lowest fit, and no buffer lands above where the plan
//! had it. So the search starts from the order of the best plan known (its
//! decode is no worse) and moves buffers within the order. The cost of an order
//! is the time-area above a target `T` (one size quantum below the best peak):
//! `sum over buffers of live ticks x max(0, top - T)`, zero exactly when the
//! plan fits `T`. That gives the flat peak objective a slope. When a decode
//! reaches zero it is the new best plan and `T` drops one quantum.
//!
//! Moves: an *offender* (a buffer above `T`) moves earlier in the order, next
//! to or far from where it was; two nearby buffers swap; any buffer moves
//! anywhere. Only the suffix of the order from the first changed position is
//! decoded again. Acceptance is late acceptance (Burke and Bykov): a candidate
//! is taken when it is no worse than the current cost or than the cost `L`
//! iterations ago. Everything is driven by a seeded LCG and counted in
//! placements, so a run under a node budget is deterministic.

use std::time::Instant;

use super::model::Model;
use super::NONE;
use crate::problem::Problem;

/// Options of one order search.
#[derive(Clone, Debug)]
pub struct OrderSearchOptions {
    /// Seed of the move generator.
    pub seed: u64,
    /// Late-acceptance history length.
    pub history: usize,
    /// Placement budget (each decoded buffer counts one).
    pub node_limit: u64,
    /// Wall-clock deadline.
    pub deadline: Option<Instant>,
}

impl Default for OrderSearchOptions {
    fn default() -> Self {
        OrderSearchOptions {
            seed: 1,
            history: 200,
            node_limit: 50_000_000,
            deadline: None,
        }
    }
}

/// What an order search did.
#[derive(Clone, Debug, Default)]
pub struct OrderSearchStats {
    /// Placements decoded.
    pub nodes: u64,
    /// Orders evaluated.
    pub iterations: u64,
    /// Improvements of the best peak, as `(placements so far, peak)`.
    pub improvements: Vec<(u64, u64)>,
}

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Places `seq[from..]` at their lowest fits, the buffers of `seq[..from]`
/// staying where `off` has them. Returns the placements made.
fn decode_from(m: &Model, seq: &[u32], from: usize, off: &mut [u64], taken: &mut Vec<(u64, u64)>) -> u64 {
    for &b in &seq[from..] {
        off[b as usize] = NONE;
    }
    for &b in &seq[from..] {
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
        for &(lo, hi) in taken.iter() {
            if hi <= y {
                continue;
            }
            if lo >= y.saturating_add(size) {
                break;
            }
            y = hi.next_multiple_of(a);
        }
        off[b] = y;
    }
    (seq.len() - from) as u64
}

fn cost(m: &Model, off: &[u64], target: u64) -> u128 {
    (0..m.n())
        .map(|b| {
            let top = off[b] + m.size[b];
            u128::from(top.saturating_sub(target)) * u128::from(m.ticks[b].max(1))
        })
        .sum()
}

fn peak_of(m: &Model, off: &[u64], floor: u64) -> u64 {
    (0..m.n()).map(|b| off[b] + m.size[b]).max().unwrap_or(0).max(floor)
}

/// Improves the plan `start` (full offsets of `problem`, a valid plan) by
/// order search towards `lb`; returns the best plan found (never worse than
/// `start`'s lowest-fit decode, which is no worse than `start`).
pub(crate) fn improve(
    problem: &Problem,
    start: &[u64],
    lb: u64,
    opts: &OrderSearchOptions,
) -> (Vec<u64>, OrderSearchStats) {
    let m = Model::build(problem);
    let mut stats = OrderSearchStats::default();
    let n = m.n();
    let fixed_top = problem
        .buffers
        .iter()
        .filter_map(|b| b.fixed_offset.map(|o| o.saturating_add(b.size)))
        .max()
        .unwrap_or(0);
    if n < 2 {
        return (start.to_vec(), stats);
    }
    let quantum = (0..n).fold(0, |g, b| gcd(gcd(g, m.size[b]), m.align[b])).max(1);
    let mut seq: Vec<u32> = (0..n as u32).collect();
    seq.sort_by_key(|&b| (start[m.ids[b as usize]], b));
    let mut taken = Vec::new();
    let mut cur = vec![NONE; n];
    stats.nodes += decode_from(&m, &seq, 0, &mut cur, &mut taken);
    let mut best = cur.clone();
    let mut best_peak = peak_of(&m, &cur, fixed_top);
    // Flip and drop: the mirrored plan (offset -> peak - top) is as good; its
    // offset order puts the highest tops first, and its lowest-fit decode can only
    // come down. Repeat while it helps.
    for _ in 0..64 {
        let mut flip = seq.clone();
        flip.sort_by_key(|&b| (std::cmp::Reverse(cur[b as usize] + m.size[b as usize]), b));
        let mut off = vec![NONE; n];
        stats.nodes += decode_from(&m, &flip, 0, &mut off, &mut taken);
        let p = peak_of(&m, &off, fixed_top);
        if p > best_peak {
            break;
        }
        let better = p < best_peak;
        seq = flip;
        cur = off;
        if better {
            best_peak = p;
            best.copy_from_slice(&cur);
            stats.improvements.push((stats.nodes, p));
        }
    }
    let lb = lb.max(fixed_top);
    let mut target = best_peak.saturating_sub(quantum).max(lb);
    let mut cur_cost = cost(&m, &cur, target);
    let hlen = opts.history.max(1);
    let mut hist = vec![cur_cost; hlen];
    let mut rng = Lcg(opts.seed ^ 0x2545_F491_4F6C_DD1D);
    let mut cand = cur.clone();
    let mut cand_seq = seq.clone();
    let mut pos = vec![0usize; n];
    let mut offenders: Vec<u32> = Vec::new();
    let refresh = |off: &[u64], target: u64, offenders: &mut Vec<u32>| {
        offenders.clear();
        offenders.extend((0..n as u32).filter(|&b| off[b as usize] + m.size[b as usize] > target));
    };
    refresh(&cur, target, &mut offenders);
    while best_peak > lb && stats.nodes < opts.node_limit {
        if stats.iterations % 256 == 0 && opts.deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        stats.iterations += 1;
        for (i, &b) in seq.iter().enumerate() {
            pos[b as usize] = i;
        }
        cand_seq.copy_from_slice(&seq);
        let r = rng.below(8);
        let (p, q) = if r < 5 && !offenders.is_empty() {
            let o = offenders[rng.below(offenders.len())] as usize;
            let p = pos[o];
            if p == 0 {
                continue;
            }
            let q = if r < 3 {
                p - 1 - rng.below(p.min(8))
            } else {
                rng.below(p)
            };
            (p, q)
        } else if r < 7 {
            let p = rng.below(n);
            let d = 1 + rng.below(8);
            let q = if rng.below(2) == 0 {
                p.saturating_sub(d)
            } else {
                (p + d).min(n - 1)
            };
            if p == q {
                continue;
            }
            cand_seq.swap(p, q);
            (p.max(q), p.min(q))
        } else {
            let p = rng.below(n);
            let q = rng.below(n);
            if p == q {
                continue;
            }
            (p, q)
        };
        if r >= 7 || r < 5 {
            // Move the element at p to q.
            let x = cand_seq[p];
            if q < p {
                cand_seq.copy_within(q..p, q + 1);
            } else {
                cand_seq.copy_within(p + 1..=q, p);
            }
            cand_seq[q] = x;
        }
        let from = p.min(q);
        cand.copy_from_slice(&cur);
        stats.nodes += decode_from(&m, &cand_seq, from, &mut cand, &mut taken);
        let c = cost(&m, &cand, target);
        let v = (stats.iterations as usize) % hlen;
        if c <= cur_cost || c <= hist[v] {
            std::mem::swap(&mut cur, &mut cand);
            std::mem::swap(&mut seq, &mut cand_seq);
            cur_cost = c;
            if c == 0 {
                best.copy_from_slice(&cur);
                best_peak = peak_of(&m, &cur, fixed_top);
                stats.improvements.push((stats.nodes, best_peak));
                target = best_peak.saturating_sub(quantum).max(lb);
                cur_cost = cost(&m, &cur, target);
                hist.fill(cur_cost);
            }
            refresh(&cur, target, &mut offenders);
        }
        if cur_cost < hist[v] {
            hist[v] = cur_cost;
        }
    }
    let mut out: Vec<u64> = problem
        .buffers
        .iter()
        .map(|b| b.fixed_offset.unwrap_or(0))
        .collect();
    for (k, &i) in m.ids.iter().enumerate() {
        out[i] = best[k];
    }
    (out, stats)
}
