//! Lower bounds on the peak of any valid plan.
//!
//! The max-load bound: at every tick, all live buffers of a space must fit side
//! by side, so the peak of that space is at least the largest total size live at
//! one moment. It ignores alignment and fixed offsets except that a fixed buffer
//! forces the peak to at least its own top.

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
    let mut fixed_top = 0u64;
    for b in problem.buffers.iter().filter(|b| b.space == space) {
        for iv in &b.live {
            events.push((iv.start, true, b.size));
            events.push((iv.end, false, b.size));
        }
        if let Some(off) = b.fixed_offset {
            fixed_top = fixed_top.max(off.saturating_add(b.size));
        }
    }
    events.sort_unstable();
    let (mut cur, mut best) = (0u64, 0u64);
    for (_, is_start, size) in events {
        if is_start {
            cur += size;
            best = best.max(cur);
        } else {
            cur -= size;
        }
    }
    best.max(fixed_top)
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
        out.push((t, cur as u64));
    }
    out
}
