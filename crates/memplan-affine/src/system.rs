//! The algorithms on plain constraint matrices: normalisation, equality
//! elimination, Fourier–Motzkin steps and the Omega test's exact emptiness.
//!
//! A row has `n + 1` entries: `n` variable coefficients, then the constant.
//! Equalities mean `row · (x, 1) == 0`, inequalities `row · (x, 1) >= 0`.

use std::collections::BTreeMap;

use crate::arith::{self, Res};
use crate::AffineError;

/// Most inequalities a system may hold during elimination.
pub(crate) const MAX_ROWS: usize = 20_000;
/// Most elimination steps (over all branches) one query may take.
pub(crate) const MAX_STEPS: u64 = 200_000;

/// Step counter shared by the branches of one query.
pub(crate) struct Budget {
    steps: u64,
}

impl Budget {
    pub(crate) fn new() -> Self {
        Budget { steps: 0 }
    }

    fn tick(&mut self) -> Res<()> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            Err(AffineError::TooComplex)
        } else {
            Ok(())
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Sys {
    pub(crate) n: usize,
    pub(crate) eqs: Vec<Vec<i64>>,
    pub(crate) ineqs: Vec<Vec<i64>>,
}

enum Norm {
    Keep,
    Trivial,
    Contradiction,
}

/// Divides an equality by the gcd of its coefficients.
fn normalize_eq(row: &mut [i64]) -> Res<Norm> {
    let n = row.len() - 1;
    let mut g = 0;
    for &c in &row[..n] {
        g = arith::gcd(g, c)?;
    }
    if g == 0 {
        return Ok(if row[n] == 0 {
            Norm::Trivial
        } else {
            Norm::Contradiction
        });
    }
    if row[n] % g != 0 {
        return Ok(Norm::Contradiction);
    }
    if g > 1 {
        for c in row.iter_mut() {
            *c /= g;
        }
    }
    // Canonical sign: first non-zero coefficient positive.
    if row[..n].iter().find(|&&c| c != 0).copied().unwrap_or(0) < 0 {
        for c in row.iter_mut() {
            *c = arith::neg(*c)?;
        }
    }
    Ok(Norm::Keep)
}

/// Divides an inequality by the gcd of its coefficients, flooring the
/// constant (integer tightening).
fn normalize_ineq(row: &mut [i64]) -> Res<Norm> {
    let n = row.len() - 1;
    let mut g = 0;
    for &c in &row[..n] {
        g = arith::gcd(g, c)?;
    }
    if g == 0 {
        return Ok(if row[n] >= 0 {
            Norm::Trivial
        } else {
            Norm::Contradiction
        });
    }
    if g > 1 {
        for c in row[..n].iter_mut() {
            *c /= g;
        }
        row[n] = arith::floor_div(row[n], g)?;
    }
    Ok(Norm::Keep)
}

impl Sys {
    pub(crate) fn new(n: usize) -> Self {
        Sys {
            n,
            eqs: Vec::new(),
            ineqs: Vec::new(),
        }
    }

    /// Normalises every row, drops trivial ones, keeps the tightest of
    /// parallel inequalities and turns opposite pairs that meet into
    /// equalities. Returns `true` when a contradiction was found.
    pub(crate) fn normalize(&mut self) -> Res<bool> {
        let mut eqs = Vec::with_capacity(self.eqs.len());
        for mut r in std::mem::take(&mut self.eqs) {
            match normalize_eq(&mut r)? {
                Norm::Keep => eqs.push(r),
                Norm::Trivial => {}
                Norm::Contradiction => return Ok(true),
            }
        }
        eqs.sort();
        eqs.dedup();
        let n = self.n;
        let mut tightest: BTreeMap<Vec<i64>, i64> = BTreeMap::new();
        for mut r in std::mem::take(&mut self.ineqs) {
            match normalize_ineq(&mut r)? {
                Norm::Keep => {
                    let c = r[n];
                    r.truncate(n);
                    let e = tightest.entry(r).or_insert(c);
                    if c < *e {
                        *e = c;
                    }
                }
                Norm::Trivial => {}
                Norm::Contradiction => return Ok(true),
            }
        }
        let mut ineqs = Vec::with_capacity(tightest.len());
        let mut became_eq: Vec<Vec<i64>> = Vec::new();
        for (coeffs, &c) in &tightest {
            let negated: Vec<i64> = coeffs.iter().map(|&x| arith::neg(x)).collect::<Res<_>>()?;
            if let Some(&c2) = tightest.get(&negated) {
                let sum = arith::add(c, c2)?;
                if sum < 0 {
                    return Ok(true);
                }
                if sum == 0 {
                    // Both directions meet: an equality. Record it once.
                    if coeffs > &negated {
                        let mut r = coeffs.clone();
                        r.push(c);
                        became_eq.push(r);
                    }
                    continue;
                }
            }
            let mut r = coeffs.clone();
            r.push(c);
            ineqs.push(r);
        }
        for mut r in became_eq {
            match normalize_eq(&mut r)? {
                Norm::Keep => eqs.push(r),
                Norm::Trivial => {}
                Norm::Contradiction => return Ok(true),
            }
        }
        eqs.sort();
        eqs.dedup();
        self.eqs = eqs;
        self.ineqs = ineqs;
        Ok(false)
    }

    pub(crate) fn remove_col(&mut self, k: usize) {
        for r in self.eqs.iter_mut().chain(self.ineqs.iter_mut()) {
            r.remove(k);
        }
        self.n -= 1;
    }

    pub(crate) fn push_col(&mut self) {
        let n = self.n;
        for r in self.eqs.iter_mut().chain(self.ineqs.iter_mut()) {
            r.insert(n, 0);
        }
        self.n += 1;
    }

    /// Substitutes variable `k` using `eq` (whose coefficient at `k` is ±1)
    /// into every row, then removes column `k`. `eq` itself must not be
    /// among the rows.
    pub(crate) fn substitute_unit(&mut self, eq: &[i64], k: usize) -> Res<()> {
        let a = eq[k];
        debug_assert!(a == 1 || a == -1);
        for r in self.eqs.iter_mut().chain(self.ineqs.iter_mut()) {
            if r[k] != 0 {
                // r - (r[k] / a) * eq, and 1/a == a for a = ±1.
                let f = arith::mul(r[k], a)?;
                *r = arith::combine(1, r, arith::neg(f)?, eq)?;
                debug_assert_eq!(r[k], 0);
            }
        }
        self.remove_col(k);
        Ok(())
    }

    /// Eliminates variable `k` using the equality `eq` (coefficient `a` at
    /// `k`, any non-zero value) by rational combination, then removes column
    /// `k`. Exact over the rationals; over the integers it forgets that
    /// `a` divides the rest of `eq`.
    pub(crate) fn substitute_rational(&mut self, eq: &[i64], k: usize) -> Res<()> {
        let a = eq[k];
        let (sa, aa) = (a.signum(), arith::abs(a)?);
        for r in self.eqs.iter_mut().chain(self.ineqs.iter_mut()) {
            if r[k] != 0 {
                let f = arith::mul(sa, r[k])?;
                *r = arith::combine(aa, r, arith::neg(f)?, eq)?;
                debug_assert_eq!(r[k], 0);
            }
        }
        self.remove_col(k);
        Ok(())
    }

    /// Counts of rows with a positive and a negative coefficient at `k`.
    fn signs(&self, k: usize) -> (usize, usize, bool) {
        let (mut pos, mut neg) = (0usize, 0usize);
        let (mut unit_lo, mut unit_up) = (true, true);
        for r in &self.ineqs {
            if r[k] > 0 {
                pos += 1;
                unit_lo &= r[k] == 1;
            } else if r[k] < 0 {
                neg += 1;
                unit_up &= r[k] == -1;
            }
        }
        (pos, neg, unit_lo || unit_up)
    }

    /// One Fourier–Motzkin step on variable `k` (no equality may mention
    /// `k`). With `dark`, builds Pugh's dark shadow instead of the real one.
    /// Column `k` is removed.
    pub(crate) fn fm(&self, k: usize, dark: bool) -> Res<Sys> {
        debug_assert!(self.eqs.iter().all(|r| r[k] == 0));
        let n = self.n;
        let mut out = Sys::new(n);
        out.eqs = self.eqs.clone();
        let mut lowers = Vec::new();
        let mut uppers = Vec::new();
        for r in &self.ineqs {
            match r[k].signum() {
                1 => lowers.push(r),
                -1 => uppers.push(r),
                _ => out.ineqs.push(r.clone()),
            }
        }
        if out.ineqs.len() + lowers.len() * uppers.len() > MAX_ROWS {
            return Err(AffineError::TooComplex);
        }
        for l in &lowers {
            let a = l[k];
            for u in &uppers {
                let b = arith::neg(u[k])?;
                let mut r = arith::combine(b, l, a, u)?;
                debug_assert_eq!(r[k], 0);
                if dark {
                    let slack = arith::mul(a - 1, b - 1)?;
                    r[n] = arith::sub(r[n], slack)?;
                }
                out.ineqs.push(r);
            }
        }
        out.remove_col(k);
        Ok(out)
    }

    /// Chooses the cheapest variable among `cands` to eliminate by
    /// Fourier–Motzkin: exact ones first, then fewest new rows.
    fn pick_fm_var(&self, cands: impl Iterator<Item = usize>) -> Option<(usize, bool)> {
        let mut best: Option<(bool, usize, usize)> = None;
        for k in cands {
            let (p, q, exact) = self.signs(k);
            let cost = p * q;
            let better = match best {
                None => true,
                Some((be, bc, _)) => (exact && !be) || (exact == be && cost < bc),
            };
            if better {
                best = Some((exact, cost, k));
            }
        }
        best.map(|(e, _, k)| (k, e))
    }
}

/// Exact integer emptiness (the Omega test: exact equality elimination,
/// Fourier–Motzkin where exact, otherwise real shadow / dark shadow / grey
/// shadows).
pub(crate) fn is_empty(sys: Sys, budget: &mut Budget) -> Res<bool> {
    let mut s = sys;
    loop {
        budget.tick()?;
        if s.normalize()? {
            return Ok(true);
        }
        if let Some(eq) = s.eqs.first().cloned() {
            if let Some(k) = (0..s.n).find(|&k| eq[k] == 1 || eq[k] == -1) {
                s.eqs.remove(0);
                s.substitute_unit(&eq, k)?;
                continue;
            }
            // Pugh's equality step: a new variable sigma with a unit
            // coefficient equation that shrinks the other coefficients.
            let mut k = 0;
            let mut best = i64::MAX;
            for (i, &c) in eq[..s.n].iter().enumerate() {
                if c != 0 && arith::abs(c)? < best {
                    best = arith::abs(c)?;
                    k = i;
                }
            }
            let m = arith::add(best, 1)?;
            s.push_col();
            let n = s.n;
            let mut new = vec![0i64; n + 1];
            for i in 0..n - 1 {
                new[i] = arith::mod_hat(eq[i], m)?;
            }
            new[n - 1] = arith::neg(m)?;
            new[n] = arith::mod_hat(eq[n - 1], m)?;
            debug_assert!(new[k] == 1 || new[k] == -1);
            s.substitute_unit(&new, k)?;
            continue;
        }
        if s.ineqs.is_empty() || s.n == 0 {
            return Ok(false);
        }
        // Variables bounded on one side only (or absent) go away with their rows.
        let mut removed = false;
        for k in (0..s.n).rev() {
            let (p, q, _) = s.signs(k);
            if p == 0 || q == 0 {
                s.ineqs.retain(|r| r[k] == 0);
                s.remove_col(k);
                removed = true;
            }
        }
        if removed {
            continue;
        }
        let Some((k, exact)) = s.pick_fm_var(0..s.n) else {
            return Ok(false);
        };
        if exact {
            s = s.fm(k, false)?;
            continue;
        }
        if is_empty(s.fm(k, false)?, budget)? {
            return Ok(true);
        }
        if !is_empty(s.fm(k, true)?, budget)? {
            return Ok(false);
        }
        // Grey shadows: an integer point outside the dark shadow lies close
        // to one of the lower bounds.
        let a_max = s
            .ineqs
            .iter()
            .filter(|r| r[k] < 0)
            .map(|r| arith::neg(r[k]))
            .collect::<Res<Vec<_>>>()?
            .into_iter()
            .max()
            .unwrap_or(1);
        let n = s.n;
        for l in s.ineqs.iter().filter(|r| r[k] > 0) {
            let a = l[k];
            let span = arith::sub(arith::sub(arith::mul(a_max, a)?, a)?, a_max)?;
            let imax = arith::floor_div(span, a_max)?;
            let mut i = 0;
            while i <= imax {
                let mut t = s.clone();
                let mut e = l.clone();
                e[n] = arith::sub(e[n], i)?;
                t.eqs.push(e);
                if !is_empty(t, budget)? {
                    return Ok(false);
                }
                i += 1;
            }
        }
        return Ok(true);
    }
}

/// Eliminates the variables in `vars` (column indices of `s`), removing
/// their columns. Returns whether the result's integer points are exactly
/// the projection of the input's. A contradictory result is represented by
/// the single row `-1 >= 0`.
pub(crate) fn project(s: &mut Sys, vars: &[usize]) -> Res<bool> {
    // Track which current columns are still to be eliminated.
    let mut mark: Vec<bool> = vec![false; s.n];
    for &v in vars {
        mark[v] = true;
    }
    let mut exact = true;
    loop {
        if s.normalize()? {
            let n = s.n - mark.iter().filter(|&&m| m).count();
            *s = Sys::new(n);
            let mut r = vec![0; n + 1];
            r[n] = -1;
            s.ineqs.push(r);
            return Ok(exact);
        }
        let todo: Vec<usize> = (0..s.n).filter(|&k| mark[k]).collect();
        if todo.is_empty() {
            return Ok(exact);
        }
        // An equality on a variable to eliminate: prefer unit coefficients.
        let mut chosen: Option<(usize, usize, i64)> = None;
        for (ei, e) in s.eqs.iter().enumerate() {
            for &k in &todo {
                if e[k] != 0 {
                    let a = arith::abs(e[k])?;
                    if !matches!(chosen, Some((_, _, b)) if b <= a) {
                        chosen = Some((ei, k, a));
                    }
                }
            }
        }
        if let Some((ei, k, a)) = chosen {
            let eq = s.eqs.remove(ei);
            if a == 1 {
                s.substitute_unit(&eq, k)?;
            } else {
                s.substitute_rational(&eq, k)?;
                exact = false;
            }
            mark.remove(k);
            continue;
        }
        let Some((k, ex)) = s.pick_fm_var(todo.into_iter()) else {
            return Ok(exact);
        };
        exact &= ex;
        *s = s.fm(k, false)?;
        mark.remove(k);
    }
}
