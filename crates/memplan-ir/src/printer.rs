//! The MLIR text printer. Names are assigned up front for a whole top-level op (so that
//! forward references in graph regions and out-of-order blocks print correctly), in
//! print order: source name hints are kept when they are valid and unique (`%c0`,
//! `%arg0`), otherwise results get `%N` and entry-block arguments `%argN`, restarting
//! inside ops that are isolated from above (as MLIR's `SSANameState` does).
//! Ops with a registered custom printer print in custom form unless the generic form is
//! requested (`--mlir-print-op-generic`).

use std::borrow::Cow;
use std::fmt::Write;

use crate::fxhash::{FxHashMap, FxHashSet};

use crate::affine::{AffineExpr, AffineMap};
use crate::attrs::{push_int, write_key, write_symbol, Attribute, Dict, Location};
use crate::ir::{BlockId, Module, OpId, RegionId, ValueDef, ValueId};
use crate::lexer::is_suffix_id;
use crate::registry::{traits, Registry};
use crate::types::{write_result_types, Type, DYNAMIC};

/// `K` when `name` is exactly `argK` as the printer generates it (no leading zeros).
fn arg_number(name: &str) -> Option<u32> {
    let d = name.strip_prefix("arg")?;
    let ok =
        !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) && (d == "0" || !d.starts_with('0'));
    if ok {
        d.parse().ok()
    } else {
        None
    }
}

/// Printer options.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrintOptions {
    /// Print every op in generic form.
    pub generic: bool,
    /// Print `loc(...)` on ops and block arguments.
    pub debug_info: bool,
}

/// Names taken in one isolated-from-above scope. Numeric names (`%12`) never collide with
/// source hints (those never start with a digit), so only hints are recorded in `used`.
/// Generated `argK` names are not recorded either: every `argK` with `K < next_arg` is
/// taken (it was either generated or skipped because a hint held it), which saves a
/// string and a hash-set entry per block argument.
#[derive(Default)]
struct NameScope<'a> {
    used: FxHashSet<Cow<'a, str>>,
    next_value: u32,
    next_arg: u32,
    /// Whether some recorded hint has the exact form `argK` (only then can a generated
    /// `argK` collide with `used`).
    arg_hint: bool,
    /// MLIR's `nextConflictID`: one counter for all `%name_N` disambiguations in the
    /// scope, so repeated hints cost O(1) each (not a scan from `_1` every time).
    next_conflict: u32,
}

/// The base of a value's printed name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Base<'a> {
    /// Not named (not reached by the naming walk).
    Unnamed,
    /// `%N`.
    Num(u32),
    /// The source name hint itself (`%c0`), borrowed from the module.
    Hint(&'a str),
    /// A generated `%argN`.
    Arg(u32),
    /// An entry of `Printer::strs` (`%x_1`).
    Str(u32),
}

/// A value's printed name: the base and, for results of multi-result ops, `#index`.
#[derive(Clone, Copy, Debug)]
struct Name<'a> {
    base: Base<'a>,
    index: u32,
}

const NO_INDEX: u32 = u32::MAX;

/// Most distinct types whose printed text the printer remembers.
const TYPE_CACHE_MAX: usize = 1 << 14;

/// The printer; custom op printers receive `&mut Printer` and use its `print_*` methods.
pub struct Printer<'a> {
    m: &'a Module,
    reg: &'a Registry,
    opts: PrintOptions,
    out: String,
    indent: usize,
    /// Name of each value.
    names: Vec<Name<'a>>,
    /// Textual name bases (hints, `argN`).
    strs: Vec<Box<str>>,
    /// Printed types, by the address of the shared type data; each entry holds a handle
    /// to its type, so the address cannot be reused while the printer lives.
    type_text: FxHashMap<usize, (Type, Box<str>)>,
    block_names: Vec<Option<u32>>,
    scopes: Vec<NameScope<'a>>,
    /// Default dialects of the custom-printed ops whose regions are being printed.
    dialects: Vec<&'static str>,
    /// Streaming: where finished text goes ([`print_module_to`]), and how much to buffer.
    sink: Option<&'a mut dyn std::io::Write>,
    chunk: usize,
    /// Bytes already handed to the sink (positions below are absolute: `flushed + out.len()`).
    flushed: usize,
    /// Active custom printers: where their text starts (what a `false` return discards)
    /// and whether they started printing a region (after which they may not fail, so
    /// text before them may be streamed out).
    frames: Vec<(usize, bool)>,
    /// The first write error, or a custom printer that failed after its text was streamed.
    error: Option<std::io::Error>,
}

/// Prints a whole module: alias definitions, the top-level op, the resource block.
pub fn print_module(m: &Module, reg: &Registry, opts: PrintOptions) -> String {
    let mut p = Printer::new(m, reg, opts);
    print_whole(&mut p, m);
    p.out
}

/// The module's text into `p`: alias definitions, the top-level op, the resource block.
fn print_whole(p: &mut Printer<'_>, m: &Module) {
    for (name, text) in &m.alias_defs {
        let _ = writeln!(p.out, "{name} = {text}");
    }
    p.print_top_op(m.top);
    p.out.push('\n');
    if let Some(meta) = &m.file_metadata {
        p.out.push('\n');
        p.out.push_str(meta);
        p.out.push('\n');
    }
}

/// Prints a whole module into `w` as [`print_module`] would, streaming the text out in
/// pieces of about a megabyte instead of building it all in memory first.
pub fn print_module_to(
    m: &Module,
    reg: &Registry,
    opts: PrintOptions,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    print_module_chunked(m, reg, opts, w, 1 << 20)
}

/// [`print_module_to`] with the buffer size given: text is written out whenever at least
/// `chunk` bytes are pending at a point between two ops (0: at every such point; used to
/// test that streaming never changes the text).
pub fn print_module_chunked(
    m: &Module,
    reg: &Registry,
    opts: PrintOptions,
    w: &mut dyn std::io::Write,
    chunk: usize,
) -> std::io::Result<()> {
    let mut p = Printer::new(m, reg, opts);
    p.out = String::with_capacity(chunk.clamp(1 << 12, 1 << 24) + (1 << 12));
    p.sink = Some(w);
    p.chunk = chunk;
    print_whole(&mut p, m);
    if let Some(e) = p.error.take() {
        return Err(e);
    }
    let rest = std::mem::take(&mut p.out);
    match p.sink.take() {
        Some(w) => w.write_all(rest.as_bytes()),
        None => Ok(()),
    }
}

/// Prints one op (and what it contains) on its own, e.g. for remarks and tests.
pub fn print_op(m: &Module, reg: &Registry, op: OpId, opts: PrintOptions) -> String {
    let mut p = Printer::new(m, reg, opts);
    p.print_top_op(op);
    p.out
}

impl<'a> Printer<'a> {
    fn new(m: &'a Module, reg: &'a Registry, opts: PrintOptions) -> Printer<'a> {
        Printer {
            m,
            reg,
            opts,
            out: String::with_capacity(64 * m.num_ops().min(1 << 24)),
            indent: 0,
            names: vec![
                Name {
                    base: Base::Unnamed,
                    index: NO_INDEX,
                };
                m.num_values()
            ],
            strs: Vec::new(),
            type_text: FxHashMap::default(),
            block_names: vec![None; m.num_blocks()],
            scopes: vec![NameScope::default()],
            dialects: Vec::new(),
            sink: None,
            chunk: 0,
            flushed: 0,
            frames: Vec::new(),
            error: None,
        }
    }

    fn print_top_op(&mut self, op: OpId) {
        self.name_op(op);
        self.print_operation(op);
    }

    // ===== naming =====

    fn scope(&mut self) -> &mut NameScope<'a> {
        self.scopes.last_mut().expect("a name scope")
    }

    fn intern_name(&mut self, n: String) -> Base<'a> {
        self.strs.push(n.as_str().into());
        self.scope().used.insert(Cow::Owned(n));
        Base::Str(self.strs.len() as u32 - 1)
    }

    fn fresh(&mut self, hint: Option<&'a str>, arg: bool) -> Base<'a> {
        if let Some(h) = hint {
            if is_suffix_id(h) && !h.as_bytes()[0].is_ascii_digit() {
                let s = self.scope();
                let k = arg_number(h);
                let generated = k.is_some_and(|k| k < s.next_arg);
                if !generated && s.used.insert(Cow::Borrowed(h)) {
                    s.arg_hint |= k.is_some();
                    return Base::Hint(h);
                }
                loop {
                    let s = self.scope();
                    let c = format!("{h}_{}", s.next_conflict);
                    s.next_conflict += 1;
                    if !s.used.contains(c.as_str()) {
                        return self.intern_name(c);
                    }
                }
            }
        }
        if !arg {
            let s = self.scope();
            s.next_value += 1;
            return Base::Num(s.next_value - 1);
        }
        let s = self.scope();
        let mut buf = String::new();
        loop {
            let k = s.next_arg;
            s.next_arg += 1;
            if !s.arg_hint {
                return Base::Arg(k);
            }
            buf.clear();
            let _ = write!(buf, "arg{k}");
            if !s.used.contains(buf.as_str()) {
                return Base::Arg(k);
            }
        }
    }

    fn name_op(&mut self, op: OpId) {
        let m = self.m;
        let results = m.results(op);
        if !results.is_empty() {
            let base = self.fresh(m.name_hint(results[0]), false);
            if results.len() == 1 {
                self.names[results[0].index()] = Name {
                    base,
                    index: NO_INDEX,
                };
            } else {
                for (i, r) in results.iter().enumerate() {
                    self.names[r.index()] = Name {
                        base,
                        index: i as u32,
                    };
                }
            }
        }
        if m.regions(op).is_empty() {
            return;
        }
        let isolated = self
            .reg
            .lookup(&m.op(op).name)
            .is_some_and(|d| d.has(traits::ISOLATED_FROM_ABOVE));
        if isolated {
            self.scopes.push(NameScope::default());
        }
        for &r in m.regions(op) {
            for (bi, &b) in m.region_blocks(r).iter().enumerate() {
                self.block_names[b.index()] = Some(bi as u32);
                for &a in m.block_args(b) {
                    let base = self.fresh(m.name_hint(a), bi == 0);
                    self.names[a.index()] = Name {
                        base,
                        index: NO_INDEX,
                    };
                }
            }
            for &b in m.region_blocks(r) {
                for o in m.block_ops(b) {
                    self.name_op(o);
                }
            }
        }
        if isolated {
            self.scopes.pop();
        }
    }

    // ===== low-level output =====

    /// Streams out the text that no active custom printer can still take back (called
    /// between ops, when at least `chunk` bytes are pending).
    fn maybe_flush(&mut self) {
        if self.out.len() < self.chunk.max(1) || self.error.is_some() {
            return;
        }
        let Some(w) = self.sink.as_mut() else {
            return;
        };
        // Frames start in increasing order; the first one still allowed to fail bounds
        // what may go out.
        let limit = self
            .frames
            .iter()
            .find(|f| !f.1)
            .map_or(self.flushed + self.out.len(), |f| f.0);
        let n = limit.saturating_sub(self.flushed).min(self.out.len());
        if n == 0 {
            return;
        }
        if let Err(e) = w.write_all(&self.out.as_bytes()[..n]) {
            self.error = Some(e);
            return;
        }
        self.out.drain(..n);
        self.flushed += n;
    }

    /// Appends raw text.
    pub fn write(&mut self, s: &str) {
        self.out.push_str(s);
    }
    /// The output buffer (for `write!`).
    pub fn out(&mut self) -> &mut String {
        &mut self.out
    }
    /// The module being printed.
    pub fn module(&self) -> &'a Module {
        self.m
    }
    /// The options in use.
    pub fn options(&self) -> PrintOptions {
        self.opts
    }
    /// Newline followed by the current indentation.
    pub fn print_newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push(' ');
        }
    }
    /// ` kw` (a space, then the keyword).
    pub fn print_keyword(&mut self, kw: &str) {
        self.out.push(' ');
        self.out.push_str(kw);
    }

    // ===== values, types, attributes =====

    /// The printed name of a value, `%x`, `%3#1`.
    pub fn value_name(&self, v: ValueId) -> String {
        let mut s = String::new();
        self.write_value_name(&mut s, v);
        s
    }
    fn write_base(&self, out: &mut String, b: Base<'_>) {
        match b {
            Base::Num(n) => {
                push_int(out, i64::from(n));
            }
            Base::Hint(h) => out.push_str(h),
            Base::Arg(k) => {
                out.push_str("arg");
                push_int(out, i64::from(k));
            }
            Base::Str(i) => out.push_str(&self.strs[i as usize]),
            Base::Unnamed => out.push_str("<<UNNAMED>>"),
        }
    }
    fn write_value_name(&self, out: &mut String, v: ValueId) {
        out.push('%');
        match self.names.get(v.index()) {
            Some(n) => {
                self.write_base(out, n.base);
                if n.index != NO_INDEX {
                    out.push('#');
                    push_int(out, i64::from(n.index));
                }
            }
            None => {
                let _ = write!(out, "<<UNNAMED:{}>>", v.0);
            }
        }
    }
    /// Prints `%name`.
    pub fn print_operand(&mut self, v: ValueId) {
        let mut out = std::mem::take(&mut self.out);
        self.write_value_name(&mut out, v);
        self.out = out;
    }
    /// Prints the type of value `v` (cached per shared type).
    pub fn print_value_type(&mut self, v: ValueId) {
        self.print_type(self.m.value_type(v));
    }
    /// Prints `%a, %b`.
    pub fn print_operands(&mut self, vs: &[ValueId]) {
        for (i, &v) in vs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.print_operand(v);
        }
    }
    /// Prints a type.
    pub fn print_type(&mut self, t: &Type) {
        let key = t.as_ptr() as usize;
        if let Some((_, s)) = self.type_text.get(&key) {
            self.out.push_str(s);
            return;
        }
        let s = t.to_string();
        self.out.push_str(&s);
        if self.type_text.len() < TYPE_CACHE_MAX {
            self.type_text.insert(key, (t.clone(), s.into()));
        }
    }
    /// Prints `t1, t2`.
    pub fn print_types(&mut self, ts: &[Type]) {
        for (i, t) in ts.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.print_type(t);
        }
    }
    /// Prints the types of values, comma separated.
    pub fn print_value_types(&mut self, vs: &[ValueId]) {
        for (i, &v) in vs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.print_value_type(v);
        }
    }
    /// Prints function results: a single type bare, otherwise `(t1, t2)`.
    pub fn print_function_result_types(&mut self, ts: &[Type]) {
        let _ = write_result_types(&mut self.out, ts);
    }
    /// Prints `(ins) -> results`.
    pub fn print_function_type(&mut self, ins: &[Type], outs: &[Type]) {
        self.out.push('(');
        self.print_types(ins);
        self.out.push_str(") -> ");
        self.print_function_result_types(outs);
    }
    /// Prints an attribute (with its type suffix, as in a dictionary).
    pub fn print_attr(&mut self, a: &Attribute) {
        a.write_to(&mut self.out);
    }
    /// Prints an attribute without its `: type` suffix.
    pub fn print_attr_untyped(&mut self, a: &Attribute) {
        a.write_untyped(&mut self.out);
    }
    /// Prints `@name`.
    pub fn print_symbol_name(&mut self, name: &str) {
        write_symbol(&mut self.out, name);
    }
    /// Prints ` {a = 1, b}` if any entry remains after leaving out `elided`.
    pub fn print_optional_attr_dict(&mut self, d: &Dict, elided: &[&str]) {
        let mut first = true;
        for n in d.iter() {
            if elided.contains(&n.name.as_str()) {
                continue;
            }
            self.out.push_str(if first { " {" } else { ", " });
            first = false;
            write_key(&mut self.out, &n.name);
            if n.value != Attribute::Unit {
                self.out.push_str(" = ");
                n.value.write_to(&mut self.out);
            }
        }
        if !first {
            self.out.push('}');
        }
    }
    /// Prints ` attributes {a = 1}` if any entry remains after leaving out `elided`.
    pub fn print_optional_attr_dict_with_keyword(&mut self, d: &Dict, elided: &[&str]) {
        if d.iter().any(|n| !elided.contains(&n.name.as_str())) {
            self.out.push_str(" attributes");
            self.print_optional_attr_dict(d, elided);
        }
    }
    /// Prints ` loc(...)` when debug info is on.
    pub fn print_optional_location(&mut self, l: &Location) {
        if self.opts.debug_info {
            let _ = write!(self.out, " loc({l})");
        }
    }
    /// Prints a block argument declaration `%arg0: i32` (plus `loc(...)` with debug info).
    pub fn print_arg_decl(&mut self, v: ValueId) {
        self.print_operand(v);
        self.out.push_str(": ");
        self.print_type(self.m.value_type(v));
        if let Some(l) = self.m.value(v).loc() {
            self.print_optional_location(l);
        }
    }
    /// Prints `^bbN`.
    pub fn print_successor(&mut self, b: BlockId) {
        let n = self
            .block_names
            .get(b.index())
            .copied()
            .flatten()
            .unwrap_or(u32::MAX);
        self.out.push_str("^bb");
        push_int(&mut self.out, i64::from(n));
    }
    /// Prints `^bbN(%a, %b : t1, t2)` (no parentheses without operands).
    pub fn print_successor_and_use_list(&mut self, b: BlockId, vs: &[ValueId]) {
        self.print_successor(b);
        if !vs.is_empty() {
            self.out.push('(');
            self.print_operands(vs);
            self.out.push_str(" : ");
            self.print_value_types(vs);
            self.out.push(')');
        }
    }
    /// MLIR's dynamic index list: `[%a, 4, %b]`, taking operands in order for [`DYNAMIC`] entries.
    pub fn print_dynamic_index_list(
        &mut self,
        dyn_ops: &[ValueId],
        statics: &[i64],
        open: char,
        close: char,
    ) {
        self.out.push(open);
        let mut k = 0;
        for (i, &s) in statics.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            if s == DYNAMIC {
                match dyn_ops.get(k) {
                    Some(&v) => self.print_operand(v),
                    None => self.out.push_str("<<missing operand>>"),
                }
                k += 1;
            } else {
                push_int(&mut self.out, s);
            }
        }
        self.out.push(close);
    }
    /// Prints the results of `map` with dims/symbols replaced by SSA operands (`%i + 1`,
    /// `symbol(%n)`); `operands` holds the dims then the symbols. No delimiters.
    pub fn print_affine_map_of_ssa_ids(&mut self, map: &AffineMap, operands: &[ValueId]) {
        for (i, e) in map.results.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.print_affine_expr_of_ssa_ids(e, map.num_dims, operands);
        }
    }
    /// Prints one affine expression with dims/symbols replaced by SSA operands.
    pub fn print_affine_expr_of_ssa_ids(
        &mut self,
        e: &AffineExpr,
        num_dims: u32,
        operands: &[ValueId],
    ) {
        let text = e.to_string();
        // Re-render with SSA names by walking the textual form token by token.
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            if (c == b'd' || c == b's')
                && bytes.get(i + 1).is_some_and(|b| b.is_ascii_digit())
                && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
            {
                let mut j = i + 1;
                while j < bytes.len() && bytes[j].is_ascii_digit() {
                    j += 1;
                }
                let n: usize = text[i + 1..j].parse().unwrap_or(0);
                let idx = if c == b'd' { n } else { num_dims as usize + n };
                let name = operands
                    .get(idx)
                    .map(|&v| self.value_name(v))
                    .unwrap_or_else(|| "<<?>>".into());
                if c == b's' {
                    let _ = write!(self.out, "symbol({name})");
                } else {
                    self.out.push_str(&name);
                }
                i = j;
            } else {
                self.out.push(c as char);
                i += 1;
            }
        }
    }

    // ===== ops, regions, blocks =====

    /// Prints a region `{ ... }`; `print_entry_args`: print the entry block's label and
    /// arguments; `print_terminators`: print the last op of blocks that end in a terminator.
    ///
    /// A custom printer that prints a region has committed to its custom form: it must not
    /// return `false` afterwards (text before the region may already be streamed out).
    pub fn print_region(&mut self, r: RegionId, print_entry_args: bool, print_terminators: bool) {
        self.print_region_with(r, print_entry_args, print_terminators, false);
    }

    /// [`Printer::print_region`] with MLIR's `printEmptyBlock`: when `print_empty_block` is
    /// set, an entry block with no ops keeps its label (`^bb0:`), as in the generic form;
    /// custom forms leave it out (`module {\n}`), as MLIR's `printRegion` does by default.
    pub fn print_region_with(
        &mut self,
        r: RegionId,
        print_entry_args: bool,
        print_terminators: bool,
        print_empty_block: bool,
    ) {
        let m = self.m;
        if let Some(f) = self.frames.last_mut() {
            f.1 = true;
        }
        self.out.push('{');
        let blocks = m.region_blocks(r);
        for (i, &b) in blocks.iter().enumerate() {
            let has_args = !m.block_args(b).is_empty();
            let empty = m.first_op(b).is_none();
            let label = i > 0 || (print_entry_args && has_args) || (print_empty_block && empty);
            self.out.push('\n');
            if label {
                for _ in 0..self.indent {
                    self.out.push(' ');
                }
                self.print_successor(b);
                if has_args {
                    self.out.push('(');
                    for (k, &a) in m.block_args(b).iter().enumerate() {
                        if k > 0 {
                            self.out.push_str(", ");
                        }
                        self.print_arg_decl(a);
                    }
                    self.out.push(')');
                }
                self.out.push_str(":\n");
            }
            self.indent += 2;
            let last = m.last_op(b);
            for o in m.block_ops(b) {
                if !print_terminators
                    && Some(o) == last
                    && self
                        .reg
                        .lookup(&m.op(o).name)
                        .is_some_and(|d| d.has(traits::TERMINATOR))
                {
                    continue;
                }
                self.maybe_flush();
                for _ in 0..self.indent {
                    self.out.push(' ');
                }
                self.print_operation(o);
                self.out.push('\n');
            }
            self.indent -= 2;
            if self.out.ends_with('\n') {
                self.out.pop();
            }
        }
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push(' ');
        }
        self.out.push('}');
    }

    /// Prints one operation (no indentation, no newline), custom form when available.
    pub fn print_operation(&mut self, op: OpId) {
        let m = self.m;
        let d = m.op(op);
        let results = m.results(op);
        if !results.is_empty() {
            let base = self.names[results[0].index()].base;
            let mut out = std::mem::take(&mut self.out);
            out.push('%');
            self.write_base(&mut out, base);
            self.out = out;
            if results.len() == 1 {
                self.out.push_str(" = ");
            } else {
                let _ = write!(self.out, ":{} = ", results.len());
            }
        }
        let def = if self.opts.generic {
            None
        } else {
            self.reg.lookup(&d.name)
        };
        match def.and_then(|def| def.print.map(|f| (def, f))) {
            Some((def, f)) => {
                let after_results = self.flushed + self.out.len();
                // Like MLIR, drop the enclosing op's default dialect (`return` in a
                // `func.func`) when the name has one dot only (`transform.structured.match`
                // keeps its prefix in a `transform.sequence`); the parser resolves bare names
                // through the same default.
                let default = self.dialects.last().copied().unwrap_or("");
                let shown = if d.name == "builtin.module" {
                    "module"
                } else {
                    d.name
                        .strip_prefix(default)
                        .and_then(|r| r.strip_prefix('.'))
                        .filter(|r| !default.is_empty() && !r.is_empty() && !r.contains('.'))
                        .unwrap_or(&d.name)
                };
                self.out.push_str(shown);
                self.dialects.push(def.default_dialect.unwrap_or(""));
                self.frames.push((after_results, false));
                let ok = f(self, op);
                self.frames.pop();
                self.dialects.pop();
                if !ok {
                    if after_results < self.flushed {
                        // Broke the contract of `print_region`: the text is gone.
                        self.error.get_or_insert_with(|| {
                            std::io::Error::other(format!(
                                "the printer of '{}' failed after printing a region",
                                d.name
                            ))
                        });
                    }
                    self.out
                        .truncate(after_results.saturating_sub(self.flushed));
                    self.print_generic_scoped(op);
                }
            }
            None => self.print_generic_scoped(op),
        }
        let loc = d.loc();
        if !matches!(loc, Location::Unknown) {
            self.print_optional_location(loc);
        }
    }

    /// Generic form; ops nested in its regions print with full names.
    fn print_generic_scoped(&mut self, op: OpId) {
        self.dialects.push("");
        self.print_generic(op);
        self.dialects.pop();
    }

    /// Prints an op in generic form (without its location).
    pub fn print_generic(&mut self, op: OpId) {
        let m = self.m;
        let d = m.op(op);
        crate::lexer::escape_into(&mut self.out, d.name.as_bytes());
        self.out.push('(');
        self.print_operands(m.operands(op));
        self.out.push(')');
        if !d.successors.is_empty() {
            self.out.push_str(" [");
            for (i, &b) in d.successors.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.print_successor(b);
            }
            self.out.push(']');
        }
        if !d.props.is_empty() {
            self.out.push_str(" <");
            d.props.write_to(&mut self.out);
            self.out.push('>');
        }
        if !m.regions(op).is_empty() {
            self.out.push_str(" (");
            for (i, &r) in m.regions(op).iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.print_region_with(r, true, true, true);
            }
            self.out.push(')');
        }
        self.print_optional_attr_dict(&d.attrs, &[]);
        self.out.push_str(" : (");
        self.print_value_types(m.operands(op));
        self.out.push_str(") -> ");
        let rs = m.results(op);
        let bare = rs.len() == 1 && m.value_type(rs[0]).as_function().is_none();
        if bare {
            self.print_value_type(rs[0]);
        } else {
            self.out.push('(');
            self.print_value_types(rs);
            self.out.push(')');
        }
    }

    /// True if `v` is an argument of the entry block of `r`.
    pub fn is_entry_arg(&self, v: ValueId, r: RegionId) -> bool {
        match self.m.value_def(v) {
            ValueDef::BlockArg { block, .. } => self.m.entry_block(r) == Some(block),
            _ => false,
        }
    }
}
