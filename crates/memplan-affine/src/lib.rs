//! Integer affine constraint systems for memplan's affine analyses.
//!
//! An [`IntegerSet`] is a conjunction of affine equalities and inequalities
//! over integer variables. Each variable has a [`VarKind`]: loop dimensions,
//! symbols (fixed but unknown values) and locals (existentially quantified,
//! e.g. the quotient of a `floordiv`). All algorithms treat every variable as
//! an integer unknown; the kinds are bookkeeping for the caller.
//!
//! A constraint is a coefficient row plus a constant:
//! `coeffs · x + constant == 0` (equality) or `>= 0` (inequality).
//!
//! What the crate answers, exactly over the integers:
//! - [`IntegerSet::is_empty`]: the Omega test (exact equality elimination with
//!   Pugh's `mod_hat` step, Fourier–Motzkin with GCD tightening where the
//!   elimination is exact, otherwise real / dark / grey shadows). Complete:
//!   no integer point is ever missed or invented.
//! - [`IntegerSet::constant_bounds`]: the exact integer minimum and maximum of
//!   one variable over the set.
//! - [`IntegerSet::project_out`]: Fourier–Motzkin projection; the result
//!   contains the projection of the integer points, and the returned flag says
//!   whether it is exactly that projection.
//! - [`IntegerSet::bounds_in_terms_of`]: lower bounds `var >= ceil(e / d)` and
//!   upper bounds `var <= floor(e / d)` with `e` affine in a chosen set of
//!   other variables, after projecting out the rest.
//!
//! Arithmetic is checked: an overflow is [`AffineError::Overflow`], never a
//! wrapped value. Runaway eliminations stop with [`AffineError::TooComplex`].
//! Callers that need a conservative answer treat an error as "unknown".
//!
//! ```
//! use memplan_affine::{IntegerSet, VarKind};
//! // { (i, j) : 0 <= i < 8, j == 2 i + 1, j == 6 } is empty over the integers.
//! let mut s = IntegerSet::new(2, 0);
//! s.add_lower_bound(0, 0);
//! s.add_upper_bound(0, 7);
//! s.add_equality(&[2, -1], 1); // 2i - j + 1 == 0
//! s.add_equality(&[0, 1], -6); // j - 6 == 0
//! assert_eq!(s.is_empty(), Ok(true));
//! assert_eq!(s.var_kind(1), VarKind::Dim);
//! ```

#![warn(missing_docs)]

mod arith;
pub mod compat;
mod system;

use std::fmt;

use system::{Budget, Sys};

/// Why a query gave no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AffineError {
    /// An intermediate coefficient did not fit in an `i64`.
    #[error("integer overflow in affine constraint arithmetic")]
    Overflow,
    /// The elimination exceeded its row or step budget.
    #[error("affine constraint system too complex to decide")]
    TooComplex,
}

/// What a variable stands for (bookkeeping only; all are integer unknowns).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VarKind {
    /// A dimension (e.g. a loop induction variable).
    Dim,
    /// A symbol: fixed but unknown.
    Symbol,
    /// An existentially quantified local (e.g. a `floordiv` quotient).
    Local,
}

/// One bound of a variable, affine in the variables chosen by
/// [`IntegerSet::bounds_in_terms_of`]: the value `(coeffs · vars + constant)
/// / divisor`, rounded up for a lower bound and down for an upper bound.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AffineBound {
    /// One coefficient per chosen variable, in the order they were given.
    pub coeffs: Vec<i64>,
    /// The constant term.
    pub constant: i64,
    /// The positive divisor.
    pub divisor: i64,
}

impl AffineBound {
    /// `coeffs · values + constant` (before division).
    pub fn numerator(&self, values: &[i64]) -> Result<i64, AffineError> {
        let mut acc = self.constant;
        for (&c, &v) in self.coeffs.iter().zip(values) {
            acc = arith::add(acc, arith::mul(c, v)?)?;
        }
        Ok(acc)
    }

    /// The bound as a lower bound: `ceil(numerator / divisor)`.
    pub fn eval_lower(&self, values: &[i64]) -> Result<i64, AffineError> {
        arith::ceil_div(self.numerator(values)?, self.divisor)
    }

    /// The bound as an upper bound: `floor(numerator / divisor)`.
    pub fn eval_upper(&self, values: &[i64]) -> Result<i64, AffineError> {
        arith::floor_div(self.numerator(values)?, self.divisor)
    }

    /// The constant value when every coefficient is zero and the division
    /// is exact.
    pub fn as_constant(&self) -> Option<i64> {
        (self.coeffs.iter().all(|&c| c == 0) && self.constant % self.divisor == 0)
            .then(|| self.constant / self.divisor)
    }
}

/// Bounds of one variable in terms of chosen others; see
/// [`IntegerSet::bounds_in_terms_of`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarBounds {
    /// `var >= ceil(b)` for every `b` (the variable is at least their max).
    pub lower: Vec<AffineBound>,
    /// `var <= floor(b)` for every `b` (the variable is at most their min).
    pub upper: Vec<AffineBound>,
    /// Whether the projection that produced the bounds was exact over the
    /// integers (when `false`, the bounds are still valid but may be loose).
    pub exact: bool,
}

/// A conjunction of affine equalities and inequalities over integer
/// variables; see the crate documentation.
#[derive(Clone, PartialEq, Eq)]
pub struct IntegerSet {
    kinds: Vec<VarKind>,
    eqs: Vec<Vec<i64>>,
    ineqs: Vec<Vec<i64>>,
}

impl IntegerSet {
    /// A set with `num_dims` dimensions then `num_symbols` symbols and no
    /// constraints (the whole space).
    pub fn new(num_dims: usize, num_symbols: usize) -> Self {
        let mut kinds = vec![VarKind::Dim; num_dims];
        kinds.resize(num_dims + num_symbols, VarKind::Symbol);
        IntegerSet {
            kinds,
            eqs: Vec::new(),
            ineqs: Vec::new(),
        }
    }

    /// A set over variables of the given kinds, in that order.
    pub fn with_kinds(kinds: Vec<VarKind>) -> Self {
        IntegerSet {
            kinds,
            eqs: Vec::new(),
            ineqs: Vec::new(),
        }
    }

    /// Number of variables (columns).
    pub fn num_vars(&self) -> usize {
        self.kinds.len()
    }

    /// The kind of every variable, in column order.
    pub fn kinds(&self) -> &[VarKind] {
        &self.kinds
    }

    /// The kind of variable `var`. Panics if `var` is out of range.
    pub fn var_kind(&self, var: usize) -> VarKind {
        self.kinds[var]
    }

    /// The equalities, each `num_vars() + 1` entries (constant last).
    pub fn equalities(&self) -> &[Vec<i64>] {
        &self.eqs
    }

    /// The inequalities (`>= 0`), each `num_vars() + 1` entries.
    pub fn inequalities(&self) -> &[Vec<i64>] {
        &self.ineqs
    }

    /// Appends a variable of `kind` (zero coefficient in every existing
    /// constraint) and returns its index.
    pub fn add_var(&mut self, kind: VarKind) -> usize {
        self.insert_var(self.kinds.len(), kind)
    }

    /// Inserts a variable of `kind` at column `pos` (later columns shift
    /// right) and returns `pos`. Panics if `pos > num_vars()`.
    pub fn insert_var(&mut self, pos: usize, kind: VarKind) -> usize {
        self.kinds.insert(pos, kind);
        for r in self.eqs.iter_mut().chain(self.ineqs.iter_mut()) {
            r.insert(pos, 0);
        }
        pos
    }

    fn row(&self, coeffs: &[i64], constant: i64) -> Vec<i64> {
        assert_eq!(
            coeffs.len(),
            self.kinds.len(),
            "constraint row length must equal the number of variables"
        );
        let mut r = coeffs.to_vec();
        r.push(constant);
        r
    }

    /// Adds `coeffs · x + constant == 0`. Panics if `coeffs.len() !=
    /// num_vars()`.
    pub fn add_equality(&mut self, coeffs: &[i64], constant: i64) {
        let r = self.row(coeffs, constant);
        self.eqs.push(r);
    }

    /// Adds `coeffs · x + constant >= 0`. Panics if `coeffs.len() !=
    /// num_vars()`.
    pub fn add_inequality(&mut self, coeffs: &[i64], constant: i64) {
        let r = self.row(coeffs, constant);
        self.ineqs.push(r);
    }

    /// Adds `var >= value`.
    pub fn add_lower_bound(&mut self, var: usize, value: i64) {
        let mut r = vec![0; self.kinds.len() + 1];
        r[var] = 1;
        // x - value >= 0; -value may overflow only for i64::MIN, where the
        // bound is vacuous.
        if let Some(v) = value.checked_neg() {
            r[self.kinds.len()] = v;
            self.ineqs.push(r);
        }
    }

    /// Adds `var <= value`.
    pub fn add_upper_bound(&mut self, var: usize, value: i64) {
        let mut r = vec![0; self.kinds.len() + 1];
        r[var] = -1;
        r[self.kinds.len()] = value;
        self.ineqs.push(r);
    }

    /// Adds a local `q = floor((coeffs · x + constant) / divisor)` (with the
    /// two inequalities `0 <= e - divisor * q <= divisor - 1`) and returns its
    /// index. `coeffs` covers the variables before the new one. The remainder
    /// `e mod divisor` is then `e - divisor * q`.
    pub fn add_floordiv(
        &mut self,
        coeffs: &[i64],
        constant: i64,
        divisor: i64,
    ) -> Result<usize, AffineError> {
        assert!(divisor > 0, "floordiv divisor must be positive");
        let q = self.add_var(VarKind::Local);
        let mut lo = coeffs.to_vec();
        lo.push(arith::neg(divisor)?);
        // e - d q >= 0
        self.add_inequality(&lo, constant);
        // d q - e + d - 1 >= 0
        let hi: Vec<i64> = lo
            .iter()
            .map(|&c| arith::neg(c))
            .collect::<Result<_, _>>()?;
        let c = arith::add(arith::neg(constant)?, divisor - 1)?;
        self.add_inequality(&hi, c);
        Ok(q)
    }

    /// Adds every constraint of `other`, which must have the same number of
    /// variables (their kinds are not compared).
    pub fn intersect(&mut self, other: &IntegerSet) {
        assert_eq!(self.num_vars(), other.num_vars());
        self.eqs.extend(other.eqs.iter().cloned());
        self.ineqs.extend(other.ineqs.iter().cloned());
    }

    /// Whether the integer point `point` satisfies every constraint.
    pub fn contains(&self, point: &[i64]) -> Result<bool, AffineError> {
        assert_eq!(point.len(), self.num_vars());
        let eval = |r: &[i64]| -> Result<i64, AffineError> {
            let n = point.len();
            let mut acc = r[n];
            for (&c, &v) in r[..n].iter().zip(point) {
                acc = arith::add(acc, arith::mul(c, v)?)?;
            }
            Ok(acc)
        };
        for r in &self.eqs {
            if eval(r)? != 0 {
                return Ok(false);
            }
        }
        for r in &self.ineqs {
            if eval(r)? < 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn sys(&self) -> Sys {
        Sys {
            n: self.kinds.len(),
            eqs: self.eqs.clone(),
            ineqs: self.ineqs.clone(),
        }
    }

    /// Whether the set has no integer point (exact).
    pub fn is_empty(&self) -> Result<bool, AffineError> {
        system::is_empty(self.sys(), &mut Budget::new())
    }

    /// Normalises the constraints in place: GCD division with integer
    /// tightening, duplicates and trivially true rows removed, opposite
    /// inequality pairs that meet turned into equalities. Returns `true` when
    /// that already shows the set to be empty (then the constraints are left
    /// as they were).
    pub fn simplify(&mut self) -> Result<bool, AffineError> {
        let mut s = self.sys();
        if s.normalize()? {
            return Ok(true);
        }
        self.eqs = s.eqs;
        self.ineqs = s.ineqs;
        Ok(false)
    }

    /// Eliminates the variables `start..start + count` (their columns are
    /// removed; later ones shift left). Returns whether the result is exactly
    /// the integer projection; when `false` it is a superset of it (the
    /// rational shadow, tightened). An empty projection becomes the single
    /// constraint `-1 >= 0`.
    pub fn project_out(&mut self, start: usize, count: usize) -> Result<bool, AffineError> {
        assert!(start + count <= self.num_vars());
        let vars: Vec<usize> = (start..start + count).collect();
        self.project_vars(&vars)
    }

    /// Like [`IntegerSet::project_out`] for an arbitrary list of distinct
    /// variables.
    pub fn project_vars(&mut self, vars: &[usize]) -> Result<bool, AffineError> {
        let mut s = self.sys();
        let exact = system::project(&mut s, vars)?;
        let mut sorted = vars.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        for &v in sorted.iter().rev() {
            self.kinds.remove(v);
        }
        debug_assert_eq!(s.n, self.kinds.len());
        self.eqs = s.eqs;
        self.ineqs = s.ineqs;
        Ok(exact)
    }

    /// The exact integer minimum and maximum of `var` over the set: `None`
    /// when the set is empty, and `None` for a side on which `var` is
    /// unbounded.
    #[allow(clippy::type_complexity)]
    pub fn constant_bounds(
        &self,
        var: usize,
    ) -> Result<Option<(Option<i64>, Option<i64>)>, AffineError> {
        if self.is_empty()? {
            return Ok(None);
        }
        // Rational (tightened) bounds from projecting everything else out.
        let mut p = self.clone();
        let others: Vec<usize> = (0..self.num_vars()).filter(|&v| v != var).collect();
        p.project_vars(&others)?;
        let (mut lo, mut hi): (Option<i64>, Option<i64>) = (None, None);
        let mut tighten = |r: &[i64], is_eq: bool| -> Result<(), AffineError> {
            let (a, c) = (r[0], r[1]);
            if a == 0 {
                return Ok(());
            }
            if a > 0 || is_eq {
                // a x + c >= 0 (a > 0): x >= ceil(-c / a)
                let (aa, cc) = if a > 0 {
                    (a, c)
                } else {
                    (arith::neg(a)?, arith::neg(c)?)
                };
                let l = arith::ceil_div(arith::neg(cc)?, aa)?;
                lo = Some(lo.map_or(l, |x| x.max(l)));
            }
            if a < 0 || is_eq {
                // -b x + c >= 0: x <= floor(c / b)
                let (bb, cc) = if a < 0 {
                    (arith::neg(a)?, c)
                } else {
                    (a, arith::neg(c)?)
                };
                let h = arith::floor_div(cc, bb)?;
                hi = Some(hi.map_or(h, |x| x.min(h)));
            }
            Ok(())
        };
        for r in &p.eqs {
            tighten(r, true)?;
        }
        for r in &p.ineqs {
            tighten(r, false)?;
        }
        // Exact values by bisection on `var <= v` (resp. `var >= v`), which
        // is monotone in v. The rational bounds bracket the answer.
        let nonempty_with = |upper: bool, v: i64| -> Result<bool, AffineError> {
            let mut t = self.clone();
            if upper {
                t.add_upper_bound(var, v);
            } else {
                t.add_lower_bound(var, v);
            }
            Ok(!t.is_empty()?)
        };
        let exact_lo = match lo {
            None => None,
            Some(l) => Some(bisect(l, hi, |v| nonempty_with(true, v))?),
        };
        let exact_hi = match hi {
            None => None,
            Some(h) => {
                // Mirror: smallest w with var >= -w nonempty, negated.
                let start = arith::neg(h)?;
                let lim = match lo {
                    Some(l) => Some(arith::neg(l)?),
                    None => None,
                };
                let w = bisect(start, lim, |w| nonempty_with(false, arith::neg(w)?))?;
                Some(arith::neg(w)?)
            }
        };
        Ok(Some((exact_lo, exact_hi)))
    }

    /// Bounds of `var` as affine expressions in the variables `keep` (which
    /// must not contain `var`), after projecting out every other variable.
    /// Lower bounds read `var >= ceil((coeffs · keep + constant) / divisor)`,
    /// upper bounds `var <= floor(...)`; an equality on `var` gives one of
    /// each. Bounds come sorted and without duplicates. `exact` reports
    /// whether the projection was exact.
    pub fn bounds_in_terms_of(&self, var: usize, keep: &[usize]) -> Result<VarBounds, AffineError> {
        assert!(!keep.contains(&var));
        let mut p = self.clone();
        let drop: Vec<usize> = (0..self.num_vars())
            .filter(|v| *v != var && !keep.contains(v))
            .collect();
        let exact = p.project_vars(&drop)?;
        // Column of each remaining variable after the projection.
        let col = |v: usize| v - drop.iter().filter(|&&d| d < v).count();
        let vcol = col(var);
        let n = p.num_vars();
        let mut lower = Vec::new();
        let mut upper = Vec::new();
        let mut emit = |r: &[i64], is_eq: bool| -> Result<(), AffineError> {
            let a = r[vcol];
            if a == 0 {
                return Ok(());
            }
            // Rest e with a*var + e (>=|==) 0.
            let rest = |sign: i64| -> Result<AffineBound, AffineError> {
                let coeffs = keep
                    .iter()
                    .map(|&k| arith::mul(sign, r[col(k)]))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(AffineBound {
                    coeffs,
                    constant: arith::mul(sign, r[n])?,
                    divisor: arith::abs(a)?,
                })
            };
            if a > 0 {
                // var >= -e / a
                lower.push(rest(-1)?);
                if is_eq {
                    upper.push(rest(-1)?);
                }
            } else {
                // -b var + e >= 0: var <= e / b
                upper.push(rest(1)?);
                if is_eq {
                    lower.push(rest(1)?);
                }
            }
            Ok(())
        };
        for r in &p.eqs {
            emit(r, true)?;
        }
        for r in &p.ineqs {
            emit(r, false)?;
        }
        lower.sort();
        lower.dedup();
        upper.sort();
        upper.dedup();
        Ok(VarBounds {
            lower,
            upper,
            exact,
        })
    }
}

/// Smallest `v >= lo` (and `<= hi` when given) with `pred(v)` true, for a
/// monotone `pred` known to hold at `hi` (or somewhere above `lo`).
fn bisect(
    lo: i64,
    hi: Option<i64>,
    mut pred: impl FnMut(i64) -> Result<bool, AffineError>,
) -> Result<i64, AffineError> {
    let mut lo = lo;
    let mut hi = match hi {
        Some(h) => h,
        None => {
            // Gallop upwards until the predicate holds.
            let mut step: i64 = 1;
            loop {
                let v = arith::add(lo, step)?;
                if pred(v)? {
                    break v;
                }
                lo = v;
                step = arith::mul(step, 2)?;
            }
        }
    };
    if pred(lo)? {
        return Ok(lo);
    }
    // pred(lo) false, pred(hi) true.
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if pred(mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(hi)
}

impl fmt::Debug for IntegerSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

impl fmt::Display for IntegerSet {
    /// One constraint per line, variables named `d0.., s0.., q0..` by kind.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut counts = [0usize; 3];
        let names: Vec<String> = self
            .kinds
            .iter()
            .map(|k| {
                let (p, i) = match k {
                    VarKind::Dim => ("d", 0),
                    VarKind::Symbol => ("s", 1),
                    VarKind::Local => ("q", 2),
                };
                counts[i] += 1;
                format!("{p}{}", counts[i] - 1)
            })
            .collect();
        writeln!(f, "({})", names.join(", "))?;
        let line = |f: &mut fmt::Formatter<'_>, r: &[i64], op: &str| -> fmt::Result {
            let mut terms = Vec::new();
            for (c, name) in r.iter().zip(&names) {
                match *c {
                    0 => {}
                    1 => terms.push(name.clone()),
                    -1 => terms.push(format!("-{name}")),
                    c => terms.push(format!("{c}*{name}")),
                }
            }
            let c = r[names.len()];
            if c != 0 || terms.is_empty() {
                terms.push(c.to_string());
            }
            writeln!(f, "  {} {op} 0", terms.join(" + "))
        };
        for r in &self.eqs {
            line(f, r, "==")?;
        }
        for r in &self.ineqs {
            line(f, r, ">=")?;
        }
        Ok(())
    }
}
