//! MLIR attributes and locations. Builtin attributes that passes inspect (integers, floats,
//! strings, arrays, dense arrays, dictionaries, symbol references, affine maps and sets,
//! strided layouts, types) are structured; `dense<...>`, `dense_resource<...>`, `sparse<...>`
//! bodies and dialect attributes `#dialect.name<...>` are kept as verbatim, balanced
//! source text that re-prints identically (see the corpus README, "Things that trip parsers").

use std::fmt;

use crate::affine::{AffineMap, IntegerSet};
use crate::ident::Ident;
use crate::lexer::{escape_into, is_bare_identifier};
use crate::types::{Type, TypeKind, DYNAMIC};

/// One entry of a dictionary attribute.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedAttr {
    /// The key (known names borrow static text, see [`crate::Registry::attr_name`]).
    pub name: Ident,
    /// The value.
    pub value: Attribute,
}

/// An ordered dictionary (`{a = 1, b}`), kept in insertion order; keys are unique.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dict(pub Vec<NamedAttr>);

impl Dict {
    /// An empty dictionary.
    pub fn new() -> Dict {
        Dict(Vec::new())
    }
    /// The value under `name`.
    pub fn get(&self, name: &str) -> Option<&Attribute> {
        self.0.iter().find(|n| n.name == name).map(|n| &n.value)
    }
    /// True if `name` is present.
    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }
    /// Sets `name` (replacing an existing entry in place).
    pub fn set(&mut self, name: impl Into<Ident>, value: Attribute) {
        let name = name.into();
        match self.0.iter_mut().find(|n| n.name == name) {
            Some(n) => n.value = value,
            None => {
                // Dictionaries are small and live as long as their op: grow one at a time.
                if self.0.len() == self.0.capacity() {
                    self.0.reserve_exact(1);
                }
                self.0.push(NamedAttr { name, value })
            }
        }
    }
    /// Removes and returns `name`.
    pub fn remove(&mut self, name: &str) -> Option<Attribute> {
        let i = self.0.iter().position(|n| n.name == name)?;
        Some(self.0.remove(i).value)
    }
    /// True if empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Iterates entries in order.
    pub fn iter(&self) -> impl Iterator<Item = &NamedAttr> {
        self.0.iter()
    }
}

/// Contents of `array<T: ...>`.
#[derive(Clone, Debug, PartialEq)]
pub enum DenseArrayValues {
    /// Integer (and `i1` as 0/1) elements.
    Int(Vec<i64>),
    /// Float elements.
    Float(Vec<f64>),
}

/// A source location (`loc(...)`).
#[derive(Clone, Debug, PartialEq)]
pub enum Location {
    /// `unknown`.
    Unknown,
    /// `"file":line:col` with an optional range end `to [line]:col`.
    File {
        /// File name.
        file: String,
        /// Start line.
        line: u32,
        /// Start column (absent for `"file":line` is printed as 0 by MLIR; kept optional).
        col: Option<u32>,
        /// Range end: optional line and column.
        end: Option<(Option<u32>, u32)>,
    },
    /// `"name"` or `"name"(child)`.
    Name {
        /// The name.
        name: String,
        /// The child location.
        child: Option<Box<Location>>,
    },
    /// `callsite(callee at caller)`.
    CallSite {
        /// Callee location.
        callee: Box<Location>,
        /// Caller location.
        caller: Box<Location>,
    },
    /// `fused<metadata>[locs]`.
    Fused {
        /// Optional metadata attribute.
        metadata: Option<Box<Attribute>>,
        /// The fused locations.
        locs: Vec<Location>,
    },
    /// A reference to a `#loc` alias, resolved through [`crate::Module::loc_aliases`].
    Alias(String),
    /// Any other location attribute, verbatim (e.g. a dialect attribute).
    Opaque(String),
}

/// An MLIR attribute.
#[derive(Clone, Debug, PartialEq)]
pub enum Attribute {
    /// `unit`.
    Unit,
    /// `true` / `false`.
    Bool(bool),
    /// `5 : i32` (the type is `i64` when not written).
    Integer {
        /// The value.
        value: i128,
        /// Integer or index type.
        ty: Type,
    },
    /// `1.5 : f32` or `0x7FC00000 : f32`.
    Float {
        /// The value (for hex literals of wide types, an approximation).
        value: f64,
        /// Raw bits when the literal was hexadecimal (re-printed as hex).
        bits: Option<u128>,
        /// Float type.
        ty: Type,
    },
    /// `"text"` (bytes; usually UTF-8), with an optional type.
    String {
        /// Decoded bytes.
        value: Vec<u8>,
        /// `: type` if written.
        ty: Option<Type>,
    },
    /// A type used as an attribute.
    Type(Type),
    /// `[a, b]`.
    Array(Vec<Attribute>),
    /// `array<i32: 1, 2>`.
    DenseArray {
        /// Element type.
        elem: Type,
        /// Elements.
        values: DenseArrayValues,
    },
    /// `{a = 1}`.
    Dict(Dict),
    /// `@root::@nested`.
    SymbolRef {
        /// Root symbol.
        root: String,
        /// Nested references.
        nested: Vec<String>,
    },
    /// `affine_map<...>`.
    AffineMap(AffineMap),
    /// `affine_set<...>`.
    IntegerSet(IntegerSet),
    /// `strided<[s0, s1], offset: o>` (dynamic = [`DYNAMIC`]).
    Strided {
        /// Strides.
        strides: Vec<i64>,
        /// Offset.
        offset: i64,
    },
    /// `dense<...> : T`, `dense_resource<...> : T`, `sparse<...> : T`, body verbatim.
    Elements {
        /// `dense`, `dense_resource` or `sparse`.
        kind: String,
        /// The text between the angle brackets.
        body: String,
        /// The shaped type.
        ty: Type,
    },
    /// A location used as an attribute.
    Location(Location),
    /// Anything else, as exact source text (`#gpu.address_space<workgroup>`, `#arith.fastmath<fast>`).
    Opaque(String),
}

impl Attribute {
    /// A string attribute.
    pub fn string(s: &str) -> Attribute {
        Attribute::String {
            value: s.as_bytes().to_vec(),
            ty: None,
        }
    }
    /// An integer attribute.
    pub fn int(value: i128, ty: Type) -> Attribute {
        Attribute::Integer { value, ty }
    }
    /// A flat symbol reference `@name`.
    pub fn symbol(name: &str) -> Attribute {
        Attribute::SymbolRef {
            root: name.to_string(),
            nested: Vec::new(),
        }
    }
    /// `array<i32: ...>`.
    pub fn i32_array(vals: &[i64]) -> Attribute {
        Attribute::DenseArray {
            elem: Type::int(32),
            values: DenseArrayValues::Int(vals.to_vec()),
        }
    }
    /// `array<i64: ...>`.
    pub fn i64_array(vals: &[i64]) -> Attribute {
        Attribute::DenseArray {
            elem: Type::int(64),
            values: DenseArrayValues::Int(vals.to_vec()),
        }
    }
    /// The string value, if UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Attribute::String { value, .. } => std::str::from_utf8(value).ok(),
            _ => None,
        }
    }
    /// The integer value.
    pub fn as_int(&self) -> Option<i128> {
        match self {
            Attribute::Integer { value, .. } => Some(*value),
            Attribute::Bool(b) => Some(i128::from(*b)),
            _ => None,
        }
    }
    /// The type of a type attribute.
    pub fn as_type(&self) -> Option<&Type> {
        match self {
            Attribute::Type(t) => Some(t),
            _ => None,
        }
    }
    /// The root name of a symbol reference.
    pub fn as_symbol(&self) -> Option<&str> {
        match self {
            Attribute::SymbolRef { root, .. } => Some(root),
            _ => None,
        }
    }
    /// Integer elements of a dense array.
    pub fn as_int_array(&self) -> Option<&[i64]> {
        match self {
            Attribute::DenseArray {
                values: DenseArrayValues::Int(v),
                ..
            } => Some(v),
            _ => None,
        }
    }
    /// The type an attribute carries for `arith.constant`-style ops, if any.
    pub fn typed(&self) -> Option<Type> {
        match self {
            Attribute::Bool(_) => Some(Type::int(1)),
            Attribute::Integer { ty, .. }
            | Attribute::Float { ty, .. }
            | Attribute::Elements { ty, .. } => Some(ty.clone()),
            Attribute::String { ty, .. } => ty.clone(),
            _ => None,
        }
    }
    /// Writes the attribute without its `: type` suffix (for custom forms that print the type elsewhere).
    pub fn write_untyped(&self, out: &mut String) {
        use fmt::Write;
        match self {
            Attribute::Integer { value, ty } if is_signless_i1(ty) => {
                out.push_str(if *value != 0 { "true" } else { "false" })
            }
            Attribute::Integer { value, .. } => {
                let _ = write!(out, "{value}");
            }
            Attribute::Float { value, bits, .. } => write_float(out, *value, *bits),
            Attribute::String { value, .. } => escape_into(out, value),
            Attribute::Elements { kind, body, .. } => {
                let _ = write!(out, "{kind}<{body}>");
            }
            _ => self.write_to(out),
        }
    }
}

/// Writes a float literal MLIR re-reads exactly (hex bits when given or non-finite).
pub fn write_float(out: &mut String, value: f64, bits: Option<u128>) {
    use fmt::Write;
    if let Some(b) = bits {
        let _ = write!(out, "0x{b:X}");
    } else if !value.is_finite() {
        let _ = write!(out, "0x{:X}", value.to_bits());
    } else if let Some(sci) = scientific6(value) {
        // mlir-opt's preferred form (`1.000000e+00`) whenever six digits are exact.
        out.push_str(&sci);
    } else {
        let s = format!("{value:?}");
        let s = if s.contains('.') || s.contains("inf") || s.contains("NaN") {
            s
        } else if let Some(e) = s.find('e') {
            format!("{}.0{}", &s[..e], &s[e..])
        } else {
            format!("{s}.0")
        };
        out.push_str(&s);
    }
}

/// `value` as `d.dddddde±XX` when that text reads back as exactly `value`.
fn scientific6(value: f64) -> Option<String> {
    let raw = format!("{value:.6e}");
    let (mant, exp) = raw.split_once('e')?;
    let exp: i32 = exp.parse().ok()?;
    let sign = if exp < 0 { '-' } else { '+' };
    let text = format!("{mant}e{sign}{:02}", exp.unsigned_abs());
    (text.parse::<f64>().ok()? == value).then_some(text)
}

/// Writes `name` as a dictionary key (quoted when not a bare identifier).
pub fn write_key(out: &mut String, name: &str) {
    if is_bare_identifier(name) {
        out.push_str(name);
    } else {
        escape_into(out, name.as_bytes());
    }
}

/// Writes `@name` (quoted when needed).
pub fn write_symbol(out: &mut String, name: &str) {
    out.push('@');
    // MLIR's bare-id: (letter | `_`) (letter | digit | `_` | `$` | `.`)*
    let b = name.as_bytes();
    let bare = b
        .first()
        .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.'));
    if bare {
        out.push_str(name);
    } else {
        escape_into(out, name.as_bytes());
    }
}

impl Dict {
    /// Appends `{a = 1, b}` to `out` (the [`fmt::Display`] text, without formatter overhead).
    pub fn write_to(&self, out: &mut String) {
        out.push('{');
        for (i, n) in self.0.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_key(out, &n.name);
            if n.value != Attribute::Unit {
                out.push_str(" = ");
                n.value.write_to(out);
            }
        }
        out.push('}');
    }
}

impl fmt::Display for Dict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        self.write_to(&mut s);
        f.write_str(&s)
    }
}

/// Appends a decimal integer without going through `fmt` (hot in dense arrays and shapes).
pub fn push_int(out: &mut String, v: i64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut n = v.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        out.push('-');
    }
    // Only ASCII digits were written.
    out.push_str(std::str::from_utf8(&buf[i..]).unwrap_or("0"));
}

fn dyn_or(v: i64) -> String {
    if v == DYNAMIC {
        "?".to_string()
    } else {
        v.to_string()
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        match self {
            Location::Unknown => s.push_str("unknown"),
            Location::File {
                file,
                line,
                col,
                end,
            } => {
                escape_into(&mut s, file.as_bytes());
                s.push_str(&format!(":{line}"));
                if let Some(c) = col {
                    s.push_str(&format!(":{c}"));
                }
                if let Some((el, ec)) = end {
                    s.push_str(" to ");
                    if let Some(l) = el {
                        s.push_str(&l.to_string());
                    }
                    s.push_str(&format!(":{ec}"));
                }
            }
            Location::Name { name, child } => {
                escape_into(&mut s, name.as_bytes());
                if let Some(c) = child {
                    s.push_str(&format!("({c})"));
                }
            }
            Location::CallSite { callee, caller } => {
                s.push_str(&format!("callsite({callee} at {caller})"))
            }
            Location::Fused { metadata, locs } => {
                s.push_str("fused");
                if let Some(m) = metadata {
                    s.push_str(&format!("<{m}>"));
                }
                s.push('[');
                for (i, l) in locs.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    s.push_str(&l.to_string());
                }
                s.push(']');
            }
            Location::Alias(a) => s.push_str(a),
            Location::Opaque(t) => s.push_str(t),
        }
        f.write_str(&s)
    }
}

impl Attribute {
    /// Appends the attribute's text (with its `: type` suffix where MLIR prints one) to `out`.
    pub fn write_to(&self, s: &mut String) {
        use fmt::Write;
        match self {
            Attribute::Unit => s.push_str("unit"),
            Attribute::Bool(b) => s.push_str(if *b { "true" } else { "false" }),
            Attribute::Integer { ty, .. } if is_signless_i1(ty) => self.write_untyped(s),
            Attribute::Integer { value, ty } => {
                match i64::try_from(*value) {
                    Ok(v) => push_int(s, v),
                    Err(_) => {
                        let _ = write!(s, "{value}");
                    }
                }
                let _ = write!(s, " : {ty}");
            }
            Attribute::Float { value, bits, ty } => {
                write_float(s, *value, *bits);
                let _ = write!(s, " : {ty}");
            }
            Attribute::String { value, ty } => {
                escape_into(s, value);
                if let Some(t) = ty {
                    let _ = write!(s, " : {t}");
                }
            }
            Attribute::Type(t) => {
                let _ = write!(s, "{t}");
            }
            Attribute::Array(items) => {
                s.push('[');
                for (i, a) in items.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    a.write_to(s);
                }
                s.push(']');
            }
            Attribute::DenseArray { elem, values } => {
                s.push_str("array<");
                match elem.kind() {
                    TypeKind::Integer {
                        width,
                        signedness: crate::types::Signedness::Signless,
                    } => {
                        s.push('i');
                        push_int(s, i64::from(*width));
                    }
                    _ => {
                        let _ = write!(s, "{elem}");
                    }
                }
                let is_bool = is_signless_i1(elem);
                match values {
                    DenseArrayValues::Int(v) => {
                        for (i, x) in v.iter().enumerate() {
                            s.push_str(if i == 0 { ": " } else { ", " });
                            if is_bool {
                                s.push_str(if *x != 0 { "true" } else { "false" });
                            } else {
                                push_int(s, *x);
                            }
                        }
                    }
                    DenseArrayValues::Float(v) => {
                        for (i, x) in v.iter().enumerate() {
                            s.push_str(if i == 0 { ": " } else { ", " });
                            write_float(s, *x, None);
                        }
                    }
                }
                s.push('>');
            }
            Attribute::Dict(d) => d.write_to(s),
            Attribute::SymbolRef { root, nested } => {
                write_symbol(s, root);
                for n in nested {
                    s.push_str("::");
                    write_symbol(s, n);
                }
            }
            Attribute::AffineMap(m) => {
                let _ = write!(s, "affine_map<{m}>");
            }
            Attribute::IntegerSet(m) => {
                let _ = write!(s, "affine_set<{m}>");
            }
            Attribute::Strided { strides, offset } => {
                s.push_str("strided<[");
                for (i, x) in strides.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    s.push_str(&dyn_or(*x));
                }
                s.push(']');
                if *offset != 0 {
                    let _ = write!(s, ", offset: {}", dyn_or(*offset));
                }
                s.push('>');
            }
            Attribute::Elements { kind, body, ty } => {
                let _ = write!(s, "{kind}<{body}> : {ty}");
            }
            Attribute::Location(l) => {
                let _ = write!(s, "loc({l})");
            }
            Attribute::Opaque(t) => s.push_str(t),
        }
    }
}

impl fmt::Display for Attribute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        self.write_to(&mut s);
        f.write_str(&s)
    }
}

impl Eq for Attribute {}
impl Eq for Location {}
impl Eq for Dict {}
impl Eq for NamedAttr {}
impl Eq for DenseArrayValues {}

/// True for exactly `i1` (what `*t == Type::int(1)` tests, without building a type).
fn is_signless_i1(t: &Type) -> bool {
    matches!(
        t.kind(),
        TypeKind::Integer {
            width: 1,
            signedness: crate::types::Signedness::Signless
        }
    )
}

/// True if a type is an `i1`-typed integer.
pub fn is_i1(t: &Type) -> bool {
    matches!(t.kind(), TypeKind::Integer { width: 1, .. })
}
