//! Affine expressions on concrete values and their folding (evaluation, linear forms,
//! simplification, map compaction).

use super::*;

// Affine arithmetic on concrete values

pub(super) fn eval_expr(e: &AffineExpr, dims: &[i64], syms: &[i64]) -> Option<i64> {
    Some(match e {
        AffineExpr::Dim(i) => *dims.get(*i as usize)?,
        AffineExpr::Symbol(i) => *syms.get(*i as usize)?,
        AffineExpr::Const(c) => *c,
        AffineExpr::Add(a, b) => {
            eval_expr(a, dims, syms)?.checked_add(eval_expr(b, dims, syms)?)?
        }
        AffineExpr::Mul(a, b) => {
            eval_expr(a, dims, syms)?.checked_mul(eval_expr(b, dims, syms)?)?
        }
        AffineExpr::Mod(a, b) => {
            let (x, y) = (eval_expr(a, dims, syms)?, eval_expr(b, dims, syms)?);
            if y <= 0 {
                return None;
            }
            x.rem_euclid(y)
        }
        AffineExpr::FloorDiv(a, b) => {
            let (x, y) = (eval_expr(a, dims, syms)?, eval_expr(b, dims, syms)?);
            if y <= 0 {
                return None;
            }
            x.div_euclid(y)
        }
        AffineExpr::CeilDiv(a, b) => {
            let (x, y) = (eval_expr(a, dims, syms)?, eval_expr(b, dims, syms)?);
            if y <= 0 {
                return None;
            }
            let q = x.div_euclid(y);
            if q.checked_mul(y)? == x {
                q
            } else {
                q + 1
            }
        }
    })
}

/// `Σ coef[k] * d(first + k) + c`.
pub(super) fn linear(coef: &[i64], first: u32, c: i64) -> AffineExpr {
    let mut e: Option<AffineExpr> = None;
    for (k, &a) in coef.iter().enumerate() {
        if a == 0 {
            continue;
        }
        let d = AffineExpr::Dim(first + k as u32);
        let t = if a == 1 { d } else { d * AffineExpr::Const(a) };
        e = Some(match e {
            None => t,
            Some(x) => x + t,
        });
    }
    match e {
        None => AffineExpr::Const(c),
        Some(x) if c == 0 => x,
        Some(x) => x + AffineExpr::Const(c),
    }
}

/// Shifts the dims of `e` at or above `from` by `by`.
pub(super) fn shift_dims(e: &AffineExpr, from: u32, by: u32) -> AffineExpr {
    let r = |x: &AffineExpr| Box::new(shift_dims(x, from, by));
    match e {
        AffineExpr::Dim(i) if *i >= from => AffineExpr::Dim(i + by),
        AffineExpr::Dim(_) | AffineExpr::Symbol(_) | AffineExpr::Const(_) => e.clone(),
        AffineExpr::Add(a, b) => AffineExpr::Add(r(a), r(b)),
        AffineExpr::Mul(a, b) => AffineExpr::Mul(r(a), r(b)),
        AffineExpr::Mod(a, b) => AffineExpr::Mod(r(a), r(b)),
        AffineExpr::FloorDiv(a, b) => AffineExpr::FloorDiv(r(a), r(b)),
        AffineExpr::CeilDiv(a, b) => AffineExpr::CeilDiv(r(a), r(b)),
    }
}

/// A linear form: per-dim and per-symbol coefficients and a constant.
#[derive(Default)]
pub(super) struct Lin {
    pub(super) dims: std::collections::BTreeMap<u32, i64>,
    pub(super) syms: std::collections::BTreeMap<u32, i64>,
    pub(super) c: i64,
}

impl Lin {
    pub(super) fn add(&mut self, o: &Lin, k: i64) -> Option<()> {
        for (d, v) in &o.dims {
            let e = self.dims.entry(*d).or_default();
            *e = e.checked_add(v.checked_mul(k)?)?;
        }
        for (d, v) in &o.syms {
            let e = self.syms.entry(*d).or_default();
            *e = e.checked_add(v.checked_mul(k)?)?;
        }
        self.c = self.c.checked_add(o.c.checked_mul(k)?)?;
        Some(())
    }
    pub(super) fn expr(&self) -> AffineExpr {
        let mut terms: Vec<AffineExpr> = Vec::new();
        let term = |x: AffineExpr, k: i64| if k == 1 { x } else { x * AffineExpr::Const(k) };
        for (d, &k) in &self.dims {
            if k != 0 {
                terms.push(term(AffineExpr::Dim(*d), k));
            }
        }
        for (d, &k) in &self.syms {
            if k != 0 {
                terms.push(term(AffineExpr::Symbol(*d), k));
            }
        }
        let mut it = terms.into_iter();
        match it.next() {
            None => AffineExpr::Const(self.c),
            Some(first) => {
                let mut e = it.fold(first, |a, b| a + b);
                if self.c != 0 {
                    e = e + AffineExpr::Const(self.c);
                }
                e
            }
        }
    }
}

pub(super) fn linearize(e: &AffineExpr) -> Option<Lin> {
    let mut l = Lin::default();
    match e {
        AffineExpr::Dim(d) => {
            l.dims.insert(*d, 1);
        }
        AffineExpr::Symbol(d) => {
            l.syms.insert(*d, 1);
        }
        AffineExpr::Const(c) => l.c = *c,
        AffineExpr::Add(a, b) => {
            l = linearize(a)?;
            l.add(&linearize(b)?, 1)?;
        }
        AffineExpr::Mul(a, b) => {
            let (x, y) = (linearize(a)?, linearize(b)?);
            let (v, k) = if y.dims.is_empty() && y.syms.is_empty() {
                (x, y.c)
            } else if x.dims.is_empty() && x.syms.is_empty() {
                (y, x.c)
            } else {
                return None;
            };
            l.add(&v, k)?;
        }
        _ => return None,
    }
    Some(l)
}

/// Folds the linear parts of an expression (`d0 + d1 - d0` is `d1`); the operands of
/// `mod`/`floordiv`/`ceildiv` are folded separately.
pub(super) fn simplify(e: &AffineExpr) -> AffineExpr {
    if let Some(l) = linearize(e) {
        return l.expr();
    }
    match e {
        AffineExpr::Add(..) => {
            // Split into linear terms and the rest.
            let mut stack = vec![e];
            let mut lin = Lin::default();
            // Non-linear terms with their constant factors (equal terms fold).
            let mut rest: Vec<(AffineExpr, i64)> = Vec::new();
            while let Some(x) = stack.pop() {
                if let AffineExpr::Add(a, b) = x {
                    stack.push(b);
                    stack.push(a);
                    continue;
                }
                match linearize(x) {
                    Some(l) if lin.add(&l, 1).is_some() => {}
                    _ => {
                        let (t, k) = match x {
                            AffineExpr::Mul(a, b) => match (a.as_ref(), b.as_ref()) {
                                (t, AffineExpr::Const(k)) | (AffineExpr::Const(k), t) => {
                                    (simplify(t), *k)
                                }
                                _ => (simplify(x), 1),
                            },
                            _ => (simplify(x), 1),
                        };
                        match rest.iter_mut().find(|(u, _)| *u == t) {
                            Some((_, f)) => match f.checked_add(k) {
                                Some(v) => *f = v,
                                None => rest.push((t, k)),
                            },
                            None => rest.push((t, k)),
                        }
                    }
                }
            }
            let mut out: Option<AffineExpr> = None;
            for (t, k) in rest {
                let r = match k {
                    0 => continue,
                    1 => t,
                    _ => t * AffineExpr::Const(k),
                };
                out = Some(match out {
                    None => r,
                    Some(o) => o + r,
                });
            }
            let l = lin.expr();
            match out {
                None => l,
                Some(o) if l == AffineExpr::Const(0) => o,
                Some(o) => o + l,
            }
        }
        AffineExpr::Mul(a, b) => AffineExpr::Mul(Box::new(simplify(a)), Box::new(simplify(b))),
        AffineExpr::Mod(a, b) => AffineExpr::Mod(Box::new(simplify(a)), Box::new(simplify(b))),
        AffineExpr::FloorDiv(a, b) => {
            AffineExpr::FloorDiv(Box::new(simplify(a)), Box::new(simplify(b)))
        }
        AffineExpr::CeilDiv(a, b) => {
            AffineExpr::CeilDiv(Box::new(simplify(a)), Box::new(simplify(b)))
        }
        _ => e.clone(),
    }
}

pub(super) fn rename(e: &AffineExpr, dims: &[Option<u32>], syms: &[Option<u32>]) -> AffineExpr {
    let r = |x: &AffineExpr| Box::new(rename(x, dims, syms));
    match e {
        AffineExpr::Dim(i) => AffineExpr::Dim(dims[*i as usize].unwrap_or(*i)),
        AffineExpr::Symbol(i) => AffineExpr::Symbol(syms[*i as usize].unwrap_or(*i)),
        AffineExpr::Const(_) => e.clone(),
        AffineExpr::Add(a, b) => AffineExpr::Add(r(a), r(b)),
        AffineExpr::Mul(a, b) => AffineExpr::Mul(r(a), r(b)),
        AffineExpr::Mod(a, b) => AffineExpr::Mod(r(a), r(b)),
        AffineExpr::FloorDiv(a, b) => AffineExpr::FloorDiv(r(a), r(b)),
        AffineExpr::CeilDiv(a, b) => AffineExpr::CeilDiv(r(a), r(b)),
    }
}

pub(super) fn uses_of(e: &AffineExpr, dims: &mut [bool], syms: &mut [bool]) {
    match e {
        AffineExpr::Dim(i) => dims[*i as usize] = true,
        AffineExpr::Symbol(i) => syms[*i as usize] = true,
        AffineExpr::Const(_) => {}
        AffineExpr::Add(a, b)
        | AffineExpr::Mul(a, b)
        | AffineExpr::Mod(a, b)
        | AffineExpr::FloorDiv(a, b)
        | AffineExpr::CeilDiv(a, b) => {
            uses_of(a, dims, syms);
            uses_of(b, dims, syms);
        }
    }
}

/// Merges dims (and symbols) bound to the same value, drops unused ones, and folds the
/// results' linear parts.
pub(super) fn compact(map: &AffineMap, operands: &[ValueId]) -> (AffineMap, Vec<ValueId>) {
    let nd = map.num_dims as usize;
    let ns = map.num_symbols as usize;
    // Same value twice: point the later one to the first.
    let mut dim_to: Vec<Option<u32>> = (0..nd as u32).map(Some).collect();
    for i in 0..nd {
        if let Some(j) = (0..i).find(|&j| operands[j] == operands[i]) {
            dim_to[i] = Some(j as u32);
        }
    }
    let mut sym_to: Vec<Option<u32>> = (0..ns as u32).map(Some).collect();
    for i in 0..ns {
        if let Some(j) = (0..i).find(|&j| operands[nd + j] == operands[nd + i]) {
            sym_to[i] = Some(j as u32);
        }
    }
    let results: Vec<AffineExpr> = map
        .results
        .iter()
        .map(|e| simplify(&rename(e, &dim_to, &sym_to)))
        .collect();
    let mut used_d = vec![false; nd];
    let mut used_s = vec![false; ns];
    for e in &results {
        uses_of(e, &mut used_d, &mut used_s);
    }
    let mut dmap = vec![None; nd];
    let mut smap = vec![None; ns];
    let mut ops = Vec::new();
    for i in 0..nd {
        if used_d[i] {
            dmap[i] = Some(ops.len() as u32);
            ops.push(operands[i]);
        }
    }
    let nd2 = ops.len() as u32;
    for i in 0..ns {
        if used_s[i] {
            smap[i] = Some(ops.len() as u32 - nd2);
            ops.push(operands[nd + i]);
        }
    }
    let results = results.iter().map(|e| rename(e, &dmap, &smap)).collect();
    (
        AffineMap {
            num_dims: nd2,
            num_symbols: ops.len() as u32 - nd2,
            results,
        },
        ops,
    )
}
