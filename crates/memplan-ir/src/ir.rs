//! The IR model: one [`Module`] owns arenas of operations, blocks, regions and values,
//! addressed by typed `u32` ids (ARCHITECTURE.md trait 4, after cranelift's `entity` and
//! regalloc2's `index.rs`). Operations in a block form a doubly linked list (O(1) insert
//! and erase); every value keeps its list of uses, so `replace_all_uses` and erasure are
//! cheap. Erased entities stay in the arenas as tombstones; ids are never reused.
//! The shape mirrors MLIR's `Operation`/`Block`/`Region`/`Value` (mlir/include/mlir/IR).
//!
//! Storage is kept flat so that a 400,000-op module costs few heap blocks (issue 4):
//! operands, op regions, block arguments and region blocks are runs of shared pools (the
//! role of MLIR's trailing operand/region storage), results are one contiguous run per
//! op, name hints are spans of one text buffer, locations are boxed only when known, and
//! op names are [`Ident`]s borrowing the registry's static text.

use std::collections::HashMap;

use crate::attrs::{Dict, Location};
use crate::ident::Ident;
use crate::types::Type;

/// The location of ops and arguments that have none (`loc(unknown)`); locations are stored
/// out of line so that the common unknown one costs a null pointer.
static UNKNOWN_LOC: Location = Location::Unknown;

/// A compact optional arena index (`u32::MAX` = none): links cost 4 bytes, not 8.
const NIL: u32 = u32::MAX;

fn pack(x: Option<u32>) -> u32 {
    x.unwrap_or(NIL)
}

fn unpack(x: u32) -> Option<u32> {
    (x != NIL).then_some(x)
}

/// A growable list of ids stored as a run of a shared [`Pool`] (MLIR keeps an op's operands
/// and regions in trailing storage for the same reason): no heap block per op, block or
/// region. `cap` slots are reserved from `start`; a full run that is not the pool's last
/// moves to the end with doubled room, so appending stays amortised O(1).
#[derive(Clone, Copy, Debug, Default)]
struct Run {
    start: u32,
    len: u32,
    cap: u32,
}

/// Backing store for [`Run`]s of one id type. Moved-out runs leave garbage behind (ids are
/// never reused either); it is bounded by the live size, as with a doubling `Vec`.
#[derive(Clone, Debug)]
struct Pool<T> {
    items: Vec<T>,
    /// Value of unused slots.
    fill: T,
}

impl<T: Copy> Pool<T> {
    fn new(fill: T) -> Pool<T> {
        Pool {
            items: Vec::new(),
            fill,
        }
    }
    fn get(&self, r: Run) -> &[T] {
        &self.items[r.start as usize..(r.start + r.len) as usize]
    }
    fn get_mut(&mut self, r: Run) -> &mut [T] {
        &mut self.items[r.start as usize..(r.start + r.len) as usize]
    }
    /// A new run holding exactly `xs`.
    fn alloc(&mut self, xs: &[T]) -> Run {
        if xs.is_empty() {
            return Run::default();
        }
        let start = self.items.len() as u32;
        self.items.extend_from_slice(xs);
        Run {
            start,
            len: xs.len() as u32,
            cap: xs.len() as u32,
        }
    }
    /// Appends `x` to run `r`.
    fn push(&mut self, r: &mut Run, x: T) {
        if r.len == r.cap {
            let end = (r.start + r.cap) as usize;
            if r.cap > 0 && end == self.items.len() {
                // The last run of the pool grows in place.
                self.items.push(self.fill);
                r.cap += 1;
            } else {
                let start = self.items.len();
                let cap = (2 * r.cap).max(2);
                self.items
                    .extend_from_within(r.start as usize..(r.start + r.len) as usize);
                self.items.resize(start + cap as usize, self.fill);
                r.start = start as u32;
                r.cap = cap;
            }
        }
        self.items[(r.start + r.len) as usize] = x;
        r.len += 1;
    }
    fn reserve(&mut self, n: usize) {
        self.items.reserve(n);
    }
}

macro_rules! id {
    ($name:ident, $doc:literal) => {
        #[doc = $doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
        impl $name {
            /// The index into the arena.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}
id!(OpId, "An operation.");
id!(BlockId, "A block.");
id!(RegionId, "A region.");
id!(ValueId, "An SSA value (an op result or a block argument).");

/// Where a value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueDef {
    /// Result `index` of `op`.
    OpResult {
        /// The defining op.
        op: OpId,
        /// Result number.
        index: u32,
    },
    /// Argument `index` of `block`.
    BlockArg {
        /// The owning block.
        block: BlockId,
        /// Argument number.
        index: u32,
    },
    /// A parser placeholder for a forward reference (never present after a successful parse).
    Placeholder,
}

/// One use of a value: operand `index` of `op`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Use {
    /// The user.
    pub op: OpId,
    /// Operand number.
    pub index: u32,
}

/// Data of a value.
#[derive(Clone, Debug)]
pub struct ValueData {
    /// Its type.
    pub ty: Type,
    def: ValueDef,
    uses: Vec<Use>,
    /// The SSA name it had in the source (`c0` for `%c0`), a hint for the printer: a span
    /// of `Module::hint_text` (see [`Module::name_hint`]).
    hint: Hint,
    /// Location of a block argument (see [`ValueData::loc`]).
    loc: Option<Box<Location>>,
}

impl ValueData {
    /// Location of a block argument, if one was written or set.
    pub fn loc(&self) -> Option<&Location> {
        self.loc.as_deref()
    }
    /// Sets (or clears) the location of a block argument.
    pub fn set_loc(&mut self, loc: Option<Location>) {
        self.loc = loc.map(Box::new);
    }
}

/// Data of an operation.
#[derive(Clone, Debug)]
pub struct OpData {
    /// Full name (`dialect.op`); registered names borrow the registry's static text.
    pub name: Ident,
    /// Run of `Module::operand_pool`.
    operands: Run,
    /// `start, len` of the op's results in `Module::result_ids` (no per-op allocation).
    results: (u32, u32),
    /// Discardable attributes (`{...}`).
    pub attrs: Dict,
    /// Properties / inherent attributes (`<{...}>`).
    pub props: Dict,
    /// Successor blocks (their operands are part of `operands`, as in MLIR).
    pub successors: Vec<BlockId>,
    /// Run of `Module::region_pool`.
    regions: Run,
    /// Location, out of line (`None` = unknown); see [`OpData::loc`].
    loc: Option<Box<Location>>,
    /// Where the op was written in the parsed source (empty for created ops).
    pub span: crate::diag::Span,
    /// Links, [`NIL`] for none.
    parent: u32,
    prev: u32,
    next: u32,
    erased: bool,
}

impl OpData {
    /// The op's location (`unknown` when none was given).
    pub fn loc(&self) -> &Location {
        self.loc.as_deref().unwrap_or(&UNKNOWN_LOC)
    }
    /// Sets the op's location.
    pub fn set_loc(&mut self, loc: Location) {
        self.loc = box_loc(loc);
    }
}

fn box_loc(loc: Location) -> Option<Box<Location>> {
    match loc {
        Location::Unknown => None,
        l => Some(Box::new(l)),
    }
}

/// Data of a block.
#[derive(Clone, Debug, Default)]
pub struct BlockData {
    /// Run of `Module::arg_pool`.
    args: Run,
    parent: Option<RegionId>,
    first: Option<OpId>,
    last: Option<OpId>,
    /// The label it had in the source (`bb3`), a span of `Module::hint_text` (see
    /// [`Module::block_name_hint`]).
    hint: Hint,
}

/// A name hint: `len` bytes of `Module::hint_text` from `start` (`len == 0`: none; source
/// names are never empty). One shared buffer instead of a heap string per named value.
#[derive(Clone, Copy, Debug, Default)]
struct Hint {
    start: u32,
    len: u32,
}

/// Data of a region.
#[derive(Clone, Debug, Default)]
pub struct RegionData {
    /// Run of `Module::block_pool`.
    blocks: Run,
    parent: Option<OpId>,
}

/// Everything needed to create an operation (MLIR's `OperationState`).
#[derive(Clone, Debug)]
pub struct OperationState {
    /// Full op name.
    pub name: Ident,
    /// Operands (successor operands included).
    pub operands: Vec<ValueId>,
    /// Result types.
    pub result_types: Vec<Type>,
    /// Discardable attributes.
    pub attrs: Dict,
    /// Properties.
    pub props: Dict,
    /// Successors.
    pub successors: Vec<BlockId>,
    /// Detached regions to attach.
    pub regions: Vec<RegionId>,
    /// Location.
    pub loc: Location,
}

impl OperationState {
    /// A state with just a name and an unknown location.
    pub fn new(name: impl Into<Ident>) -> OperationState {
        OperationState {
            name: name.into(),
            operands: Vec::new(),
            result_types: Vec::new(),
            attrs: Dict::new(),
            props: Dict::new(),
            successors: Vec::new(),
            regions: Vec::new(),
            loc: Location::Unknown,
        }
    }
}

/// The IR container: arenas plus the top-level `builtin.module` op.
#[derive(Clone, Debug)]
pub struct Module {
    ops: Vec<OpData>,
    blocks: Vec<BlockData>,
    regions: Vec<RegionData>,
    values: Vec<ValueData>,
    /// Result ids of all ops, each op owning a contiguous run.
    result_ids: Vec<ValueId>,
    /// Text of all name hints (values and blocks).
    hint_text: String,
    /// Operands of all ops, regions of all ops, arguments of all blocks, blocks of all
    /// regions (see [`Run`]).
    operand_pool: Pool<ValueId>,
    region_pool: Pool<RegionId>,
    arg_pool: Pool<ValueId>,
    block_pool: Pool<BlockId>,
    /// The top-level op (normally `builtin.module`).
    pub top: OpId,
    /// `#alias = ...` and `!alias = ...` definitions from the source, verbatim, in order
    /// (re-printed so that opaque dialect text referring to them stays valid).
    pub alias_defs: Vec<(String, String)>,
    /// Location aliases (`#loc3 = loc(...)`) by name (with `#`).
    pub loc_aliases: HashMap<String, Location>,
    /// The `{-# ... #-}` block, verbatim, delimiters included.
    pub file_metadata: Option<String>,
}

impl Default for Module {
    fn default() -> Self {
        Module::new()
    }
}

impl Module {
    /// An empty `builtin.module` with one empty block.
    pub fn new() -> Module {
        let mut m = Module {
            ops: Vec::new(),
            blocks: Vec::new(),
            regions: Vec::new(),
            values: Vec::new(),
            result_ids: Vec::new(),
            hint_text: String::new(),
            operand_pool: Pool::new(ValueId(NIL)),
            region_pool: Pool::new(RegionId(NIL)),
            arg_pool: Pool::new(ValueId(NIL)),
            block_pool: Pool::new(BlockId(NIL)),
            top: OpId(0),
            alias_defs: Vec::new(),
            loc_aliases: HashMap::new(),
            file_metadata: None,
        };
        let r = m.create_region();
        let b = m.create_block();
        m.append_block(r, b);
        let mut st = OperationState::new("builtin.module");
        st.regions.push(r);
        m.top = m.create_op(st);
        m
    }

    /// The body block of the top-level module.
    pub fn body(&self) -> BlockId {
        self.region_blocks(self.regions(self.top)[0])[0]
    }

    // ----- accessors -----

    /// Operation data.
    pub fn op(&self, op: OpId) -> &OpData {
        &self.ops[op.index()]
    }
    /// Mutable operation data (name, attributes, properties, successors, location).
    pub fn op_mut(&mut self, op: OpId) -> &mut OpData {
        &mut self.ops[op.index()]
    }
    /// Block data.
    pub fn block(&self, b: BlockId) -> &BlockData {
        &self.blocks[b.index()]
    }
    /// Mutable block data.
    pub fn block_mut(&mut self, b: BlockId) -> &mut BlockData {
        &mut self.blocks[b.index()]
    }
    /// Region data.
    pub fn region(&self, r: RegionId) -> &RegionData {
        &self.regions[r.index()]
    }
    /// Value data.
    pub fn value(&self, v: ValueId) -> &ValueData {
        &self.values[v.index()]
    }
    /// Mutable value data (type, name hint, location).
    pub fn value_mut(&mut self, v: ValueId) -> &mut ValueData {
        &mut self.values[v.index()]
    }
    /// The type of a value.
    pub fn value_type(&self, v: ValueId) -> &Type {
        &self.values[v.index()].ty
    }
    /// The SSA name `v` had in the source (`c0` for `%c0`), a hint for the printer.
    pub fn name_hint(&self, v: ValueId) -> Option<&str> {
        self.hint_str(self.values[v.index()].hint)
    }
    /// Sets (or clears) the name hint of `v`.
    pub fn set_name_hint(&mut self, v: ValueId, hint: Option<&str>) {
        let h = self.store_hint(hint);
        self.values[v.index()].hint = h;
    }
    /// The label block `b` had in the source (`bb3`).
    pub fn block_name_hint(&self, b: BlockId) -> Option<&str> {
        self.hint_str(self.blocks[b.index()].hint)
    }
    /// Sets (or clears) the label hint of block `b`.
    pub fn set_block_name_hint(&mut self, b: BlockId, hint: Option<&str>) {
        let h = self.store_hint(hint);
        self.blocks[b.index()].hint = h;
    }
    fn hint_str(&self, h: Hint) -> Option<&str> {
        if h.len == 0 {
            return None;
        }
        self.hint_text
            .get(h.start as usize..(h.start + h.len) as usize)
    }
    fn store_hint(&mut self, hint: Option<&str>) -> Hint {
        match hint {
            Some(t) if !t.is_empty() && self.hint_text.len() + t.len() <= u32::MAX as usize => {
                let start = self.hint_text.len() as u32;
                self.hint_text.push_str(t);
                Hint {
                    start,
                    len: t.len() as u32,
                }
            }
            _ => Hint::default(),
        }
    }
    /// Where a value is defined.
    pub fn value_def(&self, v: ValueId) -> ValueDef {
        self.values[v.index()].def
    }
    /// The op defining `v`, if it is a result.
    pub fn defining_op(&self, v: ValueId) -> Option<OpId> {
        match self.values[v.index()].def {
            ValueDef::OpResult { op, .. } => Some(op),
            _ => None,
        }
    }
    /// The uses of a value.
    pub fn uses(&self, v: ValueId) -> &[Use] {
        &self.values[v.index()].uses
    }
    /// Number of values ever created (arena size).
    pub fn num_values(&self) -> usize {
        self.values.len()
    }
    /// Number of ops ever created (arena size, tombstones included).
    pub fn num_ops(&self) -> usize {
        self.ops.len()
    }
    /// Number of blocks ever created.
    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    /// Number of regions ever created.
    pub fn num_regions(&self) -> usize {
        self.regions.len()
    }
    /// Reserves arena room for about this many more ops, values and blocks/regions (a
    /// parser hint from the input size: one growth step of a large arena copies it all).
    pub fn reserve(&mut self, ops: usize, values: usize, blocks: usize) {
        self.ops.reserve(ops);
        self.values.reserve(values);
        self.result_ids.reserve(values);
        self.hint_text.reserve(values);
        self.operand_pool.reserve(ops);
        self.region_pool.reserve(blocks);
        self.arg_pool.reserve(blocks);
        self.block_pool.reserve(blocks);
        self.blocks.reserve(blocks);
        self.regions.reserve(blocks);
    }
    /// True if the op was erased.
    pub fn is_erased(&self, op: OpId) -> bool {
        self.ops[op.index()].erased
    }

    // ----- op data -----

    /// Operands of an op.
    pub fn operands(&self, op: OpId) -> &[ValueId] {
        self.operand_pool.get(self.ops[op.index()].operands)
    }
    /// Results of an op.
    pub fn results(&self, op: OpId) -> &[ValueId] {
        let (s, n) = self.ops[op.index()].results;
        &self.result_ids[s as usize..(s + n) as usize]
    }
    /// Result `i` of an op.
    pub fn result(&self, op: OpId, i: usize) -> ValueId {
        self.results(op)[i]
    }
    /// Regions of an op.
    pub fn regions(&self, op: OpId) -> &[RegionId] {
        self.region_pool.get(self.ops[op.index()].regions)
    }
    /// Block arguments.
    pub fn block_args(&self, b: BlockId) -> &[ValueId] {
        self.arg_pool.get(self.blocks[b.index()].args)
    }
    /// Blocks of a region, in order.
    pub fn region_blocks(&self, r: RegionId) -> &[BlockId] {
        self.block_pool.get(self.regions[r.index()].blocks)
    }
    /// The entry block of a region.
    pub fn entry_block(&self, r: RegionId) -> Option<BlockId> {
        self.region_blocks(r).first().copied()
    }
    /// The block containing `op`.
    pub fn op_block(&self, op: OpId) -> Option<BlockId> {
        unpack(self.ops[op.index()].parent).map(BlockId)
    }
    /// The region containing `b`.
    pub fn block_region(&self, b: BlockId) -> Option<RegionId> {
        self.blocks[b.index()].parent
    }
    /// The op owning `r`.
    pub fn region_op(&self, r: RegionId) -> Option<OpId> {
        self.regions[r.index()].parent
    }
    /// The op whose region contains `op`.
    pub fn parent_op(&self, op: OpId) -> Option<OpId> {
        let b = self.op_block(op)?;
        self.region_op(self.block_region(b)?)
    }
    /// The next op in the same block.
    pub fn next_op(&self, op: OpId) -> Option<OpId> {
        unpack(self.ops[op.index()].next).map(OpId)
    }
    /// The previous op in the same block.
    pub fn prev_op(&self, op: OpId) -> Option<OpId> {
        unpack(self.ops[op.index()].prev).map(OpId)
    }
    /// First op of a block.
    pub fn first_op(&self, b: BlockId) -> Option<OpId> {
        self.blocks[b.index()].first
    }
    /// Last op of a block (the terminator, when it has one).
    pub fn last_op(&self, b: BlockId) -> Option<OpId> {
        self.blocks[b.index()].last
    }
    /// The ops of a block in order.
    pub fn block_ops(&self, b: BlockId) -> BlockOps<'_> {
        BlockOps {
            m: self,
            cur: self.blocks[b.index()].first,
        }
    }

    // ----- creation -----

    /// Creates a detached op from a state (its results are new values).
    pub fn create_op(&mut self, st: OperationState) -> OpId {
        let id = OpId(self.ops.len() as u32);
        let start = self.result_ids.len() as u32;
        let n = st.result_types.len() as u32;
        for (i, ty) in st.result_types.into_iter().enumerate() {
            let v = self.new_value(
                ty,
                ValueDef::OpResult {
                    op: id,
                    index: i as u32,
                },
            );
            self.result_ids.push(v);
        }
        let results = (start, n);
        for r in &st.regions {
            self.regions[r.index()].parent = Some(id);
        }
        let regions = self.region_pool.alloc(&st.regions);
        let operands = self.operand_pool.alloc(&st.operands);
        for (i, &v) in st.operands.iter().enumerate() {
            let uses = &mut self.values[v.index()].uses;
            if uses.capacity() == 0 {
                // Most values have one use: do not start at Vec's default of four.
                uses.reserve_exact(1);
            }
            uses.push(Use {
                op: id,
                index: i as u32,
            });
        }
        self.ops.push(OpData {
            name: st.name,
            operands,
            results,
            attrs: st.attrs,
            props: st.props,
            successors: st.successors,
            regions,
            loc: box_loc(st.loc),
            span: crate::diag::Span::default(),
            parent: NIL,
            prev: NIL,
            next: NIL,
            erased: false,
        });
        id
    }
    fn new_value(&mut self, ty: Type, def: ValueDef) -> ValueId {
        let id = ValueId(self.values.len() as u32);
        self.values.push(ValueData {
            ty,
            def,
            uses: Vec::new(),
            hint: Hint::default(),
            loc: None,
        });
        id
    }
    /// Creates a placeholder value (used by the parser for forward references).
    pub fn create_placeholder(&mut self, ty: Type) -> ValueId {
        self.new_value(ty, ValueDef::Placeholder)
    }
    /// Creates a detached empty region.
    pub fn create_region(&mut self) -> RegionId {
        self.regions.push(RegionData::default());
        RegionId(self.regions.len() as u32 - 1)
    }
    /// Attaches a detached region to an op (as its last region).
    pub fn push_region(&mut self, op: OpId, r: RegionId) {
        self.regions[r.index()].parent = Some(op);
        let mut run = self.ops[op.index()].regions;
        self.region_pool.push(&mut run, r);
        self.ops[op.index()].regions = run;
    }
    /// Creates a detached block without arguments.
    pub fn create_block(&mut self) -> BlockId {
        self.blocks.push(BlockData::default());
        BlockId(self.blocks.len() as u32 - 1)
    }
    /// Appends an argument to a block.
    pub fn add_block_arg(&mut self, b: BlockId, ty: Type, loc: Option<Location>) -> ValueId {
        let index = self.blocks[b.index()].args.len;
        let v = self.new_value(ty, ValueDef::BlockArg { block: b, index });
        self.values[v.index()].loc = loc.map(Box::new);
        let mut run = self.blocks[b.index()].args;
        self.arg_pool.push(&mut run, v);
        self.blocks[b.index()].args = run;
        v
    }
    /// Inserts an argument into a block at position `index` (at most the argument count);
    /// later arguments move up by one.
    pub fn insert_block_arg(
        &mut self,
        b: BlockId,
        index: usize,
        ty: Type,
        loc: Option<Location>,
    ) -> ValueId {
        let mut args = self.block_args(b).to_vec();
        let index = index.min(args.len());
        let v = self.new_value(
            ty,
            ValueDef::BlockArg {
                block: b,
                index: index as u32,
            },
        );
        self.values[v.index()].loc = loc.map(Box::new);
        args.insert(index, v);
        self.set_block_args(b, &args);
        v
    }
    /// Removes argument `index` of a block; it must have no uses (checked in debug builds).
    /// Later arguments move down by one.
    pub fn erase_block_arg(&mut self, b: BlockId, index: usize) {
        let mut args = self.block_args(b).to_vec();
        let v = args.remove(index);
        debug_assert!(
            self.values[v.index()].uses.is_empty(),
            "erased block argument still has uses"
        );
        self.set_block_args(b, &args);
    }
    fn set_block_args(&mut self, b: BlockId, args: &[ValueId]) {
        let run = self.arg_pool.alloc(args);
        self.blocks[b.index()].args = run;
        for (i, &a) in args.iter().enumerate() {
            self.values[a.index()].def = ValueDef::BlockArg {
                block: b,
                index: i as u32,
            };
        }
    }
    /// Appends a detached block to a region.
    pub fn append_block(&mut self, r: RegionId, b: BlockId) {
        self.blocks[b.index()].parent = Some(r);
        let mut run = self.regions[r.index()].blocks;
        self.block_pool.push(&mut run, b);
        self.regions[r.index()].blocks = run;
    }

    // ----- operands and uses -----

    /// Appends an operand to an op.
    pub fn push_operand(&mut self, op: OpId, v: ValueId) {
        let mut run = self.ops[op.index()].operands;
        let index = run.len;
        self.operand_pool.push(&mut run, v);
        self.ops[op.index()].operands = run;
        self.values[v.index()].uses.push(Use { op, index });
    }
    /// Sets operand `i` of `op` to `v`.
    pub fn set_operand(&mut self, op: OpId, i: usize, v: ValueId) {
        let old = self.operands(op)[i];
        self.remove_use(
            old,
            Use {
                op,
                index: i as u32,
            },
        );
        let run = self.ops[op.index()].operands;
        self.operand_pool.get_mut(run)[i] = v;
        self.values[v.index()].uses.push(Use {
            op,
            index: i as u32,
        });
    }
    fn remove_use(&mut self, v: ValueId, u: Use) {
        let uses = &mut self.values[v.index()].uses;
        if let Some(p) = uses.iter().position(|x| *x == u) {
            uses.swap_remove(p);
        }
    }
    /// Replaces every use of `old` by `new`.
    pub fn replace_all_uses(&mut self, old: ValueId, new: ValueId) {
        if old == new {
            return;
        }
        let uses = std::mem::take(&mut self.values[old.index()].uses);
        for u in &uses {
            let run = self.ops[u.op.index()].operands;
            self.operand_pool.get_mut(run)[u.index as usize] = new;
        }
        self.values[new.index()].uses.extend(uses);
    }

    // ----- placement -----

    /// Appends a detached op at the end of `b`.
    pub fn append_op(&mut self, b: BlockId, op: OpId) {
        let last = self.blocks[b.index()].last;
        self.link(op, b, last, None);
    }
    /// Inserts a detached op at the start of `b`.
    pub fn prepend_op(&mut self, b: BlockId, op: OpId) {
        let first = self.blocks[b.index()].first;
        self.link(op, b, None, first);
    }
    /// Inserts a detached op before `anchor`.
    pub fn insert_before(&mut self, anchor: OpId, op: OpId) {
        let b = self.op_block(anchor).expect("anchor is in a block");
        let prev = self.prev_op(anchor);
        self.link(op, b, prev, Some(anchor));
    }
    /// Inserts a detached op after `anchor`.
    pub fn insert_after(&mut self, anchor: OpId, op: OpId) {
        let b = self.op_block(anchor).expect("anchor is in a block");
        let next = self.next_op(anchor);
        self.link(op, b, Some(anchor), next);
    }
    fn link(&mut self, op: OpId, b: BlockId, prev: Option<OpId>, next: Option<OpId>) {
        debug_assert!(
            self.ops[op.index()].parent == NIL,
            "op is already in a block"
        );
        let d = &mut self.ops[op.index()];
        d.parent = b.0;
        d.prev = pack(prev.map(|p| p.0));
        d.next = pack(next.map(|n| n.0));
        match prev {
            Some(p) => self.ops[p.index()].next = op.0,
            None => self.blocks[b.index()].first = Some(op),
        }
        match next {
            Some(n) => self.ops[n.index()].prev = op.0,
            None => self.blocks[b.index()].last = Some(op),
        }
    }
    /// Unlinks an op from its block (it stays alive, detached).
    pub fn detach_op(&mut self, op: OpId) {
        let Some(b) = self.op_block(op) else {
            return;
        };
        let (prev, next) = (self.prev_op(op), self.next_op(op));
        match prev {
            Some(p) => self.ops[p.index()].next = pack(next.map(|n| n.0)),
            None => self.blocks[b.index()].first = next,
        }
        match next {
            Some(n) => self.ops[n.index()].prev = pack(prev.map(|p| p.0)),
            None => self.blocks[b.index()].last = prev,
        }
        let d = &mut self.ops[op.index()];
        d.parent = NIL;
        d.prev = NIL;
        d.next = NIL;
    }
    /// Moves `op` (attached or not) to just before `anchor`.
    pub fn move_before(&mut self, op: OpId, anchor: OpId) {
        self.detach_op(op);
        self.insert_before(anchor, op);
    }
    /// Erases an op and everything nested in it, dropping its operand uses.
    /// Its results must have no remaining uses outside the erased ops (checked in debug builds).
    pub fn erase_op(&mut self, op: OpId) {
        self.detach_op(op);
        for o in self.walk_ops(op).into_iter().rev() {
            let operands = self.operands(o).to_vec();
            self.ops[o.index()].operands = Run::default();
            for (i, v) in operands.into_iter().enumerate() {
                self.remove_use(
                    v,
                    Use {
                        op: o,
                        index: i as u32,
                    },
                );
            }
            self.ops[o.index()].erased = true;
        }
        debug_assert!(
            self.results(op)
                .iter()
                .all(|r| self.values[r.index()].uses.is_empty()),
            "erased op still has uses"
        );
    }

    // ----- walking -----

    /// All ops nested in `root` (itself included) in pre-order, collected so the caller may edit.
    pub fn walk_ops(&self, root: OpId) -> Vec<OpId> {
        let mut out = Vec::with_capacity(if root == self.top { self.ops.len() } else { 16 });
        self.walk(root, &mut |_, o| out.push(o));
        out
    }
    /// Calls `f` on `root` and every nested op in pre-order (no recursion on the Rust stack).
    pub fn walk(&self, root: OpId, f: &mut dyn FnMut(&Module, OpId)) {
        // Each stack entry is the next op to visit in some block; an op's next
        // sibling is pushed before its blocks' first ops, so the children come
        // first. The stack holds one entry per open block, not one per op.
        let mut stack: Vec<OpId> = Vec::new();
        let push_children = |stack: &mut Vec<OpId>, op: OpId| {
            for &r in self.regions(op).iter().rev() {
                for &b in self.region_blocks(r).iter().rev() {
                    if let Some(first) = self.blocks[b.index()].first {
                        stack.push(first);
                    }
                }
            }
        };
        f(self, root);
        push_children(&mut stack, root);
        while let Some(op) = stack.pop() {
            f(self, op);
            if let Some(next) = self.next_op(op) {
                stack.push(next);
            }
            push_children(&mut stack, op);
        }
    }
}

/// Iterator over the ops of a block.
pub struct BlockOps<'a> {
    m: &'a Module,
    cur: Option<OpId>,
}

impl Iterator for BlockOps<'_> {
    type Item = OpId;
    fn next(&mut self) -> Option<OpId> {
        let c = self.cur?;
        self.cur = self.m.next_op(c);
        Some(c)
    }
}
