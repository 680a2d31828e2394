//! Upstream MLIR's (rational) projection and constant bounds, step for step.
//!
//! MLIR's `IntegerRelation::projectOut` eliminates variables by Gaussian elimination
//! (in column order) and then Fourier–Motzkin (cheapest variable first), combining rows
//! rationally and only tightening each inequality by the GCD of its coefficients. It is
//! exact over the rationals but may keep integer points with no integer pre-image, so the
//! bounds it reads off (`getConstantBound`) can be looser than the exact ones that
//! [`crate::IntegerSet::constant_bounds`] computes. Tools that must print what
//! `mlir-opt` prints (the dependence-distance remarks) use these functions; everything
//! that decides legality should use the exact ones.
//!
//! The row and column order of the input matters here, as it does upstream (the pivot
//! equality is the first one with a non-zero coefficient; ties between equally cheap
//! Fourier–Motzkin variables go to the leftmost).

use crate::arith::{self, Res};
use crate::IntegerSet;

/// A dense system in upstream's layout: rows of `n + 1` entries.
#[derive(Clone, Debug)]
struct Rel {
    n: usize,
    eqs: Vec<Vec<i64>>,
    ineqs: Vec<Vec<i64>>,
}

fn lcm(a: i64, b: i64) -> Res<i64> {
    let g = arith::gcd(a, b)?;
    if g == 0 {
        return Ok(0);
    }
    arith::abs(arith::mul(a / g, b)?)
}

/// Divides the first `upto` entries of `row` by their gcd; returns the gcd.
fn normalize_prefix(row: &mut [i64], upto: usize) -> Res<i64> {
    let mut g = 0;
    for &c in &row[..upto] {
        g = arith::gcd(g, c)?;
        if g == 1 {
            return Ok(1);
        }
    }
    if g > 1 {
        for c in row[..upto].iter_mut() {
            *c /= g;
        }
    }
    Ok(g)
}

impl Rel {
    fn from_set(s: &IntegerSet) -> Rel {
        Rel {
            n: s.num_vars(),
            eqs: s.equalities().to_vec(),
            ineqs: s.inequalities().to_vec(),
        }
    }

    fn gcd_tighten(&mut self) -> Res<()> {
        let n = self.n;
        for r in self.ineqs.iter_mut() {
            let g = normalize_prefix(r, n)?;
            if g > 1 {
                r[n] = arith::floor_div(r[n], g)?;
            }
        }
        Ok(())
    }

    fn normalize_by_gcd(&mut self) -> Res<()> {
        let n = self.n;
        for r in self.eqs.iter_mut().chain(self.ineqs.iter_mut()) {
            normalize_prefix(r, n + 1)?;
        }
        Ok(())
    }

    fn remove_trivial_redundancy(&mut self) -> Res<()> {
        self.gcd_tighten()?;
        self.normalize_by_gcd()?;
        let n = self.n;
        let mut keep = vec![true; self.ineqs.len()];
        let mut seen: std::collections::HashMap<&[i64], (usize, i64)> =
            std::collections::HashMap::new();
        let mut rows: std::collections::HashSet<&[i64]> = std::collections::HashSet::new();
        for (i, r) in self.ineqs.iter().enumerate() {
            let trivially_valid = r[..n].iter().all(|&c| c == 0) && r[n] >= 0;
            if trivially_valid || !rows.insert(&r[..]) {
                keep[i] = false;
                continue;
            }
            match seen.get_mut(&r[..n]) {
                None => {
                    seen.insert(&r[..n], (i, r[n]));
                }
                Some(v) => {
                    if v.1 > r[n] {
                        keep[v.0] = false;
                        *v = (i, r[n]);
                    } else {
                        keep[i] = false;
                    }
                }
            }
        }
        let mut i = 0;
        self.ineqs.retain(|_| {
            i += 1;
            keep[i - 1]
        });
        Ok(())
    }

    fn remove_col(&mut self, c: usize) {
        for r in self.eqs.iter_mut().chain(self.ineqs.iter_mut()) {
            r.remove(c);
        }
        self.n -= 1;
    }

    /// `row := row_mult * row + pivot_mult * pivot` eliminating `col` (upstream's
    /// `eliminateFromConstraint`).
    fn eliminate_from(row: &mut [i64], pivot: &[i64], col: usize) -> Res<()> {
        let lead = row[col];
        if lead == 0 {
            return Ok(());
        }
        let pc = pivot[col];
        let sign = if (lead > 0) == (pc > 0) { -1 } else { 1 };
        let l = lcm(pc, lead)?;
        let pivot_mult = arith::mul(sign, l / arith::abs(pc)?)?;
        let row_mult = l / arith::abs(lead)?;
        for j in 0..row.len() {
            row[j] = arith::add(
                arith::mul(pivot_mult, pivot[j])?,
                arith::mul(row_mult, row[j])?,
            )?;
        }
        Ok(())
    }

    /// Upstream's `gaussianEliminateVars(start, limit)`: returns how many were removed.
    fn gaussian_eliminate_vars(&mut self, start: usize, limit: usize) -> Res<usize> {
        if start >= limit {
            return Ok(0);
        }
        self.gcd_tighten()?;
        let mut pivot_col = start;
        while pivot_col < limit {
            let Some(pr) = self.eqs.iter().position(|r| r[pivot_col] != 0) else {
                if self.ineqs.iter().any(|r| r[pivot_col] != 0) {
                    break;
                }
                pivot_col += 1;
                continue;
            };
            let pivot = self.eqs[pr].clone();
            for (i, r) in self.eqs.iter_mut().enumerate() {
                if i != pr {
                    Self::eliminate_from(r, &pivot, pivot_col)?;
                    normalize_prefix(r, pivot.len())?;
                }
            }
            for r in self.ineqs.iter_mut() {
                Self::eliminate_from(r, &pivot, pivot_col)?;
                normalize_prefix(r, pivot.len())?;
            }
            self.eqs.remove(pr);
            self.gcd_tighten()?;
            pivot_col += 1;
        }
        for c in (start..pivot_col).rev() {
            self.remove_col(c);
        }
        Ok(pivot_col - start)
    }

    fn fourier_motzkin(&mut self, pos: usize) -> Res<()> {
        if self.eqs.iter().any(|r| r[pos] != 0) {
            self.gaussian_eliminate_vars(pos, pos + 1)?;
            return Ok(());
        }
        self.gcd_tighten()?;
        if self.ineqs.iter().all(|r| r[pos] == 0) {
            self.remove_col(pos);
            return Ok(());
        }
        let (mut lbs, mut ubs, mut nbs) = (Vec::new(), Vec::new(), Vec::new());
        for r in &self.ineqs {
            match r[pos].signum() {
                0 => nbs.push(r),
                1 => lbs.push(r),
                _ => ubs.push(r),
            }
        }
        if lbs.len() * ubs.len() + nbs.len() > crate::system::MAX_ROWS {
            return Err(crate::AffineError::TooComplex);
        }
        let mut out = Vec::with_capacity(lbs.len() * ubs.len() + nbs.len());
        for u in &ubs {
            for l in &lbs {
                let lc = l[pos];
                let uc = arith::neg(u[pos])?;
                let m = lcm(lc, uc)?;
                let mut row = Vec::with_capacity(self.n);
                for c in 0..=self.n {
                    if c == pos {
                        continue;
                    }
                    row.push(arith::add(
                        arith::mul(u[c], m / uc)?,
                        arith::mul(l[c], m / lc)?,
                    )?);
                }
                out.push(row);
            }
        }
        for r in nbs {
            let mut row = r.clone();
            row.remove(pos);
            out.push(row);
        }
        let mut eqs = std::mem::take(&mut self.eqs);
        for r in eqs.iter_mut() {
            r.remove(pos);
        }
        self.eqs = eqs;
        self.ineqs = out;
        self.n -= 1;
        self.gcd_tighten()?;
        self.normalize_by_gcd()?;
        self.remove_trivial_redundancy()
    }

    fn has_invalid_constraint(&self) -> bool {
        let n = self.n;
        self.eqs
            .iter()
            .any(|r| r[..n].iter().all(|&c| c == 0) && r[n] != 0)
            || self
                .ineqs
                .iter()
                .any(|r| r[..n].iter().all(|&c| c == 0) && r[n] < 0)
    }

    fn empty_by_gcd_test(&self) -> Res<bool> {
        let n = self.n;
        for r in &self.eqs {
            let mut g = 0;
            for &c in &r[..n] {
                g = arith::gcd(g, c)?;
            }
            if g > 0 && r[n] % g != 0 {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn obviously_empty(&self) -> Res<bool> {
        Ok(self.empty_by_gcd_test()? || self.has_invalid_constraint())
    }

    fn into_set(self, kinds: Vec<crate::VarKind>) -> IntegerSet {
        let mut out = IntegerSet::with_kinds(kinds);
        for e in &self.eqs {
            out.add_equality(&e[..self.n], e[self.n]);
        }
        for i in &self.ineqs {
            out.add_inequality(&i[..self.n], i[self.n]);
        }
        out
    }

    fn remove_redundant_locals(&mut self, locals: &mut Vec<bool>) -> Res<()> {
        let mut alive: Vec<usize> = (0..self.n).collect();
        self.remove_redundant_locals_tracking(locals, &mut alive)
    }

    /// Upstream's `removeRedundantLocalVars`: eliminates locals with a unit coefficient
    /// in some equality.
    fn remove_redundant_locals_tracking(
        &mut self,
        locals: &mut Vec<bool>,
        alive: &mut Vec<usize>,
    ) -> Res<()> {
        let n1 = self.n + 1;
        for r in self.eqs.iter_mut() {
            normalize_prefix(r, n1)?;
        }
        loop {
            let mut found = None;
            'outer: for (i, r) in self.eqs.iter().enumerate() {
                for j in 0..self.n {
                    if locals[j] && (r[j] == 1 || r[j] == -1) {
                        found = Some((i, j));
                        break 'outer;
                    }
                }
            }
            let Some((i, j)) = found else {
                return Ok(());
            };
            let pivot = self.eqs[i].clone();
            let width = self.n + 1;
            for (k, r) in self.eqs.iter_mut().enumerate() {
                if k != i && r[j] != 0 {
                    Self::eliminate_from(r, &pivot, j)?;
                    normalize_prefix(r, width)?;
                }
            }
            for r in self.ineqs.iter_mut() {
                Self::eliminate_from(r, &pivot, j)?;
            }
            self.eqs.remove(i);
            self.remove_col(j);
            locals.remove(j);
            alive.remove(j);
        }
    }

    fn best_var(&self, start: usize, end: usize) -> usize {
        let product = |c: usize| {
            let lb = self.ineqs.iter().filter(|r| r[c] > 0).count();
            let ub = self.ineqs.iter().filter(|r| r[c] < 0).count();
            lb * ub
        };
        let mut best = start;
        let mut min = product(start);
        for c in start + 1..end {
            let p = product(c);
            if p < min {
                min = p;
                best = c;
            }
        }
        best
    }

    fn project_out(&mut self, pos: usize, num: usize) -> Res<()> {
        if num == 0 {
            return Ok(());
        }
        let mut current = pos;
        let mut to_eliminate = num;
        let mut gaussian = 0;
        while current < self.n && to_eliminate > 0 {
            let k = self.gaussian_eliminate_vars(current, current + to_eliminate)?;
            current += 1;
            gaussian += k;
            to_eliminate = to_eliminate.saturating_sub(k + 1);
        }
        for i in 0..num - gaussian {
            let left = num - gaussian - i;
            let v = self.best_var(pos, pos + left);
            self.fourier_motzkin(v)?;
        }
        self.gcd_tighten()?;
        self.normalize_by_gcd()
    }

    fn constant_bound(mut self, pos: usize, lower: bool) -> Res<Option<i64>> {
        self.project_out(0, pos)?;
        let rest = self.n - 1;
        self.project_out(1, rest)?;
        for r in &self.eqs {
            if r[0] == 1 || r[0] == -1 {
                // -c / a with a = ±1
                return Ok(Some(arith::mul(arith::neg(r[1])?, r[0])?));
            }
        }
        if self.ineqs.iter().all(|r| r[0] == 0) {
            return Ok(None);
        }
        let mut best: Option<i64> = None;
        for r in &self.ineqs {
            if lower && r[0] > 0 {
                let b = arith::ceil_div(arith::neg(r[1])?, r[0])?;
                best = Some(best.map_or(b, |x| x.max(b)));
            } else if !lower && r[0] < 0 {
                let b = arith::floor_div(r[1], arith::neg(r[0])?)?;
                best = Some(best.map_or(b, |x| x.min(b)));
            }
        }
        Ok(best)
    }
}

/// Upstream's `IntegerRelation::isEmpty()`: the GCD test, elimination of locals through
/// unit equalities, Gaussian elimination, then Fourier–Motzkin with GCD tightening.
/// `true` proves emptiness; `false` may be wrong (the rational shadow can hold integer
/// points with no integer pre-image, and a constraint explosion answers `false`). Use
/// [`crate::IntegerSet::is_empty`] for the exact answer.
pub fn mlir_is_empty(set: &IntegerSet) -> Result<bool, crate::AffineError> {
    let mut r = Rel::from_set(set);
    if r.obviously_empty()? {
        return Ok(true);
    }
    let mut locals: Vec<bool> = set
        .kinds()
        .iter()
        .map(|k| *k == crate::VarKind::Local)
        .collect();
    r.remove_redundant_locals(&mut locals)?;
    if r.obviously_empty()? {
        return Ok(true);
    }
    let mut current = 0;
    while current < r.n {
        let n = r.n;
        r.gaussian_eliminate_vars(current, n)?;
        current += 1;
        if r.obviously_empty()? {
            return Ok(true);
        }
    }
    let limit = 32 * set.num_vars();
    for _ in 0..r.n {
        let n = r.n;
        let v = r.best_var(0, n);
        r.fourier_motzkin(v)?;
        if r.eqs.len() + r.ineqs.len() >= limit {
            return Ok(false);
        }
        if r.has_invalid_constraint() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Upstream's `IntegerRelation::removeRedundantLocalVars()` (which its relation
/// composition ends with): every local variable with a ±1 coefficient in some equality
/// is substituted away, in row and column order. Exact over the integers.
pub fn mlir_remove_redundant_locals(set: &IntegerSet) -> Result<IntegerSet, crate::AffineError> {
    let mut r = Rel::from_set(set);
    let mut locals: Vec<bool> = set
        .kinds()
        .iter()
        .map(|k| *k == crate::VarKind::Local)
        .collect();
    let kinds_before = set.kinds().to_vec();
    let cols_before = r.n;
    // Track which original columns survive, to rebuild the kinds.
    let mut alive: Vec<usize> = (0..cols_before).collect();
    r.remove_redundant_locals_tracking(&mut locals, &mut alive)?;
    let kinds = alive.iter().map(|&c| kinds_before[c]).collect();
    Ok(r.into_set(kinds))
}

/// Upstream's `IntegerRelation::projectOut(pos, num)` on `set` (columns removed). The
/// result over-approximates the integer projection (rational shadow, GCD-tightened).
pub fn mlir_project_out(
    set: &IntegerSet,
    pos: usize,
    num: usize,
) -> Result<IntegerSet, crate::AffineError> {
    assert!(pos + num <= set.num_vars());
    let mut r = Rel::from_set(set);
    r.project_out(pos, num)?;
    let mut kinds = set.kinds().to_vec();
    kinds.drain(pos..pos + num);
    Ok(r.into_set(kinds))
}

/// Upstream's `IntegerRelation::getConstantBound(LB | UB, pos)`: project every other
/// variable out (as [`mlir_project_out`] does), then read a constant equality or the
/// tightest constant bound. `None` = no bound found on that side.
pub fn mlir_constant_bound(
    set: &IntegerSet,
    pos: usize,
    lower: bool,
) -> Result<Option<i64>, crate::AffineError> {
    Rel::from_set(set).constant_bound(pos, lower)
}
