//! Peak rip-up: large-neighbourhood search for problems too big for the full
//! branch and bound (memplan's own addition; MiniMalloc has no counterpart and
//! times out or overflows its stack on traces of this size).
//!
//! Start from a valid plan (the portfolio's). Pick a target capacity `T`
//! below its peak. The buffers whose top lies above `T` are the offenders.
//! Take one offender and rip out a neighbourhood around it, re-placing only
//! those buffers with every other co-live buffer kept where it is as a fixed
//! block. Two kinds of neighbourhood alternate:
//! * a *time window*: the buffers whose first use is nearest to a tick of the
//!   offender's lifetime (its busiest tick, then its first use), wherever they
//!   sit. On training traces the room at the peak is usually made by moving a
//!   large buffer at the bottom of memory that starts a tick earlier or later,
//!   far below the offender (idealloc's `pangu_2.6B` goes from +0.76% to the
//!   lower bound this way);
//! * a *band*: the offenders co-live with it and its co-live neighbours whose
//!   tops lie in a band just below `T`.
//!
//! The re-placement is a small problem of its own: a few
//! lowest-fit orders (MiniMalloc's preorders plus shuffles from a deterministic
//! LCG) and then the bounded decision search of [`super::search`] at capacity
//! `T`. A success is written back at once (the plan stays valid, with fewer
//! offenders); a failure widens the window and the band. Once no offender is left the plan
//! fits `T`, and the next target is set lower (larger steps after successes,
//! halved steps after a target is given up). Nothing here is quadratic: each
//! round is a few linear scans over the buffers plus a small sub-problem, and
//! only the sub-problem builds overlap lists.

use std::time::Instant;

use super::model::Model;
use super::search::{Search, Status};
use crate::problem::{Buffer, Interval, Problem};

/// Most buffers ripped out at once.
const MAX_RIP: usize = 256;
/// Buffers in the first time-window neighbourhood of a target (doubled every
/// second failure).
const WINDOW_RIP: usize = 16;
/// Decision-search nodes per sub-problem and order.
const SUB_NODES: u64 = 20_000;
/// Failed rounds on one target before it is given up.
const MAX_FAILS: u32 = 8;

/// A 64-bit linear congruential generator (Knuth's MMIX constants): deterministic shuffles.
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

/// The total size live over time: `load[i]` over ticks `[ticks[i], ticks[i + 1])`.
struct LoadProfile {
    ticks: Vec<u64>,
    load: Vec<u64>,
}

impl LoadProfile {
    fn new(problem: &Problem) -> Self {
        let mut ev: Vec<(u64, i128)> = Vec::new();
        for b in &problem.buffers {
            for iv in &b.live {
                ev.push((iv.start, i128::from(b.size)));
                ev.push((iv.end, -i128::from(b.size)));
            }
        }
        ev.sort_unstable();
        let (mut ticks, mut load) = (Vec::new(), Vec::new());
        let mut cur = 0i128;
        for (i, &(t, d)) in ev.iter().enumerate() {
            cur += d;
            if ev.get(i + 1).is_none_or(|&(u, _)| u != t) {
                ticks.push(t);
                load.push(u64::try_from(cur).unwrap_or(0));
            }
        }
        LoadProfile { ticks, load }
    }

    /// The first tick in `[s, e)` with the largest load (`s` if there is none).
    fn busiest(&self, s: u64, e: u64) -> u64 {
        let i = self.ticks.partition_point(|&t| t <= s).saturating_sub(1);
        let mut best = (0u64, s);
        for j in i..self.ticks.len() {
            if self.ticks[j] >= e {
                break;
            }
            if self.load[j] > best.0 {
                best = (self.load[j], self.ticks[j].max(s));
            }
        }
        best.1
    }
}

fn top(problem: &Problem, off: &[u64], b: usize) -> u64 {
    off[b].saturating_add(problem.buffers[b].size)
}

fn peak(problem: &Problem, off: &[u64]) -> u64 {
    (0..off.len())
        .map(|b| top(problem, off, b))
        .max()
        .unwrap_or(0)
}

fn co_live(a: &Buffer, b: &Buffer) -> bool {
    a.start() < b.end() && b.start() < a.end() && a.overlaps_in_time(b)
}

/// Improves `start` (a valid plan) towards `lb` until the deadline or the node
/// budget; returns the best plan found. `nodes` counts search nodes and rounds.
pub(crate) fn improve(
    problem: &Problem,
    start: Vec<u64>,
    lb: u64,
    deadline: Option<Instant>,
    node_limit: u64,
    nodes: &mut u64,
) -> Vec<u64> {
    let n = problem.buffers.len();
    let bufs = &problem.buffers;
    let mut cur = start;
    let mut cur_peak = peak(problem, &cur);
    let fixed_top = bufs
        .iter()
        .filter_map(|b| b.fixed_offset.map(|o| o.saturating_add(b.size)))
        .max()
        .unwrap_or(0);
    let lb = lb.max(fixed_top);
    let mut rng = Lcg(0x9E37_79B9_7F4A_7C15);
    let mut step = ((cur_peak.saturating_sub(lb)) / 4).max(1);
    let mut target = cur_peak.saturating_sub(step).max(lb);
    let mut fails = 0u32;
    let mut band_mult = 1u64;
    let movable: Vec<usize> = (0..n).filter(|&b| bufs[b].fixed_offset.is_none()).collect();
    let mut by_start: Vec<(u64, usize)> = movable.iter().map(|&b| (bufs[b].start(), b)).collect();
    by_start.sort_unstable();
    let profile = LoadProfile::new(problem);
    while cur_peak > lb && target < cur_peak {
        if *nodes >= node_limit || deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        // A round scans every buffer a few times: charge it accordingly.
        *nodes += 1 + n as u64 / 64;
        let offenders: Vec<usize> = movable
            .iter()
            .copied()
            .filter(|&b| top(problem, &cur, b) > target)
            .collect();
        if offenders.is_empty() {
            cur_peak = peak(problem, &cur);
            step = step
                .saturating_mul(2)
                .min(cur_peak.saturating_sub(lb))
                .max(1);
            target = cur_peak.saturating_sub(step).max(lb);
            fails = 0;
            band_mult = 1;
            continue;
        }
        let o = offenders[rng.below(offenders.len())];
        let ob = &bufs[o];
        // Even-numbered attempts on a target rip a time window (centred in turn
        // on the busiest tick of the offender's lifetime, where the buffers
        // under it are packed the tightest, and on its first use), odd ones a band.
        let rip = if fails.is_multiple_of(2) {
            let k = (WINDOW_RIP << (fails / 4)).min(MAX_RIP);
            let centre = if fails.is_multiple_of(4) {
                profile.busiest(ob.start(), ob.end())
            } else {
                ob.start()
            };
            window_rip(problem, &cur, &by_start, o, centre, target, k)
        } else {
            let band = ob.size.saturating_mul(band_mult);
            band_rip(problem, &cur, &movable, o, target, band, fails)
        };
        let res = replace(problem, &cur, &rip, target, &mut rng, nodes, deadline);
        match res {
            Some(new_offs) => {
                for (k, &b) in rip.iter().enumerate() {
                    cur[b] = new_offs[k];
                }
                fails = 0;
            }
            None => {
                fails += 1;
                if fails.is_multiple_of(2) {
                    band_mult = band_mult.saturating_mul(4).min(1 << 40);
                }
                if fails >= MAX_FAILS {
                    // Too ambitious: aim closer to the current peak.
                    cur_peak = peak(problem, &cur);
                    step = (step / 2).max(1);
                    target = cur_peak.saturating_sub(step).max(lb);
                    fails = 0;
                    band_mult = 1;
                }
            }
        }
    }
    // `cur` never gets worse than its peak at the last target change; the last
    // completed target is its current peak.
    cur
}

/// The band neighbourhood of offender `o`: `o`, the offenders co-live with it,
/// and its co-live neighbours whose tops lie in the `band` bytes below
/// `target` (those inside its lifetime, widened as failures mount, first;
/// then highest tops first). Sorted.
fn band_rip(
    problem: &Problem,
    cur: &[u64],
    movable: &[usize],
    o: usize,
    target: u64,
    band: u64,
    fails: u32,
) -> Vec<usize> {
    let bufs = &problem.buffers;
    let ob = &bufs[o];
    let band_lo = target.saturating_sub(band);
    let reach = (ob.end() - ob.start()).saturating_mul(fails as u64 / 4);
    let (w_lo, w_hi) = (
        ob.start().saturating_sub(reach),
        ob.end().saturating_add(reach),
    );
    let mut rip: Vec<usize> = vec![o];
    let mut near: Vec<(u64, u64, usize)> = Vec::new();
    for &q in movable {
        if q == o || !co_live(ob, &bufs[q]) {
            continue;
        }
        let t = top(problem, cur, q);
        if t > target {
            rip.push(q);
        } else if t > band_lo {
            let inside = bufs[q].start() >= w_lo && bufs[q].end() <= w_hi;
            near.push((u64::from(!inside), t, q));
        }
    }
    near.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    for &(_, _, q) in &near {
        if rip.len() >= MAX_RIP {
            break;
        }
        rip.push(q);
    }
    rip.sort_unstable();
    rip
}

/// The time-window neighbourhood of offender `o` at tick `s`: the `k` movable
/// buffers whose first use is nearest to `s` (whatever their offsets: the buffers that make
/// room at the peak are often far below it), plus every offender co-live with
/// `o`. `by_start` lists the movable buffers by first use. Sorted.
fn window_rip(
    problem: &Problem,
    cur: &[u64],
    by_start: &[(u64, usize)],
    o: usize,
    s: u64,
    target: u64,
    k: usize,
) -> Vec<usize> {
    let bufs = &problem.buffers;
    let mid = by_start.partition_point(|&(t, _)| t < s);
    let (mut lo, mut hi) = (mid, mid);
    let mut rip: Vec<usize> = Vec::with_capacity(k + 1);
    while rip.len() < k && (lo > 0 || hi < by_start.len()) {
        let take_hi = match (lo > 0, hi < by_start.len()) {
            (true, true) => by_start[hi].0 - s <= s - by_start[lo - 1].0,
            (false, _) => true,
            (_, false) => false,
        };
        if take_hi {
            rip.push(by_start[hi].1);
            hi += 1;
        } else {
            lo -= 1;
            rip.push(by_start[lo].1);
        }
    }
    let ob = &bufs[o];
    rip.push(o);
    for &(_, q) in by_start {
        if top(problem, cur, q) > target && co_live(ob, &bufs[q]) {
            rip.push(q);
        }
    }
    rip.sort_unstable();
    rip.dedup();
    rip
}

/// Re-places the buffers of `rip` (sorted) below `cap`, every other co-live
/// buffer staying where `cur` has it. Returns their new offsets, in `rip` order.
fn replace(
    problem: &Problem,
    cur: &[u64],
    rip: &[usize],
    cap: u64,
    rng: &mut Lcg,
    nodes: &mut u64,
    deadline: Option<Instant>,
) -> Option<Vec<u64>> {
    let bufs = &problem.buffers;
    // Union of the ripped buffers' intervals, to find the blocks that stay.
    let mut ivs: Vec<Interval> = rip.iter().flat_map(|&b| bufs[b].live.clone()).collect();
    let cover = crate::problem::normalize_intervals(std::mem::take(&mut ivs));
    let hits = |b: &Buffer| {
        b.live.iter().any(|iv| {
            let k = cover.partition_point(|c| c.end <= iv.start);
            k < cover.len() && cover[k].start < iv.end
        })
    };
    let mut sub: Vec<Buffer> = rip
        .iter()
        .map(|&b| {
            let mut c = bufs[b].clone();
            c.fixed_offset = None;
            c
        })
        .collect();
    let mut ri = 0;
    for (b, buf) in bufs.iter().enumerate() {
        if ri < rip.len() && rip[ri] == b {
            ri += 1;
            continue;
        }
        if hits(buf) {
            let mut c = buf.clone();
            c.fixed_offset = Some(cur[b]);
            sub.push(c);
        }
    }
    let sp = Problem::new(sub);
    let m = Model::build(&sp);
    let fits = |offs: &[u64]| (0..m.n()).all(|k| offs[k].saturating_add(m.size[k]) <= cap);
    // Movable ids in `m` are 0..rip.len() in order (they come first in `sp`).
    let orders = super::orders(&m);
    let mut seqs: Vec<Vec<u32>> = orders
        .iter()
        .filter(|o| o.rerank)
        .map(|o| {
            let mut s: Vec<u32> = (0..m.n() as u32).collect();
            s.sort_by_key(|&b| o.rank[b as usize]);
            s
        })
        .collect();
    for _ in 0..3 {
        let mut s: Vec<u32> = (0..m.n() as u32).collect();
        for i in (1..s.len()).rev() {
            s.swap(i, rng.below(i + 1));
        }
        seqs.push(s);
    }
    for s in &seqs {
        *nodes += 1;
        let offs = super::greedy(&m, s);
        if fits(&offs) {
            return Some(offs);
        }
    }
    let mut search = Search::new(&m);
    search.deadline = deadline;
    for order in orders.iter().take(2) {
        search.node_stop = search.nodes + SUB_NODES;
        let st = search.decide(cap, order);
        if st == Status::Found {
            *nodes += search.nodes;
            return Some(search.sol.clone());
        }
        if st != Status::NodeLimit {
            break;
        }
    }
    *nodes += search.nodes;
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::check_offsets;

    #[test]
    fn rip_up_repairs_a_stacked_plan_and_keeps_it_valid() {
        // Two overlapping chains, stacked naively: every buffer could drop lower.
        let mut bufs = Vec::new();
        for i in 0..30u64 {
            bufs.push(Buffer::new(10 + i % 7, i, i + 2));
        }
        bufs.push(Buffer::new(5, 0, 40).fixed_at(0));
        let p = Problem::new(bufs);
        let mut start = Vec::new();
        let mut y = 5;
        for b in &p.buffers {
            if let Some(o) = b.fixed_offset {
                start.push(o);
            } else {
                start.push(y);
                y += b.size;
            }
        }
        check_offsets(&p, &start).expect("valid start");
        let lb = crate::bounds::max_load(&p);
        let mut nodes = 0;
        let got = improve(&p, start.clone(), lb, None, 100_000, &mut nodes);
        check_offsets(&p, &got).expect("valid result");
        assert!(peak(&p, &got) < peak(&p, &start));
        assert!(peak(&p, &got) <= lb + 16, "{} vs {lb}", peak(&p, &got));
        assert!(nodes <= 100_000 + 64);
    }

    #[test]
    fn busiest_tick_is_the_first_with_the_largest_load() {
        let p = Problem::new(vec![
            Buffer::new(4, 0, 10),
            Buffer::new(3, 2, 5),
            Buffer::new(3, 7, 9),
            Buffer::new(1, 8, 9),
        ]);
        let prof = LoadProfile::new(&p);
        assert_eq!(prof.busiest(0, 10), 8);
        assert_eq!(prof.busiest(0, 7), 2);
        assert_eq!(prof.busiest(3, 6), 3);
        assert_eq!(prof.busiest(5, 7), 5);
    }

    #[test]
    fn window_takes_the_nearest_first_uses_and_the_co_live_offenders() {
        // Starts 0, 10, 11, 12, 30; buffer 5 = [0, 40) sits above the target.
        let mut bufs: Vec<Buffer> = [0u64, 10, 11, 12, 30]
            .iter()
            .map(|&s| Buffer::new(1, s, s + 2))
            .collect();
        bufs.push(Buffer::new(1, 0, 40));
        let p = Problem::new(bufs);
        let cur = vec![0, 0, 1, 2, 0, 9];
        let mut by_start: Vec<(u64, usize)> = (0..6).map(|b| (p.buffers[b].start(), b)).collect();
        by_start.sort_unstable();
        // Around tick 11, three buffers: 11 itself, then 10 and 12 (ties go up
        // first, then down); the offender 5 comes along.
        assert_eq!(
            window_rip(&p, &cur, &by_start, 2, 11, 5, 3),
            vec![1, 2, 3, 5]
        );
        // Around tick 30 with k = 1: buffer 4, plus offender 4 itself.
        assert_eq!(window_rip(&p, &cur, &by_start, 4, 30, 5, 1), vec![4, 5]);
    }
}
