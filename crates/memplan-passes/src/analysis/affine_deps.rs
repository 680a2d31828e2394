//! Affine memory dependence analysis (read-only): access relations of
//! `affine.load` / `affine.store` / `affine.vector_load` / `affine.vector_store`,
//! dependence polyhedra per loop depth and distance components, with the semantics of
//! upstream MLIR's `checkMemrefAccessDependence` (mlir/lib/Dialect/Affine/Analysis/
//! AffineAnalysis.cpp) and the printed view of its `--test-memref-dependence-check`.
//!
//! # The dependence polyhedron
//! For a source access `S` and a destination access `D` on the same memref value, the
//! constraint system ([`DependenceSystem`]) has one column per loop IV enclosing `S`
//! (outermost first), then one per loop IV enclosing `D`, then symbols (SSA values used
//! as affine symbols, shared by both sides) and locals (quotients of `floordiv`, `mod`,
//! `ceildiv` and of loop steps), in the order they were met. It holds
//! - both iteration domains: every enclosing `affine.for`'s lower bounds (`iv >= r` for
//!   each result of a `max` map), upper bounds (`iv <= r - 1` for each result of a `min`
//!   map), its step (`iv - lb == step * q`), and every enclosing `affine.if` condition;
//! - equal subscripts: `S`'s `k`-th index expression equals `D`'s, for every `k`;
//! - at depth `d` (1 ..= common loops + 1) the ordering: the first `d - 1` common IVs
//!   equal and, when `d` <= common loops, `D`'s `d`-th IV at least `S`'s plus one.
//!
//! A dependence exists when the system has an integer point (exact, by
//! [`memplan_affine`]'s Omega test). Its components are, per common loop `j`, the exact
//! integer range of `D.iv_j - S.iv_j` over the polyhedron (`None` = unbounded).
//!
//! Pairs are checked as upstream does: different memref values never depend (views are
//! not looked through), two reads never depend, and at depth `common + 1` (no loop
//! carries the dependence) `S` must come before `D` in their innermost common block.
//!
//! # Modes
//! [`Mode::Upstream`] reproduces mlir-opt-22's domain model, including two of its
//! approximations: a loop step > 1 is modelled only when the lower bound is a constant,
//! and an access in the `else` region of an `affine.if` gets the `then` condition
//! (upstream adds the condition of every enclosing `affine.if`). [`Mode::Precise`] is
//! sound for transformations: the step is modelled for any single-result lower bound, an
//! `else` access gets no condition (a superset of its domain), a vector access covers
//! every element it moves (upstream compares first elements only), emptiness is exact
//! and distance components are the exact integer ranges. Remarks use
//! `Upstream`; fusion should use `Precise`.

//!
//! # Use from a transformation (e.g. loop fusion)
//! - [`check_dependence`]`(m, src, dst, depth, Mode::Precise)`: is there a dependence
//!   carried at `depth` (or loop-independent at common + 1), and its exact distance
//!   components; [`DepResult::may_depend`] is the conservative yes/no.
//! - [`dependence_system`]`(m, src, dst, None, Mode::Precise)`: the polyhedron of all
//!   instance pairs touching the same element, for slices: the bounds of a source IV in
//!   terms of the destination's outer IVs (and symbols) are
//!   `sys.set.bounds_in_terms_of(sys.src_col(i), &keep)` with
//!   `keep = (0..depth).map(|k| sys.dst_col(k)).chain(sys.symbol_cols())`
//!   (lower bounds `ceil(e / d)`, upper bounds `floor(e / d)`, see
//!   [`memplan_affine::IntegerSet::bounds_in_terms_of`]).
//! - [`collect_accesses`], [`enclosing_loops`], [`num_common_loops`], [`Access::of`],
//!   [`vector_shape`] for the bookkeeping.

use std::collections::{BTreeMap, HashMap};

use memplan_affine::{AffineError, IntegerSet, VarKind};
use memplan_ir::{AffineExpr, AffineMap, Attribute, BlockId, Module, OpId, ValueDef, ValueId};

/// The access ops the analysis understands.
pub const ACCESS_OPS: &[&str] = &[
    "affine.load",
    "affine.store",
    "affine.vector_load",
    "affine.vector_store",
];

/// Ops that open an affine scope (MLIR's `AffineScope` trait).
const AFFINE_SCOPES: &[&str] = &["func.func", "builtin.module", "gpu.func", "affine.scope"];

/// How iteration domains are modelled; see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// mlir-opt-22's model, for identical remarks.
    #[default]
    Upstream,
    /// A sound over-approximation of every domain, for transformations.
    Precise,
}

/// One affine memory access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// The access op.
    pub op: OpId,
    /// The memref value accessed.
    pub memref: ValueId,
    /// The subscript map.
    pub map: AffineMap,
    /// The map's operands (dims then symbols).
    pub indices: Vec<ValueId>,
    /// `affine.store` / `affine.vector_store`.
    pub is_write: bool,
}

impl Access {
    /// The access view of `op`, if it is one of [`ACCESS_OPS`] with a well-formed map.
    pub fn of(m: &Module, op: OpId) -> Option<Access> {
        let name = m.op(op).name.as_str();
        let (is_write, first) = match name {
            "affine.load" | "affine.vector_load" => (false, 0),
            "affine.store" | "affine.vector_store" => (true, 1),
            _ => return None,
        };
        let map = match m.op(op).props.get("map") {
            Some(Attribute::AffineMap(mp)) => mp.clone(),
            _ => return None,
        };
        let ops = m.operands(op);
        let memref = *ops.get(first)?;
        let indices = ops.get(first + 1..)?.to_vec();
        if indices.len() != (map.num_dims + map.num_symbols) as usize {
            return None;
        }
        Some(Access {
            op,
            memref,
            map,
            indices,
            is_write,
        })
    }
}

/// The range of `dst.iv - src.iv` for one common loop (`None` = unbounded that side).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepComponent {
    /// The common `affine.for`.
    pub loop_op: OpId,
    /// Least distance.
    pub lb: Option<i64>,
    /// Greatest distance.
    pub ub: Option<i64>,
}

/// The answer of [`check_dependence`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DepResult {
    /// No integer point: the accesses never touch the same element in that order.
    NoDependence,
    /// A dependence, with one component per common loop (empty without common loops).
    Dependence(Vec<DepComponent>),
    /// The analysis could not decide (unsupported IR or arithmetic limits); treat as
    /// a dependence of unknown shape.
    Failure(String),
}

impl DepResult {
    /// True unless the accesses were proven independent.
    pub fn may_depend(&self) -> bool {
        !matches!(self, DepResult::NoDependence)
    }
}

/// The dependence polyhedron of two accesses; see the module documentation for the
/// column layout.
#[derive(Clone, Debug)]
pub struct DependenceSystem {
    /// The constraints.
    pub set: IntegerSet,
    /// `affine.for` ops enclosing the source access, outermost first (columns
    /// `0..src_loops.len()`).
    pub src_loops: Vec<OpId>,
    /// `affine.for` ops enclosing the destination access, outermost first (columns
    /// `src_loops.len()..src_loops.len() + dst_loops.len()`).
    pub dst_loops: Vec<OpId>,
    /// Symbol values and their columns.
    pub symbols: Vec<(ValueId, usize)>,
    /// Loops common to both accesses (a prefix of both loop lists).
    pub num_common: usize,
}

impl DependenceSystem {
    /// Column of the source's `i`-th loop IV.
    pub fn src_col(&self, i: usize) -> usize {
        i
    }
    /// Column of the destination's `i`-th loop IV.
    pub fn dst_col(&self, i: usize) -> usize {
        self.src_loops.len() + i
    }
    /// Columns of the symbols, in [`DependenceSystem::symbols`] order.
    pub fn symbol_cols(&self) -> Vec<usize> {
        self.symbols.iter().map(|&(_, c)| c).collect()
    }
}

/// Every access op under `root` in program order (the order of upstream's walk).
/// With `include_vector`, `affine.vector_load/store` too (upstream's test pass collects
/// only `affine.load` and `affine.store`).
pub fn collect_accesses(m: &Module, root: OpId, include_vector: bool) -> Vec<OpId> {
    let mut out = Vec::new();
    m.walk(root, &mut |m, op| {
        let n = m.op(op).name.as_str();
        let scalar = n == "affine.load" || n == "affine.store";
        let vector = n == "affine.vector_load" || n == "affine.vector_store";
        if scalar || (include_vector && vector) {
            out.push(op);
        }
    });
    out
}

/// `affine.for` / `affine.if` / `affine.parallel` ops enclosing `op` inside its affine
/// scope, outermost first, each with whether `op` lies in its second (`else`) region.
pub fn enclosing_affine_ops(m: &Module, op: OpId) -> Vec<(OpId, bool)> {
    let mut out = Vec::new();
    let mut cur = op;
    while let Some(p) = m.parent_op(cur) {
        let name = m.op(p).name.as_str();
        if AFFINE_SCOPES.contains(&name) {
            break;
        }
        if matches!(name, "affine.for" | "affine.if" | "affine.parallel") {
            let in_else = name == "affine.if" && {
                let block = m.op_block(cur);
                let region = block.and_then(|b| m.block_region(b));
                m.regions(p).get(1).copied() == region && region.is_some()
            };
            out.push((p, in_else));
        }
        cur = p;
    }
    out.reverse();
    out
}

/// The loops enclosing `op` inside its affine scope, outermost first, one entry per
/// induction variable: an `affine.for` once, an `affine.parallel` once per IV (upstream's
/// `getAffineIVs` order).
pub fn enclosing_loops(m: &Module, op: OpId) -> Vec<OpId> {
    let mut out = Vec::new();
    for (o, _) in enclosing_affine_ops(m, op) {
        match m.op(o).name.as_str() {
            "affine.for" => out.push(o),
            "affine.parallel" => {
                let n = first_block(m, o).map_or(0, |b| m.block_args(b).len());
                for _ in 0..n {
                    out.push(o);
                }
            }
            _ => {}
        }
    }
    out
}

fn first_block(m: &Module, op: OpId) -> Option<BlockId> {
    let r = *m.regions(op).first()?;
    m.region_blocks(r).first().copied()
}

/// The IVs of a loop list from [`enclosing_loops`] (a repeated `affine.parallel` gives
/// its IVs in order).
fn loop_ivs(m: &Module, loops: &[OpId]) -> Option<Vec<ValueId>> {
    let mut out = Vec::with_capacity(loops.len());
    for (i, &l) in loops.iter().enumerate() {
        let k = loops[..i].iter().rev().take_while(|&&p| p == l).count();
        out.push(*m.block_args(first_block(m, l)?).get(k)?);
    }
    Some(out)
}

/// Number of `affine.for` loops surrounding both `a` and `b`.
pub fn num_common_loops(m: &Module, a: OpId, b: OpId) -> usize {
    let la = enclosing_loops(m, a);
    let lb = enclosing_loops(m, b);
    la.iter().zip(&lb).take_while(|(x, y)| x == y).count()
}

fn affine_scope(m: &Module, op: OpId) -> Option<OpId> {
    let mut cur = m.parent_op(op);
    while let Some(o) = cur {
        if AFFINE_SCOPES.contains(&m.op(o).name.as_str()) {
            return Some(o);
        }
        cur = m.parent_op(o);
    }
    None
}

/// Blocks enclosing `op`, innermost first, up to and including the block of the
/// affine scope's region.
fn ancestor_blocks(m: &Module, op: OpId) -> Vec<BlockId> {
    let mut out = Vec::new();
    let mut cur = op;
    while let Some(b) = m.op_block(cur) {
        out.push(b);
        match m.parent_op(cur) {
            Some(p) if !AFFINE_SCOPES.contains(&m.op(p).name.as_str()) => cur = p,
            _ => break,
        }
    }
    out
}

/// Whether `src`'s ancestor comes strictly before `dst`'s in their innermost common
/// block (upstream's `srcAppearsBeforeDstInAncestralBlock`).
fn src_before_dst(m: &Module, src: OpId, dst: OpId) -> Option<bool> {
    let sb = ancestor_blocks(m, src);
    let db = ancestor_blocks(m, dst);
    let mut common = None;
    for (x, y) in sb.iter().rev().zip(db.iter().rev()) {
        if x == y {
            common = Some(*x);
        } else {
            break;
        }
    }
    let block = common?;
    let anc = |op: OpId| -> Option<OpId> {
        let mut cur = op;
        loop {
            if m.op_block(cur) == Some(block) {
                return Some(cur);
            }
            cur = m.parent_op(cur)?;
        }
    };
    let (a, b) = (anc(src)?, anc(dst)?);
    if a == b {
        return Some(false);
    }
    for o in m.block_ops(block) {
        if o == a {
            return Some(true);
        }
        if o == b {
            return Some(false);
        }
    }
    None
}

/// A linear form over the system's columns.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Lin {
    coeffs: BTreeMap<usize, i64>,
    c: i64,
}

fn ovf(_: AffineError) -> String {
    "integer overflow in an affine expression".to_string()
}

impl Lin {
    fn constant(c: i64) -> Lin {
        Lin {
            coeffs: BTreeMap::new(),
            c,
        }
    }
    fn var(col: usize) -> Lin {
        let mut coeffs = BTreeMap::new();
        coeffs.insert(col, 1);
        Lin { coeffs, c: 0 }
    }
    fn as_const(&self) -> Option<i64> {
        self.coeffs.is_empty().then_some(self.c)
    }
    fn add_scaled(&self, other: &Lin, k: i64) -> Result<Lin, String> {
        let mut out = self.clone();
        let mul = |a: i64, b: i64| a.checked_mul(b).ok_or_else(|| ovf(AffineError::Overflow));
        for (&col, &v) in &other.coeffs {
            let e = out.coeffs.entry(col).or_insert(0);
            *e = e
                .checked_add(mul(v, k)?)
                .ok_or_else(|| ovf(AffineError::Overflow))?;
            if *e == 0 {
                out.coeffs.remove(&col);
            }
        }
        out.c = out
            .c
            .checked_add(mul(other.c, k)?)
            .ok_or_else(|| ovf(AffineError::Overflow))?;
        Ok(out)
    }
    fn scale(&self, k: i64) -> Result<Lin, String> {
        Lin::default().add_scaled(self, k)
    }
}

/// Which access of the pair an IV column belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Src,
    Dst,
}

/// Which part of the problem a row or column comes from; the assembled system orders
/// them as upstream's relation composition does (see [`Builder::assemble`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Phase {
    SrcMap,
    SrcDomain,
    DstMap,
    DstDomain,
    Order,
}

struct Builder<'m> {
    m: &'m Module,
    mode: Mode,
    kinds: Vec<VarKind>,
    col_phase: Vec<Phase>,
    rows: Vec<(Phase, bool, Lin)>,
    phase: Phase,
    src_iv: HashMap<ValueId, usize>,
    dst_iv: HashMap<ValueId, usize>,
    symbols: Vec<(ValueId, usize)>,
    sym_col: HashMap<ValueId, usize>,
    divs: HashMap<(Lin, i64), usize>,
}

fn loop_iv(m: &Module, for_op: OpId) -> Option<ValueId> {
    m.block_args(first_block(m, for_op)?).first().copied()
}

/// Integers of a `dense<...>` elements attribute (a list or a splat) or an integer array.
fn int_elements(a: Option<&Attribute>) -> Option<Vec<i64>> {
    match a? {
        Attribute::Elements { kind, body, ty } if kind == "dense" => {
            let n = usize::try_from(ty.shape()?.iter().product::<i64>()).ok()?;
            let t = body.trim();
            match t.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
                Some(inner) if inner.trim().is_empty() => Some(Vec::new()),
                Some(inner) => inner.split(',').map(|x| x.trim().parse().ok()).collect(),
                None => Some(vec![t.parse().ok()?; n]),
            }
        }
        other => other.as_int_array().map(<[i64]>::to_vec),
    }
}

fn int_prop(m: &Module, op: OpId, name: &str) -> Option<i64> {
    m.op(op)
        .props
        .get(name)
        .and_then(|a| a.as_int())
        .and_then(|v| i64::try_from(v).ok())
}

fn map_prop(m: &Module, op: OpId, name: &str) -> Option<AffineMap> {
    match m.op(op).props.get(name) {
        Some(Attribute::AffineMap(a)) => Some(a.clone()),
        _ => None,
    }
}

impl<'m> Builder<'m> {
    fn new(
        m: &'m Module,
        mode: Mode,
        src_loops: &[OpId],
        dst_loops: &[OpId],
    ) -> Result<Self, String> {
        let n = src_loops.len() + dst_loops.len();
        let mut b = Builder {
            m,
            mode,
            kinds: vec![VarKind::Dim; n],
            col_phase: vec![Phase::SrcMap; n],
            rows: Vec::new(),
            phase: Phase::SrcDomain,
            src_iv: HashMap::new(),
            dst_iv: HashMap::new(),
            symbols: Vec::new(),
            sym_col: HashMap::new(),
            divs: HashMap::new(),
        };
        let src_ivs = loop_ivs(m, src_loops).ok_or("loop without induction variables")?;
        let dst_ivs = loop_ivs(m, dst_loops).ok_or("loop without induction variables")?;
        for (i, iv) in src_ivs.into_iter().enumerate() {
            b.src_iv.insert(iv, i);
        }
        for (i, iv) in dst_ivs.into_iter().enumerate() {
            b.dst_iv.insert(iv, src_loops.len() + i);
        }
        Ok(b)
    }

    fn add_var(&mut self, kind: VarKind) -> usize {
        self.kinds.push(kind);
        self.col_phase.push(self.phase);
        self.kinds.len() - 1
    }

    fn add_eq(&mut self, l: &Lin) {
        self.rows.push((self.phase, true, l.clone()));
    }

    fn add_ge(&mut self, l: &Lin) {
        self.rows.push((self.phase, false, l.clone()));
    }

    /// The constraint system in upstream's layout: columns `[src IVs, dst IVs, symbols,
    /// locals]` (symbols and locals grouped by the phase that created them: destination
    /// domain, destination map, source domain, source map, then the subscript locals),
    /// rows grouped as source map, source domain, destination map, destination domain,
    /// ordering. Returns the set and the symbol columns.
    fn assemble(&self, num_ivs: usize) -> (IntegerSet, Vec<(ValueId, usize)>) {
        let n = self.kinds.len();
        let rank = |p: Phase| match p {
            // Upstream's composition merges the destination relation's symbols and
            // locals first, then the source's; each relation lists its domain's before
            // its map's; the subscripts become locals last.
            Phase::DstDomain => 0,
            Phase::DstMap => 1,
            Phase::SrcDomain => 2,
            Phase::SrcMap => 3,
            Phase::Order => 4,
        };
        let mut order: Vec<usize> = (num_ivs..n).collect();
        order.sort_by_key(|&c| (self.kinds[c] == VarKind::Local, rank(self.col_phase[c]), c));
        let mut new_col: Vec<usize> = (0..n).collect();
        for (i, &c) in order.iter().enumerate() {
            new_col[c] = num_ivs + i;
        }
        let mut kinds = vec![VarKind::Dim; n];
        for c in 0..n {
            kinds[new_col[c]] = self.kinds[c];
        }
        let mut set = IntegerSet::with_kinds(kinds);
        let mut rows: Vec<&(Phase, bool, Lin)> = self.rows.iter().collect();
        rows.sort_by_key(|r| r.0);
        for (_, is_eq, l) in rows {
            let mut row = vec![0i64; n];
            for (&c, &v) in &l.coeffs {
                row[new_col[c]] = v;
            }
            if *is_eq {
                set.add_equality(&row, l.c);
            } else {
                set.add_inequality(&row, l.c);
            }
        }
        let symbols = self.symbols.iter().map(|&(v, c)| (v, new_col[c])).collect();
        (set, symbols)
    }

    /// The linear form of an SSA value used as a dim or symbol on `side`.
    fn value(&mut self, v: ValueId, side: Side, depth: u32) -> Result<Lin, String> {
        if depth > 64 {
            return Err("affine.apply chain too deep".into());
        }
        let ivs = match side {
            Side::Src => &self.src_iv,
            Side::Dst => &self.dst_iv,
        };
        if let Some(&col) = ivs.get(&v) {
            return Ok(Lin::var(col));
        }
        if let ValueDef::OpResult { op, .. } = self.m.value_def(v) {
            let name = self.m.op(op).name.as_str();
            if name == "arith.constant" {
                if let Some(c) = int_prop(self.m, op, "value") {
                    return Ok(Lin::constant(c));
                }
            }
            if name == "affine.apply" {
                let map = map_prop(self.m, op, "map").ok_or("affine.apply without a map")?;
                if map.results.len() != 1 {
                    return Err("affine.apply with other than one result".into());
                }
                let operands = self.m.operands(op).to_vec();
                let lins = self.operands(&map, &operands, side, depth + 1)?;
                return self.flatten(&map.results[0], &map, &lins);
            }
        }
        if let ValueDef::BlockArg { block, index } = self.m.value_def(v) {
            let owner = self.m.block_region(block).and_then(|r| self.m.region_op(r));
            if owner.is_some_and(|o| match self.m.op(o).name.as_str() {
                "affine.for" => index == 0,
                "affine.parallel" => true,
                _ => false,
            }) {
                return Err("a loop induction variable of a loop not enclosing the access".into());
            }
        }
        if let Some(&col) = self.sym_col.get(&v) {
            return Ok(Lin::var(col));
        }
        let col = self.add_var(VarKind::Symbol);
        self.sym_col.insert(v, col);
        self.symbols.push((v, col));
        Ok(Lin::var(col))
    }

    fn operands(
        &mut self,
        map: &AffineMap,
        vals: &[ValueId],
        side: Side,
        depth: u32,
    ) -> Result<Vec<Lin>, String> {
        if vals.len() != (map.num_dims + map.num_symbols) as usize {
            return Err("affine map operand count mismatch".into());
        }
        vals.iter().map(|&v| self.value(v, side, depth)).collect()
    }

    /// `floor(l / d)` as a (shared) local column, or a constant.
    fn floordiv(&mut self, l: &Lin, d: i64) -> Result<Lin, String> {
        if d <= 0 {
            return Err("non-positive divisor in an affine expression".into());
        }
        if let Some(c) = l.as_const() {
            return Ok(Lin::constant(c.div_euclid(d)));
        }
        if d == 1 {
            return Ok(l.clone());
        }
        if let Some(&q) = self.divs.get(&(l.clone(), d)) {
            return Ok(Lin::var(q));
        }
        let q = self.add_var(VarKind::Local);
        self.divs.insert((l.clone(), d), q);
        let lo = l.add_scaled(&Lin::var(q), -d)?; // l - d q >= 0
        self.add_ge(&lo);
        let mut hi = lo.scale(-1)?; // d q - l + d - 1 >= 0
        hi.c =
            hi.c.checked_add(d - 1)
                .ok_or_else(|| ovf(AffineError::Overflow))?;
        self.add_ge(&hi);
        Ok(Lin::var(q))
    }

    fn flatten(&mut self, e: &AffineExpr, map: &AffineMap, ops: &[Lin]) -> Result<Lin, String> {
        let const_rhs = |me: &mut Self, b: &AffineExpr| -> Result<i64, String> {
            me.flatten(b, map, ops)?
                .as_const()
                .ok_or_else(|| "semi-affine expression (non-constant right-hand side)".to_string())
        };
        Ok(match e {
            AffineExpr::Dim(i) => ops
                .get(*i as usize)
                .cloned()
                .ok_or("affine dim out of range")?,
            AffineExpr::Symbol(i) => ops
                .get((map.num_dims + *i) as usize)
                .cloned()
                .ok_or("affine symbol out of range")?,
            AffineExpr::Const(c) => Lin::constant(*c),
            AffineExpr::Add(a, b) => {
                let la = self.flatten(a, map, ops)?;
                let lb = self.flatten(b, map, ops)?;
                la.add_scaled(&lb, 1)?
            }
            AffineExpr::Mul(a, b) => {
                let la = self.flatten(a, map, ops)?;
                let lb = self.flatten(b, map, ops)?;
                match (la.as_const(), lb.as_const()) {
                    (_, Some(k)) => la.scale(k)?,
                    (Some(k), _) => lb.scale(k)?,
                    _ => return Err("semi-affine expression (product of two variables)".into()),
                }
            }
            AffineExpr::FloorDiv(a, b) => {
                let la = self.flatten(a, map, ops)?;
                let d = const_rhs(self, b)?;
                self.floordiv(&la, d)?
            }
            AffineExpr::CeilDiv(a, b) => {
                let la = self.flatten(a, map, ops)?;
                let d = const_rhs(self, b)?;
                // ceil(a / d) = -floor(-a / d)
                let q = self.floordiv(&la.scale(-1)?, d)?;
                q.scale(-1)?
            }
            AffineExpr::Mod(a, b) => {
                let la = self.flatten(a, map, ops)?;
                let d = const_rhs(self, b)?;
                if let Some(c) = la.as_const() {
                    if d <= 0 {
                        return Err("non-positive divisor in an affine expression".into());
                    }
                    Lin::constant(c.rem_euclid(d))
                } else {
                    let q = self.floordiv(&la, d)?;
                    la.add_scaled(&q, -d)?
                }
            }
        })
    }

    /// Adds the iteration domain of `op` on `side`.
    fn domain(&mut self, op: OpId, side: Side) -> Result<(), String> {
        self.phase = match side {
            Side::Src => Phase::SrcDomain,
            Side::Dst => Phase::DstDomain,
        };
        for (a, in_else) in enclosing_affine_ops(self.m, op) {
            let name = self.m.op(a).name.as_str();
            match name {
                "affine.for" => self.for_domain(a, side)?,
                "affine.if" => {
                    if in_else && self.mode == Mode::Precise {
                        continue;
                    }
                    let set = match self.m.op(a).props.get("condition") {
                        Some(Attribute::IntegerSet(s)) => s.clone(),
                        _ => return Err("affine.if without a condition".into()),
                    };
                    let as_map = AffineMap {
                        num_dims: set.num_dims,
                        num_symbols: set.num_symbols,
                        results: Vec::new(),
                    };
                    let vals = self.m.operands(a).to_vec();
                    let lins = self.operands(&as_map, &vals, side, 0)?;
                    for (e, is_eq) in &set.constraints {
                        let l = self.flatten(e, &as_map, &lins)?;
                        if *is_eq {
                            self.add_eq(&l);
                        } else {
                            self.add_ge(&l);
                        }
                    }
                }
                _ => self.parallel_domain(a, side)?,
            }
        }
        Ok(())
    }

    /// Bounds of every IV of an `affine.parallel` (the `max` of its lower-bound group,
    /// the `min` of its upper-bound group). Steps are not modelled (a superset), as
    /// upstream's `addAffineParallelOpDomain` does.
    fn parallel_domain(&mut self, p: OpId, side: Side) -> Result<(), String> {
        let m = self.m;
        let bad = || "malformed affine.parallel".to_string();
        let lb = map_prop(m, p, "lowerBoundsMap").ok_or_else(bad)?;
        let ub = map_prop(m, p, "upperBoundsMap").ok_or_else(bad)?;
        let lbg = int_elements(m.op(p).props.get("lowerBoundsGroups")).ok_or_else(bad)?;
        let ubg = int_elements(m.op(p).props.get("upperBoundsGroups")).ok_or_else(bad)?;
        let ivs = m.block_args(first_block(m, p).ok_or_else(bad)?).to_vec();
        let nlb = (lb.num_dims + lb.num_symbols) as usize;
        let nub = (ub.num_dims + ub.num_symbols) as usize;
        let all = m.operands(p).to_vec();
        if all.len() < nlb + nub
            || lbg.len() != ivs.len()
            || ubg.len() != ivs.len()
            || lbg.iter().chain(&ubg).any(|&g| g < 0)
            || lbg.iter().sum::<i64>() as usize != lb.results.len()
            || ubg.iter().sum::<i64>() as usize != ub.results.len()
        {
            return Err(bad());
        }
        let lb_ops = self.operands(&lb, &all[..nlb], side, 0)?;
        let ub_ops = self.operands(&ub, &all[nlb..nlb + nub], side, 0)?;
        let (mut li, mut ui) = (0usize, 0usize);
        for (k, iv) in ivs.iter().enumerate() {
            let col = match side {
                Side::Src => self.src_iv[iv],
                Side::Dst => self.dst_iv[iv],
            };
            let ivl = Lin::var(col);
            for r in &lb.results[li..li + lbg[k] as usize] {
                let l = self.flatten(r, &lb, &lb_ops)?;
                self.add_ge(&ivl.add_scaled(&l, -1)?);
            }
            for r in &ub.results[ui..ui + ubg[k] as usize] {
                let u = self.flatten(r, &ub, &ub_ops)?;
                let mut g = u.add_scaled(&ivl, -1)?;
                g.c =
                    g.c.checked_sub(1)
                        .ok_or_else(|| ovf(AffineError::Overflow))?;
                self.add_ge(&g);
            }
            li += lbg[k] as usize;
            ui += ubg[k] as usize;
        }
        Ok(())
    }

    fn for_domain(&mut self, f: OpId, side: Side) -> Result<(), String> {
        let m = self.m;
        let iv = loop_iv(m, f).ok_or("affine.for without an induction variable")?;
        let col = match side {
            Side::Src => self.src_iv[&iv],
            Side::Dst => self.dst_iv[&iv],
        };
        let lb = map_prop(m, f, "lowerBoundMap").ok_or("affine.for without a lower bound map")?;
        let ub = map_prop(m, f, "upperBoundMap").ok_or("affine.for without an upper bound map")?;
        let nlb = (lb.num_dims + lb.num_symbols) as usize;
        let nub = (ub.num_dims + ub.num_symbols) as usize;
        let all = m.operands(f).to_vec();
        if all.len() < nlb + nub {
            return Err("affine.for bound operands do not match its maps".into());
        }
        let lb_ops = self.operands(&lb, &all[..nlb], side, 0)?;
        let ub_ops = self.operands(&ub, &all[nlb..nlb + nub], side, 0)?;
        let ivl = Lin::var(col);
        let mut lb_lins = Vec::new();
        for r in &lb.results {
            let l = self.flatten(r, &lb, &lb_ops)?;
            self.add_ge(&ivl.add_scaled(&l, -1)?); // iv - lb >= 0
            lb_lins.push(l);
        }
        for r in &ub.results {
            let u = self.flatten(r, &ub, &ub_ops)?;
            let mut g = u.add_scaled(&ivl, -1)?; // ub - iv - 1 >= 0
            g.c =
                g.c.checked_sub(1)
                    .ok_or_else(|| ovf(AffineError::Overflow))?;
            self.add_ge(&g);
        }
        let step = int_prop(m, f, "step").unwrap_or(1);
        if step > 1 && lb_lins.len() == 1 {
            let base = &lb_lins[0];
            let model = match self.mode {
                Mode::Upstream => base.as_const().is_some(),
                Mode::Precise => true,
            };
            if model {
                // q = (iv - lb) floordiv step (two inequalities, as upstream's
                // addLocalFloorDiv), and iv - lb == step * q.
                let q = self.add_var(VarKind::Local);
                let e = ivl.add_scaled(base, -1)?.add_scaled(&Lin::var(q), -step)?;
                self.add_ge(&e);
                let mut hi = e.scale(-1)?;
                hi.c =
                    hi.c.checked_add(step - 1)
                        .ok_or_else(|| ovf(AffineError::Overflow))?;
                self.add_ge(&hi);
                self.add_eq(&e);
            }
        }
        Ok(())
    }
}

/// The vector shape an access moves (`None` for scalar accesses).
pub fn vector_shape(m: &Module, a: &Access) -> Option<Vec<i64>> {
    let v = match m.op(a.op).name.as_str() {
        "affine.vector_load" => *m.results(a.op).first()?,
        "affine.vector_store" => *m.operands(a.op).first()?,
        _ => return None,
    };
    m.value_type(v).shape().map(<[i64]>::to_vec)
}

fn widen_vector(
    b: &mut Builder<'_>,
    m: &Module,
    a: &Access,
    idx: &mut [Lin],
) -> Result<(), String> {
    let Some(shape) = vector_shape(m, a) else {
        return Ok(());
    };
    if shape.len() > idx.len() || shape.iter().any(|&d| d <= 0) {
        return Err("vector shape does not fit the memref".into());
    }
    let off = idx.len() - shape.len();
    for (t, &extent) in shape.iter().enumerate() {
        if extent == 1 {
            continue;
        }
        let e = b.add_var(VarKind::Local);
        b.add_ge(&Lin::var(e));
        let mut hi = Lin::var(e).scale(-1)?;
        hi.c = extent - 1;
        b.add_ge(&hi);
        idx[off + t] = idx[off + t].add_scaled(&Lin::var(e), 1)?;
    }
    Ok(())
}

/// Builds the dependence polyhedron of `src` -> `dst` (both [`ACCESS_OPS`] on the same
/// memref), with ordering constraints for `depth` (1 ..= common loops + 1) when given,
/// or none (all instances, in any order) when `depth` is `None`.
pub fn dependence_system(
    m: &Module,
    src: OpId,
    dst: OpId,
    depth: Option<usize>,
    mode: Mode,
) -> Result<DependenceSystem, String> {
    let sa = Access::of(m, src).ok_or("source is not an affine access")?;
    let da = Access::of(m, dst).ok_or("destination is not an affine access")?;
    if sa.map.results.len() != da.map.results.len() {
        return Err("accesses of different ranks".into());
    }
    let src_loops = enclosing_loops(m, src);
    let dst_loops = enclosing_loops(m, dst);
    let num_common = src_loops
        .iter()
        .zip(&dst_loops)
        .take_while(|(a, b)| a == b)
        .count();
    let mut b = Builder::new(m, mode, &src_loops, &dst_loops)?;
    // The destination side first: upstream's composition merges the destination
    // relation's symbols and divisions first, and a symbol or division both sides use
    // takes the destination's place.
    b.domain(dst, Side::Dst)?;
    b.phase = Phase::DstMap;
    let d_ops = b.operands(&da.map, &da.indices, Side::Dst, 0)?;
    let mut d_idx = Vec::new();
    for r in &da.map.results {
        d_idx.push(b.flatten(r, &da.map, &d_ops)?);
    }
    b.domain(src, Side::Src)?;
    b.phase = Phase::SrcMap;
    let s_ops = b.operands(&sa.map, &sa.indices, Side::Src, 0)?;
    let mut s_idx = Vec::new();
    for r in &sa.map.results {
        s_idx.push(b.flatten(r, &sa.map, &s_ops)?);
    }
    // Subscripts: one local per memref dimension, equal to both sides' index (upstream
    // composes the two access relations through these).
    if mode == Mode::Precise {
        // A vector access touches a box in the trailing dimensions: index + e with
        // 0 <= e < extent (upstream looks at the first element only).
        b.phase = Phase::SrcMap;
        widen_vector(&mut b, m, &sa, &mut s_idx)?;
        b.phase = Phase::DstMap;
        widen_vector(&mut b, m, &da, &mut d_idx)?;
    }
    b.phase = Phase::Order;
    let mems: Vec<usize> = s_idx.iter().map(|_| b.add_var(VarKind::Local)).collect();
    for (k, &mk) in mems.iter().enumerate() {
        b.phase = Phase::SrcMap;
        b.add_eq(&s_idx[k].add_scaled(&Lin::var(mk), -1)?);
        b.phase = Phase::DstMap;
        b.add_eq(&d_idx[k].add_scaled(&Lin::var(mk), -1)?);
    }
    b.phase = Phase::Order;
    if let Some(depth) = depth {
        let ns = src_loops.len();
        for i in 0..num_common.min(depth) {
            // dst_i - src_i (>= 1 | == 0)
            let mut e = Lin::var(ns + i).add_scaled(&Lin::var(i), -1)?;
            if i + 1 == depth {
                e.c = -1;
                b.add_ge(&e);
            } else {
                b.add_eq(&e);
            }
        }
    }
    let (set, symbols) = b.assemble(src_loops.len() + dst_loops.len());
    Ok(DependenceSystem {
        set,
        src_loops,
        dst_loops,
        symbols,
        num_common,
    })
}

/// The dependence check of upstream's `checkMemrefAccessDependence` at `depth`
/// (1 ..= common loops + 1), with components.
pub fn check_dependence(m: &Module, src: OpId, dst: OpId, depth: usize, mode: Mode) -> DepResult {
    let (Some(sa), Some(da)) = (Access::of(m, src), Access::of(m, dst)) else {
        return DepResult::Failure("not an affine access".into());
    };
    if sa.memref != da.memref {
        return DepResult::NoDependence;
    }
    if !sa.is_write && !da.is_write {
        return DepResult::NoDependence;
    }
    if affine_scope(m, src) != affine_scope(m, dst) {
        return DepResult::Failure("accesses in different affine scopes".into());
    }
    let common = num_common_loops(m, src, dst);
    if depth == 0 || depth > common + 1 {
        return DepResult::Failure(format!("depth {depth} outside 1..={}", common + 1));
    }
    let mut sys = match dependence_system(m, src, dst, Some(depth), mode) {
        Ok(s) => s,
        Err(e) => return DepResult::Failure(e),
    };
    // As upstream, the access relations are built (and may fail) before the
    // program-order test of the loop-independent depth.
    if depth > common {
        match src_before_dst(m, src, dst) {
            Some(true) => {}
            Some(false) => return DepResult::NoDependence,
            None => return DepResult::Failure("no common block in the affine scope".into()),
        }
    }
    if mode == Mode::Upstream {
        // Upstream's relation composition ends by substituting every local with a unit
        // coefficient in an equality; the later (inexact) steps depend on that.
        match memplan_affine::compat::mlir_remove_redundant_locals(&sys.set) {
            Ok(s) => sys.set = s,
            Err(e) => return DepResult::Failure(e.to_string()),
        }
    }
    let empty = match mode {
        Mode::Upstream => memplan_affine::compat::mlir_is_empty(&sys.set),
        Mode::Precise => sys.set.is_empty(),
    };
    match empty {
        Ok(true) => return DepResult::NoDependence,
        Ok(false) => {}
        Err(e) => return DepResult::Failure(e.to_string()),
    }
    match components(&sys, mode) {
        Ok(c) => DepResult::Dependence(c),
        Err(e) => DepResult::Failure(e.to_string()),
    }
}

/// The range of `dst.iv_j - src.iv_j` for every common loop `j`: in
/// [`Mode::Precise`] the exact integer range; in [`Mode::Upstream`] what upstream reads
/// off its rational projection (`computeDirectionVector`), which can be looser.
pub fn components(sys: &DependenceSystem, mode: Mode) -> Result<Vec<DepComponent>, AffineError> {
    let c = sys.num_common;
    if c == 0 {
        return Ok(Vec::new());
    }
    let mut out = Vec::with_capacity(c);
    match mode {
        Mode::Precise => {
            for j in 0..c {
                let mut s = sys.set.clone();
                let d = s.add_var(VarKind::Dim);
                let mut row = vec![0; s.num_vars()];
                row[d] = 1;
                row[sys.dst_col(j)] -= 1;
                row[sys.src_col(j)] += 1;
                s.add_equality(&row, 0);
                let (lb, ub) = s.constant_bounds(d)?.unwrap_or((None, None));
                out.push(DepComponent {
                    loop_op: sys.src_loops[j],
                    lb,
                    ub,
                });
            }
        }
        Mode::Upstream => {
            let total = sys.set.num_vars();
            let mut s = sys.set.clone();
            for _ in 0..c {
                s.insert_var(0, VarKind::Dim);
            }
            for j in 0..c {
                let mut row = vec![0; s.num_vars()];
                row[j] = 1;
                row[c + sys.src_col(j)] = 1;
                row[c + sys.dst_col(j)] = -1;
                s.add_equality(&row, 0);
            }
            let p = memplan_affine::compat::mlir_project_out(&s, c, total)?;
            for j in 0..c {
                out.push(DepComponent {
                    loop_op: sys.src_loops[j],
                    lb: memplan_affine::compat::mlir_constant_bound(&p, j, true)?,
                    ub: memplan_affine::compat::mlir_constant_bound(&p, j, false)?,
                });
            }
        }
    }
    Ok(out)
}

/// One line of the printed view: the result of checking access `src_index` against
/// `dst_index` at `depth`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DepRemark {
    /// The source access op (the remark's location).
    pub src: OpId,
    /// Index of the source in the walk.
    pub src_index: usize,
    /// Index of the destination in the walk.
    pub dst_index: usize,
    /// Loop depth checked.
    pub depth: usize,
    /// `false`, `true`, the components (`[1, 1][0, 0]`), or `Err` when the check failed.
    pub result: Result<String, String>,
}

impl DepRemark {
    /// The remark text as upstream prints it (without location and `remark: `), or
    /// `dependence check failed` for a failure.
    pub fn message(&self) -> String {
        match &self.result {
            Ok(r) => format!(
                "dependence from {} to {} at depth {} = {}",
                self.src_index, self.dst_index, self.depth, r
            ),
            Err(_) => "dependence check failed".to_string(),
        }
    }
}

/// Upstream's rendering of a result.
pub fn format_result(res: &DepResult, num_common: usize, depth: usize) -> Result<String, String> {
    match res {
        DepResult::NoDependence => Ok("false".into()),
        DepResult::Failure(e) => Err(e.clone()),
        DepResult::Dependence(comps) => {
            if comps.is_empty() || depth > num_common {
                return Ok("true".into());
            }
            let mut s = String::new();
            for c in comps {
                let lb = c.lb.map_or("-inf".to_string(), |v| v.to_string());
                let ub = c.ub.map_or("+inf".to_string(), |v| v.to_string());
                s.push_str(&format!("[{lb}, {ub}]"));
            }
            Ok(s)
        }
    }
}

/// `--test-memref-dependence-check`: every ordered pair of `affine.load`/`affine.store`
/// under `root` (in walk order), at every depth 1 ..= common loops + 1.
pub fn test_memref_dependence_check(m: &Module, root: OpId, mode: Mode) -> Vec<DepRemark> {
    let accesses = collect_accesses(m, root, false);
    let loops: Vec<Vec<OpId>> = accesses.iter().map(|&a| enclosing_loops(m, a)).collect();
    let mut out = Vec::new();
    for (i, &src) in accesses.iter().enumerate() {
        for (j, &dst) in accesses.iter().enumerate() {
            let common = loops[i]
                .iter()
                .zip(&loops[j])
                .take_while(|(a, b)| a == b)
                .count();
            for d in 1..=common + 1 {
                let res = check_dependence(m, src, dst, d, mode);
                out.push(DepRemark {
                    src,
                    src_index: i,
                    dst_index: j,
                    depth: d,
                    result: format_result(&res, common, d),
                });
            }
        }
    }
    out
}
