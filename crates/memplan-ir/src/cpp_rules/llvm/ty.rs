//! A structural view of LLVM dialect types. memplan keeps `!llvm.*` types as their source
//! text; the verifier rules of the LLVM dialect need their structure (struct bodies, array
//! sizes, function signatures) and MLIR's canonical spelling for comparisons and messages.

use crate::types::{FloatKind, Signedness, Type, TypeKind};
use std::fmt;

/// An LLVM dialect type, or a builtin type used inside one.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum LTy {
    Void,
    Ptr(u64),
    Label,
    Token,
    Metadata,
    /// A literal struct; `name` is set for identified structs (whose body may be opaque).
    Struct {
        name: Option<String>,
        packed: bool,
        body: Option<Vec<LTy>>,
    },
    Array(u64, Box<LTy>),
    Func {
        ret: Box<LTy>,
        params: Vec<LTy>,
        vararg: bool,
    },
    /// `!llvm.target<"name", ...>`: the name and the parameter text.
    Target(String, String),
    /// Another `!llvm.*` type memplan does not model (`x86_amx`, ...), as written.
    Other(String),
    /// A builtin type (`i32`, `f16`, `vector<4xf32>`).
    Builtin(Type),
}

/// Splits `s` at top-level commas (outside `<>`, `()`, `[]`, `{}` and strings).
pub(crate) fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut in_str = false;
    let mut prev = ' ';
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if in_str {
            if c == '"' && prev != '\\' {
                in_str = false;
            }
        } else {
            match c {
                '"' => in_str = true,
                '<' | '(' | '[' | '{' => depth += 1,
                '>' | ')' | ']' | '}' => depth -= 1,
                ',' if depth == 0 => {
                    out.push(&s[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        prev = c;
    }
    if !s[start..].trim().is_empty() {
        out.push(&s[start..]);
    }
    out
}

/// The builtin type spelled `s`, for the leaves of LLVM types.
fn builtin(s: &str) -> Option<Type> {
    if let Some(w) = s.strip_prefix('i').and_then(|w| w.parse::<u32>().ok()) {
        return Some(Type::int(w));
    }
    if let Some(k) = FloatKind::from_name(s) {
        return Some(Type::float(k));
    }
    if s == "index" {
        return Some(Type::index());
    }
    crate::parser::parse_type_str(s)
}

impl LTy {
    /// Parses an LLVM type spelled with or without the `!llvm.` prefix, or a builtin type.
    pub(crate) fn parse(s: &str) -> Option<LTy> {
        let s = s.trim();
        let (s, llvm) = match s.strip_prefix("!llvm.") {
            Some(r) => (r, true),
            None => (s, false),
        };
        let (head, body) = match s.find('<') {
            Some(i) if s.ends_with('>') => (&s[..i], Some(s[i + 1..s.len() - 1].trim())),
            _ => (s, None),
        };
        let t = match (head.trim(), body) {
            ("void", None) => LTy::Void,
            ("ptr", None) => LTy::Ptr(0),
            ("ptr", Some(b)) => LTy::Ptr(b.parse().ok()?),
            ("label", None) => LTy::Label,
            ("token", None) => LTy::Token,
            ("metadata", None) => LTy::Metadata,
            ("array", Some(b)) => {
                let (n, e) = b.split_once('x')?;
                LTy::Array(n.trim().parse().ok()?, Box::new(LTy::parse(e)?))
            }
            ("struct", Some(b)) => parse_struct(b)?,
            ("func", Some(b)) => {
                // the parameter list: the first `(` outside the result type's brackets
                let mut depth = 0i32;
                let open = b.char_indices().find_map(|(i, c)| {
                    match c {
                        '<' => depth += 1,
                        '>' => depth -= 1,
                        '(' if depth == 0 => return Some(i),
                        _ => {}
                    }
                    None
                })?;
                let ret = LTy::parse(&b[..open])?;
                let inner = b[open..].trim().strip_prefix('(')?.strip_suffix(')')?;
                let mut params = Vec::new();
                let mut vararg = false;
                for p in split_top(inner) {
                    if p.trim() == "..." {
                        vararg = true;
                    } else {
                        params.push(LTy::parse(p)?);
                    }
                }
                LTy::Func {
                    ret: Box::new(ret),
                    params,
                    vararg,
                }
            }
            ("target", Some(b)) => {
                let parts = split_top(b);
                let name = parts.first()?.trim().trim_matches('"').to_string();
                LTy::Target(name, b.to_string())
            }
            _ if llvm => LTy::Other(s.to_string()),
            _ => LTy::Builtin(builtin(s)?),
        };
        Some(t)
    }

    /// The structure of a memplan type.
    pub(crate) fn of(t: &Type) -> Option<LTy> {
        match t.kind() {
            TypeKind::Opaque(s) if s.starts_with("!llvm.") => LTy::parse(s),
            TypeKind::Opaque(_) => None,
            _ => Some(LTy::Builtin(t.clone())),
        }
    }

    pub(crate) fn is_void(&self) -> bool {
        matches!(self, LTy::Void)
    }

    /// The integer width of a signless integer.
    pub(crate) fn int_width(&self) -> Option<u32> {
        match self {
            LTy::Builtin(t) => match t.kind() {
                TypeKind::Integer {
                    width,
                    signedness: Signedness::Signless,
                } => Some(*width),
                _ => None,
            },
            _ => None,
        }
    }

    pub(crate) fn builtin(&self) -> Option<&Type> {
        match self {
            LTy::Builtin(t) => Some(t),
            _ => None,
        }
    }
}

fn parse_struct(b: &str) -> Option<LTy> {
    let mut b = b.trim();
    let mut name = None;
    if b.starts_with('"') {
        let end = b[1..].find('"')? + 1;
        name = Some(b[1..end].to_string());
        b = b[end + 1..].trim_start().trim_start_matches(',').trim();
        if b.is_empty() {
            return Some(LTy::Struct {
                name,
                packed: false,
                body: None,
            });
        }
    }
    let mut packed = false;
    if let Some(r) = b.strip_prefix("packed") {
        packed = true;
        b = r.trim();
    }
    if b == "opaque" {
        return Some(LTy::Struct {
            name,
            packed,
            body: None,
        });
    }
    let inner = b.strip_prefix('(')?.strip_suffix(')')?;
    let body = split_top(inner)
        .into_iter()
        .map(LTy::parse)
        .collect::<Option<Vec<_>>>()?;
    Some(LTy::Struct {
        name,
        packed,
        body: Some(body),
    })
}

impl LTy {
    fn write(&self, f: &mut fmt::Formatter<'_>, top: bool) -> fmt::Result {
        let pre = if top { "!llvm." } else { "" };
        match self {
            LTy::Void => write!(f, "{pre}void"),
            LTy::Ptr(0) => write!(f, "{pre}ptr"),
            LTy::Ptr(n) => write!(f, "{pre}ptr<{n}>"),
            LTy::Label => write!(f, "{pre}label"),
            LTy::Token => write!(f, "{pre}token"),
            LTy::Metadata => write!(f, "{pre}metadata"),
            LTy::Struct { name, packed, body } => {
                write!(f, "{pre}struct<")?;
                if let Some(n) = name {
                    write!(f, "\"{n}\"")?;
                    if body.is_none() {
                        return write!(f, ", opaque>");
                    }
                    write!(f, ", ")?;
                }
                if *packed {
                    write!(f, "packed ")?;
                }
                match body {
                    None => write!(f, "opaque")?,
                    Some(b) => {
                        write!(f, "(")?;
                        for (i, e) in b.iter().enumerate() {
                            if i > 0 {
                                write!(f, ", ")?;
                            }
                            e.write(f, false)?;
                        }
                        write!(f, ")")?;
                    }
                }
                write!(f, ">")
            }
            LTy::Array(n, e) => {
                write!(f, "{pre}array<{n} x ")?;
                e.write(f, false)?;
                write!(f, ">")
            }
            LTy::Func {
                ret,
                params,
                vararg,
            } => {
                write!(f, "{pre}func<")?;
                ret.write(f, false)?;
                write!(f, " (")?;
                for (i, p) in params.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    p.write(f, false)?;
                }
                if *vararg {
                    if !params.is_empty() {
                        write!(f, ", ")?;
                    }
                    write!(f, "...")?;
                }
                write!(f, ")>")
            }
            LTy::Target(_, b) => write!(f, "{pre}target<{b}>"),
            LTy::Other(s) => write!(f, "{pre}{s}"),
            LTy::Builtin(t) => write!(f, "{t}"),
        }
    }
}

/// MLIR's spelling (`!llvm.struct<(i32, ptr)>`, `i32`).
impl fmt::Display for LTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, true)
    }
}

/// MLIR's spelling of a memplan type (LLVM types normalised).
pub(crate) fn canon(t: &Type) -> String {
    match LTy::of(t) {
        Some(l) => l.to_string(),
        None => t.to_string(),
    }
}

/// Whether two types are the same MLIR type.
pub(crate) fn same(a: &Type, b: &Type) -> bool {
    a == b || canon(a) == canon(b)
}

/// LLVM's floating point types (`isCompatibleFloatingPointType`).
pub(crate) fn llvm_float(t: &Type) -> bool {
    matches!(
        t.kind(),
        TypeKind::Float(
            FloatKind::F16
                | FloatKind::BF16
                | FloatKind::F32
                | FloatKind::F64
                | FloatKind::F80
                | FloatKind::F128
        )
    )
}

/// Builtin types that can never be LLVM dialect-compatible (`isCompatibleType` is false).
pub(crate) fn never_llvm(t: &Type) -> bool {
    match t.kind() {
        TypeKind::Index
        | TypeKind::None
        | TypeKind::Complex(_)
        | TypeKind::RankedTensor { .. }
        | TypeKind::UnrankedTensor { .. }
        | TypeKind::MemRef { .. }
        | TypeKind::UnrankedMemRef { .. }
        | TypeKind::Tuple(_)
        | TypeKind::Function { .. } => true,
        TypeKind::Integer { signedness, .. } => *signedness != Signedness::Signless,
        TypeKind::Vector { elem, .. } => never_llvm(elem),
        _ => false,
    }
}

/// Whether a builtin type is one the LLVM dialect accepts (MLIR's `isCompatibleType`):
/// signless integers, LLVM's float types and 1-D vectors of those or of pointers. Types of
/// other dialects are not judged (`true`).
pub(crate) fn llvm_compatible(t: &Type) -> bool {
    match t.kind() {
        TypeKind::Integer { signedness, .. } => *signedness == Signedness::Signless,
        TypeKind::Float(_) => llvm_float(t),
        TypeKind::Vector { shape, elem, .. } => {
            shape.len() == 1
                && match elem.kind() {
                    TypeKind::Integer { .. } | TypeKind::Float(_) => llvm_compatible(elem),
                    TypeKind::Opaque(_) => true,
                    _ => false,
                }
        }
        TypeKind::Opaque(_) => true,
        _ => false,
    }
}
