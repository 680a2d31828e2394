//! MLIR builtin types as immutable, cheaply cloned values (`Type` is an `Arc` around a
//! [`TypeKind`]), compared structurally. Dialect types we do not model are kept as their
//! exact balanced source text ([`TypeKind::Opaque`]) so they re-print identically.
//! Shapes use MLIR's convention: a dynamic size is [`DYNAMIC`] (`ShapedType::kDynamic`).

use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::attrs::Attribute;

/// The value of a dynamic dimension, stride or offset (`?`), as in MLIR.
pub const DYNAMIC: i64 = i64::MIN;

/// Signedness of an integer type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Signedness {
    /// `i8`
    Signless,
    /// `si8`
    Signed,
    /// `ui8`
    Unsigned,
}

/// The floating-point formats MLIR 22 prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum FloatKind {
    F16,
    BF16,
    F32,
    F64,
    F80,
    F128,
    TF32,
    F4E2M1FN,
    F6E2M3FN,
    F6E3M2FN,
    F8E5M2,
    F8E4M3,
    F8E4M3FN,
    F8E5M2FNUZ,
    F8E4M3FNUZ,
    F8E4M3B11FNUZ,
    F8E3M4,
    F8E8M0FNU,
}

const FLOAT_NAMES: &[(&str, FloatKind)] = &[
    ("f16", FloatKind::F16),
    ("bf16", FloatKind::BF16),
    ("f32", FloatKind::F32),
    ("f64", FloatKind::F64),
    ("f80", FloatKind::F80),
    ("f128", FloatKind::F128),
    ("tf32", FloatKind::TF32),
    ("f4E2M1FN", FloatKind::F4E2M1FN),
    ("f6E2M3FN", FloatKind::F6E2M3FN),
    ("f6E3M2FN", FloatKind::F6E3M2FN),
    ("f8E5M2", FloatKind::F8E5M2),
    ("f8E4M3", FloatKind::F8E4M3),
    ("f8E4M3FN", FloatKind::F8E4M3FN),
    ("f8E5M2FNUZ", FloatKind::F8E5M2FNUZ),
    ("f8E4M3FNUZ", FloatKind::F8E4M3FNUZ),
    ("f8E4M3B11FNUZ", FloatKind::F8E4M3B11FNUZ),
    ("f8E3M4", FloatKind::F8E3M4),
    ("f8E8M0FNU", FloatKind::F8E8M0FNU),
];

impl FloatKind {
    /// The keyword (`f32`, `f8E4M3FN`, ...).
    pub fn name(self) -> &'static str {
        FLOAT_NAMES
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("f32", |(n, _)| n)
    }
    /// Looks a keyword up.
    pub fn from_name(s: &str) -> Option<FloatKind> {
        FLOAT_NAMES.iter().find(|(n, _)| *n == s).map(|(_, k)| *k)
    }
    /// Storage width in bits.
    pub fn bit_width(self) -> u32 {
        use FloatKind::*;
        match self {
            F16 | BF16 => 16,
            F32 => 32,
            TF32 => 19,
            F64 => 64,
            F80 => 80,
            F128 => 128,
            F4E2M1FN => 4,
            F6E2M3FN | F6E3M2FN => 6,
            _ => 8,
        }
    }
}

/// The structure of a type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeKind {
    /// `i32`, `si8`, `ui16`.
    Integer {
        /// Bit width.
        width: u32,
        /// Signedness.
        signedness: Signedness,
    },
    /// `index`.
    Index,
    /// A float type.
    Float(FloatKind),
    /// `none`.
    None,
    /// `complex<T>`.
    Complex(Type),
    /// `vector<[4]x8xf32>`.
    Vector {
        /// Sizes (never dynamic).
        shape: Vec<i64>,
        /// Per-dimension scalable flags (same length as `shape`).
        scalable: Vec<bool>,
        /// Element type.
        elem: Type,
    },
    /// `tensor<4x?xf32, #enc>`.
    RankedTensor {
        /// Sizes; [`DYNAMIC`] for `?`.
        shape: Vec<i64>,
        /// Element type.
        elem: Type,
        /// Optional encoding attribute.
        encoding: Option<Attribute>,
    },
    /// `tensor<*xf32>`.
    UnrankedTensor {
        /// Element type.
        elem: Type,
    },
    /// `memref<4x?xf32, layout, space>`.
    MemRef {
        /// Sizes; [`DYNAMIC`] for `?`.
        shape: Vec<i64>,
        /// Element type.
        elem: Type,
        /// Layout (`None` = identity): strided, affine map, or any attribute.
        layout: Option<Attribute>,
        /// Memory space (`None` = default).
        memory_space: Option<Attribute>,
    },
    /// `memref<*xf32, space>`.
    UnrankedMemRef {
        /// Element type.
        elem: Type,
        /// Memory space.
        memory_space: Option<Attribute>,
    },
    /// `tuple<i32, f32>`.
    Tuple(Vec<Type>),
    /// `(i32) -> (f32, f32)`.
    Function {
        /// Inputs.
        inputs: Vec<Type>,
        /// Results.
        results: Vec<Type>,
    },
    /// A dialect type kept as its exact source text (`!gpu.async.token`, `!foo.bar<...>`).
    Opaque(String),
}

/// An immutable, shared MLIR type.
#[derive(Clone, PartialEq, Eq)]
pub struct Type(Arc<TypeKind>);

impl Type {
    /// Wraps a kind.
    pub fn new(kind: TypeKind) -> Type {
        Type(Arc::new(kind))
    }
    /// The address of the shared type data (identity of the handle, for caches).
    pub fn as_ptr(&self) -> *const TypeKind {
        Arc::as_ptr(&self.0)
    }
    /// The structure.
    pub fn kind(&self) -> &TypeKind {
        &self.0
    }
    /// `iN` (signless). The common widths are shared handles (no allocation: builders
    /// such as `operandSegmentSizes` ask for `i32` once per op).
    pub fn int(width: u32) -> Type {
        static COMMON: [OnceLock<Type>; 5] = [const { OnceLock::new() }; 5];
        let make = || {
            Type::new(TypeKind::Integer {
                width,
                signedness: Signedness::Signless,
            })
        };
        let slot = match width {
            1 => &COMMON[0],
            8 => &COMMON[1],
            16 => &COMMON[2],
            32 => &COMMON[3],
            64 => &COMMON[4],
            _ => return make(),
        };
        slot.get_or_init(make).clone()
    }
    /// `index` (a shared handle).
    pub fn index() -> Type {
        static INDEX: OnceLock<Type> = OnceLock::new();
        INDEX.get_or_init(|| Type::new(TypeKind::Index)).clone()
    }
    /// A float type.
    pub fn float(k: FloatKind) -> Type {
        Type::new(TypeKind::Float(k))
    }
    /// `none`.
    pub fn none() -> Type {
        Type::new(TypeKind::None)
    }
    /// A function type.
    pub fn function(inputs: Vec<Type>, results: Vec<Type>) -> Type {
        Type::new(TypeKind::Function { inputs, results })
    }
    /// An identity-layout memref in the default memory space.
    pub fn memref(shape: Vec<i64>, elem: Type) -> Type {
        Type::new(TypeKind::MemRef {
            shape,
            elem,
            layout: None,
            memory_space: None,
        })
    }
    /// True for `iN`/`siN`/`uiN`.
    pub fn is_integer(&self) -> bool {
        matches!(self.kind(), TypeKind::Integer { .. })
    }
    /// True for `index`.
    pub fn is_index(&self) -> bool {
        matches!(self.kind(), TypeKind::Index)
    }
    /// True for float types.
    pub fn is_float(&self) -> bool {
        matches!(self.kind(), TypeKind::Float(_))
    }
    /// Shape of a ranked tensor, memref or vector.
    pub fn shape(&self) -> Option<&[i64]> {
        match self.kind() {
            TypeKind::Vector { shape, .. }
            | TypeKind::RankedTensor { shape, .. }
            | TypeKind::MemRef { shape, .. } => Some(shape),
            _ => None,
        }
    }
    /// Element type of a shaped or complex type.
    pub fn element_type(&self) -> Option<&Type> {
        match self.kind() {
            TypeKind::Vector { elem, .. }
            | TypeKind::RankedTensor { elem, .. }
            | TypeKind::UnrankedTensor { elem }
            | TypeKind::MemRef { elem, .. }
            | TypeKind::UnrankedMemRef { elem, .. }
            | TypeKind::Complex(elem) => Some(elem),
            _ => None,
        }
    }
    /// Bit width of scalar types (`index` counts as 64).
    pub fn bit_width(&self) -> Option<u64> {
        match self.kind() {
            TypeKind::Integer { width, .. } => Some(u64::from(*width)),
            TypeKind::Index => Some(64),
            TypeKind::Float(k) => Some(u64::from(k.bit_width())),
            TypeKind::Complex(e) => e.bit_width().map(|w| 2 * w),
            TypeKind::Vector { shape, elem, .. } => {
                let n: i64 = shape.iter().product();
                elem.bit_width().map(|w| w * n.max(0) as u64)
            }
            _ => None,
        }
    }
    /// Bytes one element of this (scalar, complex or vector) type occupies in memory:
    /// bit width rounded up to whole bytes; `index` is 8 bytes.
    pub fn byte_size(&self) -> Option<u64> {
        self.bit_width().map(|b| b.div_ceil(8))
    }
    /// For a static memref/tensor: element count times element byte size.
    pub fn static_byte_size(&self) -> Option<u64> {
        let shape = self.shape()?;
        if shape.contains(&DYNAMIC) {
            return None;
        }
        let n = shape
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(u64::try_from(d).ok()?))?;
        n.checked_mul(self.element_type()?.byte_size()?)
    }
    /// Inputs and results of a function type.
    pub fn as_function(&self) -> Option<(&[Type], &[Type])> {
        match self.kind() {
            TypeKind::Function { inputs, results } => Some((inputs, results)),
            _ => None,
        }
    }
}

/// Structural hash, consistent with the structural `Eq`: attribute parts (encodings,
/// layouts, memory spaces) contribute only their variant, which equal attributes share.
impl std::hash::Hash for Type {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let attr = |a: &Option<Attribute>, h: &mut H| match a {
            None => h.write_u8(0),
            Some(a) => std::mem::discriminant(a).hash(h),
        };
        match self.kind() {
            TypeKind::Integer { width, signedness } => {
                h.write_u8(1);
                width.hash(h);
                signedness.hash(h);
            }
            TypeKind::Index => h.write_u8(2),
            TypeKind::Float(k) => {
                h.write_u8(3);
                k.hash(h);
            }
            TypeKind::None => h.write_u8(4),
            TypeKind::Complex(e) => {
                h.write_u8(5);
                e.hash(h);
            }
            TypeKind::Vector {
                shape,
                scalable,
                elem,
            } => {
                h.write_u8(6);
                shape.hash(h);
                scalable.hash(h);
                elem.hash(h);
            }
            TypeKind::RankedTensor {
                shape,
                elem,
                encoding,
            } => {
                h.write_u8(7);
                shape.hash(h);
                elem.hash(h);
                attr(encoding, h);
            }
            TypeKind::UnrankedTensor { elem } => {
                h.write_u8(8);
                elem.hash(h);
            }
            TypeKind::MemRef {
                shape,
                elem,
                layout,
                memory_space,
            } => {
                h.write_u8(9);
                shape.hash(h);
                elem.hash(h);
                attr(layout, h);
                attr(memory_space, h);
            }
            TypeKind::UnrankedMemRef { elem, memory_space } => {
                h.write_u8(10);
                elem.hash(h);
                attr(memory_space, h);
            }
            TypeKind::Tuple(ts) => {
                h.write_u8(11);
                ts.hash(h);
            }
            TypeKind::Function { inputs, results } => {
                h.write_u8(12);
                inputs.hash(h);
                results.hash(h);
            }
            TypeKind::Opaque(s) => {
                h.write_u8(13);
                s.hash(h);
            }
        }
    }
}

impl fmt::Debug for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

fn write_list<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, t) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{t}")?;
    }
    Ok(())
}

fn write_dims(f: &mut fmt::Formatter<'_>, shape: &[i64]) -> fmt::Result {
    for d in shape {
        if *d == DYNAMIC {
            f.write_str("?x")?;
        } else {
            write!(f, "{d}x")?;
        }
    }
    Ok(())
}

/// Writes a list of types as a function result: bare for one non-function type, else parenthesised.
pub fn write_result_types(f: &mut dyn fmt::Write, results: &[Type]) -> fmt::Result {
    if results.len() == 1 && !matches!(results[0].kind(), TypeKind::Function { .. }) {
        return write!(f, "{}", results[0]);
    }
    f.write_char('(')?;
    for (i, t) in results.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{t}")?;
    }
    f.write_char(')')
}

fn write_space(f: &mut fmt::Formatter<'_>, a: &Attribute) -> fmt::Result {
    // An i64 integer memory space prints bare (`memref<4xf32, 1>`).
    match a {
        Attribute::Integer { value, ty } if *ty == Type::int(64) => write!(f, "{value}"),
        _ => write!(f, "{a}"),
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            TypeKind::Integer { width, signedness } => match signedness {
                Signedness::Signless => write!(f, "i{width}"),
                Signedness::Signed => write!(f, "si{width}"),
                Signedness::Unsigned => write!(f, "ui{width}"),
            },
            TypeKind::Index => f.write_str("index"),
            TypeKind::Float(k) => f.write_str(k.name()),
            TypeKind::None => f.write_str("none"),
            TypeKind::Complex(e) => write!(f, "complex<{e}>"),
            TypeKind::Vector {
                shape,
                scalable,
                elem,
            } => {
                f.write_str("vector<")?;
                for (i, d) in shape.iter().enumerate() {
                    if scalable.get(i).copied().unwrap_or(false) {
                        write!(f, "[{d}]x")?;
                    } else {
                        write!(f, "{d}x")?;
                    }
                }
                write!(f, "{elem}>")
            }
            TypeKind::RankedTensor {
                shape,
                elem,
                encoding,
            } => {
                f.write_str("tensor<")?;
                write_dims(f, shape)?;
                write!(f, "{elem}")?;
                if let Some(e) = encoding {
                    write!(f, ", {e}")?;
                }
                f.write_str(">")
            }
            TypeKind::UnrankedTensor { elem } => write!(f, "tensor<*x{elem}>"),
            TypeKind::MemRef {
                shape,
                elem,
                layout,
                memory_space,
            } => {
                f.write_str("memref<")?;
                write_dims(f, shape)?;
                write!(f, "{elem}")?;
                if let Some(l) = layout {
                    write!(f, ", {l}")?;
                }
                if let Some(s) = memory_space {
                    f.write_str(", ")?;
                    write_space(f, s)?;
                }
                f.write_str(">")
            }
            TypeKind::UnrankedMemRef { elem, memory_space } => {
                write!(f, "memref<*x{elem}")?;
                if let Some(s) = memory_space {
                    f.write_str(", ")?;
                    write_space(f, s)?;
                }
                f.write_str(">")
            }
            TypeKind::Tuple(ts) => {
                f.write_str("tuple<")?;
                write_list(f, ts)?;
                f.write_str(">")
            }
            TypeKind::Function { inputs, results } => {
                f.write_str("(")?;
                write_list(f, inputs)?;
                f.write_str(") -> ")?;
                write_result_types(f, results)
            }
            TypeKind::Opaque(s) => f.write_str(s),
        }
    }
}
