//! Offset domains: for a capacity `C`, the set of offsets each buffer can still
//! take in some plan whose peak is at most `C` (memplan's addition to the
//! search; in the spirit of the disjunctive reasoning of CP solvers).
//!
//! The rule, for a buffer `b` at offset `y` and a section `t` it lives in: the
//! other buffers of `t` lie below `b` (inside `[0, y)`) or above it (inside
//! `[y + size_b, C)`), so the bytes below `b` in `t` are a sum `σ` of sizes of
//! buffers of `t` with `y - e_t <= σ <= y`, where `e_t = C - load_t` is the
//! section's slack. Near the max-load bound the slack is a few bytes, and few
//! offsets survive. A buffer `q` can be below `b` only if
//! `min(D_q) + size_q <= y`, above it only if `max(D_q) >= y + size_b`; fixed
//! blocks live throughout `t` are such buffers with a one-point domain. Each
//! domain starts as the aligned offsets in `[0, C - size]` clear of the fixed
//! blocks, and the rule is applied to every buffer and section until nothing
//! changes (or a work budget runs out: every step is sound on its own, so a
//! partial result is still valid). An empty domain proves that nothing fits
//! below `C`.
//!
//! Soundness: each rule holds for every plan within `C` whose buffers cannot
//! singly move down (every feasible problem has one: drop buffers while some
//! can). In such a plan every offset is a multiple of `unit`, the gcd of the
//! sizes and fixed offsets (when each alignment divides it or is a multiple of
//! it), so domains are kept in units of `unit`: D and J (sizes in KiB) need
//! about a thousand bits per buffer.
//!
//! The search uses the domains to raise each buffer's minimum offset to the
//! next offset of its domain; `decide` refutes at the root when one is empty.

use super::model::Model;

/// Domains larger than this many bits per buffer are not computed.
const MAX_BITS: u64 = 1 << 17;

/// The outcome of filtering at one capacity.
pub(crate) enum Filtered {
    /// Some buffer has no offset left: nothing fits below the capacity.
    Infeasible,
    /// The domains (every plan within the capacity keeps its offsets in them).
    Domains(Domains),
    /// Not computed (too many bits per buffer), or the reasoning removed no
    /// offset beyond alignment and fixed blocks (the plain search does as well).
    Unavailable,
}

/// Per buffer, a bitset of offsets in units of `unit`.
#[derive(Clone, Debug)]
pub(crate) struct Domains {
    unit: u64,
    words: usize,
    bits: Vec<u64>,
}

impl Domains {
    fn row(&self, b: usize) -> &[u64] {
        &self.bits[b * self.words..(b + 1) * self.words]
    }

    /// The lowest offset `>= x` in `b`'s domain, or `None`.
    pub fn next(&self, b: usize, x: u64) -> Option<u64> {
        let k = x.div_ceil(self.unit);
        next_bit(self.row(b), k).map(|k| k * self.unit)
    }

    /// The highest offset `<= x` in `b`'s domain, or `None`.
    pub fn prev(&self, b: usize, x: u64) -> Option<u64> {
        let row = self.row(b);
        if row.is_empty() {
            return None;
        }
        let k = x / self.unit;
        let mut w = (k / 64) as usize;
        let mut word = if w >= row.len() {
            w = row.len() - 1;
            row[w]
        } else {
            row[w] & (!0u64 >> (63 - k % 64))
        };
        loop {
            if word != 0 {
                let bit = w as u64 * 64 + 63 - u64::from(word.leading_zeros());
                return Some(bit * self.unit);
            }
            if w == 0 {
                return None;
            }
            w -= 1;
            word = row[w];
        }
    }

    /// Whether buffers `a` and `b` have the same domain.
    pub fn same(&self, a: usize, b: usize) -> bool {
        self.row(a) == self.row(b)
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The unit every offset of a plan that cannot be lowered is a multiple of.
pub(crate) fn unit(m: &Model) -> u64 {
    let mut g = 0u64;
    for b in 0..m.n() {
        g = gcd(g, m.size[b]);
        for &(lo, hi) in m.fixed.row(b) {
            g = gcd(gcd(g, lo), hi);
        }
    }
    for t in 0..m.nsec {
        for &(o, s) in m.sec_fixed.row(t) {
            g = gcd(gcd(g, o), s);
        }
    }
    if g == 0 {
        return 1;
    }
    // An alignment that divides the unit keeps multiples of it in place; one
    // that is a multiple of it rounds them to multiples of it. Anything else
    // shrinks the unit.
    loop {
        let mut changed = false;
        for &a in &m.align {
            if !g.is_multiple_of(a) && !a.is_multiple_of(g) {
                g = gcd(g, a);
                changed = true;
            }
        }
        if !changed {
            return g;
        }
    }
}

fn next_bit(row: &[u64], k: u64) -> Option<u64> {
    let mut w = (k / 64) as usize;
    if w >= row.len() {
        return None;
    }
    let mut word = row[w] & (!0u64 << (k % 64));
    loop {
        if word != 0 {
            return Some(w as u64 * 64 + u64::from(word.trailing_zeros()));
        }
        w += 1;
        if w >= row.len() {
            return None;
        }
        word = row[w];
    }
}

fn prev_bit(row: &[u64]) -> Option<u64> {
    (0..row.len())
        .rev()
        .find(|&w| row[w] != 0)
        .map(|w| w as u64 * 64 + 63 - u64::from(row[w].leading_zeros()))
}

fn set_range(row: &mut [u64], lo: u64, hi: u64, on: bool) {
    // Bits [lo, hi).
    let mut k = lo;
    while k < hi {
        let w = (k / 64) as usize;
        let start = k % 64;
        let end = (hi - w as u64 * 64).min(64);
        let mask = if end == 64 {
            !0u64 << start
        } else {
            (!0u64 << start) & ((1u64 << end) - 1)
        };
        if on {
            row[w] |= mask;
        } else {
            row[w] &= !mask;
        }
        k = w as u64 * 64 + end;
    }
}

/// `dst |= src << sh`, over `dst`'s length.
fn or_shifted(dst: &mut [u64], src: &[u64], sh: u64) {
    let (ws, bs) = ((sh / 64) as usize, sh % 64);
    for i in (ws..dst.len()).rev() {
        let j = i - ws;
        let mut v = src[j] << bs;
        if bs != 0 && j > 0 {
            v |= src[j - 1] >> (64 - bs);
        }
        dst[i] |= v;
    }
}

/// `row |= row << sh` (in place, high words first).
fn or_self_shifted(row: &mut [u64], sh: u64) {
    let (ws, bs) = ((sh / 64) as usize, sh % 64);
    for i in (ws..row.len()).rev() {
        let j = i - ws;
        let mut v = row[j] << bs;
        if bs != 0 && j > 0 {
            v |= row[j - 1] >> (64 - bs);
        }
        row[i] |= v;
    }
}

/// One item of a section, seen from the buffer being filtered.
#[derive(Clone, Copy)]
struct Item {
    size: u64,
    /// It can be below the buffer from this offset on.
    below_from: u64,
    /// It can be above the buffer up to this offset (`None`: never).
    above_to: Option<u64>,
}

/// Filters the domains at capacity `cap`, spending at most about `budget`
/// word operations.
pub(crate) fn filter(m: &Model, cap: u64, budget: u64) -> Filtered {
    let Some(mut f) = Filter::new(m, cap) else {
        return Filtered::Unavailable;
    };
    let Some(mut d) = f.initial() else {
        return Filtered::Infeasible;
    };
    let before = d.bits.clone();
    if !f.propagate(&mut d, budget) {
        Filtered::Infeasible
    } else if d.bits == before {
        Filtered::Unavailable
    } else {
        Filtered::Domains(d)
    }
}

/// The filtering machinery of one model and capacity (scaled by the unit),
/// with its scratch space. (Filtering again at search nodes, placed buffers
/// fixed, was measured: on 100 random problems of 15-35 buffers it proved 3
/// fewer within 5 s and was 4x slower on those both proved.)
pub(crate) struct Filter<'m> {
    m: &'m Model,
    g: u64,
    c: u64,
    nbits: u64,
    words: usize,
    size: Vec<u64>,
    align: Vec<u64>,
    /// Section loads (fixed blocks included); `None` when one exceeds `c`.
    load: Option<Vec<u64>>,
    items: Vec<Item>,
    cuts: Vec<u64>,
    allowed: Vec<u64>,
    sums: Vec<u64>,
    shifted: Vec<u64>,
    free: Vec<u64>,
    lo_hi: Vec<(u64, u64)>,
}

impl<'m> Filter<'m> {
    /// `None` when the domains would be too large.
    pub fn new(m: &'m Model, cap: u64) -> Option<Self> {
        let g = unit(m);
        let c = cap / g;
        if c + 1 > MAX_BITS {
            return None;
        }
        let nbits = c + 1;
        let words = nbits.div_ceil(64) as usize;
        let mut load: Vec<u64> = m.sec_total.iter().map(|&t| t / g).collect();
        let mut over = false;
        for (t, l) in load.iter_mut().enumerate() {
            *l += m.sec_fixed.row(t).iter().map(|&(_, s)| s / g).sum::<u64>();
            over |= *l > c;
        }
        Some(Filter {
            m,
            g,
            c,
            nbits,
            words,
            size: m.size.iter().map(|&s| s / g).collect(),
            align: m
                .align
                .iter()
                .map(|&a| if a.is_multiple_of(g) { a / g } else { 1 })
                .collect(),
            load: (!over).then_some(load),
            items: Vec::new(),
            cuts: Vec::new(),
            allowed: vec![0; words],
            sums: vec![0; words],
            shifted: vec![0; words],
            free: Vec::new(),
            lo_hi: vec![(0, 0); m.n()],
        })
    }

    /// The domains before any reasoning: aligned offsets in `[0, C - size]`
    /// clear of fixed blocks. `None`: infeasible.
    pub fn initial(&self) -> Option<Domains> {
        self.load.as_ref()?;
        let (m, g, c, words) = (self.m, self.g, self.c, self.words);
        let n = m.n();
        let mut d = Domains {
            unit: g,
            words,
            bits: vec![0u64; n * words],
        };
        for b in 0..n {
            let sb = self.size[b];
            if sb > c {
                return None;
            }
            let row = &mut d.bits[b * words..(b + 1) * words];
            let mut y = 0;
            while y + sb <= c {
                row[(y / 64) as usize] |= 1 << (y % 64);
                y += self.align[b];
            }
            for &(lo, hi) in m.fixed.row(b) {
                let (lo, hi) = (lo / g, (hi / g).min(self.nbits));
                // Offsets y with y < hi and y + size > lo.
                let from = (lo + 1).saturating_sub(sb);
                if from < hi {
                    set_range(row, from, hi, false);
                }
            }
            if row.iter().all(|&w| w == 0) {
                return None;
            }
        }
        Some(d)
    }

    /// Applies the section rule to every buffer and section until nothing
    /// changes or about `budget` word operations are spent. False: a domain emptied.
    pub fn propagate(&mut self, d: &mut Domains, budget: u64) -> bool {
        let Some(load) = self.load.as_ref() else {
            return false;
        };
        let (m, g, c, words, nbits) = (self.m, self.g, self.c, self.words, self.nbits);
        let n = m.n();
        for b in 0..n {
            let r = d.row(b);
            self.lo_hi[b] = (next_bit(r, 0).unwrap_or(0), prev_bit(r).unwrap_or(0));
        }
        let mut spent = 0u64;
        loop {
            let mut changed = false;
            for b in 0..n {
                let sb = self.size[b];
                let top = c - sb; // highest offset of b
                for &(slo, shi) in m.live.row(b) {
                    for t in slo..shi {
                        let t = t as usize;
                        let slack = c - load[t];
                        self.items.clear();
                        for &q in m.members.row(t) {
                            let q = q as usize;
                            if q == b {
                                continue;
                            }
                            let (qlo, qhi) = self.lo_hi[q];
                            self.items.push(Item {
                                size: self.size[q],
                                below_from: qlo + self.size[q],
                                above_to: qhi.checked_sub(sb),
                            });
                        }
                        for &(o, s) in m.sec_fixed.row(t) {
                            let (o, s) = (o / g, s / g);
                            self.items.push(Item {
                                size: s,
                                below_from: o + s,
                                above_to: o.checked_sub(sb),
                            });
                        }
                        // Pieces of offsets over which every item's status is constant.
                        self.cuts.clear();
                        self.cuts.push(0);
                        self.cuts.push(top + 1);
                        for it in &self.items {
                            if it.below_from <= top {
                                self.cuts.push(it.below_from);
                            }
                            if let Some(a) = it.above_to {
                                if a < top {
                                    self.cuts.push(a + 1);
                                }
                            }
                        }
                        self.cuts.sort_unstable();
                        self.cuts.dedup();
                        self.allowed.fill(0);
                        for w in 0..self.cuts.len() - 1 {
                            let (p, q) = (self.cuts[w], self.cuts[w + 1]);
                            // Only pieces where b still has offsets.
                            match next_bit(d.row(b), p) {
                                Some(k) if k < q => {}
                                _ => continue,
                            }
                            let mut base = 0u64;
                            let mut dead = false;
                            self.free.clear();
                            for it in &self.items {
                                let below = it.below_from <= p;
                                let above = it.above_to.is_some_and(|a| p <= a);
                                match (below, above) {
                                    (true, true) => self.free.push(it.size),
                                    (true, false) => base += it.size,
                                    (false, true) => {}
                                    (false, false) => {
                                        dead = true;
                                        break;
                                    }
                                }
                            }
                            if dead || base > q - 1 {
                                continue;
                            }
                            // Subset sums of the free items, then every offset within
                            // `slack` above `base + sum`.
                            self.sums.fill(0);
                            self.sums[0] = 1;
                            for &s in &self.free {
                                or_self_shifted(&mut self.sums, s);
                            }
                            let mut covered = 1u64;
                            while covered <= slack && covered < nbits {
                                let step = covered.min(slack + 1 - covered);
                                or_self_shifted(&mut self.sums, step);
                                covered += step;
                            }
                            spent += (self.free.len() as u64 + 66) * words as u64;
                            // allowed[p..q) |= (sums << base)[p..q)
                            self.shifted.fill(0);
                            or_shifted(&mut self.shifted, &self.sums, base);
                            set_range(&mut self.shifted, 0, p, false);
                            set_range(&mut self.shifted, q, nbits, false);
                            for (a, v) in self.allowed.iter_mut().zip(&self.shifted) {
                                *a |= v;
                            }
                        }
                        let row = &mut d.bits[b * words..(b + 1) * words];
                        let mut any = false;
                        for (x, a) in row.iter_mut().zip(&self.allowed) {
                            let nv = *x & a;
                            if nv != *x {
                                changed = true;
                                *x = nv;
                            }
                            any |= nv != 0;
                        }
                        if !any {
                            return false;
                        }
                        let r = d.row(b);
                        self.lo_hi[b] = (next_bit(r, 0).unwrap_or(0), prev_bit(r).unwrap_or(0));
                        if spent > budget {
                            return true;
                        }
                    }
                }
            }
            if !changed {
                return true;
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::problem::{Buffer, Interval, Problem};

    pub(crate) struct Rng(pub u64);
    impl Rng {
        pub(crate) fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    pub(crate) fn random_problem(rng: &mut Rng) -> Problem {
        loop {
            let n = 2 + rng.below(4) as usize;
            let mut bufs = Vec::new();
            for _ in 0..n {
                let mut live = Vec::new();
                for _ in 0..1 + rng.below(2) {
                    let s = rng.below(6);
                    live.push(Interval::new(s, s + 1 + rng.below(3)));
                }
                let mut size = 1 + rng.below(6);
                if rng.below(3) == 0 {
                    size *= 2;
                }
                let align = [1, 1, 2, 4][rng.below(4) as usize];
                let mut b = Buffer::new(size, 0, 1)
                    .with_live(crate::problem::normalize_intervals(live))
                    .with_align(align);
                if rng.below(6) == 0 {
                    b = b.fixed_at(align * rng.below(4));
                }
                bufs.push(b);
            }
            let p = Problem::new(bufs);
            let movable = p
                .buffers
                .iter()
                .filter(|b| b.fixed_offset.is_none())
                .count();
            if movable > 0 && p.validate().is_ok() {
                return p;
            }
        }
    }

    /// Whether movable buffer `k` (model index) fits at `y` given the others.
    pub(crate) fn fits(p: &Problem, m: &Model, off: &[u64], k: usize, y: u64, cap: u64) -> bool {
        let b = &p.buffers[m.ids[k]];
        if !y.is_multiple_of(b.align.max(1)) || y + b.size > cap {
            return false;
        }
        p.buffers.iter().enumerate().all(|(j, o)| {
            if j == m.ids[k] || !b.overlaps_in_time(o) {
                return true;
            }
            let oy = match o.fixed_offset {
                Some(f) => f,
                None => off[m.ids.iter().position(|&i| i == j).unwrap_or(0)],
            };
            y + b.size <= oy || oy + o.size <= y
        })
    }

    /// Every plan within `cap` that cannot be lowered keeps its offsets in the
    /// domains, and filtering refutes `cap` only when no plan fits.
    #[test]
    fn domains_keep_every_plan_that_cannot_be_lowered() {
        let mut rng = Rng(0x5eed_1234_abcd);
        let mut checked_plans = 0u64;
        let mut refuted = 0u64;
        for _ in 0..600 {
            let p = random_problem(&mut rng);
            let m = Model::build(&p);
            let n = m.n();
            let fixed_top = p
                .buffers
                .iter()
                .filter_map(|b| b.fixed_offset.map(|o| o + b.size))
                .max()
                .unwrap_or(0);
            let lb = crate::bounds::max_load(&p).max(fixed_top);
            for cap in lb..lb + 4 {
                // None: not computed; Some(None): refuted.
                let filtered: Option<Option<Domains>> = Filter::new(&m, cap).map(|mut f| {
                    f.initial()
                        .and_then(|mut d| f.propagate(&mut d, u64::MAX).then_some(d))
                });
                let mut off = vec![0u64; n];
                let mut any = false;
                'all: loop {
                    if (0..n).all(|k| fits(&p, &m, &off, k, off[k], cap)) {
                        any = true;
                        // Lower buffers one at a time while some can move down.
                        let mut low = off.clone();
                        loop {
                            let mut moved = false;
                            for k in 0..n {
                                if let Some(y) =
                                    (0..low[k]).find(|&y| fits(&p, &m, &low, k, y, cap))
                                {
                                    low[k] = y;
                                    moved = true;
                                }
                            }
                            if !moved {
                                break;
                            }
                        }
                        match &filtered {
                            Some(Some(d)) => {
                                for (k, &y) in low.iter().enumerate() {
                                    assert_eq!(
                                        d.next(k, y),
                                        Some(y),
                                        "{p:?} cap {cap} plan {low:?}"
                                    );
                                }
                                checked_plans += 1;
                            }
                            Some(None) => panic!("refuted a feasible cap {cap}: {p:?}"),
                            None => {}
                        }
                    }
                    // Next assignment (odometer over every offset up to `cap - size`).
                    for (o, &s) in off.iter_mut().zip(&m.size) {
                        *o += 1;
                        if *o + s <= cap {
                            continue 'all;
                        }
                        *o = 0;
                    }
                    break;
                }
                if !any && matches!(filtered, Some(None)) {
                    refuted += 1;
                }
            }
        }
        assert!(checked_plans > 1000, "{checked_plans}");
        assert!(refuted > 10, "{refuted}");
    }
}
