//! Checked integer helpers: every operation returns [`AffineError::Overflow`]
//! instead of wrapping.

use crate::AffineError;

pub(crate) type Res<T> = Result<T, AffineError>;

pub(crate) fn add(a: i64, b: i64) -> Res<i64> {
    a.checked_add(b).ok_or(AffineError::Overflow)
}

pub(crate) fn sub(a: i64, b: i64) -> Res<i64> {
    a.checked_sub(b).ok_or(AffineError::Overflow)
}

pub(crate) fn mul(a: i64, b: i64) -> Res<i64> {
    a.checked_mul(b).ok_or(AffineError::Overflow)
}

pub(crate) fn neg(a: i64) -> Res<i64> {
    a.checked_neg().ok_or(AffineError::Overflow)
}

pub(crate) fn abs(a: i64) -> Res<i64> {
    a.checked_abs().ok_or(AffineError::Overflow)
}

/// Greatest common divisor of the absolute values (gcd(0, 0) = 0).
pub(crate) fn gcd(a: i64, b: i64) -> Res<i64> {
    let (mut x, mut y) = (a.unsigned_abs(), b.unsigned_abs());
    while y != 0 {
        let t = x % y;
        x = y;
        y = t;
    }
    i64::try_from(x).map_err(|_| AffineError::Overflow)
}

/// `floor(a / b)` for `b > 0`.
pub(crate) fn floor_div(a: i64, b: i64) -> Res<i64> {
    debug_assert!(b > 0);
    a.checked_div_euclid(b).ok_or(AffineError::Overflow)
}

/// `ceil(a / b)` for `b > 0`.
pub(crate) fn ceil_div(a: i64, b: i64) -> Res<i64> {
    neg(floor_div(neg(a)?, b)?)
}

/// `s1 * r1 + s2 * r2`, element-wise.
pub(crate) fn combine(s1: i64, r1: &[i64], s2: i64, r2: &[i64]) -> Res<Vec<i64>> {
    r1.iter()
        .zip(r2)
        .map(|(&a, &b)| add(mul(s1, a)?, mul(s2, b)?))
        .collect()
}

/// The symmetric residue of Pugh's Omega test: `a - m * floor(a / m + 1/2)`.
pub(crate) fn mod_hat(a: i64, m: i64) -> Res<i64> {
    debug_assert!(m > 0);
    let q = (2 * i128::from(a) + i128::from(m)).div_euclid(2 * i128::from(m));
    let r = i128::from(a) - i128::from(m) * q;
    i64::try_from(r).map_err(|_| AffineError::Overflow)
}
