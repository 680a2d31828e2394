//! Upstream-compatible (inexact) elimination: known answers.

use memplan_affine::compat::{mlir_constant_bound, mlir_is_empty, mlir_project_out};
use memplan_affine::{IntegerSet, VarKind};

/// Load A[i + 1] then store A[i] at a later iteration of `affine.for %i = 0 to 64
/// step 2`: the parity makes it empty. Upstream proves it only thanks to the two
/// floordiv inequalities of each step quotient (tightened, they force q0 == q1 after
/// the Gaussian steps); with the equalities alone its rational elimination cannot.
#[test]
fn step_parity_needs_the_floordiv_rows_upstream() {
    use VarKind::*;
    let mut s = IntegerSet::with_kinds(vec![Dim, Dim, Local, Local, Local]);
    s.add_equality(&[1, 0, 0, 0, -1], 1);
    s.add_equality(&[1, 0, -2, 0, 0], 0);
    s.add_equality(&[0, 1, 0, 0, -1], 0);
    s.add_equality(&[0, 1, 0, -2, 0], 0);
    s.add_inequality(&[1, 0, 0, 0, 0], 0);
    s.add_inequality(&[-1, 0, 0, 0, 0], 63);
    s.add_inequality(&[0, 1, 0, 0, 0], 0);
    s.add_inequality(&[0, -1, 0, 0, 0], 63);
    s.add_inequality(&[-1, 1, 0, 0, 0], -1);
    assert_eq!(s.is_empty(), Ok(true));
    assert_eq!(mlir_is_empty(&s), Ok(false));
    // q0 = d0 floordiv 2, q1 = d1 floordiv 2.
    s.add_inequality(&[1, 0, -2, 0, 0], 0);
    s.add_inequality(&[-1, 0, 2, 0, 0], 1);
    s.add_inequality(&[0, 1, 0, -2, 0], 0);
    s.add_inequality(&[0, -1, 0, 2, 0], 1);
    assert_eq!(s.is_empty(), Ok(true));
    assert_eq!(mlir_is_empty(&s), Ok(true));
}

/// (3i mod 64) == (3j mod 64), 0 <= i < j < 64 is empty over the integers, but
/// upstream's rational elimination cannot prove it.
#[test]
fn rational_shadow_misses_modular_emptiness() {
    use VarKind::*;
    // columns: i, j, qi, qj
    let mut s = IntegerSet::with_kinds(vec![Dim, Dim, Local, Local]);
    for (v, q) in [(0usize, 2usize), (1, 3)] {
        let mut lo = vec![0; 4];
        lo[v] = 3;
        lo[q] = -64;
        s.add_inequality(&lo, 0);
        let hi: Vec<i64> = lo.iter().map(|c| -c).collect();
        s.add_inequality(&hi, 63);
        s.add_lower_bound(v, 0);
        s.add_upper_bound(v, 63);
    }
    // 3i - 64 qi == 3j - 64 qj
    s.add_equality(&[3, -3, -64, 64], 0);
    s.add_inequality(&[-1, 1, 0, 0], -1);
    assert_eq!(s.is_empty(), Ok(true));
    assert_eq!(mlir_is_empty(&s), Ok(false));
    // The projection keeps j - i bounded but loose.
    let mut t = s.clone();
    let d = t.add_var(Dim);
    t.add_equality(&[1, -1, 0, 0, -1], 0);
    let p = mlir_project_out(&t, 0, 4).unwrap();
    assert_eq!(p.num_vars(), 1);
    assert!(mlir_constant_bound(&p, 0, true).unwrap().is_some());
    let _ = d;
}
