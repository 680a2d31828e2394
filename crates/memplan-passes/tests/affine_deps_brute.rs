//! The dependence analysis in [`Mode::Precise`] against brute force: every program of
//! `tests/affine_deps/` and `../shared/mlir/affine` is executed abstractly (index
//! arguments set to a few values, every affine loop run, every access instance recorded
//! with its element and time), and every dependence that really happens must be reported
//! (soundness), with its distances inside the reported components. For programs without
//! symbols the analysis must also be exact: no reported dependence that never happens,
//! and the reported component ranges equal the observed ones.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use memplan_ir::{
    parse_module, AffineExpr, AffineMap, Attribute, Module, OpId, ParseOptions, Registry, ValueDef,
    ValueId,
};
use memplan_passes::analysis::affine_deps::{
    check_dependence, collect_accesses, enclosing_loops, num_common_loops, vector_shape, Access,
    DepResult, Mode,
};

/// One executed access: which op, the IVs of its enclosing loops, the elements touched,
/// and when.
struct Instance {
    op: OpId,
    ivs: Vec<i64>,
    elems: Vec<Vec<i64>>,
    time: u64,
}

struct Exec<'m> {
    m: &'m Module,
    env: HashMap<ValueId, i64>,
    out: Vec<Instance>,
    time: u64,
    steps: u64,
}

fn eval(e: &AffineExpr, map: &AffineMap, ops: &[i64]) -> Option<i64> {
    Some(match e {
        AffineExpr::Dim(i) => ops[*i as usize],
        AffineExpr::Symbol(i) => ops[(map.num_dims + i) as usize],
        AffineExpr::Const(c) => *c,
        AffineExpr::Add(a, b) => eval(a, map, ops)? + eval(b, map, ops)?,
        AffineExpr::Mul(a, b) => eval(a, map, ops)? * eval(b, map, ops)?,
        AffineExpr::Mod(a, b) => eval(a, map, ops)?.rem_euclid(eval(b, map, ops)?),
        AffineExpr::FloorDiv(a, b) => eval(a, map, ops)?.div_euclid(eval(b, map, ops)?),
        AffineExpr::CeilDiv(a, b) => -(-eval(a, map, ops)?).div_euclid(eval(b, map, ops)?),
    })
}

fn map_of(m: &Module, op: OpId, name: &str) -> Option<AffineMap> {
    match m.op(op).props.get(name) {
        Some(Attribute::AffineMap(a)) => Some(a.clone()),
        _ => None,
    }
}

impl<'m> Exec<'m> {
    fn value(&self, v: ValueId) -> Option<i64> {
        if let Some(&x) = self.env.get(&v) {
            return Some(x);
        }
        if let ValueDef::OpResult { op, .. } = self.m.value_def(v) {
            let d = self.m.op(op);
            if d.name == "arith.constant" {
                return d
                    .props
                    .get("value")?
                    .as_int()
                    .and_then(|x| i64::try_from(x).ok());
            }
            if d.name == "affine.apply" {
                let map = map_of(self.m, op, "map")?;
                let ops: Option<Vec<i64>> =
                    self.m.operands(op).iter().map(|&o| self.value(o)).collect();
                return eval(&map.results[0], &map, &ops?);
            }
        }
        None
    }

    fn block(&mut self, b: memplan_ir::BlockId, ivs: &mut Vec<i64>) -> Option<()> {
        let ops: Vec<OpId> = self.m.block_ops(b).collect();
        for op in ops {
            self.op(op, ivs)?;
        }
        Some(())
    }

    /// Runs an `affine.parallel` band sequentially, in lexicographic order.
    fn band(
        &mut self,
        body: memplan_ir::BlockId,
        args: &[ValueId],
        ranges: &[(i64, i64, i64)],
        k: usize,
        ivs: &mut Vec<i64>,
    ) -> Option<()> {
        if k == ranges.len() {
            return self.block(body, ivs);
        }
        let (lo, hi, step) = ranges[k];
        let mut i = lo;
        while i < hi {
            self.env.insert(args[k], i);
            ivs.push(i);
            self.band(body, args, ranges, k + 1, ivs)?;
            ivs.pop();
            i += step;
        }
        Some(())
    }

    fn op(&mut self, op: OpId, ivs: &mut Vec<i64>) -> Option<()> {
        self.steps += 1;
        if self.steps > 2_000_000 {
            return None;
        }
        let m = self.m;
        match m.op(op).name.as_str() {
            "affine.for" => {
                let lb = map_of(m, op, "lowerBoundMap")?;
                let ub = map_of(m, op, "upperBoundMap")?;
                let all = m.operands(op);
                let nl = (lb.num_dims + lb.num_symbols) as usize;
                let nu = (ub.num_dims + ub.num_symbols) as usize;
                let lops: Vec<i64> = all[..nl]
                    .iter()
                    .map(|&v| self.value(v))
                    .collect::<Option<_>>()?;
                let uops: Vec<i64> = all[nl..nl + nu]
                    .iter()
                    .map(|&v| self.value(v))
                    .collect::<Option<_>>()?;
                let lo = lb
                    .results
                    .iter()
                    .map(|e| eval(e, &lb, &lops))
                    .collect::<Option<Vec<_>>>()?
                    .into_iter()
                    .max()?;
                let hi = ub
                    .results
                    .iter()
                    .map(|e| eval(e, &ub, &uops))
                    .collect::<Option<Vec<_>>>()?
                    .into_iter()
                    .min()?;
                let step = m.op(op).props.get("step")?.as_int()? as i64;
                let body = m.region_blocks(m.regions(op)[0])[0];
                let iv = m.block_args(body)[0];
                let mut i = lo;
                while i < hi {
                    self.env.insert(iv, i);
                    ivs.push(i);
                    self.block(body, ivs)?;
                    ivs.pop();
                    i += step;
                }
                Some(())
            }
            "affine.parallel" => {
                let lb = map_of(m, op, "lowerBoundsMap")?;
                let ub = map_of(m, op, "upperBoundsMap")?;
                let groups = |name: &str| -> Option<Vec<usize>> {
                    let Some(Attribute::Elements { body, ty, .. }) = m.op(op).props.get(name)
                    else {
                        return None;
                    };
                    let n = ty.shape()?.iter().product::<i64>() as usize;
                    let t = body.trim();
                    match t.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
                        Some(inner) => inner.split(',').map(|x| x.trim().parse().ok()).collect(),
                        None => Some(vec![t.parse().ok()?; n]),
                    }
                };
                let (lbg, ubg) = (groups("lowerBoundsGroups")?, groups("upperBoundsGroups")?);
                let Some(Attribute::Array(steps)) = m.op(op).props.get("steps") else {
                    return None;
                };
                let steps: Vec<i64> = steps
                    .iter()
                    .map(|a| a.as_int().map(|x| x as i64))
                    .collect::<Option<_>>()?;
                let all = m.operands(op);
                let nl = (lb.num_dims + lb.num_symbols) as usize;
                let nu = (ub.num_dims + ub.num_symbols) as usize;
                let lops: Vec<i64> = all[..nl]
                    .iter()
                    .map(|&v| self.value(v))
                    .collect::<Option<_>>()?;
                let uops: Vec<i64> = all[nl..nl + nu]
                    .iter()
                    .map(|&v| self.value(v))
                    .collect::<Option<_>>()?;
                let lbv: Vec<i64> = lb
                    .results
                    .iter()
                    .map(|e| eval(e, &lb, &lops))
                    .collect::<Option<_>>()?;
                let ubv: Vec<i64> = ub
                    .results
                    .iter()
                    .map(|e| eval(e, &ub, &uops))
                    .collect::<Option<_>>()?;
                let mut ranges = Vec::new();
                let (mut li, mut ui) = (0, 0);
                for k in 0..lbg.len() {
                    let lo = *lbv[li..li + lbg[k]].iter().max()?;
                    let hi = *ubv[ui..ui + ubg[k]].iter().min()?;
                    li += lbg[k];
                    ui += ubg[k];
                    ranges.push((lo, hi, steps[k]));
                }
                let body = m.region_blocks(m.regions(op)[0])[0];
                let args = m.block_args(body).to_vec();
                self.band(body, &args, &ranges, 0, ivs)
            }
            "affine.if" => {
                let Some(Attribute::IntegerSet(set)) = m.op(op).props.get("condition") else {
                    return None;
                };
                let as_map = AffineMap {
                    num_dims: set.num_dims,
                    num_symbols: set.num_symbols,
                    results: vec![],
                };
                let vals: Vec<i64> = m
                    .operands(op)
                    .iter()
                    .map(|&v| self.value(v))
                    .collect::<Option<_>>()?;
                let mut holds = true;
                for (e, is_eq) in &set.constraints {
                    let x = eval(e, &as_map, &vals)?;
                    holds &= if *is_eq { x == 0 } else { x >= 0 };
                }
                let region = m.regions(op)[if holds { 0 } else { 1 }];
                if let Some(&b) = m.region_blocks(region).first() {
                    self.block(b, ivs)?;
                }
                Some(())
            }
            "affine.load" | "affine.store" | "affine.vector_load" | "affine.vector_store" => {
                let a = Access::of(m, op)?;
                let vals: Vec<i64> = a
                    .indices
                    .iter()
                    .map(|&v| self.value(v))
                    .collect::<Option<_>>()?;
                let base: Vec<i64> = a
                    .map
                    .results
                    .iter()
                    .map(|e| eval(e, &a.map, &vals))
                    .collect::<Option<_>>()?;
                let mut elems = vec![base.clone()];
                if let Some(shape) = vector_shape(m, &a) {
                    let off = base.len() - shape.len();
                    for (t, &ext) in shape.iter().enumerate() {
                        let mut next = Vec::new();
                        for e in &elems {
                            for k in 0..ext {
                                let mut x = e.clone();
                                x[off + t] += k;
                                next.push(x);
                            }
                        }
                        elems = next;
                    }
                }
                self.time += 1;
                self.out.push(Instance {
                    op,
                    ivs: ivs.clone(),
                    elems,
                    time: self.time,
                });
                Some(())
            }
            _ => {
                // Other ops with regions (scf helpers) hold no affine accesses in these
                // programs; they are not executed.
                Some(())
            }
        }
    }
}

/// Observed dependences: (src, dst, depth) -> per-common-loop (min, max) distance.
type Observed = HashMap<(OpId, OpId, usize), Vec<(i64, i64)>>;

fn observe(m: &Module, inst: &[Instance], accesses: &[OpId]) -> Observed {
    let mut by_op: HashMap<OpId, Vec<&Instance>> = HashMap::new();
    for i in inst {
        by_op.entry(i.op).or_default().push(i);
    }
    let mut out: Observed = HashMap::new();
    for &s in accesses {
        for &d in accesses {
            let (sa, da) = (Access::of(m, s).unwrap(), Access::of(m, d).unwrap());
            if sa.memref != da.memref || (!sa.is_write && !da.is_write) {
                continue;
            }
            let common = num_common_loops(m, s, d);
            let (Some(si), Some(di)) = (by_op.get(&s), by_op.get(&d)) else {
                continue;
            };
            // Index the destination instances by element.
            let mut at: HashMap<&[i64], Vec<&Instance>> = HashMap::new();
            for x in di {
                for e in &x.elems {
                    at.entry(e.as_slice()).or_default().push(x);
                }
            }
            for x in si {
                for e in &x.elems {
                    let Some(ys) = at.get(e.as_slice()) else {
                        continue;
                    };
                    for y in ys {
                        let level = (0..common).find(|&l| x.ivs[l] != y.ivs[l]);
                        let depth = match level {
                            Some(l) if y.ivs[l] > x.ivs[l] => l + 1,
                            Some(_) => continue,
                            None if x.time < y.time => common + 1,
                            None => continue,
                        };
                        let entry = out
                            .entry((s, d, depth))
                            .or_insert_with(|| vec![(i64::MAX, i64::MIN); common]);
                        for (l, r) in entry.iter_mut().enumerate() {
                            let dist = y.ivs[l] - x.ivs[l];
                            r.0 = r.0.min(dist);
                            r.1 = r.1.max(dist);
                        }
                    }
                }
            }
        }
    }
    out
}

fn has_symbols(m: &Module) -> bool {
    // Index-typed function arguments are the programs' symbols.
    let mut any = false;
    m.walk(m.top, &mut |m, op| {
        if m.op(op).name == "func.func" {
            if let Some(&r) = m.regions(op).first() {
                if let Some(&b) = m.region_blocks(r).first() {
                    any |= m.block_args(b).iter().any(|&a| m.value_type(a).is_index());
                }
            }
        }
    });
    any
}

fn check_file(path: &Path, reg: &Registry) -> (usize, usize) {
    let text = std::fs::read_to_string(path).unwrap();
    let m = parse_module(&text, reg, ParseOptions::default()).unwrap();
    let accesses = collect_accesses(&m, m.top, true);
    let exact = !has_symbols(&m);
    let mut checked = 0;
    for sym in [3i64, 6, 11] {
        let mut ex = Exec {
            m: &m,
            env: HashMap::new(),
            out: Vec::new(),
            time: 0,
            steps: 0,
        };
        let mut ok = true;
        m.walk(m.top, &mut |m, op| {
            if m.op(op).name == "func.func" {
                if let Some(&b) = m
                    .regions(op)
                    .first()
                    .and_then(|&r| m.region_blocks(r).first())
                {
                    for &a in m.block_args(b) {
                        if m.value_type(a).is_index() {
                            ex.env.insert(a, sym);
                        }
                    }
                }
            }
        });
        let funcs: Vec<OpId> = m
            .walk_ops(m.top)
            .into_iter()
            .filter(|&o| m.op(o).name == "func.func")
            .collect();
        for f in funcs {
            if let Some(&b) = m
                .regions(f)
                .first()
                .and_then(|&r| m.region_blocks(r).first())
            {
                ok &= ex.block(b, &mut Vec::new()).is_some();
            }
        }
        assert!(
            ok,
            "{}: the brute-force executor could not run the program",
            path.display()
        );
        let seen = observe(&m, &ex.out, &accesses);
        for &s in &accesses {
            for &d in &accesses {
                let common = enclosing_loops(&m, s)
                    .iter()
                    .zip(&enclosing_loops(&m, d))
                    .take_while(|(a, b)| a == b)
                    .count();
                for depth in 1..=common + 1 {
                    let res = check_dependence(&m, s, d, depth, Mode::Precise);
                    let obs = seen.get(&(s, d, depth));
                    checked += 1;
                    let what = format!(
                        "{}: {s:?} -> {d:?} at depth {depth} (symbols = {sym})",
                        path.display()
                    );
                    match (&res, obs) {
                        // A failure is a conservative "may depend" (e.g. semi-affine maps).
                        (DepResult::Failure(_), _) => {}
                        (DepResult::NoDependence, Some(o)) => {
                            panic!("{what}: missed a dependence {o:?}")
                        }
                        (DepResult::NoDependence, None) => {}
                        (DepResult::Dependence(_), None) => {
                            assert!(!exact, "{what}: reported a dependence that never happens");
                        }
                        (DepResult::Dependence(comps), Some(o)) => {
                            for (c, &(lo, hi)) in comps.iter().zip(o) {
                                let lb_ok = match c.lb {
                                    Some(l) => l <= lo,
                                    None => true,
                                };
                                let ub_ok = match c.ub {
                                    Some(u) => u >= hi,
                                    None => true,
                                };
                                assert!(
                                    lb_ok && ub_ok,
                                    "{what}: observed distances {o:?} outside {comps:?}"
                                );
                                if exact {
                                    assert_eq!(
                                        (c.lb, c.ub),
                                        (Some(lo), Some(hi)),
                                        "{what}: components not exact"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
        if exact {
            break;
        }
    }
    (checked, accesses.len())
}

#[test]
fn precise_mode_is_sound_and_exact_without_symbols() {
    let reg = Registry::with_all_dialects();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("tests/affine_deps"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mlir"))
        .collect();
    let shared = std::env::var("SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root.join("../shared"));
    if let Ok(rd) = std::fs::read_dir(shared.join("mlir/affine")) {
        files.extend(rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| {
            p.to_string_lossy().ends_with(".mlir")
                && !p.to_string_lossy().contains("upstream_fused")
        }));
    }
    files.sort();
    let mut total = 0;
    for f in &files {
        let (checked, _) = check_file(f, &reg);
        total += checked;
    }
    eprintln!("{} programs, {total} (pair, depth) checks", files.len());
    assert!(total > 0);
}

/// The slice API the fusion pass uses: the producer IV in terms of the consumer's.
#[test]
fn slice_bounds_of_a_shifted_consumer() {
    let reg = Registry::with_all_dialects();
    let src = r#"func.func @f(%a: memref<64xf32>, %b: memref<64xf32>, %x: f32) {
  %t = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    affine.store %x, %t[%i] : memref<64xf32>
  }
  affine.for %j = 0 to 60 {
    %v = affine.load %t[%j + 2] : memref<64xf32>
    %w = affine.load %t[2 * %j floordiv 3] : memref<64xf32>
    affine.store %v, %b[%j] : memref<64xf32>
  }
  return
}"#;
    let m = parse_module(src, &reg, ParseOptions::default()).unwrap();
    let acc = collect_accesses(&m, m.top, true);
    let (store, load, load2) = (acc[0], acc[1], acc[2]);
    let sys = memplan_passes::analysis::affine_deps::dependence_system(
        &m,
        store,
        load,
        None,
        Mode::Precise,
    )
    .unwrap();
    assert_eq!(sys.num_common, 0);
    let keep: Vec<usize> = std::iter::once(sys.dst_col(0))
        .chain(sys.symbol_cols())
        .collect();
    let b = sys.set.bounds_in_terms_of(sys.src_col(0), &keep).unwrap();
    assert!(b.exact);
    for j in 0..60 {
        let lo = b
            .lower
            .iter()
            .map(|l| l.eval_lower(&[j]).unwrap())
            .max()
            .unwrap();
        let hi = b
            .upper
            .iter()
            .map(|u| u.eval_upper(&[j]).unwrap())
            .min()
            .unwrap();
        assert_eq!((lo, hi), (j + 2, j + 2));
    }
    // i == 2j floordiv 3: the bounds bracket it (they may be rational, never wrong).
    let sys = memplan_passes::analysis::affine_deps::dependence_system(
        &m,
        store,
        load2,
        None,
        Mode::Precise,
    )
    .unwrap();
    let b = sys
        .set
        .bounds_in_terms_of(sys.src_col(0), &[sys.dst_col(0)])
        .unwrap();
    for j in 0..60 {
        let lo = b
            .lower
            .iter()
            .map(|l| l.eval_lower(&[j]).unwrap())
            .max()
            .unwrap();
        let hi = b
            .upper
            .iter()
            .map(|u| u.eval_upper(&[j]).unwrap())
            .min()
            .unwrap();
        assert!(
            lo <= (2 * j).div_euclid(3) && (2 * j).div_euclid(3) <= hi,
            "j = {j}: [{lo}, {hi}]"
        );
        assert!(hi - lo <= 1, "j = {j}: [{lo}, {hi}] too wide");
    }
    assert!(check_dependence(&m, store, load, 1, Mode::Precise).may_depend());
}
