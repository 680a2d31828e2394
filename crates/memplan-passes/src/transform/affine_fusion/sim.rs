//! Legality: the abstract execution of a function next to the original's (every load reads
//! the value of the same store instance, caller-visible buffers end the same).

use super::*;

// The abstract execution

/// Where a value in memory came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Prov {
    /// The buffer's content before the function (or undefined, for a new buffer).
    Init(u32, u128),
    /// Written by this store instance (original op, packed original iteration vector).
    Inst(OpId, u128),
    /// Written by an opaque op (original op).
    Opaque(OpId),
}

/// The store instance of a write (original op, packed original iteration vector).
#[derive(Clone, Copy, Debug)]
pub(super) struct Writer {
    pub(super) op: OpId,
    pub(super) ivs: u128,
}

pub(super) const PACK_BITS: u32 = 21;

pub(super) const PACK_MAX_LEN: usize = 6;

pub(super) fn pack(vals: impl Iterator<Item = i64>) -> Option<u128> {
    let mut acc: u128 = 0;
    let half = 1i64 << (PACK_BITS - 1);
    for (i, v) in vals.enumerate() {
        if i >= PACK_MAX_LEN || v < -half || v >= half {
            return None;
        }
        acc = (acc << PACK_BITS) | (v + half) as u128;
    }
    Some(acc)
}

pub(super) fn unpack(mut p: u128, n: usize) -> Vec<i64> {
    let half = 1i64 << (PACK_BITS - 1);
    let mut out = vec![0; n];
    for k in (0..n).rev() {
        out[k] = (p & ((1u128 << PACK_BITS) - 1)) as i64 - half;
        p >>= PACK_BITS;
    }
    out
}

/// One access seen by an observer.
pub(super) struct Access<'b> {
    pub(super) op: OpId,
    pub(super) write: bool,
    pub(super) root: ValueId,
    pub(super) idx: &'b [i64],
    pub(super) stack: &'b [(OpId, i64)],
    pub(super) prev: Option<Writer>,
}

/// True if `v` evaluates to a constant in every iteration of the loops inside `nest`: an
/// induction variable of a loop in `nest` or enclosing it, a constant, or affine/integer arithmetic on those;
/// or, directly (not through arithmetic), one of the modelled symbols `syms`, whose values
/// the check enumerates (see `symbolic`).
pub(super) fn evaluable(
    m: &Module,
    v: ValueId,
    nest: OpId,
    depth: u32,
    syms: &FxHashSet<ValueId>,
) -> bool {
    if depth > 64 {
        return false;
    }
    if depth == 0 && syms.contains(&v) {
        return true;
    }
    match m.value_def(v) {
        ValueDef::BlockArg { block, index } => {
            index == 0
                && m.block_region(block)
                    .and_then(|r| m.region_op(r))
                    .is_some_and(|o| {
                        // A loop of the nest, or one enclosing it (a nest in a loop body).
                        name(m, o) == "affine.for"
                            && (ancestor_or_self(m, o, nest) || ancestor_or_self(m, nest, o))
                    })
        }
        ValueDef::OpResult { op, .. } => match name(m, op) {
            "arith.constant" | "index.constant" => true,
            "arith.addi" | "arith.subi" | "arith.muli" | "affine.apply" | "affine.min"
            | "affine.max" => m
                .operands(op)
                .iter()
                .all(|&o| evaluable(m, o, nest, depth + 1, syms)),
            _ => false,
        },
        ValueDef::Placeholder => false,
    }
}

/// Why a top-level nest cannot be executed abstractly (then it is treated as one opaque op
/// that reads and overwrites every buffer it touches), or `None`. The modelled symbols
/// `syms` may be loop bound and `affine.if` operands; only those of `subs` (symbols whose
/// every defined value the check runs, see `symbolic`) may be subscripts of written buffers.
pub(super) fn opaque_reason(
    m: &Module,
    nest: OpId,
    written: &FxHashSet<ValueId>,
    syms: &FxHashSet<ValueId>,
    subs: &FxHashSet<ValueId>,
) -> Option<String> {
    for o in m.walk_ops(nest) {
        let n = name(m, o);
        let check = |vals: &[ValueId]| vals.iter().all(|&v| evaluable(m, v, nest, 0, subs));
        let check_sym = |vals: &[ValueId]| vals.iter().all(|&v| evaluable(m, v, nest, 0, syms));
        match n {
            "affine.for" => {
                let p = for_parts(m, o)?;
                if !check_sym(&p.lb_ops) || !check_sym(&p.ub_ops) {
                    return Some("a loop bound that is not a constant".into());
                }
            }
            "affine.if" => {
                if !check_sym(m.operands(o)) {
                    return Some("an affine.if on a value that is not a constant".into());
                }
            }
            "affine.load" | "affine.store" => {
                let (mref, _, idx, _) = access_parts(m, o)?;
                if !check(&idx) && written.contains(&mref) {
                    return Some("subscripts that are not constants".into());
                }
            }
            "memref.load" | "memref.store" => {
                let ops = m.operands(o);
                if ops.len() < 2 + usize::from(n == "memref.store") - 1 {
                    return Some(format!("a malformed '{n}'"));
                }
                let (mref, idx) = if n == "memref.store" {
                    (ops[1], &ops[2..])
                } else {
                    (ops[0], &ops[1..])
                };
                if !check(idx) && written.contains(&mref) {
                    return Some("subscripts that are not constants".into());
                }
            }
            _ => {
                if !m.regions(o).is_empty() && n != "affine.if" {
                    return Some(format!("'{n}'"));
                }
                if m.operands(o).iter().any(|&v| is_memref(m, v))
                    || m.results(o).iter().any(|&v| is_memref(m, v))
                {
                    return Some(format!("'{n}' on a buffer"));
                }
            }
        }
    }
    None
}

/// What the reference run of the original function recorded.
#[derive(Default)]
pub(super) struct Reference {
    pub(super) loads: FxHashMap<(OpId, u128), Prov>,
    pub(super) stores: FxHashSet<(OpId, u128)>,
    pub(super) opaque_reads: FxHashMap<(OpId, u32, u128), Prov>,
    pub(super) finals: FxHashMap<(u32, u128), Prov>,
}

/// Upper bound on abstract events (accesses and ops) per run.
pub(super) const SIM_BUDGET: u64 = 6_000_000;

pub(super) struct Sim<'a> {
    pub(super) m: &'a Module,
    pub(super) origin: &'a FxHashMap<OpId, OpId>,
    pub(super) orig_loops: &'a FxHashMap<OpId, Vec<OpId>>,
    pub(super) env: FxHashMap<ValueId, i64>,
    pub(super) stack: Vec<(OpId, i64)>,
    pub(super) mem: FxHashMap<(u32, u128), (Prov, Writer)>,
    pub(super) shapes: FxHashMap<ValueId, Vec<i64>>,
    /// Views (`memref.subview`, `expand_shape`, `collapse_shape`, `cast`, `reinterpret_cast`
    /// with static layouts) executed so far, each with the root buffer it aliases.
    pub(super) views: FxHashMap<ValueId, ValueId>,
    pub(super) freed: FxHashSet<ValueId>,
    pub(super) written: FxHashSet<ValueId>,
    pub(super) observable: FxHashSet<ValueId>,
    pub(super) reference: Option<&'a Reference>,
    pub(super) record: Reference,
    pub(super) counts: FxHashMap<OpId, u64>,
    /// Values of the modelled symbols in this run (used by loop bounds and guards only).
    pub(super) syms: FxHashMap<ValueId, i64>,
    /// True while a loop bound or guard is evaluated (the only place symbols are read but
    /// for those of `subs`).
    pub(super) use_sym: bool,
    /// Modelled symbols read in subscripts too (every defined value of theirs is run).
    pub(super) subs: FxHashSet<ValueId>,
    /// Top-level nests executed as one opaque op.
    pub(super) opaque_nests: FxHashSet<OpId>,
    pub(super) events: u64,
    pub(super) observer: Option<&'a mut dyn FnMut(&Access<'_>)>,
    /// The module as the pass found it (for source positions) and how to print one.
    pub(super) orig: &'a Module,
    pub(super) place: &'a dyn Fn(Span) -> String,
}

impl<'a> Sim<'a> {
    pub(super) fn new(
        m: &'a Module,
        origin: &'a FxHashMap<OpId, OpId>,
        orig_loops: &'a FxHashMap<OpId, Vec<OpId>>,
        reference: Option<&'a Reference>,
        orig: &'a Module,
        place: &'a dyn Fn(Span) -> String,
    ) -> Sim<'a> {
        Sim {
            m,
            orig,
            place,
            origin,
            orig_loops,
            env: FxHashMap::default(),
            stack: Vec::new(),
            mem: FxHashMap::default(),
            shapes: FxHashMap::default(),
            views: FxHashMap::default(),
            freed: FxHashSet::default(),
            written: FxHashSet::default(),
            observable: FxHashSet::default(),
            reference,
            record: Reference::default(),
            counts: FxHashMap::default(),
            syms: FxHashMap::default(),
            use_sym: false,
            subs: FxHashSet::default(),
            opaque_nests: FxHashSet::default(),
            events: 0,
            observer: None,
        }
    }

    pub(super) fn origin(&self, op: OpId) -> OpId {
        *self.origin.get(&op).unwrap_or(&op)
    }

    /// Runs function `f`; in check mode, compares with the reference.
    pub(super) fn run(&mut self, f: OpId) -> Result<(), String> {
        let entry = body(self.m, f, 0).ok_or("function without body")?;
        // Buffers the function writes (anything else may be read with unknown subscripts).
        self.written = written_set(self.m, f);
        let syms: FxHashSet<ValueId> = self.syms.keys().copied().collect();
        for o in self.m.block_ops(entry) {
            if name(self.m, o) == "affine.for"
                && opaque_reason(self.m, o, &self.written, &syms, &self.subs).is_some()
            {
                self.opaque_nests.insert(o);
            }
        }
        for &a in self.m.block_args(entry) {
            if is_memref(self.m, a) {
                if let Some(s) = self.m.value_type(a).shape() {
                    self.shapes.insert(a, s.to_vec());
                }
                self.observable.insert(a);
            }
        }
        self.exec_block(entry)?;
        if let Some(r) = self.reference {
            let mut mine: FxHashMap<(u32, u128), Prov> = FxHashMap::default();
            for (k, (p, _)) in &self.mem {
                if self.observable.contains(&ValueId(k.0)) {
                    mine.insert(*k, *p);
                }
            }
            if mine != r.finals {
                return Err("the final contents of a caller-visible buffer would differ".into());
            }
        } else {
            for (k, (p, _)) in &self.mem {
                if self.observable.contains(&ValueId(k.0)) {
                    self.record.finals.insert(*k, *p);
                }
            }
        }
        Ok(())
    }

    pub(super) fn tick(&mut self) -> Result<(), String> {
        self.events += 1;
        if self.events > SIM_BUDGET {
            return Err("too many iterations for the exact check".into());
        }
        Ok(())
    }

    pub(super) fn eval(&self, v: ValueId, depth: u32) -> Option<i64> {
        if let Some(&x) = self.env.get(&v) {
            return Some(x);
        }
        if depth == 0 && (self.use_sym || self.subs.contains(&v)) {
            if let Some(&x) = self.syms.get(&v) {
                return Some(x);
            }
        }
        if depth > 64 {
            return None;
        }
        let op = self.m.defining_op(v)?;
        let ops = self.m.operands(op);
        match name(self.m, op) {
            "arith.constant" | "index.constant" => self
                .m
                .op(op)
                .props
                .get("value")
                .or(self.m.op(op).attrs.get("value"))?
                .as_int()
                .and_then(|x| i64::try_from(x).ok()),
            "arith.addi" => self
                .eval(ops[0], depth + 1)?
                .checked_add(self.eval(ops[1], depth + 1)?),
            "arith.subi" => self
                .eval(ops[0], depth + 1)?
                .checked_sub(self.eval(ops[1], depth + 1)?),
            "arith.muli" => self
                .eval(ops[0], depth + 1)?
                .checked_mul(self.eval(ops[1], depth + 1)?),
            "affine.apply" | "affine.min" | "affine.max" => {
                let map = map_prop(self.m, op, "map")?;
                let vals = self.eval_map(&map, ops, depth + 1)?;
                match name(self.m, op) {
                    "affine.apply" => vals.first().copied(),
                    "affine.min" => vals.into_iter().min(),
                    _ => vals.into_iter().max(),
                }
            }
            _ => None,
        }
    }

    pub(super) fn eval_map(
        &self,
        map: &AffineMap,
        ops: &[ValueId],
        depth: u32,
    ) -> Option<Vec<i64>> {
        let nd = map.num_dims as usize;
        let mut vals = Vec::with_capacity(ops.len());
        for &o in ops {
            vals.push(self.eval(o, depth)?);
        }
        if vals.len() != nd + map.num_symbols as usize {
            return None;
        }
        map.results
            .iter()
            .map(|e| eval_expr(e, &vals[..nd], &vals[nd..]))
            .collect()
    }

    /// Identity of an instance of `op`: its original op and the ivs of its original loops.
    pub(super) fn identity(&self, op: OpId) -> Result<(OpId, u128), String> {
        let o = self.origin(op);
        let loops = self.orig_loops.get(&o).ok_or("an op of unknown origin")?;
        if loops.len() > PACK_MAX_LEN {
            return Err("iteration vector out of range".into());
        }
        let mut vals = [0i64; PACK_MAX_LEN];
        for (slot, l) in vals.iter_mut().zip(loops) {
            *slot = self
                .stack
                .iter()
                .rev()
                .find(|(cur, _)| self.origin(*cur) == *l)
                .ok_or("an op outside its original loops")?
                .1;
        }
        Ok((
            o,
            pack(vals[..loops.len()].iter().copied()).ok_or("iteration vector out of range")?,
        ))
    }

    pub(super) fn root(&self, v: ValueId) -> Result<ValueId, String> {
        if let Some(&r) = self.views.get(&v) {
            return Ok(r);
        }
        root_of(self.m, v).ok_or_else(|| "a memref that is not an allocation or argument".into())
    }

    /// The root buffer and packed root subscripts of element `idx` of `v` (a root, or a view
    /// of one: its static layout maps `idx` to an element of the root's row-major storage).
    pub(super) fn locate(&self, v: ValueId, idx: &[i64]) -> Result<(ValueId, u128), String> {
        let Some(&root) = self.views.get(&v) else {
            let root = self.root(v)?;
            return Ok((root, self.location(root, idx)?));
        };
        let (shape, offset, strides) =
            static_layout(self.m, v).ok_or("a view without a static layout")?;
        if shape.len() != idx.len() {
            return Err("subscript count differs from rank".into());
        }
        let mut lin = offset;
        for ((&i, &n), &st) in idx.iter().zip(&shape).zip(&strides) {
            if i < 0 || i >= n {
                return Err("an access out of bounds".into());
            }
            lin = i
                .checked_mul(st)
                .and_then(|x| lin.checked_add(x))
                .ok_or("subscript out of range")?;
        }
        let rshape = self
            .shapes
            .get(&root)
            .ok_or("a view of a buffer of unknown shape")?;
        let mut ridx = vec![0i64; rshape.len()];
        for k in (0..rshape.len()).rev() {
            let n = rshape[k];
            if n <= 0 {
                return Err("a view of a dynamically shaped buffer".into());
            }
            ridx[k] = lin.rem_euclid(n);
            lin = lin.div_euclid(n);
        }
        if lin != 0 {
            return Err("a view access outside its buffer".into());
        }
        Ok((root, self.location(root, &ridx)?))
    }

    pub(super) fn location(&self, root: ValueId, idx: &[i64]) -> Result<u128, String> {
        if let Some(shape) = self.shapes.get(&root) {
            if shape.len() != idx.len() {
                return Err("subscript count differs from rank".into());
            }
            for (&i, &s) in idx.iter().zip(shape) {
                if i < 0 || (s >= 0 && i >= s) {
                    return Err("an access out of bounds".into());
                }
            }
        }
        pack(idx.iter().copied()).ok_or_else(|| "subscript out of range".into())
    }

    pub(super) fn access(
        &mut self,
        op: OpId,
        mref: ValueId,
        map: &AffineMap,
        operands: &[ValueId],
        write: bool,
    ) -> Result<(), String> {
        self.tick()?;
        let root = self.root(mref)?;
        if self.freed.contains(&root) {
            return Err("an access to a deallocated buffer".into());
        }
        let Some(vidx) = self.eval_map(map, operands, 0) else {
            if !write && !self.written.contains(&root) {
                // A buffer the function never writes: the same subscripts read the same data.
                return Ok(());
            }
            return Err("subscripts that do not evaluate to constants".into());
        };
        let (_, loc) = self.locate(mref, &vidx)?;
        let idx = if self.views.contains_key(&mref) {
            unpack(loc, self.shapes.get(&root).map_or(0, Vec::len))
        } else {
            vidx
        };
        let key = (root.0, loc);
        let id = self.identity(op)?;
        if let Some(obs) = self.observer.as_mut() {
            let prev = self.mem.get(&key).map(|x| x.1);
            obs(&Access {
                op,
                write,
                root,
                idx: &idx,
                stack: &self.stack,
                prev,
            });
        }
        if write {
            match self.reference {
                Some(r) => {
                    if !r.stores.contains(&id) {
                        return Err("a store instance that the original never executes".into());
                    }
                }
                None => {
                    self.record.stores.insert(id);
                }
            }
            let w = Writer {
                op: id.0,
                ivs: id.1,
            };
            self.mem.insert(key, (Prov::Inst(id.0, id.1), w));
        } else {
            let p = self
                .mem
                .get(&key)
                .map(|x| x.0)
                .unwrap_or(Prov::Init(root.0, loc));
            match self.reference {
                Some(r) => match r.loads.get(&id) {
                    None => return Err("a load instance that the original never executes".into()),
                    Some(q) if *q != p => {
                        return Err(format!(
                            "the load at {} would read a value other than the original's",
                            (self.place)(self.orig.op(self.origin(op)).span)
                        ))
                    }
                    _ => {}
                },
                None => {
                    self.record.loads.insert(id, p);
                }
            }
        }
        Ok(())
    }

    /// Reads then clobbers every element of a buffer (an op the pass does not model).
    pub(super) fn opaque(&mut self, op: OpId, v: ValueId, writes: bool) -> Result<(), String> {
        let root = self.root(v)?;
        if !writes && !self.written.contains(&root) && !self.written.contains(&v) {
            // Nothing in the function writes it: every candidate sees its initial contents.
            return Ok(());
        }
        let shape = if self.views.contains_key(&v) {
            static_layout(self.m, v).map(|l| l.0)
        } else {
            self.shapes.get(&root).cloned()
        }
        .filter(|s| s.iter().all(|&d| d >= 0))
        .ok_or("an unmodelled op on a dynamically shaped buffer")?;
        let total: i64 = shape.iter().product();
        if total > 1 << 22 {
            return Err("an unmodelled op on a large buffer".into());
        }
        let o = self.origin(op);
        let mut idx = vec![0i64; shape.len()];
        for _ in 0..total {
            self.tick()?;
            let (_, loc) = self.locate(v, &idx)?;
            let key = (root.0, loc);
            let p = self
                .mem
                .get(&key)
                .map(|x| x.0)
                .unwrap_or(Prov::Init(root.0, loc));
            match self.reference {
                Some(r) => {
                    if r.opaque_reads.get(&(o, root.0, loc)) != Some(&p) {
                        return Err(format!(
                            "'{}' would see different buffer contents",
                            name(self.m, op)
                        ));
                    }
                }
                None => {
                    self.record.opaque_reads.insert((o, root.0, loc), p);
                }
            }
            if writes {
                let w = Writer { op: o, ivs: 0 };
                self.mem.insert(key, (Prov::Opaque(o), w));
            }
            for k in (0..shape.len()).rev() {
                idx[k] += 1;
                if idx[k] < shape[k] {
                    break;
                }
                idx[k] = 0;
            }
        }
        Ok(())
    }

    pub(super) fn exec_block(&mut self, b: BlockId) -> Result<(), String> {
        let m = self.m;
        for op in m.block_ops(b) {
            self.exec_op(op)?;
        }
        Ok(())
    }

    pub(super) fn exec_op(&mut self, op: OpId) -> Result<(), String> {
        let m = self.m;
        let n = name(m, op);
        // Op instances as upstream's cost model counts them: loop bodies' ops but for the
        // loops, ifs (and what they hold) and terminators.
        if !matches!(n, "affine.for" | "affine.if" | "affine.yield")
            && m.parent_op(op).is_none_or(|p| name(m, p) != "affine.if")
        {
            *self.counts.entry(op).or_default() += 1;
        }
        match n {
            "affine.for" if self.stack.is_empty() && self.opaque_nests.contains(&op) => {
                // Read everything it touches (written buffers too: a partial write keeps the
                // rest), then overwrite everything it writes.
                let roots = roots_used(m, op);
                let written: Vec<ValueId> = m
                    .walk_ops(op)
                    .into_iter()
                    .filter_map(|o| match access_parts(m, o) {
                        Some((mref, _, _, true)) => Some(mref),
                        _ => match name(m, o) {
                            "affine.load" | "memref.load" => None,
                            _ => m.operands(o).iter().copied().find(|&v| is_memref(m, v)),
                        },
                    })
                    .map(|v| root_of(m, v).unwrap_or(v))
                    .collect();
                for r in roots {
                    let w = written.contains(&r);
                    self.opaque(op, r, w)?;
                }
            }
            "affine.for" => {
                // Borrowed parts (this runs once per loop instance).
                let malformed = "malformed affine.for";
                let (Some(lbm), Some(ubm)) = (
                    map_ref(m, op, "lowerBoundMap"),
                    map_ref(m, op, "upperBoundMap"),
                ) else {
                    return Err(malformed.into());
                };
                let step = m
                    .op(op)
                    .props
                    .get("step")
                    .and_then(|a| a.as_int())
                    .ok_or(malformed)? as i64;
                let ops = m.operands(op);
                let nl = (lbm.num_dims + lbm.num_symbols) as usize;
                let nu = (ubm.num_dims + ubm.num_symbols) as usize;
                if ops.len() < nl + nu {
                    return Err(malformed.into());
                }
                self.use_sym = true;
                let lb = self
                    .eval_map(lbm, &ops[..nl], 0)
                    .and_then(|v| v.into_iter().max());
                let ub = self
                    .eval_map(ubm, &ops[nl..nl + nu], 0)
                    .and_then(|v| v.into_iter().min());
                self.use_sym = false;
                let lb = lb.ok_or("a loop bound that does not evaluate to a constant")?;
                let ub = ub.ok_or("a loop bound that does not evaluate to a constant")?;
                if step <= 0 {
                    return Err("a non-positive step".into());
                }
                let b = body(m, op, 0).ok_or("loop without body")?;
                let iv = m.block_args(b)[0];
                let mut i = lb;
                while i < ub {
                    self.tick()?;
                    self.env.insert(iv, i);
                    self.stack.push((op, i));
                    self.exec_block(b)?;
                    self.stack.pop();
                    i = i.checked_add(step).ok_or("loop overflow")?;
                }
                self.env.remove(&iv);
            }
            "affine.if" => {
                let set = set_prop(m, op, "condition").ok_or("malformed affine.if")?;
                let ops = m.operands(op);
                let mut vals = Vec::new();
                self.use_sym = true;
                let got: Option<Vec<i64>> = ops.iter().map(|&v| self.eval(v, 0)).collect();
                self.use_sym = false;
                for x in got.ok_or("an affine.if operand that does not evaluate")? {
                    vals.push(x);
                }
                let nd = set.num_dims as usize;
                if vals.len() != nd + set.num_symbols as usize {
                    return Err("malformed affine.if".into());
                }
                let mut holds = true;
                for (e, eq) in &set.constraints {
                    let v = eval_expr(e, &vals[..nd], &vals[nd..])
                        .ok_or("an affine.if condition that does not evaluate")?;
                    if (*eq && v != 0) || (!*eq && v < 0) {
                        holds = false;
                    }
                }
                let region = if holds { 0 } else { 1 };
                if let Some(b) = body(m, op, region) {
                    self.exec_block(b)?;
                }
            }
            "affine.load" | "affine.store" => {
                let ops = m.operands(op);
                let write = n == "affine.store";
                let first = usize::from(write);
                let (Some(&mref), Some(idx), Some(map)) =
                    (ops.get(first), ops.get(first + 1..), map_ref(m, op, "map"))
                else {
                    return Err("malformed access".into());
                };
                self.access(op, mref, map, idx, write)?;
            }
            "memref.load" | "memref.store" => {
                let ops = m.operands(op);
                let write = n == "memref.store";
                if ops.len() < 1 + usize::from(write) {
                    return Err(format!("malformed '{n}'"));
                }
                let mref = if write { ops[1] } else { ops[0] };
                let idx = if write { &ops[2..] } else { &ops[1..] };
                let map = AffineMap {
                    num_dims: idx.len() as u32,
                    num_symbols: 0,
                    results: (0..idx.len() as u32).map(AffineExpr::Dim).collect(),
                };
                self.access(op, mref, &map, idx, write)?;
            }
            "memref.alloc" | "memref.alloca" => {
                if !self.stack.is_empty() {
                    return Err("an allocation inside a loop".into());
                }
                let r = m.result(op, 0);
                let shape = m
                    .value_type(r)
                    .shape()
                    .ok_or("unranked allocation")?
                    .to_vec();
                self.shapes.insert(r, shape);
                // A new buffer: forget anything an earlier run of this op left.
                self.mem.retain(|k, _| k.0 != r.0);
                self.freed.remove(&r);
            }
            "memref.dealloc" => {
                if !self.stack.is_empty() {
                    return Err("a deallocation inside a loop".into());
                }
                let v = *m.operands(op).first().ok_or("malformed memref.dealloc")?;
                let r = self.root(v)?;
                self.freed.insert(r);
            }
            "func.return" => {
                for &v in m.operands(op) {
                    if is_memref(m, v) {
                        let r = self.root(v)?;
                        self.observable.insert(r);
                    }
                }
            }
            _ => {
                if !m.regions(op).is_empty() {
                    return Err(format!(
                        "'{n}' (an op with regions the pass does not model)"
                    ));
                }
                if m.results(op).iter().any(|&r| is_memref(m, r)) {
                    let src = m.operands(op).first().copied();
                    let view = m.results(op).len() == 1
                        && VIEW_OPS.contains(&n)
                        && static_layout(m, m.result(op, 0)).is_some();
                    match src {
                        Some(src) if view => {
                            let root = self.root(src)?;
                            let plain = m.value_type(root).kind();
                            if !matches!(plain, TypeKind::MemRef { layout: None, .. }) {
                                return Err(format!(
                                    "'{n}' of a buffer without the identity layout"
                                ));
                            }
                            self.views.insert(m.result(op, 0), root);
                            return Ok(());
                        }
                        _ => return Err(format!("'{n}' (a view or cast of a buffer)")),
                    }
                }
                if matches!(
                    n,
                    "memref.dim" | "memref.rank" | "memref.extract_aligned_pointer_as_index"
                ) {
                    // Reads the descriptor only, not the contents.
                    return Ok(());
                }
                if n == "memref.copy" && m.operands(op).len() == 2 {
                    if !self.stack.is_empty() {
                        return Err(format!("'{n}' on a buffer inside a loop"));
                    }
                    let (src, dst) = (m.operands(op)[0], m.operands(op)[1]);
                    self.opaque(op, src, false)?;
                    self.opaque(op, dst, true)?;
                    return Ok(());
                }
                let mrefs: Vec<ValueId> = m
                    .operands(op)
                    .iter()
                    .copied()
                    .filter(|&v| is_memref(m, v))
                    .collect();
                if !mrefs.is_empty() {
                    if !self.stack.is_empty() {
                        return Err(format!("'{n}' on a buffer inside a loop"));
                    }
                    for v in mrefs {
                        self.opaque(op, v, true)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// View ops whose result aliases the source's allocation with a layout its type states
/// (offset and strides relative to the allocation's first element).
const VIEW_OPS: &[&str] = &[
    "memref.subview",
    "memref.expand_shape",
    "memref.collapse_shape",
    "memref.cast",
    "memref.reinterpret_cast",
];

/// Static shape, offset and strides (in elements) of a memref value whose type says all of
/// them: the identity layout (row-major, offset 0) or `strided<[...], offset: N>` with no `?`.
pub(super) fn static_layout(m: &Module, v: ValueId) -> Option<(Vec<i64>, i64, Vec<i64>)> {
    let TypeKind::MemRef { shape, layout, .. } = m.value_type(v).kind() else {
        return None;
    };
    if shape.iter().any(|&d| d < 0) {
        return None;
    }
    match layout {
        None => {
            let mut strides = vec![1i64; shape.len()];
            for k in (0..shape.len().saturating_sub(1)).rev() {
                strides[k] = strides[k + 1].checked_mul(shape[k + 1])?;
            }
            Some((shape.clone(), 0, strides))
        }
        Some(Attribute::Strided { strides, offset }) => {
            if *offset == memplan_ir::DYNAMIC
                || strides.contains(&memplan_ir::DYNAMIC)
                || strides.len() != shape.len()
            {
                return None;
            }
            Some((shape.clone(), *offset, strides.clone()))
        }
        _ => None,
    }
}
