//! Soundness of the subset / rounding / window relaxation lower bound
//! (`exact::relax_bound`): every relaxation keeps every plan of the problem
//! valid (restricted to its buffers, with no larger peak); on random small
//! problems the bound never exceeds the optimum (brute force over offsets, or a
//! plan's peak on larger ones), it rises above the max-load bound on some, also
//! through proper relaxations (the whole problem left out), and it meets the
//! optimum on some (so a bound one unit higher would fail these tests).

use memplan_core::algo::exact::{relax, relax_bound, RelaxOptions};
use memplan_core::{bounds, check_offsets, plan, Algorithm, Buffer, Interval, Options, Problem};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn clear(p: &Problem, placed: &[(usize, u64)], b: usize, o: u64) -> bool {
    let x = &p.buffers[b];
    placed.iter().all(|&(j, oj)| {
        let y = &p.buffers[j];
        !x.overlaps_in_time(y) || o + x.size <= oj || oj + y.size <= o
    })
}

/// The optimum, by trying every aligned offset of every buffer below the best
/// peak so far, from `start` (a reachable peak plus one).
fn brute(p: &Problem, start: u64) -> u64 {
    fn rec(p: &Problem, i: usize, placed: &mut Vec<(usize, u64)>, best: &mut u64) {
        if i == p.len() {
            let peak = placed
                .iter()
                .map(|&(j, o)| o + p.buffers[j].size)
                .max()
                .unwrap_or(0);
            *best = (*best).min(peak);
            return;
        }
        let b = &p.buffers[i];
        let choices: Vec<u64> = match b.fixed_offset {
            Some(o) => vec![o],
            None => (0..)
                .map(|k| k * b.align)
                .take_while(|&o| o + b.size < *best)
                .collect(),
        };
        for o in choices {
            if o + b.size < *best && clear(p, placed, i, o) {
                placed.push((i, o));
                rec(p, i + 1, placed, best);
                placed.pop();
            }
        }
    }
    let mut best = start;
    rec(p, 0, &mut Vec::new(), &mut best);
    best
}

fn exact(p: &Problem, nodes: u64) -> memplan_core::Plan {
    let mut o = Options::with_algorithm(Algorithm::Exact);
    o.node_limit = Some(nodes);
    plan(p, &o).expect("plans")
}

/// Staircases of buffers of mixed sizes (a few large, many small) over a dozen
/// ticks, sometimes with a second live interval, alignments and a fixed block.
fn random_problem(rng: &mut Rng, n: usize, rich: bool) -> Problem {
    let mut bufs: Vec<Buffer> = Vec::new();
    for _ in 0..n {
        let s = rng.below(10);
        let size = if rng.below(3) == 0 {
            4 + rng.below(9)
        } else {
            1 + rng.below(4)
        };
        let mut b = Buffer::new(size, s, s + 1 + rng.below(4));
        if rich && rng.below(4) == 0 {
            let e = b.end();
            b = b.with_live(vec![
                Interval::new(s, e),
                Interval::new(e + 1, e + 2 + rng.below(3)),
            ]);
        }
        if rich {
            b = b.with_align([1, 1, 2, 4][rng.below(4) as usize]);
        }
        bufs.push(b);
    }
    if rich && rng.below(3) == 0 {
        let s = rng.below(10);
        bufs.push(Buffer::new(1 + rng.below(3), s, s + 1 + rng.below(4)).fixed_at(rng.below(5)));
    }
    Problem::new(bufs)
}

fn opts(skip_whole: bool) -> RelaxOptions {
    RelaxOptions {
        rounds: 8,
        first_budget: 256,
        keep: vec![2, 3, 4],
        max_round_factor: 4,
        window_widths: vec![2, 4],
        windows_per_width: 2,
        max_gap: 1.0,
        skip_whole,
        ..RelaxOptions::default()
    }
}

#[test]
fn every_plan_stays_a_plan_of_every_relaxation() {
    let mut rng = Rng(0x51_7cc1_b727_220a);
    let mut checked = 0;
    for case in 0..150 {
        let p = random_problem(&mut rng, 6 + case % 10, case % 2 == 1);
        let r = exact(&p, 20_000);
        let peak = r.peak();
        for _ in 0..6 {
            let (a, b) = (rng.below(8), 8 + rng.below(8));
            let min_size = rng.below(8);
            let round = 1 + rng.below(4);
            let q = relax(&p, a, b, min_size, round);
            // Each relaxed buffer keeps its offset: find it by index in order.
            let mut offs = Vec::new();
            let mut k = 0;
            for (i, x) in p.buffers.iter().enumerate() {
                let kept = x.fixed_offset.is_some() || (x.size >= min_size && x.size >= round);
                if kept && x.live.iter().any(|iv| iv.start < b && iv.end > a) {
                    let y = &q.buffers[k];
                    assert!(
                        y.size <= x.size
                            && (y.fixed_offset.is_some() || y.size.is_multiple_of(round))
                    );
                    assert!(y.live.iter().all(|iv| a <= iv.start && iv.end <= b));
                    offs.push(r.offsets[i]);
                    k += 1;
                }
            }
            assert_eq!(k, q.buffers.len(), "case {case}");
            let spaces = check_offsets(&q, &offs).expect("a plan of the relaxation");
            assert!(spaces.iter().all(|&(_, pk)| pk <= peak));
            checked += 1;
        }
    }
    assert_eq!(checked, 900);
}

#[test]
fn never_above_the_brute_force_optimum() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut above, mut above_proper, mut tight) = (0, 0, 0);
    for case in 0..300 {
        let n = 4 + (case % 3);
        let p = random_problem(&mut rng, n, case % 2 == 1);
        let opt = brute(&p, exact(&p, 100_000).peak() + 1);
        let lb = bounds::max_load(&p);
        for skip in [false, true] {
            let d = &relax_bound(&p, &opts(skip))[0];
            assert!(
                d.bound <= opt,
                "case {case} (skip_whole {skip}): bound {} above the optimum {opt}: {p:?} {d:?}",
                d.bound
            );
            assert!(d.bound >= d.max_load && d.max_load >= lb);
            match &d.proof {
                Some(pr) => {
                    assert!(d.bound > d.max_load && pr.refuted < d.bound);
                    assert!(pr.refuted >= d.max_load);
                    if skip {
                        above_proper += 1;
                    } else {
                        above += 1;
                        tight += usize::from(d.bound == opt);
                    }
                }
                None => assert_eq!(d.bound, d.max_load),
            }
        }
    }
    eprintln!(
        "300 problems: bound above max-load on {above} ({tight} at the optimum), through proper relaxations on {above_proper}"
    );
    assert!(above >= 20, "only {above} above max-load");
    assert!(tight >= 20, "only {tight} at the optimum");
    assert!(
        above_proper >= 5,
        "only {above_proper} through proper relaxations"
    );
}

#[test]
fn never_above_a_plan_on_larger_problems() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut above, mut proper) = (0, 0);
    for case in 0..60 {
        let n = 12 + (case % 12);
        let p = random_problem(&mut rng, n, case % 3 == 0);
        let r = exact(&p, 200_000);
        let mut o = opts(true);
        o.keep = vec![4, 6, 8];
        o.window_widths = vec![3, 6];
        let all = relax_bound(&p, &o);
        // Node budgets only, no deadline: the same bound, proof and counts again.
        if case % 4 == 0 {
            assert_eq!(all, relax_bound(&p, &o), "case {case}: not deterministic");
        }
        let d = &all[0];
        assert!(
            d.bound <= r.peak(),
            "case {case}: bound {} above a plan's peak {}: {p:?}",
            d.bound,
            r.peak()
        );
        if let Some(pr) = &d.proof {
            above += 1;
            let x = &pr.relaxation;
            proper += usize::from(x.min_size > 0 || x.round > d.unit || x.buffers < p.len());
        }
    }
    eprintln!("60 problems: bound above max-load on {above}, {proper} of them by dropping or shrinking buffers");
    assert!(above >= 3, "only {above} above max-load");
    assert!(proper >= 1, "no proof dropped or shrank a buffer");
}

#[test]
fn empty_and_all_fixed() {
    assert!(relax_bound(&Problem::new(Vec::new()), &RelaxOptions::default()).is_empty());
    let p = Problem::new(vec![Buffer::new(4, 0, 3).fixed_at(2)]);
    let d = &relax_bound(&p, &RelaxOptions::default())[0];
    assert_eq!((d.bound, d.max_load), (6, 6));
}
