//! Band moves of the restart phase (issue 11): large-neighbourhood questions
//! asked of the decision search from the best plan so far.
//!
//! A band move asks for a plan one grid unit below the best peak in which only
//! some buffers may move: the *offenders* (tops above the target), the buffers
//! co-live with an offender whose tops lie within `band` units below the target,
//! and, on some moves, a random share of the others. Every other buffer stays
//! where the best plan put it, as a fixed block of the sub-problem, so a plan of
//! the sub-problem is a plan of the whole problem. A refutation only says that
//! this neighbourhood has no such plan: it never raises the lower bound. The band
//! adapts between widths refuted (too few buffers free) and widths that ran out
//! of nodes (too many). After [`SHAKE_AFTER`] failed moves in a row, a *shake*
//! places a random third of the buffers anew at the best peak itself: another plan
//! of the same height to go on from.

use super::restarts::Rng;
use crate::problem::Problem;

/// Node budget of one band move.
pub(crate) const BAND_NODES: u64 = 100_000;
/// Failed band moves in a row before a shake.
pub(crate) const SHAKE_AFTER: u32 = 40;
/// First band width, in grid units.
const FIRST_BAND: u64 = 60;

/// What the band moves have learnt at the current target.
#[derive(Default)]
pub(crate) struct BandState {
    /// Widest band refuted without extras.
    refuted: u64,
    /// Narrowest band that ran out of nodes without extras.
    open: Option<u64>,
    /// Failed moves in a row.
    failed: u32,
}

/// One question: the sub-problem, its capacity, and how to book its answer.
pub(crate) struct Move {
    pub sub: Problem,
    pub cap: u64,
    pub shake: bool,
    band: u64,
    extras: bool,
}

fn co_live(problem: &Problem, a: usize, b: usize) -> bool {
    let (x, y) = (&problem.buffers[a].live, &problem.buffers[b].live);
    x.iter()
        .any(|i| y.iter().any(|j| i.start < j.end && j.start < i.end))
}

impl BandState {
    /// The next question from the plan `best` of peak `hi`, on the grid `unit`.
    pub(crate) fn next_move(
        &self,
        problem: &Problem,
        best: &[u64],
        hi: u64,
        unit: u64,
        rng: &mut Rng,
    ) -> Move {
        let n = problem.buffers.len();
        let top = |i: usize| best[i].saturating_add(problem.buffers[i].size);
        let shake = self.failed >= SHAKE_AFTER;
        let target = hi.saturating_sub(unit);
        let mut free = vec![false; n];
        let (band, extras) = if shake {
            for f in free.iter_mut() {
                *f = rng.below(3) == 0;
            }
            (0, true)
        } else {
            let band = match self.open {
                None => FIRST_BAND.max(self.refuted.saturating_mul(2)),
                Some(open) => {
                    let top_band = open.max(self.refuted + 10);
                    self.refuted + rng.below(top_band - self.refuted + 1)
                }
            };
            // No extras on two moves of five; else 5%, 10% or 20% of the rest.
            let share = [0u64, 0, 5, 10, 20][rng.below(5) as usize];
            let offenders: Vec<usize> = (0..n).filter(|&i| top(i) > target).collect();
            let line = target.saturating_sub(band.saturating_mul(unit));
            for (i, f) in free.iter_mut().enumerate() {
                *f = top(i) > target
                    || (top(i) > line && offenders.iter().any(|&o| co_live(problem, i, o)));
            }
            for f in free.iter_mut() {
                if !*f && share > 0 && rng.below(100) < share {
                    *f = true;
                }
            }
            (band, share > 0)
        };
        let mut sub = problem.clone();
        for (i, b) in sub.buffers.iter_mut().enumerate() {
            if !free[i] && b.fixed_offset.is_none() {
                b.fixed_offset = Some(best[i]);
            }
        }
        Move {
            sub,
            cap: if shake { hi } else { target },
            shake,
            band,
            extras,
        }
    }

    /// Books a move's answer: `Some(true)` a plan below the old peak,
    /// `Some(false)` refuted, `None` out of nodes (a shake's answer only resets
    /// the count of failures).
    pub(crate) fn record(&mut self, m: &Move, answer: Option<bool>) {
        if m.shake {
            self.failed = 0;
            return;
        }
        match answer {
            Some(true) => *self = BandState::default(),
            Some(false) => {
                self.failed += 1;
                if !m.extras {
                    self.refuted = self.refuted.max(m.band);
                    if self.open.is_some_and(|o| o <= self.refuted) {
                        self.open = None;
                    }
                }
            }
            None => {
                self.failed += 1;
                if !m.extras {
                    self.open = Some(self.open.map_or(m.band, |o| o.min(m.band)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::exact::domains;
    use crate::algo::exact::domains::tests::{random_problem, Rng as TestRng};
    use crate::algo::exact::model::Model;
    use crate::algo::exact::restarts::{decide_restarts, Decision, RestartOptions};
    use crate::{check_offsets, plan, Algorithm, Options};

    /// Every band move keeps the buffers it does not free where the plan has
    /// them, frees every offender, and any plan of its sub-problem is a plan of
    /// the whole problem within the move's capacity.
    #[test]
    fn moves_free_the_offenders_and_their_plans_are_plans() {
        let mut trng = TestRng(0xBA2D_5EED_0000_0001);
        let mut rng = Rng(7);
        let (mut moves, mut plans, mut shakes) = (0, 0, 0);
        for case in 0..400 {
            let p = random_problem(&mut trng);
            let Ok(start) = plan(&p, &Options::with_algorithm(Algorithm::Naive)) else {
                continue;
            };
            let mut best = start.offsets.clone();
            let mut hi = start.peak();
            let unit = domains::unit(&Model::build(&p));
            let mut state = BandState::default();
            for step in 0..12 {
                if step == 6 {
                    state.failed = SHAKE_AFTER;
                }
                let m = state.next_move(&p, &best, hi, unit, &mut rng);
                moves += 1;
                for (i, (b, s)) in p.buffers.iter().zip(&m.sub.buffers).enumerate() {
                    let top = best[i] + b.size;
                    match (b.fixed_offset, s.fixed_offset) {
                        (Some(o), so) => assert_eq!(so, Some(o), "case {case}: fixed buffer moved"),
                        (None, Some(o)) => {
                            assert_eq!(
                                o, best[i],
                                "case {case}: kept buffer not where the plan has it"
                            );
                            assert!(m.shake || top <= m.cap, "case {case}: offender kept");
                        }
                        (None, None) => {}
                    }
                }
                assert_eq!(m.cap, if m.shake { hi } else { hi.saturating_sub(unit) });
                shakes += usize::from(m.shake);
                let opts = RestartOptions {
                    seed: case,
                    node_limit: 2_000,
                    ..RestartOptions::default()
                };
                let r = decide_restarts(&m.sub, m.cap, &opts);
                let answer = match r.decision {
                    Decision::Plan(off) => {
                        check_offsets(&p, &off).expect("a sub-problem's plan is a plan");
                        let peak = super::super::peak(&p, &off);
                        assert!(peak <= m.cap, "case {case}: plan above the move's capacity");
                        plans += 1;
                        if peak < hi || m.shake {
                            hi = peak;
                            best = off;
                        }
                        Some(true)
                    }
                    Decision::Infeasible => Some(false),
                    Decision::Unknown => None,
                };
                state.record(&m, answer);
                if m.shake {
                    assert_eq!(state.failed, 0);
                }
            }
        }
        assert!(
            moves > 3000 && plans > 300 && shakes > 300,
            "{moves} moves, {plans} plans, {shakes} shakes"
        );
    }

    /// The band grows past refuted widths and stays between the widest refuted
    /// and the narrowest open one.
    #[test]
    fn band_adapts_between_refuted_and_open_widths() {
        let p = Problem::new(vec![crate::problem::Buffer::new(4, 0, 2)]);
        let mut rng = Rng(3);
        let mut s = BandState::default();
        let m = s.next_move(&p, &[0], 4, 1, &mut rng);
        assert_eq!(m.band, FIRST_BAND);
        let refuted = Move { extras: false, ..m };
        s.record(&refuted, Some(false));
        assert_eq!((s.refuted, s.open, s.failed), (FIRST_BAND, None, 1));
        let m = s.next_move(&p, &[0], 4, 1, &mut rng);
        assert_eq!(m.band, 2 * FIRST_BAND);
        s.record(&Move { extras: false, ..m }, None);
        assert_eq!(s.open, Some(2 * FIRST_BAND));
        for _ in 0..50 {
            let m = s.next_move(&p, &[0], 4, 1, &mut rng);
            assert!((FIRST_BAND..=2 * FIRST_BAND).contains(&m.band));
        }
        // A move with extras says nothing about the width.
        let m = s.next_move(&p, &[0], 4, 1, &mut rng);
        s.record(
            &Move {
                extras: true,
                band: 1000,
                ..m
            },
            Some(false),
        );
        assert_eq!((s.refuted, s.open), (FIRST_BAND, Some(2 * FIRST_BAND)));
        // A plan starts over.
        let m = s.next_move(&p, &[0], 4, 1, &mut rng);
        s.record(&m, Some(true));
        assert_eq!((s.refuted, s.open, s.failed), (0, None, 0));
    }
}
