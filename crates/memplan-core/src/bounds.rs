//! Lower bounds on the peak of any valid plan.
//!
//! The max-load bound: at every tick, all live buffers of a space must fit side
//! by side, so the peak of that space is at least the largest total size live at
//! one moment. It ignores alignment and fixed offsets except that a fixed buffer
//! forces the peak to at least its own top.
//!
//! Sums are taken in `u128`; a bound above `u64::MAX` (a problem that
//! [`Problem::validate`] rejects) is reported as `u64::MAX`, which is still a
//! valid lower bound for any plan with 64-bit offsets.

use crate::problem::{MemSpace, Problem};

/// The max-load lower bound of each space, sorted by space.
pub fn max_load_per_space(problem: &Problem) -> Vec<(MemSpace, u64)> {
    problem
        .spaces()
        .into_iter()
        .map(|space| (space, max_load_of_space(problem, space)))
        .collect()
}

/// The max-load lower bound of the whole problem (max over spaces).
pub fn max_load(problem: &Problem) -> u64 {
    max_load_per_space(problem)
        .into_iter()
        .map(|(_, lb)| lb)
        .max()
        .unwrap_or(0)
}

fn max_load_of_space(problem: &Problem, space: MemSpace) -> u64 {
    // Events: +size at start, -size at end; ends sort before starts at the same tick
    // because intervals are half-open.
    let mut events: Vec<(u64, bool, u64)> = Vec::new();
    let mut fixed_top = 0u128;
    for b in problem.buffers.iter().filter(|b| b.space == space) {
        for iv in &b.live {
            events.push((iv.start, true, b.size));
            events.push((iv.end, false, b.size));
        }
        if let Some(off) = b.fixed_offset {
            fixed_top = fixed_top.max(off as u128 + b.size as u128);
        }
    }
    events.sort_unstable();
    let (mut cur, mut best) = (0u128, 0u128);
    for (_, is_start, size) in events {
        if is_start {
            cur += size as u128;
            best = best.max(cur);
        } else {
            cur -= size as u128;
        }
    }
    u64::try_from(best.max(fixed_top)).unwrap_or(u64::MAX)
}

/// The live load (total bytes) at every tick where it changes, for one space:
/// `(tick, bytes live from this tick until the next entry)`.
pub fn load_profile(problem: &Problem, space: MemSpace) -> Vec<(u64, u64)> {
    let mut events: Vec<(u64, i128)> = Vec::new();
    for b in problem.buffers.iter().filter(|b| b.space == space) {
        for iv in &b.live {
            events.push((iv.start, b.size as i128));
            events.push((iv.end, -(b.size as i128)));
        }
    }
    events.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::new();
    let mut cur: i128 = 0;
    let mut i = 0;
    while i < events.len() {
        let t = events[i].0;
        while i < events.len() && events[i].0 == t {
            cur += events[i].1;
            i += 1;
        }
        out.push((t, u64::try_from(cur).unwrap_or(u64::MAX)));
    }
    out
}
