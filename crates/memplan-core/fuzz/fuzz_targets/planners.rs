//! Planner fuzzing in the style of regalloc2's checker fuzzing: random problems
//! (lifetimes with holes, alignments, fixed offsets, memory spaces, capacities,
//! byte counts up to the 64-bit edge) through every algorithm, and every result
//! judged by oracles that trust no planner:
//!
//! - a plan returned by `plan()` passes the independent checker, its peaks are
//!   at least the max-load bound, and `optimal` is believed only if no other
//!   algorithm found a lower peak in any space;
//! - an error is either a rejection that `Problem::validate` agrees with, a
//!   capacity failure, or a proof of infeasibility that no other algorithm
//!   contradicts with a plan that fits; never `FailedCheck`;
//! - `exact` under a node budget returns the same plan twice;
//! - no arithmetic overflow anywhere (cargo-fuzz builds with overflow checks).
#![no_main]

use libfuzzer_sys::fuzz_target;
use memplan_core::{
    bounds, check, plan, Algorithm, Buffer, Interval, MemSpace, Options, Plan, PlanError, Problem,
};

/// Reads the fuzzer's bytes as a stream of small numbers (zeros once exhausted).
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn below(&mut self, n: u64) -> u64 {
        let v = u16::from_le_bytes([self.byte(), self.byte()]) as u64;
        v % n.max(1)
    }
}

/// A byte count: mostly small, sometimes large or right at the 64-bit edge.
fn size(r: &mut Bytes) -> u64 {
    match r.byte() % 16 {
        0 => 1u64 << (40 + r.below(24)),
        1 => (1u64 << (60 + r.below(4))) - r.below(3),
        2 => u64::MAX - r.below(4),
        3..=5 => 1 + r.below(4096),
        _ => 1 + r.below(64),
    }
}

fn problem(r: &mut Bytes) -> Problem {
    let n = 1 + r.below(20) as usize;
    let spaces = 1 + r.below(3) as u32;
    let horizon = 4 + r.below(28);
    let mut buffers = Vec::with_capacity(n);
    for _ in 0..n {
        let size = size(r);
        let align = match r.byte() % 8 {
            0 => 1u64 << r.below(64),
            1..=3 => 1u64 << r.below(7),
            _ => 1,
        };
        let pieces = 1 + r.below(3);
        let live: Vec<Interval> = (0..pieces)
            .map(|_| {
                let s = r.below(horizon);
                Interval::new(s, s + 1 + r.below(8))
            })
            .collect();
        let mut b = Buffer::new(size, 0, 1)
            .with_live(live)
            .with_align(align)
            .in_space(MemSpace(r.below(spaces as u64) as u32));
        if r.byte() % 8 == 0 {
            // A fixed offset, usually aligned and small (fixed collisions are rejected).
            let off = r.below(256).saturating_mul(align.min(1 << 16));
            b = b.fixed_at(off);
        }
        buffers.push(b);
    }
    let mut p = Problem::new(buffers);
    p.capacity = match r.byte() % 4 {
        0 => {
            let lb = bounds::max_load(&p);
            Some(lb.saturating_add(r.below(64)))
        }
        1 => Some(r.below(1 << 12)),
        _ => None,
    };
    p
}

fn opts(a: Algorithm) -> Options {
    let mut o = Options::with_algorithm(a);
    // Deterministic: node budgets only, never a time limit.
    o.node_limit = Some(3_000);
    o
}

fuzz_target!(|data: &[u8]| {
    let mut r = Bytes(data);
    let p = problem(&mut r);
    let valid = p.validate();
    let results: Vec<(Algorithm, Result<Plan, PlanError>)> = Algorithm::ALL
        .into_iter()
        .map(|a| (a, plan(&p, &opts(a))))
        .collect();
    let lbs = bounds::max_load_per_space(&p);
    for (a, res) in &results {
        match res {
            Ok(plan) => {
                assert!(
                    valid.is_ok(),
                    "{a}: planned a problem validate rejects: {valid:?}"
                );
                check(&p, plan).unwrap_or_else(|e| panic!("{a}: plan fails the checker: {e}"));
                for &(s, lb) in &lbs {
                    assert!(plan.peak_of(s) >= lb, "{a}: space {s:?} below its bound");
                }
                if plan.optimal {
                    for (b, other) in &results {
                        if let Ok(o) = other {
                            for &(s, _) in &lbs {
                                assert!(
                                    plan.peak_of(s) <= o.peak_of(s),
                                    "{a} claims optimal in {s:?} at {}, {b} found {}",
                                    plan.peak_of(s),
                                    o.peak_of(s)
                                );
                            }
                        }
                    }
                }
            }
            Err(PlanError::Invalid(e)) => {
                assert_eq!(
                    valid.as_ref().err(),
                    Some(e),
                    "{a}: rejection differs from validate"
                );
            }
            Err(PlanError::Infeasible {
                space, capacity, ..
            }) => {
                assert!(valid.is_ok());
                for (b, other) in &results {
                    if let Ok(o) = other {
                        assert!(
                            o.peak_of(MemSpace(*space)) > *capacity,
                            "{a} proved space {space} infeasible at {capacity}; {b} fits it"
                        );
                    }
                }
            }
            Err(PlanError::DoesNotFit { .. }) => assert!(valid.is_ok()),
            Err(e @ PlanError::FailedCheck { .. }) => panic!("{a}: {e}"),
        }
    }
    // Node-budgeted exact is deterministic.
    let again = plan(&p, &opts(Algorithm::Exact));
    let first = &results
        .iter()
        .find(|(a, _)| *a == Algorithm::Exact)
        .unwrap()
        .1;
    assert_eq!(&again, first, "exact differs between two runs");
});
