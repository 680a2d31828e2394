//! The op registry: for each op name, its custom-syntax parser and printer, its
//! verifier, its traits, the default dialect of its regions (inside `func.func`, bare
//! `return` means `func.return`) and the names of its inherent attributes (which a
//! custom parser may read from `attr-dict` and which live in properties `<{...}>`).
//! This is the Rust counterpart of MLIR's `RegisteredOperationName` + `OpAsmOpInterface`.
//! Ops not registered are still accepted in generic form (`--allow-unregistered-dialect`).

use crate::fxhash::FxHashMap;
use crate::ident::Ident;

use crate::ir::{Module, OpId, OperationState};
use crate::parser::{PResult, Parser};
use crate::printer::Printer;

/// Custom-form parser: called after the op name was consumed; fills `state`
/// (operands, result types, attributes, properties, regions, successors). The trailing
/// `loc(...)` and the result names are handled by the framework.
pub type ParseFn = fn(&mut Parser<'_>, &mut OperationState) -> PResult<()>;
/// Custom-form printer: called after the framework printed `%results = op.name`;
/// prints the rest (starting with a space if anything follows). Returns `false` when the
/// op does not have the shape the custom form needs (e.g. it was read in generic form
/// with unusual operands): the framework then discards the output and prints generic.
pub type PrintFn = fn(&mut Printer<'_>, OpId) -> bool;
/// Op-specific verifier: returns an error message (reported at the op's location).
pub type VerifyFn = fn(&Module, OpId) -> Result<(), String>;

/// Op traits as bit flags.
pub mod traits {
    /// The op terminates its block.
    pub const TERMINATOR: u32 = 1;
    /// Regions cannot see values defined outside (func.func, builtin.module).
    pub const ISOLATED_FROM_ABOVE: u32 = 2;
    /// Region blocks need no terminator (builtin.module).
    pub const NO_TERMINATOR: u32 = 4;
    /// Regions are graph regions (no dominance requirement).
    pub const GRAPH_REGION: u32 = 8;
    /// The op defines a symbol table (its direct children are looked up by `sym_name`).
    pub const SYMBOL_TABLE: u32 = 16;
    /// Regions must have a single block.
    pub const SINGLE_BLOCK: u32 = 32;
}

/// Everything memplan knows about one op.
#[derive(Clone, Copy, Debug)]
pub struct OpDef {
    /// Full name, e.g. `arith.addi`.
    pub name: &'static str,
    /// Custom-form parser, if the op has a custom syntax we read.
    pub parse: Option<ParseFn>,
    /// Custom-form printer (falls back to generic when `None`).
    pub print: Option<PrintFn>,
    /// Extra verification.
    pub verify: Option<VerifyFn>,
    /// [`traits`] flags.
    pub traits: u32,
    /// Default dialect for bare op names inside this op's regions (`"func"`).
    pub default_dialect: Option<&'static str>,
    /// Inherent attribute names (moved from `attr-dict` into properties after a custom parse).
    pub inherent: &'static [&'static str],
}

impl OpDef {
    /// A definition with only a name; fill the other fields with struct update syntax.
    pub const fn new(name: &'static str) -> OpDef {
        OpDef {
            name,
            parse: None,
            print: None,
            verify: None,
            traits: 0,
            default_dialect: None,
            inherent: &[],
        }
    }
    /// True if the op has trait `t`.
    pub fn has(&self, t: u32) -> bool {
        self.traits & t != 0
    }
}

/// Map from op names to definitions.
#[derive(Clone, Debug, Default)]
pub struct Registry {
    ops: FxHashMap<&'static str, OpDef>,
    /// The same definitions keyed by the address and length of their static name, for
    /// [`Registry::lookup`] (op names parsed from text borrow exactly these strings).
    by_addr: FxHashMap<(usize, usize), OpDef>,
    /// Attribute names with static text: every op's inherent names plus [`COMMON_ATTRS`].
    attr_names: FxHashMap<&'static str, ()>,
    /// Dialects whose every op is registered (from the ODS table): an unknown op name in one
    /// of them is an error, as in MLIR.
    closed_dialects: Vec<&'static str>,
}

/// Discardable or builtin attribute names common enough to be shared rather than copied.
const COMMON_ATTRS: &[&str] = &[
    "operandSegmentSizes",
    "resultSegmentSizes",
    "sym_name",
    "sym_visibility",
    "function_type",
    "arg_attrs",
    "res_attrs",
    "value",
    "callee",
    "fastmath",
    "overflowFlags",
    "alignment",
    "memory_space",
];

impl Registry {
    /// An empty registry (every op generic-only).
    pub fn empty() -> Registry {
        Registry::default()
    }
    /// A registry with all dialects memplan knows (see [`crate::dialects::register_all`]).
    pub fn with_all_dialects() -> Registry {
        let mut r = Registry::default();
        for a in COMMON_ATTRS {
            r.attr_names.insert(a, ());
        }
        crate::dialects::register_all(&mut r);
        crate::ods::register(&mut r);
        r
    }
    /// Adds (or replaces) a definition.
    pub fn register(&mut self, def: OpDef) {
        for a in def.inherent {
            self.attr_names.insert(a, ());
        }
        if let Some(old) = self.ops.insert(def.name, def) {
            self.by_addr
                .remove(&(old.name.as_ptr() as usize, old.name.len()));
        }
        self.by_addr
            .insert((def.name.as_ptr() as usize, def.name.len()), def);
    }
    /// Looks up an op name; names that borrow the registry's text are found by address
    /// (no string hashing), others by text.
    pub fn lookup(&self, name: &Ident) -> Option<&OpDef> {
        if let Some(k) = name.static_key() {
            if let Some(d) = self.by_addr.get(&k) {
                return Some(d);
            }
        }
        self.ops.get(name.as_str())
    }
    /// The attribute name `name` as an [`Ident`], borrowing static text when the registry
    /// knows the name (no allocation), owning a copy otherwise.
    pub fn attr_name(&self, name: &str) -> Ident {
        match self.attr_names.get_key_value(name) {
            Some((k, _)) => Ident::new_static(k),
            None => Ident::from(name.to_string()),
        }
    }
    /// Marks a dialect as closed: every op of it is registered.
    pub fn close_dialect(&mut self, name: &'static str) {
        if !self.closed_dialects.contains(&name) {
            self.closed_dialects.push(name);
        }
    }
    /// True if `name` is a closed dialect (see [`Registry::close_dialect`]).
    pub fn is_closed_dialect(&self, name: &str) -> bool {
        self.closed_dialects.contains(&name)
    }
    /// Looks up a full op name.
    pub fn get(&self, name: &str) -> Option<&OpDef> {
        self.ops.get(name)
    }
    /// True if `name` has trait `t` (false for unknown ops).
    pub fn has_trait(&self, name: &str, t: u32) -> bool {
        self.get(name).is_some_and(|d| d.has(t))
    }
    /// Sorted names of all registered ops.
    pub fn names(&self) -> Vec<&'static str> {
        let mut v: Vec<_> = self.ops.keys().copied().collect();
        v.sort_unstable();
        v
    }
}
