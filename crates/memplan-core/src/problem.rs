//! The planning problem: buffers with sizes, alignments and lifetimes.
//!
//! A [`Problem`] is plain data. Every lifetime is a set of half-open intervals
//! `[start, end)` on an abstract integer clock: two buffers whose intervals only
//! touch (`a.end == b.start`) are never live at the same moment and may share
//! bytes. A buffer may have holes (several disjoint intervals). Buffers in
//! different memory spaces never interact; each space gets its own arena.

use std::fmt;

/// Index of a buffer inside its [`Problem`] (a typed `u32`, as in regalloc2's `index.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BufferId(pub u32);

impl BufferId {
    /// The position of this buffer in [`Problem::buffers`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for BufferId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b{}", self.0)
    }
}

/// A half-open time interval `[start, end)`; `start < end` in a valid problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Interval {
    /// First tick at which the buffer is live.
    pub start: u64,
    /// First tick at which the buffer is no longer live.
    pub end: u64,
}

impl Interval {
    /// Builds `[start, end)`.
    pub const fn new(start: u64, end: u64) -> Self {
        Interval { start, end }
    }

    /// True when the two half-open intervals share at least one tick.
    pub fn overlaps(&self, other: &Interval) -> bool {
        self.start < other.end && other.start < self.end
    }

    /// Number of ticks covered.
    pub fn len(&self) -> u64 {
        self.end.saturating_sub(self.start)
    }

    /// True when the interval covers no tick.
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
}

/// A memory space (e.g. 0 = global, 3 = GPU workgroup). Buffers in different spaces never share.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MemSpace(pub u32);

/// One buffer to place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// Size in bytes (> 0).
    pub size: u64,
    /// Required alignment of the offset in bytes (a power of two, >= 1).
    pub align: u64,
    /// When the buffer is live: sorted, disjoint, non-touching half-open intervals.
    pub live: Vec<Interval>,
    /// Which arena the buffer goes to.
    pub space: MemSpace,
    /// A pre-assigned offset the planner must keep.
    pub fixed_offset: Option<u64>,
}

impl Buffer {
    /// A buffer of `size` bytes live over `[start, end)`, alignment 1, space 0, not fixed.
    pub fn new(size: u64, start: u64, end: u64) -> Self {
        Buffer {
            size,
            align: 1,
            live: vec![Interval::new(start, end)],
            space: MemSpace(0),
            fixed_offset: None,
        }
    }

    /// Sets the alignment (builder style).
    pub fn with_align(mut self, align: u64) -> Self {
        self.align = align;
        self
    }

    /// Sets the memory space (builder style).
    pub fn in_space(mut self, space: MemSpace) -> Self {
        self.space = space;
        self
    }

    /// Fixes the offset (builder style).
    pub fn fixed_at(mut self, offset: u64) -> Self {
        self.fixed_offset = Some(offset);
        self
    }

    /// Replaces the lifetime with several intervals (builder style); they are normalised.
    pub fn with_live(mut self, live: Vec<Interval>) -> Self {
        self.live = normalize_intervals(live);
        self
    }

    /// Earliest live tick (the start of the first interval), 0 if the lifetime is empty.
    pub fn start(&self) -> u64 {
        self.live.first().map_or(0, |i| i.start)
    }

    /// One past the last live tick (the end of the last interval), 0 if empty.
    pub fn end(&self) -> u64 {
        self.live.last().map_or(0, |i| i.end)
    }

    /// The smallest interval covering the whole lifetime (holes included).
    pub fn hull(&self) -> Interval {
        Interval::new(self.start(), self.end())
    }

    /// Total number of live ticks (holes excluded).
    pub fn duration(&self) -> u64 {
        self.live.iter().map(Interval::len).sum()
    }

    /// True when the two buffers are live at some common tick (holes respected).
    pub fn overlaps_in_time(&self, other: &Buffer) -> bool {
        if !self.hull().overlaps(&other.hull()) {
            return false;
        }
        let (mut i, mut j) = (0, 0);
        while i < self.live.len() && j < other.live.len() {
            let (a, b) = (self.live[i], other.live[j]);
            if a.overlaps(&b) {
                return true;
            }
            if a.end <= b.start {
                i += 1;
            } else {
                j += 1;
            }
        }
        false
    }
}

/// Sorts intervals, drops empty ones and merges overlapping or touching ones.
pub fn normalize_intervals(mut live: Vec<Interval>) -> Vec<Interval> {
    live.retain(|i| !i.is_empty());
    live.sort();
    let mut out: Vec<Interval> = Vec::with_capacity(live.len());
    for iv in live {
        match out.last_mut() {
            Some(last) if iv.start <= last.end => last.end = last.end.max(iv.end),
            _ => out.push(iv),
        }
    }
    out
}

/// A set of buffers to place, with an optional capacity per arena.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Problem {
    /// The buffers; [`BufferId`] `i` is `buffers[i]`.
    pub buffers: Vec<Buffer>,
    /// If set, every arena must fit in this many bytes.
    pub capacity: Option<u64>,
}

/// Why a [`Problem`] is malformed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProblemError {
    /// A buffer of size zero.
    #[error("buffer {0} has size 0")]
    ZeroSize(BufferId),
    /// The alignment is not a power of two.
    #[error("buffer {0} has alignment {1}, which is not a power of two")]
    BadAlign(BufferId, u64),
    /// An empty or reversed lifetime.
    #[error("buffer {0} has an empty lifetime (every interval needs start < end)")]
    EmptyLifetime(BufferId),
    /// Intervals not sorted / overlapping / touching.
    #[error("buffer {0} has intervals that are not sorted and disjoint")]
    UnsortedLifetime(BufferId),
    /// A fixed offset that breaks the buffer's alignment.
    #[error("buffer {0} is fixed at offset {1}, which is not a multiple of its alignment {2}")]
    MisalignedFixed(BufferId, u64, u64),
    /// Two fixed buffers that are co-live and overlap in bytes.
    #[error("fixed buffers {0} and {1} are live at the same time and overlap in memory")]
    FixedCollision(BufferId, BufferId),
    /// offset + size overflows u64.
    #[error("buffer {0}: offset + size overflows")]
    Overflow(BufferId),
    /// The buffers live at one tick need more bytes than a 64-bit offset can address.
    #[error("buffers live at tick {tick} in memory space {space} need at least {bytes} bytes together, more than 2^64 - 1 (when {buffer} starts)")]
    LiveTooLarge {
        /// The space.
        space: u32,
        /// The buffer whose start takes the live total past 2^64 - 1.
        buffer: BufferId,
        /// The tick.
        tick: u64,
        /// The live total once that buffer starts (at least 2^64).
        bytes: u128,
    },
    /// A space whose total demand (every movable size padded by the space's
    /// largest alignment, plus the highest fixed top) reaches 2^63: memplan
    /// plans arenas below 2^63 bytes, half the 64-bit range, so that no
    /// planner's offsets (heuristics may stack buffers anywhere below twice that
    /// total) can overflow.
    #[error("memory space {space} totals {bytes} bytes (sizes padded to the space's largest alignment, plus the highest fixed top); memplan plans arenas below 2^63 bytes (reached at {buffer})")]
    TotalTooLarge {
        /// The space.
        space: u32,
        /// The buffer at which the running total reaches 2^63.
        buffer: BufferId,
        /// The total (at least 2^63).
        bytes: u128,
    },
}

impl Problem {
    /// A problem with these buffers and no capacity.
    pub fn new(buffers: Vec<Buffer>) -> Self {
        Problem {
            buffers,
            capacity: None,
        }
    }

    /// Number of buffers.
    pub fn len(&self) -> usize {
        self.buffers.len()
    }

    /// True when there is nothing to place.
    pub fn is_empty(&self) -> bool {
        self.buffers.is_empty()
    }

    /// Iterates `(id, buffer)`.
    pub fn iter(&self) -> impl Iterator<Item = (BufferId, &Buffer)> {
        self.buffers
            .iter()
            .enumerate()
            .map(|(i, b)| (BufferId(i as u32), b))
    }

    /// The memory spaces used, sorted.
    pub fn spaces(&self) -> Vec<MemSpace> {
        let mut s: Vec<MemSpace> = self.buffers.iter().map(|b| b.space).collect();
        s.sort();
        s.dedup();
        s
    }

    /// Checks the structural rules every planner relies on.
    pub fn validate(&self) -> Result<(), ProblemError> {
        for (id, b) in self.iter() {
            if b.size == 0 {
                return Err(ProblemError::ZeroSize(id));
            }
            if b.align == 0 || !b.align.is_power_of_two() {
                return Err(ProblemError::BadAlign(id, b.align));
            }
            if b.live.is_empty() || b.live.iter().any(|i| i.is_empty()) {
                return Err(ProblemError::EmptyLifetime(id));
            }
            if b.live.windows(2).any(|w| w[0].end >= w[1].start) {
                return Err(ProblemError::UnsortedLifetime(id));
            }
            if let Some(off) = b.fixed_offset {
                if off % b.align != 0 {
                    return Err(ProblemError::MisalignedFixed(id, off, b.align));
                }
                if off.checked_add(b.size).is_none() {
                    return Err(ProblemError::Overflow(id));
                }
            }
        }
        let fixed: Vec<(BufferId, &Buffer)> = self
            .iter()
            .filter(|(_, b)| b.fixed_offset.is_some())
            .collect();
        let mut sorted = fixed.clone();
        sorted.sort_by_key(|(_, b)| b.start());
        for (i, (ia, a)) in sorted.iter().enumerate() {
            for (ib, b) in sorted[i + 1..].iter() {
                if b.start() >= a.end() {
                    break;
                }
                let (oa, ob) = (a.fixed_offset.unwrap_or(0), b.fixed_offset.unwrap_or(0));
                if a.space == b.space
                    && a.overlaps_in_time(b)
                    && oa < ob + b.size
                    && ob < oa + a.size
                {
                    return Err(ProblemError::FixedCollision(*ia, *ib));
                }
            }
        }
        self.check_representable()
    }

    /// Every byte count a planner computes must fit in a `u64`. Two rules, summed in
    /// `u128`: the buffers live at one tick must fit side by side in 2^64 - 1 bytes
    /// (else no plan exists), and per space the total demand `T` (each movable
    /// size plus the space's largest alignment minus one, plus the highest fixed
    /// top) must stay below 2^63. Any planner that places a buffer at the lowest
    /// aligned offset clear of others (naive stacking included, and merge-alloc,
    /// which rounds every size up to the largest alignment) stays below `T`, and
    /// moving buffers clear of fixed ones afterwards ([`crate::algo::place`])
    /// stays below `2T`, so below 2^64.
    fn check_representable(&self) -> Result<(), ProblemError> {
        const LIVE_MAX: u128 = u64::MAX as u128;
        const TOTAL_LIMIT: u128 = 1 << 63;
        let mut align: std::collections::BTreeMap<MemSpace, u128> =
            std::collections::BTreeMap::new();
        for b in &self.buffers {
            let a = align.entry(b.space).or_insert(1);
            *a = (*a).max(b.align as u128);
        }
        // Per space: running total of movable (size + largest align - 1) and the highest fixed top.
        let mut totals: std::collections::BTreeMap<MemSpace, (u128, u128)> =
            std::collections::BTreeMap::new();
        let mut over_total: Option<(MemSpace, BufferId, u128)> = None;
        for (id, b) in self.iter() {
            let pad = align.get(&b.space).copied().unwrap_or(1) - 1;
            let t = totals.entry(b.space).or_insert((0, 0));
            match b.fixed_offset {
                Some(off) => t.1 = t.1.max(off as u128 + b.size as u128),
                None => t.0 += b.size as u128 + pad,
            }
            if over_total.is_none() && t.0 + t.1 >= TOTAL_LIMIT {
                over_total = Some((b.space, id, t.0 + t.1));
            }
        }
        let Some((space, buffer, _)) = over_total else {
            return Ok(());
        };
        // The sharper message first: buffers that are live together cannot fit at all.
        let mut events: Vec<(MemSpace, u64, bool, u32)> = Vec::new();
        for (id, b) in self.iter() {
            for iv in &b.live {
                events.push((b.space, iv.start, true, id.0));
                events.push((b.space, iv.end, false, id.0));
            }
        }
        events.sort_unstable();
        let mut cur: u128 = 0;
        let mut cur_space = None;
        for (s, tick, is_start, i) in events {
            if cur_space != Some(s) {
                cur_space = Some(s);
                cur = 0;
            }
            let size = self.buffers[i as usize].size as u128;
            if is_start {
                cur += size;
                if cur > LIVE_MAX {
                    return Err(ProblemError::LiveTooLarge {
                        space: s.0,
                        buffer: BufferId(i),
                        tick,
                        bytes: cur,
                    });
                }
            } else {
                cur -= size;
            }
        }
        let bytes = totals.get(&space).map_or(0, |t| t.0 + t.1);
        Err(ProblemError::TotalTooLarge {
            space: space.0,
            buffer,
            bytes,
        })
    }
}
