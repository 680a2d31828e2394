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

/// One element class of the LLVM dialect's type-constraint summaries.
#[derive(Clone, Copy, Debug, PartialEq)]
enum LElem {
    /// `signless integer` (`AnySignlessInteger`)
    SignlessInt,
    /// `N-bit signless integer` (`I<N>`)
    IntOfWidth(u32),
    /// `integer` (`AnyInteger`)
    AnyInt,
    /// `floating point LLVM type` (`LLVM_AnyFloat`: `isCompatibleFloatingPointType`)
    LlvmFloat,
    /// `floating-point` (`AnyFloat`)
    AnyFloat,
    /// `LLVM pointer type` (`LLVM_AnyPointer`)
    Ptr,
}

/// One alternative of such a summary: a scalar class, a vector of one (`LLVM_VectorOf`),
/// or any LLVM-compatible vector (`LLVM_AnyVector`, optionally fixed-length only).
#[derive(Clone, Copy, Debug, PartialEq)]
enum LAlt {
    Scalar(LElem),
    VectorOf(LElem),
    AnyVector { fixed: bool },
}

fn read_lelem(s: &mut &str) -> Option<LElem> {
    const NAMED: &[(&str, LElem)] = &[
        ("signless_integer", LElem::SignlessInt),
        ("floating_point_LLVM_type", LElem::LlvmFloat),
        ("floating_point", LElem::AnyFloat),
        ("LLVM_pointer_type", LElem::Ptr),
        ("integer", LElem::AnyInt),
    ];
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 {
        let w: u32 = s[..digits].parse().ok()?;
        *s = s[digits..].strip_prefix("_bit_signless_integer")?;
        return Some(LElem::IntOfWidth(w));
    }
    for (name, e) in NAMED {
        if let Some(r) = s.strip_prefix(name) {
            // a whole word only (`floating_point` must not eat `floating_point_LLVM_type`)
            if r.is_empty() || r.starts_with("_or_") {
                *s = r;
                return Some(*e);
            }
        }
    }
    None
}

/// Reads a constraint summary built from the LLVM dialect's own constraints
/// (`LLVM_ScalarOrVectorOf`, `LLVM_VectorOf`, `LLVM_AnyVector`, `AnyTypeOf` of those), as
/// the op table writes it (non-alphanumerics as `_`); `None` for anything else.
fn read_llvm_summary(mut s: &str) -> Option<Vec<LAlt>> {
    let mut alts = Vec::new();
    loop {
        if let Some(r) = s.strip_prefix("LLVM_dialect_compatible_vector_of_") {
            s = r;
            alts.push(LAlt::VectorOf(read_lelem(&mut s)?));
        } else if let Some(r) = s.strip_prefix("LLVM_dialect_compatible_fixed_length_vector_type") {
            s = r;
            alts.push(LAlt::AnyVector { fixed: true });
        } else if let Some(r) = s.strip_prefix("LLVM_dialect_compatible_vector_type") {
            s = r;
            alts.push(LAlt::AnyVector { fixed: false });
        } else {
            alts.push(LAlt::Scalar(read_lelem(&mut s)?));
        }
        if s.is_empty() {
            return Some(alts);
        }
        s = s.strip_prefix("_or_")?;
    }
}

fn lelem_ok(e: LElem, t: &Type) -> bool {
    let opaque = |p: &str| matches!(t.kind(), TypeKind::Opaque(s) if s.trim() == p || s.trim().starts_with(&format!("{p}<")));
    match e {
        LElem::SignlessInt => matches!(
            t.kind(),
            TypeKind::Integer {
                signedness: Signedness::Signless,
                ..
            }
        ),
        LElem::IntOfWidth(w) => *t == Type::int(w),
        LElem::AnyInt => matches!(t.kind(), TypeKind::Integer { .. }),
        LElem::LlvmFloat => llvm_float(t) || opaque("!llvm.ppc_fp128"),
        LElem::AnyFloat => matches!(t.kind(), TypeKind::Float(_)),
        LElem::Ptr => opaque("!llvm.ptr"),
    }
}

/// MLIR's `LLVM::isCompatibleVectorType`: a 1-D builtin vector (scalable or not) of signless
/// integers, LLVM's float types or pointers.
fn llvm_vector_elem(t: &Type) -> Option<(&Type, bool)> {
    let TypeKind::Vector {
        shape,
        scalable,
        elem,
    } = t.kind()
    else {
        return None;
    };
    if shape.len() != 1 {
        return None;
    }
    let ok = lelem_ok(LElem::SignlessInt, elem) || llvm_float(elem) || lelem_ok(LElem::Ptr, elem);
    ok.then_some((elem, scalable.iter().any(|&s| s)))
}

/// Whether `t` satisfies an LLVM dialect type constraint known by its summary (see
/// [`read_llvm_summary`]); `None` when the summary is not one of those.
pub(crate) fn llvm_constraint(summary: &str, t: &Type) -> Option<bool> {
    let alts = read_llvm_summary(summary)?;
    Some(alts.iter().any(|a| match *a {
        LAlt::Scalar(e) => lelem_ok(e, t),
        LAlt::VectorOf(e) => llvm_vector_elem(t).is_some_and(|(el, _)| lelem_ok(e, el)),
        LAlt::AnyVector { fixed } => llvm_vector_elem(t).is_some_and(|(_, sc)| !fixed || !sc),
    }))
}

/// MLIR's text of such a summary (`LLVM dialect-compatible vector of 1-bit signless
/// integer`), for messages; `None` when it is not one.
pub(crate) fn llvm_constraint_text(summary: &str) -> Option<String> {
    read_llvm_summary(summary)?;
    let mut s = summary.replace('_', " ");
    for (from, to) in [
        ("LLVM dialect compatible", "LLVM dialect-compatible"),
        ("fixed length", "fixed-length"),
        (" bit signless", "-bit signless"),
    ] {
        s = s.replace(from, to);
    }
    // `AnyFloat`'s summary is `floating-point`; `LLVM_AnyFloat`'s `floating point LLVM type`
    let mut out = String::new();
    let mut rest = s.as_str();
    while let Some(i) = rest.find("floating point") {
        out.push_str(&rest[..i]);
        let after = &rest[i + "floating point".len()..];
        out.push_str(if after.starts_with(" LLVM type") {
            "floating point"
        } else {
            "floating-point"
        });
        rest = after;
    }
    out.push_str(rest);
    // `N-bit` digits stay joined to the word
    Some(out.replace(" -bit", "-bit"))
}
