//! Soundness of the window-relaxation lower bound (`exact::deep_bound`): on
//! random small problems it never exceeds the optimum (found by brute force
//! over offsets, or proved by `--algo exact`), and it rises above the
//! max-load bound on some of them, also through windows narrower than the
//! whole problem.

use memplan_core::algo::exact::{deep_bound, DeepOptions};
use memplan_core::{bounds, plan, Algorithm, Buffer, Interval, MemSpace, Options, Problem};

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
        x.space != y.space || !x.overlaps_in_time(y) || o + x.size <= oj || oj + y.size <= o
    })
}

/// The optimum by trying every aligned offset of every buffer below the best
/// peak so far (independent of the planners), starting from `start`, a peak
/// known to be reachable plus one (any larger value gives the same answer).
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

/// A reachable peak plus one: that of a checked `exact` plan (the brute force
/// then finds the optimum whether or not that plan is optimal).
fn start(p: &Problem) -> u64 {
    let mut o = Options::with_algorithm(Algorithm::Exact);
    o.node_limit = Some(100_000);
    plan(p, &o).expect("plans").peak() + 1
}

/// Staircases of short buffers over a dozen ticks: holes are often forced.
fn random_problem(rng: &mut Rng, n: usize, rich: bool) -> Problem {
    let mut bufs: Vec<Buffer> = Vec::new();
    for _ in 0..n {
        let s = rng.below(10);
        let mut b = Buffer::new(1 + rng.below(6), s, s + 1 + rng.below(4));
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

fn opts(max_sections: usize) -> DeepOptions {
    DeepOptions {
        max_sections,
        rounds: 8,
        ..DeepOptions::default()
    }
}

#[test]
fn never_above_the_brute_force_optimum() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut above, mut above_narrow) = (0, 0);
    for case in 0..400 {
        let n = 4 + (case % 3);
        let p = random_problem(&mut rng, n, case % 2 == 1);
        let opt = brute(&p, start(&p));
        let lb = bounds::max_load(&p);
        for w in [2, 3, 64] {
            let d = &deep_bound(&p, &opts(w))[0];
            assert!(
                d.bound <= opt,
                "case {case}, windows of {w}: bound {} above the optimum {opt}: {p:?} {d:?}",
                d.bound
            );
            assert!(d.bound >= d.max_load && d.max_load >= lb);
            if d.bound > d.max_load {
                let proof = d
                    .proof
                    .as_ref()
                    .expect("a bound above max-load has a proof");
                assert!(proof.refuted < d.bound && proof.refuted >= d.max_load);
                if w == 64 {
                    above += 1;
                } else {
                    above_narrow += 1;
                }
            } else {
                assert!(d.proof.is_none());
            }
        }
    }
    eprintln!("400 problems: bound above max-load on {above} (windows up to 64 sections), on {above_narrow} of 800 runs with windows of 2 or 3 sections");
    // The bound is not max-load in disguise.
    assert!(above >= 10, "only {above} problems above max-load");
    assert!(above_narrow >= 10, "only {above_narrow} (narrow windows)");
}

#[test]
fn never_above_the_proved_exact_optimum_on_larger_problems() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut above, mut proved) = (0, 0);
    for case in 0..120 {
        let n = 10 + (case % 9);
        let p = random_problem(&mut rng, n, case % 3 == 0);
        let mut o = Options::with_algorithm(Algorithm::Exact);
        o.node_limit = Some(200_000);
        let r = plan(&p, &o).expect("plans");
        let d = &deep_bound(&p, &opts(4))[0];
        // Any plan's peak is an upper bound on the optimum.
        assert!(
            d.bound <= r.peak(),
            "case {case}: bound {} above a plan's peak {}: {p:?}",
            d.bound,
            r.peak()
        );
        if r.optimal {
            proved += 1;
            if d.bound > d.max_load {
                above += 1;
            }
        }
    }
    eprintln!("120 problems: {proved} proved by exact, bound above max-load on {above} of those");
    assert!(proved >= 100, "only {proved} proved");
    assert!(above >= 5, "only {above} above max-load");
}

#[test]
fn spaces_are_bounded_separately() {
    // Space 0: a staircase of load 3; space 1: one buffer of 5 bytes. Treating
    // both as one arena would not be a relaxation (its bound would be 8).
    let mut bufs = vec![
        Buffer::new(2, 0, 2),
        Buffer::new(1, 1, 3),
        Buffer::new(2, 2, 4),
        Buffer::new(1, 0, 1),
        Buffer::new(1, 3, 4),
    ];
    bufs.push(Buffer::new(5, 0, 4).in_space(MemSpace(1)));
    let p = Problem::new(bufs);
    let all = deep_bound(&p, &DeepOptions::default());
    assert_eq!(all.len(), 2);
    for d in &all {
        let sub = Problem::new(
            p.buffers
                .iter()
                .filter(|b| b.space == d.space)
                .cloned()
                .collect(),
        );
        assert!(d.bound <= brute(&sub, start(&sub)), "{d:?}");
    }
    assert_eq!(all[1].bound, 5);
}

#[test]
fn empty_and_all_fixed() {
    assert!(deep_bound(&Problem::new(Vec::new()), &DeepOptions::default()).is_empty());
    let p = Problem::new(vec![Buffer::new(4, 0, 3).fixed_at(2)]);
    let d = &deep_bound(&p, &DeepOptions::default())[0];
    assert_eq!((d.bound, d.max_load), (6, 6));
}
