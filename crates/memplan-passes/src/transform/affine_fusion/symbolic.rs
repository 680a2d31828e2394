//! Symbols in loop bounds, guards and subscripts: the exact check run once per point of their
//! values, and the argument that the points it runs cover every other one (FINDINGS F3, F4).
//!
//! The abstract execution needs every loop bound, guard and subscript of a written buffer to
//! evaluate. The index arguments of the function that are direct operands of loop bounds,
//! `affine.if` conditions or such subscripts (the *symbols*; never through arithmetic) are
//! given values, and the check must pass at each point of a finite set. Per symbol `s`, the
//! values outside the set are covered as follows:
//!
//! - **A symbol in subscripts** ([`defined_range`]): when an access whose subscripts are linear
//!   in `s` runs in a top-level nest whose loops have bounds without symbols (no `affine.if`
//!   around it), the same instances run for every value of every symbol, and each is in
//!   bounds only on an interval of `s`: outside the intersection `[L, H]` the original has no
//!   defined behaviour. Every value of `[L, H]` is run (`exact`); the symbol may then be read in
//!   any subscript, and nothing is asked of the rewritten function outside the range. A symbol
//!   in a written buffer's subscript without such a range keeps its nests opaque.
//! - **Below `low`** every constraint that holds `s` (a bound `iv >= a·s + r`, `iv < a·s + r`
//!   or a guard row) is *decided*: its truth is the same for all `s <= low`, all values of the
//!   other symbols and every value of the induction variables it sees, judged on interval
//!   bounds of those variables taken from the constraints without `s`. A loop one of whose
//!   constraints is decided false never runs (its body needs nothing); a guard decided false
//!   runs its `else` region. Then the execution, as the check models it, is the same for every
//!   `s <= low`: the symbol is read nowhere else. The rewritten function must satisfy the same
//!   at the same `low`, so both behave for `s < low` as at `low`.
//! - **Above `high`**, the same argument mirrored (every constraint decided for `s >= high`,
//!   in both functions).
//! - **Without a `high`**, undefined behaviour of the original: when every constraint on `s`
//!   can only become true as `s` grows (upper bounds `a·s + r` with `a > 0`, lower bounds with
//!   `a < 0` and step 1, guards `a·s + r >= 0` with `a > 0` and no memory access in their
//!   `else`), the access instances the original executes only grow with `s` (the others
//!   fixed), and their subscripts do not hold `s`; so once the original goes out of bounds (or
//!   touches a freed buffer) at a point, it does so at every point above it along `s`, where it
//!   has no defined behaviour to keep. **Without a `low`**, the mirror: every constraint only
//!   becomes true as `s` decreases (a symbolic lower bound `%n to 64` with step 1, h-f4g5).
//!
//! The points run: from the corner of the `low`s (a symbol without one starts at its `high`),
//! every point reachable by moving one symbol at a time by one, within its ends where it has
//! them, and not on past a point where the original goes out of bounds along a symbol it only
//! grows with in that direction. Every other point equals one of those after clamping to the
//! `low`s and `high`s, or lies beyond an out-of-bounds one. Points at which the original goes
//! out of bounds are skipped. When the set would exceed [`MAX_VALUES`] points (or
//! [`POINTS_BUDGET`] accesses over all their runs), the symbols are not modelled and nests that
//! hold them stay opaque, as before.

use super::*;

/// Infinity of the interval arithmetic (far beyond any `i64`).
const INF: i128 = 1 << 100;

/// Most symbol values the check enumerates per function.
pub(super) const MAX_VALUES: usize = 320;

/// Most abstract events over all the runs of the original at a function's points: every
/// candidate the pass checks runs them all again, so this bounds a check's cost.
pub(super) const POINTS_BUDGET: u64 = SIM_BUDGET / 4;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Iv {
    lo: i128,
    hi: i128,
}

impl Iv {
    fn point(x: i128) -> Iv {
        Iv { lo: x, hi: x }
    }
    fn full() -> Iv {
        Iv { lo: -INF, hi: INF }
    }
}

fn sat(x: i128) -> i128 {
    x.clamp(-INF, INF)
}

fn is_inf(x: i128) -> bool {
    x <= -INF || x >= INF
}

fn floor_div(a: i128, b: i128) -> i128 {
    if is_inf(a) {
        return if (a > 0) == (b > 0) { INF } else { -INF };
    }
    a.div_euclid(b) - i128::from(b < 0 && a.rem_euclid(b) != 0)
}

/// Interval of `e` when operand `(is_symbol, position)` lies in `opnd(..)`.
fn ival(e: &AffineExpr, opnd: &dyn Fn(bool, u32) -> Iv) -> Iv {
    match e {
        AffineExpr::Dim(i) => opnd(false, *i),
        AffineExpr::Symbol(i) => opnd(true, *i),
        AffineExpr::Const(c) => Iv::point(i128::from(*c)),
        AffineExpr::Add(a, b) => {
            let (x, y) = (ival(a, opnd), ival(b, opnd));
            Iv {
                lo: sat(x.lo + y.lo),
                hi: sat(x.hi + y.hi),
            }
        }
        AffineExpr::Mul(a, b) => {
            let (x, y) = (ival(a, opnd), ival(b, opnd));
            let (k, z) = if x.lo == x.hi {
                (x.lo, y)
            } else if y.lo == y.hi {
                (y.lo, x)
            } else if [x.lo, x.hi, y.lo, y.hi].iter().all(|&v| !is_inf(v)) {
                let p = [x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi];
                return Iv {
                    lo: sat(*p.iter().min().expect("four")),
                    hi: sat(*p.iter().max().expect("four")),
                };
            } else {
                return Iv::full();
            };
            if is_inf(k) {
                return Iv::full();
            }
            let (p, q) = (sat(k.saturating_mul(z.lo)), sat(k.saturating_mul(z.hi)));
            Iv {
                lo: p.min(q),
                hi: p.max(q),
            }
        }
        AffineExpr::Mod(a, b) => {
            let (x, y) = (ival(a, opnd), ival(b, opnd));
            if y.lo != y.hi || y.lo <= 0 || is_inf(y.lo) {
                return Iv::full();
            }
            if x.lo >= 0 && x.hi < y.lo {
                x
            } else {
                Iv {
                    lo: 0,
                    hi: y.lo - 1,
                }
            }
        }
        AffineExpr::FloorDiv(a, b) | AffineExpr::CeilDiv(a, b) => {
            let (x, y) = (ival(a, opnd), ival(b, opnd));
            if y.lo != y.hi || y.lo <= 0 || is_inf(y.lo) {
                return Iv::full();
            }
            let ceil = matches!(e, AffineExpr::CeilDiv(..));
            let f = |v: i128| {
                if is_inf(v) {
                    v
                } else if ceil {
                    -floor_div(-v, y.lo)
                } else {
                    floor_div(v, y.lo)
                }
            };
            Iv {
                lo: f(x.lo),
                hi: f(x.hi),
            }
        }
    }
}

/// Coefficient of the symbol in `e` (operands for which `is_s` holds), `None` where it is
/// not linear in it.
fn coef(e: &AffineExpr, is_s: &dyn Fn(bool, u32) -> bool) -> Option<i128> {
    Some(match e {
        AffineExpr::Dim(i) => i128::from(is_s(false, *i)),
        AffineExpr::Symbol(i) => i128::from(is_s(true, *i)),
        AffineExpr::Const(_) => 0,
        AffineExpr::Add(a, b) => coef(a, is_s)?.checked_add(coef(b, is_s)?)?,
        AffineExpr::Mul(a, b) => {
            let (ca, cb) = (coef(a, is_s)?, coef(b, is_s)?);
            if ca == 0 && cb == 0 {
                0
            } else if cb == 0 {
                ca.checked_mul(i128::from(eval_expr(b, &[], &[])?))?
            } else if ca == 0 {
                cb.checked_mul(i128::from(eval_expr(a, &[], &[])?))?
            } else {
                return None;
            }
        }
        AffineExpr::Mod(a, b) | AffineExpr::FloorDiv(a, b) | AffineExpr::CeilDiv(a, b) => {
            if coef(a, is_s)? != 0 || coef(b, is_s)? != 0 {
                return None;
            }
            0
        }
    })
}

/// Top-level nests the check runs as one opaque step when `syms` are modelled (those of
/// `subs` in subscripts too).
fn opaque_set(
    m: &Module,
    f: OpId,
    syms: &FxHashSet<ValueId>,
    subs: &FxHashSet<ValueId>,
) -> FxHashSet<OpId> {
    let written = written_set(m, f);
    let mut out = FxHashSet::default();
    if let Some(entry) = body(m, f, 0) {
        for o in m.block_ops(entry) {
            if name(m, o) == "affine.for" && opaque_reason(m, o, &written, syms, subs).is_some() {
                out.insert(o);
            }
        }
    }
    out
}

/// The index arguments of `f` that are direct operands of a loop bound or a guard.
pub(super) fn bound_symbols(m: &Module, f: OpId) -> Vec<ValueId> {
    let Some(entry) = body(m, f, 0) else {
        return Vec::new();
    };
    let args: Vec<ValueId> = m
        .block_args(entry)
        .iter()
        .copied()
        .filter(|&a| m.value_type(a).is_index())
        .collect();
    let mut out = Vec::new();
    for o in m.walk_ops(f) {
        let ops: Vec<ValueId> = match name(m, o) {
            "affine.for" => match for_parts(m, o) {
                Some(p) => p.lb_ops.iter().chain(&p.ub_ops).copied().collect(),
                None => continue,
            },
            "affine.if" => m.operands(o).to_vec(),
            _ => continue,
        };
        for v in ops {
            if args.contains(&v) && !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

/// The index arguments of `f` that are direct operands of a subscript of a buffer the
/// function writes (their nests are opaque unless every defined value is run, see
/// [`defined_range`]).
pub(super) fn subscript_symbols(m: &Module, f: OpId) -> Vec<ValueId> {
    let Some(entry) = body(m, f, 0) else {
        return Vec::new();
    };
    let args: Vec<ValueId> = m
        .block_args(entry)
        .iter()
        .copied()
        .filter(|&a| m.value_type(a).is_index())
        .collect();
    let written = written_set(m, f);
    let mut out = Vec::new();
    for o in m.walk_ops(f) {
        let Some((mref, _, idx, _)) = access_parts(m, o) else {
            continue;
        };
        if !written.contains(&mref) {
            continue;
        }
        for v in idx {
            if args.contains(&v) && !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

/// Most loop iterations [`defined_range`] enumerates per function.
const RANGE_BUDGET: u64 = 1 << 18;

/// A finite range `[L, H]` of values of symbol `s` outside which the original function
/// has no defined behaviour: an `affine.load`/`affine.store` whose subscripts are linear in
/// `s` (a direct operand; the other operands constants or induction variables) runs in a
/// top-level nest whose loops (no `affine.if` around it) have bounds without symbols, so the
/// same instances run for every value of every symbol; each instance is in bounds only for
/// an interval of `s` (its subscript is `e + a·s` with `e` fixed, the dimension static), and
/// outside the intersection of those intervals some instance is out of bounds. `None` when
/// no such access runs at least once.
pub(super) fn defined_range(
    m: &Module,
    f: OpId,
    s: ValueId,
    orig_loops: &FxHashMap<OpId, Vec<OpId>>,
    place: &dyn Fn(Span) -> String,
) -> Option<(i128, i128)> {
    let entry = body(m, f, 0)?;
    let none = FxHashSet::default();
    let origin = FxHashMap::default();
    let mut sim = Sim::new(m, &origin, orig_loops, None, m, place);
    let mut range: Option<(i128, i128)> = None;
    let mut budget = RANGE_BUDGET;
    for o in m.walk_ops(f) {
        let Some((mref, map, idx, _)) = access_parts(m, o) else {
            continue;
        };
        if !idx.contains(&s) {
            continue;
        }
        let Some(shape) = m.value_type(mref).shape().map(|x| x.to_vec()) else {
            continue;
        };
        if shape.len() != map.results.len() {
            continue;
        }
        // The enclosing loops, up to a top-level nest, and nothing else.
        let mut loops = Vec::new();
        let mut cur = m.parent_op(o);
        let mut top = None;
        while let Some(p) = cur {
            if p == f {
                break;
            }
            if name(m, p) != "affine.for" {
                loops.clear();
                break;
            }
            loops.push(p);
            top = Some(p);
            cur = m.parent_op(p);
        }
        let Some(top) = top else {
            continue;
        };
        if loops.is_empty() || m.op_block(top) != Some(entry) {
            continue;
        }
        loops.reverse();
        let plain = loops.iter().all(|&l| {
            for_parts(m, l).is_some_and(|p| {
                p.step > 0
                    && p.lb_ops
                        .iter()
                        .chain(&p.ub_ops)
                        .all(|&v| evaluable(m, v, top, 0, &none))
            })
        });
        let nd = map.num_dims;
        let is_s = |sym: bool, i: u32| idx.get((if sym { nd + i } else { i }) as usize) == Some(&s);
        let coefs: Option<Vec<i128>> = map.results.iter().map(|e| coef(e, &is_s)).collect();
        let (Some(coefs), true) = (coefs, plain) else {
            continue;
        };
        if coefs.iter().all(|&a| a == 0)
            || !idx
                .iter()
                .all(|&v| v == s || evaluable(m, v, top, 0, &none))
        {
            continue;
        }
        // Every instance: the interval of `s` that keeps it in bounds.
        let mut acc: Option<(i128, i128)> = None;
        let mut ok = true;
        let mut visit = |sim: &Sim<'_>| -> bool {
            let vals: Option<Vec<i64>> = idx
                .iter()
                .map(|&v| if v == s { Some(0) } else { sim.eval(v, 0) })
                .collect();
            let Some(vals) = vals else {
                return false;
            };
            let nd = nd as usize;
            for ((e, &a), &n) in map.results.iter().zip(&coefs).zip(&shape) {
                if a == 0 || n < 0 {
                    continue;
                }
                let Some(v0) = eval_expr(e, &vals[..nd], &vals[nd..]) else {
                    return false;
                };
                let (v0, n) = (i128::from(v0), i128::from(n));
                // 0 <= v0 + a·s <= n - 1.
                let (lo, hi) = if a > 0 {
                    (-floor_div(v0, a), floor_div(n - 1 - v0, a))
                } else {
                    (-floor_div(n - 1 - v0, -a), floor_div(v0, -a))
                };
                let cur = acc.unwrap_or((-INF, INF));
                acc = Some((cur.0.max(lo), cur.1.min(hi)));
            }
            true
        };
        if !enumerate_loops(&mut sim, &loops, &mut budget, &mut visit) {
            ok = false;
        }
        for &l in &loops {
            if let Some(iv) = for_iv(m, l) {
                sim.env.remove(&iv);
            }
        }
        if let (true, Some((lo, hi))) = (ok, acc) {
            let cur = range.unwrap_or((-INF, INF));
            range = Some((cur.0.max(lo), cur.1.min(hi)));
        }
    }
    range
}

/// Runs `visit` at every iteration of the perfectly or imperfectly nested chain `loops`
/// (outermost first; bounds evaluated in `sim`'s environment); false when a bound does not
/// evaluate, `visit` fails or the budget runs out.
fn enumerate_loops(
    sim: &mut Sim<'_>,
    loops: &[OpId],
    budget: &mut u64,
    visit: &mut dyn FnMut(&Sim<'_>) -> bool,
) -> bool {
    let Some((&l, rest)) = loops.split_first() else {
        return visit(sim);
    };
    let Some(p) = for_parts(sim.m, l) else {
        return false;
    };
    let lb = sim
        .eval_map(&p.lb, &p.lb_ops, 0)
        .and_then(|v| v.into_iter().max());
    let ub = sim
        .eval_map(&p.ub, &p.ub_ops, 0)
        .and_then(|v| v.into_iter().min());
    let (Some(lb), Some(ub), Some(iv)) = (lb, ub, for_iv(sim.m, l)) else {
        return false;
    };
    let mut i = lb;
    while i < ub {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        sim.env.insert(iv, i);
        if !enumerate_loops(sim, rest, budget, visit) {
            return false;
        }
        let Some(n) = i.checked_add(p.step) else {
            return false;
        };
        i = n;
    }
    true
}

/// One constraint `a·s + r >= 0` (or `== 0`): (a, interval of r).
type Row = (i128, Iv, bool);

struct Walk<'a> {
    m: &'a Module,
    s: ValueId,
    /// 1: the class `s <= L`; -1: `s >= -L` (the symbol negated).
    sign: i128,
    opaque: FxHashSet<OpId>,
}

impl Walk<'_> {
    /// (coefficient of the symbol, interval of the rest) of `e` over `ops` (dims first).
    fn split(
        &self,
        e: &AffineExpr,
        nd: u32,
        ops: &[ValueId],
        ivs: &FxHashMap<ValueId, Iv>,
    ) -> Option<(i128, Iv)> {
        let at = |sym: bool, i: u32| ops.get((if sym { nd + i } else { i }) as usize).copied();
        let is_s = |sym: bool, i: u32| at(sym, i) == Some(self.s);
        let a = coef(e, &is_s)?.checked_mul(self.sign)?;
        let opnd = |sym: bool, i: u32| -> Iv {
            let Some(v) = at(sym, i) else {
                return Iv::full();
            };
            if v == self.s {
                return Iv::point(0);
            }
            if let Some(r) = ivs.get(&v) {
                return *r;
            }
            match const_value(self.m, v) {
                Some(c) => Iv::point(i128::from(c)),
                None => Iv::full(),
            }
        };
        Some((a, ival(e, &opnd)))
    }

    /// Largest `L` such that the block behaves the same for every symbol value `<= L`
    /// (in the walk's orientation); `-INF` when there is none.
    fn block(&self, b: BlockId, ivs: &mut FxHashMap<ValueId, Iv>) -> i128 {
        let mut need = INF;
        for o in self.m.block_ops(b) {
            if self.opaque.contains(&o) {
                continue;
            }
            need = need.min(self.op(o, ivs));
            if need <= -INF {
                break;
            }
        }
        need
    }

    /// Thresholds of rows: (false-type thresholds, true-type thresholds).
    fn thresholds(rows: &[Row]) -> (Vec<i128>, Vec<i128>) {
        let (mut falses, mut trues) = (Vec::new(), Vec::new());
        for &(a, r, eq) in rows {
            if a > 0 {
                // Decided false once a·L + r.hi < 0.
                falses.push(if r.hi >= INF {
                    -INF
                } else {
                    floor_div(-r.hi - 1, a)
                });
            } else if eq {
                // -|a|·L + r.lo > 0.
                falses.push(if r.lo <= -INF {
                    -INF
                } else {
                    floor_div(r.lo - 1, -a)
                });
            } else {
                // Decided true once -|a|·L + r.lo >= 0.
                trues.push(if r.lo <= -INF {
                    -INF
                } else {
                    floor_div(r.lo, -a)
                });
            }
        }
        (falses, trues)
    }

    fn op(&self, o: OpId, ivs: &mut FxHashMap<ValueId, Iv>) -> i128 {
        let m = self.m;
        match name(m, o) {
            "affine.for" => {
                let Some(p) = for_parts(m, o) else {
                    return -INF;
                };
                let mut lo = -INF;
                let mut hi = INF;
                let mut lbs = Vec::new();
                let mut ubs = Vec::new();
                for e in &p.lb.results {
                    let Some((a, r)) = self.split(e, p.lb.num_dims, &p.lb_ops, ivs) else {
                        return -INF;
                    };
                    if a == 0 {
                        lo = lo.max(r.lo);
                    } else {
                        lbs.push((a, r));
                    }
                }
                for e in &p.ub.results {
                    let Some((a, r)) = self.split(e, p.ub.num_dims, &p.ub_ops, ivs) else {
                        return -INF;
                    };
                    if a == 0 {
                        hi = hi.min(sat(r.hi - 1));
                    } else {
                        ubs.push((a, r));
                    }
                }
                if lo > hi {
                    return INF;
                }
                // iv - (a·s + r) >= 0 and a·s + r - iv - 1 >= 0.
                let mut rows: Vec<Row> = Vec::new();
                for (a, r) in lbs {
                    rows.push((
                        -a,
                        Iv {
                            lo: sat(lo - r.hi),
                            hi: sat(hi - r.lo),
                        },
                        false,
                    ));
                }
                for (a, r) in ubs {
                    rows.push((
                        a,
                        Iv {
                            lo: sat(r.lo - hi - 1),
                            hi: sat(r.hi - lo - 1),
                        },
                        false,
                    ));
                }
                let (falses, trues) = Self::thresholds(&rows);
                if let Some(&k) = falses.iter().max() {
                    return k;
                }
                let Some(b) = body(m, o, 0) else {
                    return -INF;
                };
                let iv = m.block_args(b)[0];
                ivs.insert(iv, Iv { lo, hi });
                let inner = self.block(b, ivs);
                ivs.remove(&iv);
                trues.into_iter().fold(inner, i128::min)
            }
            "affine.if" => {
                let Some(set) = set_prop(m, o, "condition") else {
                    return -INF;
                };
                let ops = m.operands(o);
                let mut rows: Vec<Row> = Vec::new();
                for (e, eq) in &set.constraints {
                    let Some((a, r)) = self.split(e, set.num_dims, ops, ivs) else {
                        return -INF;
                    };
                    if a != 0 {
                        rows.push((a, r, *eq));
                    }
                }
                let (falses, trues) = Self::thresholds(&rows);
                let then_need = body(m, o, 0).map_or(INF, |b| self.block(b, ivs));
                let else_need = body(m, o, 1).map_or(INF, |b| self.block(b, ivs));
                match falses.iter().max() {
                    Some(&k) => k.min(else_need),
                    None => trues.into_iter().fold(then_need.min(else_need), i128::min),
                }
            }
            _ => {
                let mut need = INF;
                for &r in m.regions(o) {
                    for &b in m.region_blocks(r) {
                        need = need.min(self.block(b, ivs));
                    }
                }
                need
            }
        }
    }
}

/// How a remark names a symbol: `%name` as the input spelled it.
pub(super) fn symbol_name(m: &Module, v: ValueId) -> String {
    match m.name_hint(v) {
        Some(h) => format!("%{}", h.trim_start_matches('%')),
        None => "a symbol".into(),
    }
}

/// The constant an index value holds, if it is an `arith.constant`.
fn const_value(m: &Module, v: ValueId) -> Option<i64> {
    let op = m.defining_op(v)?;
    if !matches!(name(m, op), "arith.constant" | "index.constant") {
        return None;
    }
    let o = m.op(op);
    o.props
        .get("value")
        .or(o.attrs.get("value"))?
        .as_int()
        .and_then(|x| i64::try_from(x).ok())
}

/// The largest `L` such that `f` (as the check models it) behaves the same for every value
/// of `s` at most `L` (`sign` 1), or the negated smallest `H` such that it does for every
/// value at least `H` (`sign` -1); `None` when there is no such bound.
fn settled(
    m: &Module,
    f: OpId,
    s: ValueId,
    syms: &FxHashSet<ValueId>,
    subs: &FxHashSet<ValueId>,
    sign: i128,
) -> Option<i128> {
    let w = Walk {
        m,
        s,
        sign,
        opaque: opaque_set(m, f, syms, subs),
    };
    let entry = body(m, f, 0)?;
    let need = w.block(entry, &mut FxHashMap::default());
    (need > -INF).then_some(need)
}

/// True if the access instances `f` executes only grow with `s` (`dir` 1) or only grow as
/// `s` decreases (`dir` -1; see the module doc).
fn monotone(
    m: &Module,
    f: OpId,
    s: ValueId,
    syms: &FxHashSet<ValueId>,
    subs: &FxHashSet<ValueId>,
    dir: i128,
) -> bool {
    let opaque = opaque_set(m, f, syms, subs);
    let Some(entry) = body(m, f, 0) else {
        return false;
    };
    for top in m.block_ops(entry) {
        if opaque.contains(&top) {
            continue;
        }
        for o in m.walk_ops(top) {
            match name(m, o) {
                "affine.for" => {
                    let Some(p) = for_parts(m, o) else {
                        return false;
                    };
                    for (map, ops, lower) in [(&p.lb, &p.lb_ops, true), (&p.ub, &p.ub_ops, false)] {
                        for e in &map.results {
                            let nd = map.num_dims;
                            let is_s = |sym: bool, i: u32| {
                                ops.get((if sym { nd + i } else { i }) as usize) == Some(&s)
                            };
                            match coef(e, &is_s).map(|a| a * dir) {
                                None => return false,
                                Some(a) if lower && (a > 0 || (a < 0 && p.step != 1)) => {
                                    return false
                                }
                                Some(a) if !lower && a < 0 => return false,
                                _ => {}
                            }
                        }
                    }
                }
                "affine.if" => {
                    let Some(set) = set_prop(m, o, "condition") else {
                        return false;
                    };
                    let ops = m.operands(o);
                    let nd = set.num_dims;
                    let is_s = |sym: bool, i: u32| {
                        ops.get((if sym { nd + i } else { i }) as usize) == Some(&s)
                    };
                    let mut holds_s = false;
                    for (e, eq) in &set.constraints {
                        match coef(e, &is_s).map(|a| a * dir) {
                            None => return false,
                            Some(0) => {}
                            Some(a) if *eq || a < 0 => return false,
                            Some(_) => holds_s = true,
                        }
                    }
                    if holds_s {
                        if let Some(b) = body(m, o, 1) {
                            let touches = m.block_ops(b).any(|x| {
                                m.walk_ops(x)
                                    .into_iter()
                                    .any(|y| m.operands(y).iter().any(|&v| is_memref(m, v)))
                            });
                            if touches {
                                return false;
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
    true
}

/// How the check covers every value of one modelled symbol.
#[derive(Clone, Debug)]
pub(super) struct SymClass {
    pub(super) sym: ValueId,
    /// Every value up to this one behaves as this one (checked), when known; otherwise the
    /// original only grows as the symbol decreases and goes out of bounds below the values run.
    pub(super) low: Option<i128>,
    /// Every value from this one on behaves as this one (checked), when known; otherwise
    /// the original only grows with the symbol and goes out of bounds past the values run.
    pub(super) high: Option<i128>,
    /// The access instances of the original only grow with the symbol.
    pub(super) up: bool,
    /// The access instances of the original only grow as the symbol decreases.
    pub(super) down: bool,
    /// `[low, high]` is the symbol's [`defined_range`]: every value in it is run, the
    /// original is out of bounds at every other one, and the symbol may be a subscript.
    pub(super) exact: bool,
}

/// How the check covers every value of the modelled symbols.
#[derive(Clone, Debug)]
pub(super) struct SymPlan {
    pub(super) classes: Vec<SymClass>,
}

impl SymPlan {
    /// The modelled symbols.
    pub(super) fn syms(&self) -> impl Iterator<Item = ValueId> + '_ {
        self.classes.iter().map(|c| c.sym)
    }

    /// The modelled symbols that may be subscripts (every defined value is run).
    pub(super) fn subs(&self) -> impl Iterator<Item = ValueId> + '_ {
        self.classes.iter().filter(|c| c.exact).map(|c| c.sym)
    }

    /// The rewritten function must behave alike on the same classes of values (symbols whose
    /// every defined value is run need nothing: the original has no behaviour to keep
    /// outside their range).
    pub(super) fn check(&self, m: &Module, f: OpId) -> Result<(), String> {
        let syms: FxHashSet<ValueId> = self.syms().collect();
        let subs: FxHashSet<ValueId> = self.subs().collect();
        for c in self.classes.iter().filter(|c| !c.exact) {
            let low_ok = match c.low {
                None => true,
                Some(l) => settled(m, f, c.sym, &syms, &subs, 1).is_some_and(|x| x >= l),
            };
            let high_ok = match c.high {
                None => true,
                Some(h) => settled(m, f, c.sym, &syms, &subs, -1).is_some_and(|x| -x <= h),
            };
            if !(low_ok && high_ok) {
                return Err("the rewritten nests cannot be shown to behave alike for every value of the symbols in their bounds".into());
            }
        }
        Ok(())
    }
}

/// One run of the original per checked point: (the symbols' values, what the run recorded).
pub(super) type Runs = Vec<(Vec<(ValueId, i64)>, Reference)>;

/// The symbols of `f` the check may model: those in loop bounds and guards, and those in
/// subscripts of written buffers that have a [`defined_range`].
pub(super) fn candidate_symbols(
    m: &Module,
    f: OpId,
    orig_loops: &FxHashMap<OpId, Vec<OpId>>,
    place: &dyn Fn(Span) -> String,
) -> Vec<ValueId> {
    let mut out = bound_symbols(m, f);
    for s in subscript_symbols(m, f) {
        if !out.contains(&s) && defined_range(m, f, s, orig_loops, place).is_some() {
            out.push(s);
        }
    }
    out
}

/// Plans the enumeration of the symbols `syms` and runs the original at each point it needs:
/// from the corner of the lower ends (the upper end of a symbol without one), every point
/// reachable by moving one symbol at a time by one, within its ends where it has them, but
/// not on past a point where the original goes out of bounds in a direction the original
/// only grows along.
pub(super) fn plan_symbols(
    m: &Module,
    f: OpId,
    syms: &[ValueId],
    orig_loops: &FxHashMap<OpId, Vec<OpId>>,
    place: &dyn Fn(Span) -> String,
) -> Result<(SymPlan, Runs), String> {
    let set: FxHashSet<ValueId> = syms.iter().copied().collect();
    let written_subs = subscript_symbols(m, f);
    let mut classes = Vec::new();
    let mut subs: FxHashSet<ValueId> = FxHashSet::default();
    for &s in syms {
        if !written_subs.contains(&s) {
            continue;
        }
        if let Some((lo, hi)) = defined_range(m, f, s, orig_loops, place) {
            subs.insert(s);
            classes.push(SymClass {
                sym: s,
                low: Some(lo),
                high: Some(hi),
                up: false,
                down: false,
                exact: true,
            });
        }
    }
    for &s in syms {
        if subs.contains(&s) {
            continue;
        }
        let low = settled(m, f, s, &set, &subs, 1);
        if low.is_some_and(|l| l >= INF) {
            // Only in nests that stay opaque anyway: not modelled.
            continue;
        }
        let high = settled(m, f, s, &set, &subs, -1).map(|l| -l);
        let up = monotone(m, f, s, &set, &subs, 1);
        let down = monotone(m, f, s, &set, &subs, -1);
        if low.is_none() && !down {
            return Err("the small values of a symbol cannot be shown to behave alike".into());
        }
        if high.is_none() && !up {
            return Err("the large values of a symbol cannot be shown to behave alike".into());
        }
        if low.is_none() && high.is_none() {
            return Err("no value of a symbol to start its enumeration from".into());
        }
        classes.push(SymClass {
            sym: s,
            low,
            high,
            up,
            down,
            exact: false,
        });
    }
    if classes.is_empty() {
        return Err(
            "the symbols are used only in nests the check cannot run for other reasons".into(),
        );
    }
    let origin = FxHashMap::default();
    let mut runs: Runs = Vec::new();
    let mut events = 0u64;
    let start: Vec<i128> = classes
        .iter()
        .map(|c| c.low.or(c.high).unwrap_or(0))
        .collect();
    let mut queue: std::collections::VecDeque<Vec<i128>> = [start.clone()].into();
    let mut seen: FxHashSet<Vec<i128>> = [start].into_iter().collect();
    let mut tried = 0usize;
    while let Some(point) = queue.pop_front() {
        tried += 1;
        if tried > MAX_VALUES {
            return Err(format!(
                "more than {MAX_VALUES} values of the symbols to check"
            ));
        }
        let mut vals = Vec::with_capacity(point.len());
        for (c, &v) in classes.iter().zip(&point) {
            vals.push((c.sym, i64::try_from(v).map_err(|_| "a value out of range")?));
        }
        let mut sim = Sim::new(m, &origin, orig_loops, None, m, place);
        sim.syms.extend(vals.iter().copied());
        sim.subs.clone_from(&subs);
        let res = sim.run(f);
        events += sim.events;
        if events > POINTS_BUDGET {
            return Err("too many iterations over the symbols' values for the exact check".into());
        }
        let ub = match res {
            Ok(()) => {
                runs.push((vals, std::mem::take(&mut sim.record)));
                false
            }
            Err(e)
                if e.starts_with("an access out of bounds")
                    || e.starts_with("an access to a deallocated buffer") =>
            {
                true
            }
            Err(e) => return Err(format!("at {vals:?}: {e}")),
        };
        for (k, c) in classes.iter().enumerate() {
            // Up: within the upper end, or, without one, along a symbol the original only
            // grows with, not past an out-of-bounds point; down likewise.
            let up = match c.high {
                Some(h) => point[k] < h && !(ub && c.up),
                None => c.up && !ub,
            };
            let down = match c.low {
                Some(l) => point[k] > l && !(ub && c.down),
                None => c.down && !ub,
            };
            for (ok, d) in [(up, 1), (down, -1)] {
                if !ok {
                    continue;
                }
                let mut next = point.clone();
                next[k] += d;
                if seen.insert(next.clone()) {
                    queue.push_back(next);
                }
            }
        }
    }
    if runs.is_empty() {
        return Err("the original has no defined execution for any value of the symbols".into());
    }
    Ok((SymPlan { classes }, runs))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `defined_range` of the function's last index argument in `text` (a function of
    /// `%t: memref<36xf32>`, `%u: memref<8x8xf32>`, `%n: index`).
    fn range_of(text: &str) -> Option<(i128, i128)> {
        let src = format!(
            "func.func @f(%t: memref<36xf32>, %u: memref<8x8xf32>, %n: index) {{\n{text}\n  return\n}}\n"
        );
        let reg = memplan_ir::Registry::with_all_dialects();
        let m = memplan_ir::parse_module(&src, &reg, memplan_ir::ParseOptions::default())
            .expect("parses");
        let top = m.body();
        let f = m
            .block_ops(top)
            .find(|&o| m.op(o).name == "func.func")
            .expect("func");
        let entry = body(&m, f, 0).expect("body");
        let s = *m.block_args(entry).last().expect("arg");
        let place = |_: Span| String::new();
        defined_range(&m, f, s, &FxHashMap::default(), &place)
    }

    #[test]
    fn defined_ranges_of_subscript_symbols() {
        // i + n - 10 for i in 0..15 stays in 0..35 only for n in 10..31.
        let load = "  affine.for %i = 0 to 15 {\n    %a = affine.load %t[%i + symbol(%n) - 10] : memref<36xf32>\n  }";
        assert_eq!(range_of(load), Some((10, 31)));
        // Two accesses intersect; a coefficient and a second dimension count too.
        let two = "  affine.for %i = 0 to 4 {\n    %a = affine.load %t[%i + symbol(%n)] : memref<36xf32>\n    %b = affine.load %u[%i, 2 * symbol(%n) - 3] : memref<8x8xf32>\n  }";
        assert_eq!(range_of(two), Some((2, 5)));
        // Under a guard, in a loop bounded by the symbol, or in a loop that never runs: no range.
        let guarded = "  affine.for %i = 0 to 15 {\n    affine.if affine_set<(d0) : (d0 - 3 >= 0)>(%i) {\n      %a = affine.load %t[%i + symbol(%n)] : memref<36xf32>\n    }\n  }";
        assert_eq!(range_of(guarded), None);
        let bounded = "  affine.for %i = 0 to %n {\n    %a = affine.load %t[%i + symbol(%n)] : memref<36xf32>\n  }";
        assert_eq!(range_of(bounded), None);
        let empty = "  affine.for %i = 0 to 0 {\n    %a = affine.load %t[%i + symbol(%n)] : memref<36xf32>\n  }";
        assert_eq!(range_of(empty), None);
        // Not linear in the symbol: no range.
        let modulo = "  affine.for %i = 0 to 15 {\n    %a = affine.load %t[symbol(%n) mod 7] : memref<36xf32>\n  }";
        assert_eq!(range_of(modulo), None);
    }

    #[test]
    fn floor_div_rounds_down() {
        assert_eq!(floor_div(7, 2), 3);
        assert_eq!(floor_div(-7, 2), -4);
        assert_eq!(floor_div(-8, 2), -4);
        assert_eq!(floor_div(7, -2), -4);
        assert_eq!(floor_div(INF, 3), INF);
        assert_eq!(floor_div(-INF, 3), -INF);
    }

    #[test]
    fn thresholds_of_rows() {
        // s - 9 - iv >= 0 with iv in [0, inf): r = [-inf, -9]: false for s <= 8.
        let rows = [(1, Iv { lo: -INF, hi: -9 }, false)];
        assert_eq!(Walk::thresholds(&rows), (vec![8], vec![]));
        // -s + 5 >= 0: true for s <= 5.
        let rows = [(-1, Iv::point(5), false)];
        assert_eq!(Walk::thresholds(&rows), (vec![], vec![5]));
        // 2s - 3 == 0 never holds for s <= 1.
        let rows = [(2, Iv::point(-3), true)];
        assert_eq!(Walk::thresholds(&rows), (vec![1], vec![]));
    }

    #[test]
    fn intervals_and_coefficients() {
        use AffineExpr::*;
        // d0 floordiv 4 + s0 * 2 with d0 in [0, 9], s0 the symbol.
        let e = Add(
            Box::new(FloorDiv(Box::new(Dim(0)), Box::new(Const(4)))),
            Box::new(Mul(Box::new(Symbol(0)), Box::new(Const(2)))),
        );
        let is_s = |sym: bool, _i: u32| sym;
        assert_eq!(coef(&e, &is_s), Some(2));
        let opnd = |sym: bool, _i: u32| {
            if sym {
                Iv::point(0)
            } else {
                Iv { lo: 0, hi: 9 }
            }
        };
        assert_eq!(ival(&e, &opnd), Iv { lo: 0, hi: 2 });
        // The symbol under a mod is not linear.
        let e = Mod(Box::new(Symbol(0)), Box::new(Const(3)));
        assert_eq!(coef(&e, &is_s), None);
    }
}
