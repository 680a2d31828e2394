//! Preprocessing shared by the heuristic and the search: the movable buffers of
//! one space, the time "sections" (maximal tick ranges over which the live set
//! is constant, MiniMalloc's sweep), which sections each buffer covers, which
//! movable buffers overlap in time, and which fixed blocks each one must avoid.

use crate::problem::Problem;

/// Compressed sparse rows: `data[start[i]..start[i + 1]]` belongs to row `i`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Csr<T> {
    start: Vec<u32>,
    data: Vec<T>,
}

impl<T: Copy> Csr<T> {
    fn from_rows(rows: Vec<Vec<T>>) -> Self {
        let mut start = Vec::with_capacity(rows.len() + 1);
        let mut data = Vec::new();
        start.push(0);
        for r in rows {
            data.extend(r);
            start.push(data.len() as u32);
        }
        Csr { start, data }
    }

    /// Row `i`.
    #[inline]
    pub(crate) fn row(&self, i: usize) -> &[T] {
        &self.data[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

/// The preprocessed single-space problem. Buffers are the movable ones, renumbered `0..n`.
#[derive(Clone, Debug)]
pub(crate) struct Model {
    /// Problem index of each movable buffer.
    pub ids: Vec<usize>,
    /// Sizes.
    pub size: Vec<u64>,
    /// Alignments (>= 1).
    pub align: Vec<u64>,
    /// Live section ranges `[lo, hi)` per buffer (one per interval).
    pub live: Csr<(u32, u32)>,
    /// Hull section range per buffer.
    pub hull: Vec<(u32, u32)>,
    /// Movable buffers overlapping each buffer in time.
    pub adj: Csr<u32>,
    /// Byte ranges covered by co-live fixed buffers, merged into disjoint sorted runs, per buffer.
    pub fixed: Csr<(u64, u64)>,
    /// Number of sections.
    pub nsec: usize,
    /// Total movable bytes live in each section.
    pub sec_total: Vec<u64>,
    /// Movable buffers live in each section.
    pub members: Csr<u32>,
    /// Fixed buffers live throughout each section, as `(offset, size)`.
    pub sec_fixed: Csr<(u64, u64)>,
    /// Problems of at most 64 movable buffers: every fixed buffer co-live with
    /// some movable one, as `(offset, size, co-live movable buffers as bits)`.
    pub fixed_colive: Vec<(u64, u64, u64)>,
    /// Live ticks per buffer (holes excluded).
    pub ticks: Vec<u64>,
    /// First live tick per buffer.
    pub t_start: Vec<u64>,
    /// One past the last live tick per buffer.
    pub t_end: Vec<u64>,
}

impl Model {
    /// Number of movable buffers.
    pub fn n(&self) -> usize {
        self.size.len()
    }

    /// Builds the model; `with_adjacency` false skips the (possibly quadratic) overlap lists.
    pub fn build(problem: &Problem) -> Model {
        let ids: Vec<usize> = (0..problem.buffers.len())
            .filter(|&i| problem.buffers[i].fixed_offset.is_none())
            .collect();
        let n = ids.len();
        // Sections come from the movable buffers alone: fixed blocks enter only
        // through each buffer's own list of co-live blocks below.
        let mut times: Vec<u64> = ids
            .iter()
            .flat_map(|&i| {
                problem.buffers[i]
                    .live
                    .iter()
                    .flat_map(|iv| [iv.start, iv.end])
            })
            .collect();
        times.sort_unstable();
        times.dedup();
        let nsec = times.len().saturating_sub(1);
        let sec_of = |t: u64| times.partition_point(|&x| x < t) as u32;
        let mut live_rows = Vec::with_capacity(n);
        let mut hull = Vec::with_capacity(n);
        let mut sec_total = vec![0u64; nsec];
        let mut member_rows: Vec<Vec<u32>> = vec![Vec::new(); nsec];
        let mut ticks = Vec::with_capacity(n);
        for (k, &i) in ids.iter().enumerate() {
            let b = &problem.buffers[i];
            let ranges: Vec<(u32, u32)> = b
                .live
                .iter()
                .map(|iv| (sec_of(iv.start), sec_of(iv.end)))
                .collect();
            for &(lo, hi) in &ranges {
                for s in lo..hi {
                    sec_total[s as usize] += b.size;
                    member_rows[s as usize].push(k as u32);
                }
            }
            hull.push((ranges[0].0, ranges[ranges.len() - 1].1));
            live_rows.push(ranges);
            ticks.push(b.duration());
        }
        // Overlaps among movable buffers, by a sweep over interval starts.
        let mut ivs: Vec<(u64, u64, u32)> = Vec::new();
        for (k, &i) in ids.iter().enumerate() {
            for iv in &problem.buffers[i].live {
                ivs.push((iv.start, iv.end, k as u32));
            }
        }
        ivs.sort_unstable();
        let mut adj_rows: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut active: Vec<(u64, u32)> = Vec::new();
        for &(s, e, k) in &ivs {
            active.retain(|&(ae, _)| ae > s);
            for &(_, a) in &active {
                if a != k {
                    adj_rows[a as usize].push(k);
                    adj_rows[k as usize].push(a);
                }
            }
            active.push((e, k));
        }
        for r in &mut adj_rows {
            r.sort_unstable();
            r.dedup();
        }
        // Fixed blocks each movable buffer must avoid.
        let mut fixed_bufs: Vec<usize> = (0..problem.buffers.len())
            .filter(|&i| problem.buffers[i].fixed_offset.is_some())
            .collect();
        fixed_bufs.sort_by_key(|&j| (problem.buffers[j].start(), j));
        let mut fixed_rows: Vec<Vec<(u64, u64)>> = vec![Vec::new(); n];
        let mut sec_fixed_rows: Vec<Vec<(u64, u64)>> = vec![Vec::new(); nsec];
        let mut colive_masks: Vec<u64> = vec![0; fixed_bufs.len()];
        for &j in &fixed_bufs {
            let f = &problem.buffers[j];
            let o = f.fixed_offset.unwrap_or(0);
            for iv in &f.live {
                // Sections `[times[s], times[s + 1])` inside the interval.
                let first = times.partition_point(|&x| x < iv.start);
                for s in first..nsec {
                    if times[s + 1] > iv.end {
                        break;
                    }
                    sec_fixed_rows[s].push((o, f.size));
                }
            }
        }
        if !fixed_bufs.is_empty() {
            for (k, &i) in ids.iter().enumerate() {
                let b = &problem.buffers[i];
                for (x, &j) in fixed_bufs.iter().enumerate() {
                    let f = &problem.buffers[j];
                    if f.start() >= b.end() {
                        break;
                    }
                    if b.overlaps_in_time(f) {
                        let o = f.fixed_offset.unwrap_or(0);
                        fixed_rows[k].push((o, o.saturating_add(f.size)));
                        if n <= 64 {
                            colive_masks[x] |= 1 << k;
                        }
                    }
                }
                // Only the union matters: merge touching blocks (dense traces turn
                // thousands of co-live blocks into a handful of runs).
                let row = &mut fixed_rows[k];
                row.sort_unstable();
                let mut merged: Vec<(u64, u64)> = Vec::with_capacity(row.len());
                for &(lo, hi) in row.iter() {
                    match merged.last_mut() {
                        Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
                        _ => merged.push((lo, hi)),
                    }
                }
                *row = merged;
            }
        }
        let fixed_colive = fixed_bufs
            .iter()
            .zip(&colive_masks)
            .filter(|&(_, &w)| w != 0)
            .map(|(&j, &w)| {
                let f = &problem.buffers[j];
                (f.fixed_offset.unwrap_or(0), f.size, w)
            })
            .collect();
        Model {
            fixed_colive,
            t_start: ids.iter().map(|&i| problem.buffers[i].start()).collect(),
            t_end: ids.iter().map(|&i| problem.buffers[i].end()).collect(),
            size: ids.iter().map(|&i| problem.buffers[i].size).collect(),
            align: ids
                .iter()
                .map(|&i| problem.buffers[i].align.max(1))
                .collect(),
            ids,
            live: Csr::from_rows(live_rows),
            hull,
            adj: Csr::from_rows(adj_rows),
            fixed: Csr::from_rows(fixed_rows),
            nsec,
            sec_total,
            members: Csr::from_rows(member_rows),
            sec_fixed: Csr::from_rows(sec_fixed_rows),
            ticks,
        }
    }

    /// Number of time-overlapping pairs of buffers (counting each interval pair),
    /// computed without listing them: the size the overlap lists would have.
    pub fn overlap_pairs(problem: &Problem) -> u64 {
        let mut starts: Vec<u64> = Vec::new();
        let mut ends: Vec<u64> = Vec::new();
        for b in problem.buffers.iter().filter(|b| b.fixed_offset.is_none()) {
            for iv in &b.live {
                starts.push(iv.start);
                ends.push(iv.end);
            }
        }
        starts.sort_unstable();
        ends.sort_unstable();
        let mut total = 0u64;
        // For interval [s, e): others starting before e minus others ending at or before s.
        let ivs: Vec<(u64, u64)> = problem
            .buffers
            .iter()
            .filter(|b| b.fixed_offset.is_none())
            .flat_map(|b| b.live.iter().map(|iv| (iv.start, iv.end)))
            .collect();
        for (s, e) in ivs {
            let before_end = starts.partition_point(|&x| x < e) as u64;
            let ended = ends.partition_point(|&x| x <= s) as u64;
            total += before_end.saturating_sub(ended).saturating_sub(1);
        }
        total / 2
    }

    /// The lowest aligned offset `>= x` at which buffer `b` avoids every co-live fixed block.
    #[inline]
    pub fn fit(&self, b: usize, x: u64) -> u64 {
        let a = self.align[b];
        let mut y = x.next_multiple_of(a);
        let row = self.fixed.row(b);
        if row.is_empty() {
            return y;
        }
        let size = self.size[b];
        // Runs are disjoint and sorted: skip those ending at or below `y`.
        let first = row.partition_point(|&(_, hi)| hi <= y);
        for &(lo, hi) in &row[first..] {
            if hi <= y {
                continue;
            }
            if lo >= y.saturating_add(size) {
                break;
            }
            y = hi.next_multiple_of(a);
        }
        y
    }
}
