//! Cross-algorithm property tests: every planner, on generated problems, must
//! produce plans the independent checker accepts (regalloc2's fuzz-with-checker
//! idea, ARCHITECTURE.md traits 2 and 3), never below the max-load lower bound,
//! the same plan twice, and claims of optimality or infeasibility that no other
//! planner contradicts.
//!
//! Problems mix sizes, power-of-two alignments, lifetimes with holes, two
//! memory spaces and fixed offsets (repaired so that fixed buffers never
//! collide). `exact` runs only on small problems with a node budget, so the
//! whole file stays fast in debug builds.

use memplan_core::{
    bounds, check, plan, Algorithm, Buffer, Interval, MemSpace, Options, Plan, PlanError, Problem,
};
use proptest::prelude::*;

/// The largest problem `exact` is run on.
const EXACT_MAX_BUFFERS: usize = 7;
/// The node budget of `exact` here (deterministic, unlike a time limit).
const EXACT_NODES: u64 = 2_000;

/// One generated buffer before fixed offsets are repaired.
#[derive(Clone, Debug)]
struct Spec {
    size: u64,
    align: u64,
    live: Vec<Interval>,
    space: u32,
    fixed_slot: Option<u64>,
}

fn spec() -> impl Strategy<Value = Spec> {
    let size = prop_oneof![4 => 1u64..=16, 3 => 1u64..=256, 1 => 1000u64..=5000];
    let align = prop::sample::select(vec![1u64, 1, 2, 4, 8, 16, 64]);
    // A first interval, and with some chance a second one after a hole.
    let live = (
        0u64..24,
        1u64..8,
        prop::option::weighted(0.3, (1u64..5, 1u64..6)),
    )
        .prop_map(|(start, len, hole)| {
            let mut v = vec![Interval::new(start, start + len)];
            if let Some((gap, len2)) = hole {
                let s2 = start + len + gap;
                v.push(Interval::new(s2, s2 + len2));
            }
            v
        });
    let space = prop::sample::select(vec![0u32, 0, 0, 1]);
    let fixed = prop::option::weighted(0.2, 0u64..12);
    (size, align, live, space, fixed).prop_map(|(size, align, live, space, fixed_slot)| Spec {
        size,
        align,
        live,
        space,
        fixed_slot,
    })
}

/// Builds the problem; a fixed offset that would collide with an earlier fixed buffer is dropped.
fn build(specs: &[Spec]) -> Problem {
    let mut buffers: Vec<Buffer> = Vec::new();
    for s in specs {
        let mut b = Buffer::new(s.size, 0, 1)
            .with_align(s.align)
            .in_space(MemSpace(s.space))
            .with_live(s.live.clone());
        if let Some(slot) = s.fixed_slot {
            let off = slot * s.align.max(8);
            let collides = buffers.iter().any(|o| {
                o.fixed_offset.is_some_and(|oo| {
                    o.space == b.space
                        && o.overlaps_in_time(&b)
                        && oo < off + b.size
                        && off < oo + o.size
                })
            });
            if !collides {
                b.fixed_offset = Some(off);
            }
        }
        buffers.push(b);
    }
    Problem::new(buffers)
}

fn problem(max: usize) -> impl Strategy<Value = Problem> {
    prop::collection::vec(spec(), 0..=max).prop_map(|s| build(&s))
}

/// The algorithms to run on a problem of `n` buffers, with their options.
fn runs(n: usize) -> Vec<Options> {
    Algorithm::ALL
        .into_iter()
        .filter(|&a| a != Algorithm::Exact || n <= EXACT_MAX_BUFFERS)
        .map(|a| Options {
            node_limit: (a == Algorithm::Exact).then_some(EXACT_NODES),
            ..Options::with_algorithm(a)
        })
        .collect()
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(48))]

    /// Valid, above the bound, deterministic, and optimality claims consistent.
    #[test]
    fn every_algorithm_gives_checked_deterministic_plans(p in problem(12)) {
        prop_assert!(p.validate().is_ok());
        let lbs = bounds::max_load_per_space(&p);
        let mut plans: Vec<(Algorithm, Plan)> = Vec::new();
        for opts in runs(p.len()) {
            let a = opts.algorithm;
            let first = plan(&p, &opts);
            prop_assert!(first.is_ok(), "{a}: {:?}", first);
            let first = first.unwrap();
            prop_assert_eq!(check::check(&p, &first), Ok(()), "{}", a);
            prop_assert!(first.peak() >= bounds::max_load(&p), "{a} below the bound");
            for &(space, lb) in &lbs {
                prop_assert!(first.peak_of(space) >= lb, "{a} below the bound in {space:?}");
            }
            let second = plan(&p, &opts).unwrap();
            prop_assert_eq!(&first, &second, "{} is not deterministic", a);
            plans.push((a, first));
        }
        // A plan proved optimal is at least as good as any other plan, space by space.
        for (a, best) in plans.iter().filter(|(_, pl)| pl.optimal) {
            for (b, other) in &plans {
                for &(space, _) in &lbs {
                    prop_assert!(
                        best.peak_of(space) <= other.peak_of(space),
                        "{a} claims optimal with {} in {space:?} but {b} found {}",
                        best.peak_of(space),
                        other.peak_of(space)
                    );
                }
            }
        }
    }

    /// With a capacity: a plan that fits passes the checker (capacity included),
    /// a "does not fit" really does not, and "infeasible" is never contradicted.
    #[test]
    fn capacities_are_respected_or_reported(p in problem(10), frac in 0.0f64..1.2) {
        let lb = bounds::max_load(&p);
        let naive = plan(&p, &Options::with_algorithm(Algorithm::Naive)).unwrap().peak();
        // From a bit below the bound up to a bit above the naive peak.
        let cap = ((lb as f64 * 0.9) + (naive as f64 - lb as f64 * 0.9) * frac) as u64;
        let mut p = p;
        p.capacity = Some(cap);
        let mut fits = Vec::new();
        let mut infeasible = Vec::new();
        for opts in runs(p.len()) {
            let a = opts.algorithm;
            match plan(&p, &opts) {
                Ok(pl) => {
                    prop_assert_eq!(check::check(&p, &pl), Ok(()), "{}", a);
                    fits.push(a);
                }
                Err(PlanError::DoesNotFit { peak, capacity, .. }) => {
                    prop_assert_eq!(capacity, cap);
                    prop_assert!(peak > cap && peak >= lb, "{a}: peak {peak} cap {cap}");
                }
                Err(PlanError::Infeasible { capacity, .. }) => {
                    prop_assert_eq!(capacity, cap);
                    infeasible.push(a);
                }
                Err(e) => prop_assert!(false, "{a}: {e}"),
            }
        }
        if cap < lb {
            prop_assert!(fits.is_empty(), "{fits:?} fit below the lower bound");
        }
        if cap >= naive {
            prop_assert!(fits.contains(&Algorithm::Naive));
        }
        prop_assert!(
            fits.is_empty() || infeasible.is_empty(),
            "{infeasible:?} proved infeasible but {fits:?} fit"
        );
    }
}

/// The generator does produce the features the properties are about.
#[test]
fn generator_covers_holes_spaces_alignment_and_fixed() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut holes, mut spaces, mut aligned, mut fixed) = (0, 0, 0, 0);
    for _ in 0..50 {
        let p = problem(12).new_tree(&mut runner).unwrap().current();
        assert!(p.validate().is_ok());
        holes += p.buffers.iter().filter(|b| b.live.len() > 1).count();
        spaces += usize::from(p.spaces().len() > 1);
        aligned += p.buffers.iter().filter(|b| b.align > 1).count();
        fixed += p
            .buffers
            .iter()
            .filter(|b| b.fixed_offset.is_some())
            .count();
    }
    assert!(holes > 0 && spaces > 0 && aligned > 0 && fixed > 0);
}
