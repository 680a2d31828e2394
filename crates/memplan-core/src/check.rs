//! An independent checker for plans, written apart from every planner and
//! trusting nothing they computed (regalloc2's `checker.rs` idea).
//!
//! It recomputes everything from the [`Problem`] and the raw offsets: offsets
//! count, alignment, fixed offsets, capacity, the peaks the plan claims, and —
//! by a sweep over time with the live buffers ordered by address — that no two
//! buffers live at the same tick share a byte.

use std::collections::BTreeMap;

use crate::plan::Plan;
use crate::problem::{BufferId, MemSpace, Problem};

/// A rule a plan breaks.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// The plan does not have one offset per buffer.
    #[error("plan has {got} offsets for {want} buffers")]
    WrongLength {
        /// Offsets in the plan.
        got: usize,
        /// Buffers in the problem.
        want: usize,
    },
    /// An offset that is not a multiple of the buffer's alignment.
    #[error("buffer {0} at offset {1} breaks its alignment {2}")]
    Misaligned(BufferId, u64, u64),
    /// A fixed buffer moved.
    #[error("buffer {0} must stay at offset {1} but was placed at {2}")]
    FixedMoved(BufferId, u64, u64),
    /// offset + size overflows.
    #[error("buffer {0}: offset + size overflows")]
    Overflow(BufferId),
    /// A buffer ends above the capacity.
    #[error("buffer {0} ends at {1}, above the capacity {2}")]
    OverCapacity(BufferId, u64, u64),
    /// Two buffers live at the same tick share bytes.
    #[error("buffers {a} and {b} are both live at tick {tick} and overlap in memory")]
    Overlap {
        /// One buffer.
        a: BufferId,
        /// The other buffer.
        b: BufferId,
        /// A tick where both are live.
        tick: u64,
    },
    /// The plan's stated peak is not the real one.
    #[error("plan claims peak {claimed} for space {space:?}, the offsets give {actual}")]
    WrongPeak {
        /// The space.
        space: MemSpace,
        /// What the plan says.
        claimed: u64,
        /// What the offsets give.
        actual: u64,
    },
}

/// Checks `offsets` against `problem`; returns the peak of each space on success.
pub fn check_offsets(
    problem: &Problem,
    offsets: &[u64],
) -> Result<Vec<(MemSpace, u64)>, CheckError> {
    check_offsets_within(problem, offsets, problem.capacity)
}

/// Like [`check_offsets`] but ignoring `problem.capacity`: only alignment, fixed
/// offsets, overflow and overlaps (how the portfolio checks its members, whose
/// plans may legitimately exceed a capacity that the caller then reports).
pub fn check_placement(
    problem: &Problem,
    offsets: &[u64],
) -> Result<Vec<(MemSpace, u64)>, CheckError> {
    check_offsets_within(problem, offsets, None)
}

fn check_offsets_within(
    problem: &Problem,
    offsets: &[u64],
    capacity: Option<u64>,
) -> Result<Vec<(MemSpace, u64)>, CheckError> {
    if offsets.len() != problem.buffers.len() {
        return Err(CheckError::WrongLength {
            got: offsets.len(),
            want: problem.buffers.len(),
        });
    }
    let mut peaks: BTreeMap<MemSpace, u64> = BTreeMap::new();
    for (i, (b, &off)) in problem.buffers.iter().zip(offsets).enumerate() {
        let id = BufferId(i as u32);
        if b.align > 1 && off % b.align != 0 {
            return Err(CheckError::Misaligned(id, off, b.align));
        }
        if let Some(fixed) = b.fixed_offset {
            if fixed != off {
                return Err(CheckError::FixedMoved(id, fixed, off));
            }
        }
        let top = off.checked_add(b.size).ok_or(CheckError::Overflow(id))?;
        if let Some(cap) = capacity {
            if top > cap {
                return Err(CheckError::OverCapacity(id, top, cap));
            }
        }
        let p = peaks.entry(b.space).or_insert(0);
        *p = (*p).max(top);
    }
    // Sweep: events (tick, kind, buffer); ends (kind 0) before starts (kind 1) at one tick.
    let mut events: Vec<(u64, u8, u32)> = Vec::new();
    for (i, b) in problem.buffers.iter().enumerate() {
        for iv in &b.live {
            if iv.start < iv.end {
                events.push((iv.start, 1, i as u32));
                events.push((iv.end, 0, i as u32));
            }
        }
    }
    events.sort_unstable();
    // Per space: live buffers keyed by (offset, id) -> end address.
    let mut live: BTreeMap<(MemSpace, u64, u32), u64> = BTreeMap::new();
    for (tick, kind, i) in events {
        let b = &problem.buffers[i as usize];
        let off = offsets[i as usize];
        let key = (b.space, off, i);
        if kind == 0 {
            live.remove(&key);
            continue;
        }
        let top = off + b.size;
        // The buffer just below (or at) this offset must end at or before `off`.
        if let Some((&(s, _, j), &end)) = live.range(..key).next_back() {
            if s == b.space && end > off {
                return Err(overlap(i, j, tick));
            }
        }
        // The buffer just above must start at or after `top`.
        if let Some((&(s, o, j), _)) = live.range(key..).next() {
            if s == b.space && o < top {
                return Err(overlap(i, j, tick));
            }
        }
        live.insert(key, top);
    }
    Ok(peaks.into_iter().collect())
}

fn overlap(a: u32, b: u32, tick: u64) -> CheckError {
    let (a, b) = (a.min(b), a.max(b));
    CheckError::Overlap {
        a: BufferId(a),
        b: BufferId(b),
        tick,
    }
}

/// Checks a whole [`Plan`]: its offsets and the peaks it claims.
pub fn check(problem: &Problem, plan: &Plan) -> Result<(), CheckError> {
    let actual = check_offsets(problem, &plan.offsets)?;
    for &(space, actual_peak) in &actual {
        let claimed = plan.peak_of(space);
        if claimed != actual_peak {
            return Err(CheckError::WrongPeak {
                space,
                claimed,
                actual: actual_peak,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Buffer;

    #[test]
    fn touching_lifetimes_may_share() {
        let p = Problem::new(vec![Buffer::new(8, 0, 2), Buffer::new(8, 2, 4)]);
        assert_eq!(check_offsets(&p, &[0, 0]).unwrap(), vec![(MemSpace(0), 8)]);
    }

    #[test]
    fn co_live_overlap_is_caught() {
        let p = Problem::new(vec![Buffer::new(8, 0, 3), Buffer::new(8, 2, 4)]);
        assert!(matches!(
            check_offsets(&p, &[0, 4]),
            Err(CheckError::Overlap { tick: 2, .. })
        ));
        assert!(check_offsets(&p, &[0, 8]).is_ok());
    }

    #[test]
    fn holes_allow_sharing() {
        let a = Buffer::new(8, 0, 1)
            .with_live(vec![crate::Interval::new(0, 2), crate::Interval::new(6, 8)]);
        let b = Buffer::new(8, 2, 6);
        let c = Buffer::new(8, 5, 7);
        let p = Problem::new(vec![a, b, c]);
        assert!(check_offsets(&p, &[0, 0, 8]).is_ok());
        assert!(check_offsets(&p, &[0, 8, 0]).is_err());
    }

    #[test]
    fn alignment_fixed_capacity_and_spaces() {
        let mut p = Problem::new(vec![
            Buffer::new(8, 0, 4).with_align(16),
            Buffer::new(8, 0, 4).fixed_at(32),
            Buffer::new(8, 0, 4).in_space(MemSpace(3)),
        ]);
        assert!(matches!(
            check_offsets(&p, &[8, 32, 0]),
            Err(CheckError::Misaligned(..))
        ));
        assert!(matches!(
            check_offsets(&p, &[0, 16, 0]),
            Err(CheckError::FixedMoved(..))
        ));
        // Different spaces never collide.
        assert_eq!(
            check_offsets(&p, &[0, 32, 0]).unwrap(),
            vec![(MemSpace(0), 40), (MemSpace(3), 8)]
        );
        p.capacity = Some(39);
        assert!(matches!(
            check_offsets(&p, &[0, 32, 0]),
            Err(CheckError::OverCapacity(..))
        ));
    }
}
