//! The named linalg ops as data: the types of the generated table ([`NAMED_OPS`], made by
//! `scripts/gen_linalg_named.py` from MLIR 22's OpDSL output) and the engine that builds an
//! op's implicit body from its steps, the way MLIR's `RegionBuilderHelper`
//! (mlir/lib/Dialect/Linalg/IR/LinalgOps.cpp) does: casts with `convertScalarToDtype`'s rules,
//! unary / binary / ternary functions picked by element type, `arith.constant`,
//! `linalg.index` and a final `linalg.yield`. The hand-written structured ops with an implicit
//! body (`matmul`, `contract`, `elementwise`, ...) use the same engine.
//!
//! A table entry also carries the op's iterator types and default indexing maps (with
//! `strides` / `dilations` coefficients for convolutions and poolings); [`indexing_maps`]
//! turns them into [`AffineMap`]s for a given instance.

use std::sync::OnceLock;

use crate::affine::{AffineExpr, AffineMap};
use crate::attrs::Dict;
use crate::fxhash::FxHashMap;
use crate::ident::Ident;
use crate::ir::{BlockId, Module, OperationState, ValueId};
use crate::types::{FloatKind, TypeKind};
use crate::{Attribute, Type};

pub use crate::dialects::linalg_named_table::{BinaryFn, TernaryFn, UnaryFn, NAMED_OPS};

/// One named op of the OpDSL table.
#[derive(Debug)]
pub struct NamedOp {
    /// Full name (`linalg.conv_2d_nhwc_hwcf`).
    pub name: &'static str,
    /// Number of `ins` operands.
    pub inputs: u8,
    /// Number of `outs` operands.
    pub outputs: u8,
    /// The op's own attributes.
    pub attrs: Attrs,
    /// Iterator types, `p` (parallel) / `r` (reduction) per loop; empty: as many parallel
    /// loops as the first init's rank (element-wise ops).
    pub iterators: &'static str,
    /// Default indexing maps, one per operand, as the results of maps over
    /// `iterators.len()` dims; empty: element-wise (identity, or `() -> ()` for scalars).
    pub maps: &'static [&'static [E]],
    /// The implicit body: each step defines the value numbered `inputs + outputs + index`
    /// (the block arguments come first).
    pub body: &'static [Step],
    /// The values the body yields.
    pub yields: &'static [u8],
}

/// The attributes a named op declares besides `operandSegmentSizes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attrs {
    /// None.
    None,
    /// `cast` (`#linalg.type_fn<...>`, default `cast_signed`).
    Cast,
    /// `strides` and `dilations` (`dense<...> : tensor<Nxi64>`, default all ones).
    Window(u8),
}

/// One result of an indexing map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum E {
    /// `dN`.
    D(u8),
    /// `dA + dB`.
    Add(u8, u8),
    /// `dA * c1 + dB * c2` (a convolution window).
    Win(u8, C, u8, C),
}

/// A coefficient of a window expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum C {
    /// `strides[i]`.
    Stride(u8),
    /// `dilations[i]`.
    Dilation(u8),
}

/// One step of an implicit body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `TypeFn` cast of a value to a type.
    Cast(CastFn, To, u8),
    /// A unary function.
    Unary(UnaryFn, u8),
    /// A binary function.
    Binary(BinaryFn, u8, u8),
    /// A ternary function.
    Ternary(TernaryFn, u8, u8, u8),
    /// `arith.constant` of a typed literal (`"12345 : i64"`).
    Const(&'static str),
    /// `linalg.index N`.
    Index(u8),
}

/// Which cast a `Cast` step does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastFn {
    /// `cast_signed`.
    Signed,
    /// `cast_unsigned`.
    Unsigned,
    /// The op's `cast` attribute (default `cast_signed`).
    Attr,
}

/// The target type of a cast.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum To {
    /// The type of block argument N.
    Arg(u8),
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `iN`.
    Int(u8),
}

/// The table entry of a named OpDSL op (one hash lookup: parsing and verifying a named op
/// asks for it a few times, and `linalg.fill` is among the most frequent ops).
pub fn lookup(name: &str) -> Option<&'static NamedOp> {
    static INDEX: OnceLock<FxHashMap<&'static str, &'static NamedOp>> = OnceLock::new();
    INDEX
        .get_or_init(|| NAMED_OPS.iter().map(|o| (o.name, o)).collect())
        .get(name)
        .copied()
}

/// [`lookup`] for an op name: names that borrow the table's own text (every name the parser
/// or a builder takes from the registry) are found by address, without hashing the text.
pub fn lookup_ident(name: &Ident) -> Option<&'static NamedOp> {
    static BY_ADDR: OnceLock<FxHashMap<(usize, usize), &'static NamedOp>> = OnceLock::new();
    if let Some(k) = name.static_key() {
        let by_addr = BY_ADDR.get_or_init(|| {
            NAMED_OPS
                .iter()
                .map(|o| ((o.name.as_ptr() as usize, o.name.len()), o))
                .collect()
        });
        if let Some(o) = by_addr.get(&k) {
            return Some(o);
        }
    }
    lookup(name.as_str())
}

// ===== indexing maps =====

/// Values of a `strides` / `dilations` attribute (`dense<2> : tensor<2xi64>` or
/// `dense<[2, 1]> : ...`), `n` entries; all ones when absent.
pub fn window_values(a: Option<&Attribute>, n: usize) -> Option<Vec<i64>> {
    let Some(a) = a else {
        return Some(vec![1; n]);
    };
    let Attribute::Elements { kind, body, ty } = a else {
        return None;
    };
    if kind != "dense"
        || ty.element_type() != Some(&Type::int(64))
        || ty.shape() != Some(&[n as i64])
    {
        return None;
    }
    let body = body.trim();
    let vals: Option<Vec<i64>> = match body.strip_prefix('[').and_then(|b| b.strip_suffix(']')) {
        Some(list) => list.split(',').map(|x| x.trim().parse().ok()).collect(),
        None => body.parse().ok().map(|v| vec![v; n]),
    };
    vals.filter(|v| v.len() == n)
}

fn scaled(d: u8, c: i64) -> AffineExpr {
    let d = AffineExpr::Dim(u32::from(d));
    match c {
        1 => d,
        _ => d * AffineExpr::Const(c),
    }
}

/// The default indexing maps of a named op instance, as MLIR computes them (strides and
/// dilations substituted, `d * 1` simplified). `attrs` holds the op's properties / attributes
/// and `ranks` the operands' ranks (element-wise ops need them); `None` when an attribute is
/// malformed.
pub fn indexing_maps(op: &NamedOp, attrs: &Dict, ranks: &[usize]) -> Option<Vec<AffineMap>> {
    if op.maps.is_empty() {
        let loops = *ranks.get(usize::from(op.inputs))?;
        return Some(
            ranks
                .iter()
                .map(|&r| match r {
                    0 => AffineMap {
                        num_dims: loops as u32,
                        num_symbols: 0,
                        results: Vec::new(),
                    },
                    _ => AffineMap::identity(loops as u32),
                })
                .collect(),
        );
    }
    let (strides, dilations) = match op.attrs {
        Attrs::Window(n) => (
            window_values(attrs.get("strides"), usize::from(n))?,
            window_values(attrs.get("dilations"), usize::from(n))?,
        ),
        _ => (Vec::new(), Vec::new()),
    };
    let coef = |c: C| match c {
        C::Stride(i) => strides[usize::from(i)],
        C::Dilation(i) => dilations[usize::from(i)],
    };
    let dims = op.iterators.len() as u32;
    Some(
        op.maps
            .iter()
            .map(|res| AffineMap {
                num_dims: dims,
                num_symbols: 0,
                results: res
                    .iter()
                    .map(|e| match *e {
                        E::D(d) => AffineExpr::Dim(u32::from(d)),
                        E::Add(a, b) => {
                            AffineExpr::Dim(u32::from(a)) + AffineExpr::Dim(u32::from(b))
                        }
                        E::Win(a, ca, b, cb) => match (coef(ca), coef(cb)) {
                            (0, 0) => AffineExpr::Const(0),
                            (0, y) => scaled(b, y),
                            (x, 0) => scaled(a, x),
                            (x, y) => scaled(a, x) + scaled(b, y),
                        },
                    })
                    .collect(),
            })
            .collect(),
    )
}

// ===== building bodies =====

/// Builds the body ops of a named op into block `b`, whose arguments are the block
/// arguments; `unsigned` is the op's `cast` attribute. Errors carry MLIR's message.
pub(crate) fn build_body(
    m: &mut Module,
    b: BlockId,
    steps: &[Step],
    yields: &[u8],
    unsigned: bool,
) -> Result<(), String> {
    if steps.is_empty() {
        // Forwarding bodies (fill, transpose, broadcast): yield block arguments, no scratch list.
        let args = m.block_args(b);
        let ys: Option<Vec<ValueId>> = yields
            .iter()
            .map(|&i| args.get(usize::from(i)).copied())
            .collect();
        let mut st = OperationState::new("linalg.yield");
        st.operands = ys.ok_or_else(|| "region builder yields a missing value".to_string())?;
        let o = m.create_op(st);
        m.append_op(b, o);
        return Ok(());
    }
    let mut vals: Vec<ValueId> = m.block_args(b).to_vec();
    let mut bb = Builder { m, b };
    for s in steps {
        let v = |i: u8| -> Result<ValueId, String> {
            vals.get(usize::from(i))
                .copied()
                .ok_or_else(|| "region builder refers to a missing value".to_string())
        };
        let out = match *s {
            Step::Cast(f, to, x) => {
                let to = match to {
                    To::Arg(i) => bb.m.value_type(v(i)?).clone(),
                    To::F32 => Type::float(FloatKind::F32),
                    To::F64 => Type::float(FloatKind::F64),
                    To::Int(w) => Type::int(u32::from(w)),
                };
                let uns = match f {
                    CastFn::Signed => false,
                    CastFn::Unsigned => true,
                    CastFn::Attr => unsigned,
                };
                bb.cast(v(x)?, &to, uns)
            }
            Step::Unary(f, x) => bb.unary(f, v(x)?)?,
            Step::Binary(f, x, y) => bb.binary(f, v(x)?, v(y)?)?,
            Step::Ternary(TernaryFn::Select, x, y, z) => {
                let (x, y, z) = (v(x)?, v(y)?, v(z)?);
                let t = bb.m.value_type(y).clone();
                bb.op("arith.select", &[x, y, z], t, Dict::new())
            }
            Step::Const(lit) => bb.constant(lit)?,
            Step::Index(d) => {
                let mut p = Dict::new();
                p.set("dim", Attribute::int(i128::from(d), Type::int(64)));
                bb.op("linalg.index", &[], Type::index(), p)
            }
        };
        vals.push(out);
    }
    let ys: Vec<ValueId> = yields
        .iter()
        .map(|&i| vals.get(usize::from(i)).copied())
        .collect::<Option<_>>()
        .ok_or_else(|| "region builder yields a missing value".to_string())?;
    let mut st = OperationState::new("linalg.yield");
    st.operands = ys;
    let o = bb.m.create_op(st);
    bb.m.append_op(b, o);
    Ok(())
}

struct Builder<'m> {
    m: &'m mut Module,
    b: BlockId,
}

fn fastmath() -> Dict {
    let mut d = Dict::new();
    d.set("fastmath", crate::dialects::arith::fastmath_none());
    d
}

fn overflow() -> Dict {
    let mut d = Dict::new();
    d.set("overflowFlags", crate::dialects::arith::overflow_none());
    d
}

fn is_int(t: &Type) -> bool {
    matches!(t.kind(), TypeKind::Integer { .. })
}

fn is_complex(t: &Type) -> bool {
    matches!(t.kind(), TypeKind::Complex(_))
}

impl Builder<'_> {
    fn op(&mut self, name: &'static str, operands: &[ValueId], ty: Type, props: Dict) -> ValueId {
        let mut st = OperationState::new(name);
        st.operands = operands.to_vec();
        st.result_types.push(ty);
        st.props = props;
        let o = self.m.create_op(st);
        self.m.append_op(self.b, o);
        self.m.result(o, 0)
    }

    /// `convertScalarToDtype`: no op when the types match or no cast applies (MLIR then
    /// only warns; the yield's type check reports the mismatch).
    fn cast(&mut self, v: ValueId, to: &Type, unsigned: bool) -> ValueId {
        let from = self.m.value_type(v).clone();
        if from == *to {
            return v;
        }
        let w = |t: &Type| t.bit_width().unwrap_or(0);
        let name = if is_int(to) {
            if from.is_float() {
                if unsigned {
                    "arith.fptoui"
                } else {
                    "arith.fptosi"
                }
            } else if from.is_index() {
                "arith.index_cast"
            } else if is_int(&from) {
                match w(to).cmp(&w(&from)) {
                    std::cmp::Ordering::Greater if unsigned => "arith.extui",
                    std::cmp::Ordering::Greater => "arith.extsi",
                    std::cmp::Ordering::Less => "arith.trunci",
                    std::cmp::Ordering::Equal => return v,
                }
            } else {
                return v;
            }
        } else if to.is_float() {
            if is_int(&from) {
                if unsigned {
                    "arith.uitofp"
                } else {
                    "arith.sitofp"
                }
            } else if from.is_float() {
                match w(to).cmp(&w(&from)) {
                    std::cmp::Ordering::Greater => "arith.extf",
                    std::cmp::Ordering::Less => "arith.truncf",
                    std::cmp::Ordering::Equal => return v,
                }
            } else {
                return v;
            }
        } else {
            return v;
        };
        self.op(name, &[v], to.clone(), Dict::new())
    }

    fn unary(&mut self, f: UnaryFn, v: ValueId) -> Result<ValueId, String> {
        let t = self.m.value_type(v).clone();
        if !t.is_float() {
            return Err("unsupported non numeric type".into());
        }
        let name = match f {
            UnaryFn::Exp => "math.exp",
            UnaryFn::Log => "math.log",
            UnaryFn::Abs => "math.absf",
            UnaryFn::Ceil => "math.ceil",
            UnaryFn::Floor => "math.floor",
            UnaryFn::Negf => "arith.negf",
            UnaryFn::Round => "math.round",
            UnaryFn::Sqrt => "math.sqrt",
            UnaryFn::Rsqrt => "math.rsqrt",
            UnaryFn::Tanh => "math.tanh",
            UnaryFn::Erf => "math.erf",
            UnaryFn::Square => return Ok(self.op("arith.mulf", &[v, v], t, fastmath())),
            UnaryFn::Reciprocal => {
                let mut p = Dict::new();
                p.set(
                    "value",
                    Attribute::Float {
                        value: 1.0,
                        bits: None,
                        ty: t.clone(),
                    },
                );
                let one = self.op("arith.constant", &[], t.clone(), p);
                return Ok(self.op("arith.divf", &[one, v], t, fastmath()));
            }
        };
        Ok(self.op(name, &[v], t, fastmath()))
    }

    fn binary(&mut self, f: BinaryFn, a: ValueId, b: ValueId) -> Result<ValueId, String> {
        let (ta, tb) = (self.m.value_type(a).clone(), self.m.value_type(b).clone());
        let complex = is_complex(&ta) && is_complex(&tb);
        let float = ta.is_float() && tb.is_float();
        let int = is_int(&ta) && is_int(&tb);
        let boolean = int && ta.bit_width() == Some(1) && tb.bit_width() == Some(1);
        if !complex && !float && !int {
            return Err(format!(
                "Cannot build binary Linalg operation: expects allComplex, allFloatingPoint, or allInteger, got '{ta}' and '{tb}'"
            ));
        }
        let (name, props) = match f {
            BinaryFn::Add if complex => ("complex.add", fastmath()),
            BinaryFn::Add if float => ("arith.addf", fastmath()),
            BinaryFn::Add if boolean => ("arith.ori", Dict::new()),
            BinaryFn::Add => ("arith.addi", overflow()),
            BinaryFn::Sub if complex => ("complex.sub", fastmath()),
            BinaryFn::Sub if float => ("arith.subf", fastmath()),
            BinaryFn::Sub if boolean => {
                return Err("unsupported operation: sub with bools".into());
            }
            BinaryFn::Sub => ("arith.subi", overflow()),
            BinaryFn::Mul if complex => ("complex.mul", fastmath()),
            BinaryFn::Mul if float => ("arith.mulf", fastmath()),
            BinaryFn::Mul if boolean => ("arith.andi", Dict::new()),
            BinaryFn::Mul => ("arith.muli", overflow()),
            BinaryFn::Div if complex => ("complex.div", fastmath()),
            BinaryFn::Div if float => ("arith.divf", fastmath()),
            BinaryFn::Div if boolean => {
                return Err("unsupported operation: div with bools".into());
            }
            BinaryFn::Div => ("arith.divsi", Dict::new()),
            BinaryFn::DivUnsigned if !int || boolean => {
                return Err("unsupported operation: unsigned div not on uint".into());
            }
            BinaryFn::DivUnsigned => ("arith.divui", Dict::new()),
            BinaryFn::MaxSigned
            | BinaryFn::MinSigned
            | BinaryFn::MaxUnsigned
            | BinaryFn::MinUnsigned
                if complex =>
            {
                return Err(format!("unsupported operation: {} with complex", f.name()));
            }
            BinaryFn::MaxUnsigned | BinaryFn::MinUnsigned if !int || boolean => {
                let which = if f == BinaryFn::MaxUnsigned {
                    "max"
                } else {
                    "min"
                };
                return Err(format!(
                    "unsupported operation: unsigned {which} not on uint"
                ));
            }
            BinaryFn::MaxSigned if float => ("arith.maximumf", fastmath()),
            BinaryFn::MinSigned if float => ("arith.minimumf", fastmath()),
            BinaryFn::MaxSigned => ("arith.maxsi", Dict::new()),
            BinaryFn::MinSigned => ("arith.minsi", Dict::new()),
            BinaryFn::MaxUnsigned => ("arith.maxui", Dict::new()),
            BinaryFn::MinUnsigned => ("arith.minui", Dict::new()),
            BinaryFn::Powf if float => ("math.powf", fastmath()),
            BinaryFn::Powf => return Err("expected allFloatingPoint for powf".into()),
        };
        Ok(self.op(name, &[a, b], ta, props))
    }

    /// `arith.constant` of `"V : T"` (integer or float literal).
    fn constant(&mut self, lit: &str) -> Result<ValueId, String> {
        let bad = || format!("unsupported constant '{lit}'");
        let (v, t) = lit.split_once(" : ").ok_or_else(bad)?;
        let ty = match t {
            "f32" => Type::float(FloatKind::F32),
            "f64" => Type::float(FloatKind::F64),
            _ => {
                let w: u32 = t
                    .strip_prefix('i')
                    .and_then(|w| w.parse().ok())
                    .ok_or_else(bad)?;
                Type::int(w)
            }
        };
        let attr = if ty.is_float() {
            Attribute::Float {
                value: v.parse().map_err(|_| bad())?,
                bits: None,
                ty: ty.clone(),
            }
        } else {
            Attribute::int(v.parse().map_err(|_| bad())?, ty.clone())
        };
        let mut p = Dict::new();
        p.set("value", attr);
        Ok(self.op("arith.constant", &[], ty, p))
    }
}
