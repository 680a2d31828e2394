//! Shared placement primitives: given the byte ranges already taken by buffers
//! that are live at the same time as the one being placed, find an offset for it.

/// A taken byte range `[lo, hi)`.
pub type Range = (u64, u64);

/// Which gap to choose among those that fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// The lowest offset that fits.
    First,
    /// The smallest gap that fits (ties: lowest); above all ranges if none does.
    Best,
}

/// Finds an offset for a buffer of `size` bytes aligned to `align`, clear of all
/// `taken` ranges (in any order, may overlap each other). `taken` is sorted in place.
pub fn find_offset(taken: &mut [Range], size: u64, align: u64, fit: Fit) -> u64 {
    taken.sort_unstable();
    let mut best: Option<(u64, u64)> = None; // (gap size, offset)
    let mut cursor = 0u64; // lowest free byte so far
    for &(lo, hi) in taken.iter() {
        if lo > cursor {
            let off = cursor.next_multiple_of(align.max(1));
            if off + size <= lo {
                let gap = lo - cursor;
                match fit {
                    Fit::First => return off,
                    Fit::Best => {
                        if best.is_none_or(|(g, _)| gap < g) {
                            best = Some((gap, off));
                        }
                    }
                }
            }
        }
        cursor = cursor.max(hi);
    }
    match best {
        Some((_, off)) => off,
        None => cursor.next_multiple_of(align.max(1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_and_best_fit() {
        let mut t = vec![(0, 8), (24, 32), (40, 48)];
        assert_eq!(find_offset(&mut t, 8, 1, Fit::First), 8);
        assert_eq!(find_offset(&mut t, 8, 1, Fit::Best), 32);
        assert_eq!(find_offset(&mut t, 16, 1, Fit::Best), 8);
        assert_eq!(find_offset(&mut t, 17, 1, Fit::First), 48);
        assert_eq!(find_offset(&mut t, 8, 16, Fit::First), 16);
    }
}
