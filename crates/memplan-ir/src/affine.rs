//! Affine expressions, maps and integer sets as real trees (the loop-fusion pass reasons
//! about them), with MLIR's representation: `a - b` is `a + b * -1`, `-a` is `a * -1`.
//! Printing follows `AsmPrinter::printAffineExprInternal` (mlir/lib/IR/AsmPrinter.cpp):
//! `d0 - s0`, `d0 * -1` as `-d0`, parentheses only where precedence needs them.
//! The parser lives in `parser/attrs.rs`; no simplification is done here (mlir-opt
//! re-simplifies on its side, and printing the parsed tree faithfully round-trips).

use std::fmt;

/// A node of an affine expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AffineExpr {
    /// `dN`.
    Dim(u32),
    /// `sN`.
    Symbol(u32),
    /// An integer constant.
    Const(i64),
    /// `a + b`.
    Add(Box<AffineExpr>, Box<AffineExpr>),
    /// `a * b`.
    Mul(Box<AffineExpr>, Box<AffineExpr>),
    /// `a mod b`.
    Mod(Box<AffineExpr>, Box<AffineExpr>),
    /// `a floordiv b`.
    FloorDiv(Box<AffineExpr>, Box<AffineExpr>),
    /// `a ceildiv b`.
    CeilDiv(Box<AffineExpr>, Box<AffineExpr>),
}

impl std::ops::Add for AffineExpr {
    type Output = AffineExpr;
    /// `a + b`.
    fn add(self, b: AffineExpr) -> AffineExpr {
        AffineExpr::Add(Box::new(self), Box::new(b))
    }
}

impl std::ops::Mul for AffineExpr {
    type Output = AffineExpr;
    /// `a * b`.
    fn mul(self, b: AffineExpr) -> AffineExpr {
        AffineExpr::Mul(Box::new(self), Box::new(b))
    }
}

impl std::ops::Sub for AffineExpr {
    type Output = AffineExpr;
    /// `a - b`, as MLIR builds it (`a + b * -1`, or `a + (-c)` for constants).
    fn sub(self, b: AffineExpr) -> AffineExpr {
        self + (-b)
    }
}

impl std::ops::Neg for AffineExpr {
    type Output = AffineExpr;
    /// `-a` (`a * -1`, or the negated constant).
    fn neg(self) -> AffineExpr {
        match self {
            AffineExpr::Const(c) => AffineExpr::Const(c.wrapping_neg()),
            e => e * AffineExpr::Const(-1),
        }
    }
}

impl AffineExpr {
    /// True if the expression contains no dims or symbols.
    pub fn is_constant(&self) -> bool {
        match self {
            AffineExpr::Dim(_) | AffineExpr::Symbol(_) => false,
            AffineExpr::Const(_) => true,
            AffineExpr::Add(a, b)
            | AffineExpr::Mul(a, b)
            | AffineExpr::Mod(a, b)
            | AffineExpr::FloorDiv(a, b)
            | AffineExpr::CeilDiv(a, b) => a.is_constant() && b.is_constant(),
        }
    }
    /// True if the expression mentions a dimension (is not symbolic-or-constant).
    pub fn has_dim(&self) -> bool {
        match self {
            AffineExpr::Dim(_) => true,
            AffineExpr::Symbol(_) | AffineExpr::Const(_) => false,
            AffineExpr::Add(a, b)
            | AffineExpr::Mul(a, b)
            | AffineExpr::Mod(a, b)
            | AffineExpr::FloorDiv(a, b)
            | AffineExpr::CeilDiv(a, b) => a.has_dim() || b.has_dim(),
        }
    }
    fn prec(&self) -> u8 {
        match self {
            AffineExpr::Add(..) => 1,
            AffineExpr::Mul(..)
            | AffineExpr::Mod(..)
            | AffineExpr::FloorDiv(..)
            | AffineExpr::CeilDiv(..) => 2,
            _ => 3,
        }
    }
    fn write(&self, f: &mut fmt::Formatter<'_>, min_prec: u8) -> fmt::Result {
        let paren = self.prec() < min_prec;
        if paren {
            f.write_str("(")?;
        }
        match self {
            AffineExpr::Dim(d) => write!(f, "d{d}")?,
            AffineExpr::Symbol(s) => write!(f, "s{s}")?,
            AffineExpr::Const(c) => write!(f, "{c}")?,
            AffineExpr::Add(a, b) => {
                a.write(f, 1)?;
                match &**b {
                    AffineExpr::Mul(x, y) if **y == AffineExpr::Const(-1) => {
                        f.write_str(" - ")?;
                        x.write(f, 2)?;
                    }
                    AffineExpr::Mul(x, y) if matches!(**y, AffineExpr::Const(c) if c < 0 && c != i64::MIN) =>
                    {
                        let AffineExpr::Const(c) = **y else {
                            unreachable!()
                        };
                        f.write_str(" - ")?;
                        x.write(f, 2)?;
                        write!(f, " * {}", -c)?;
                    }
                    AffineExpr::Const(c) if *c < 0 && *c != i64::MIN => write!(f, " - {}", -c)?,
                    _ => {
                        f.write_str(" + ")?;
                        b.write(f, 2)?;
                    }
                }
            }
            AffineExpr::Mul(a, b) if **b == AffineExpr::Const(-1) => {
                f.write_str("-")?;
                a.write(f, 3)?;
            }
            AffineExpr::Mul(a, b)
            | AffineExpr::Mod(a, b)
            | AffineExpr::FloorDiv(a, b)
            | AffineExpr::CeilDiv(a, b) => {
                a.write(f, 2)?;
                f.write_str(match self {
                    AffineExpr::Mul(..) => " * ",
                    AffineExpr::Mod(..) => " mod ",
                    AffineExpr::FloorDiv(..) => " floordiv ",
                    _ => " ceildiv ",
                })?;
                b.write(f, 3)?;
            }
        }
        if paren {
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl fmt::Display for AffineExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, 0)
    }
}

/// `(d0, d1)[s0] -> (d0 + s0, d1)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AffineMap {
    /// Number of dimensions.
    pub num_dims: u32,
    /// Number of symbols.
    pub num_symbols: u32,
    /// Result expressions.
    pub results: Vec<AffineExpr>,
}

impl AffineMap {
    /// The identity map on `n` dims.
    pub fn identity(n: u32) -> AffineMap {
        AffineMap {
            num_dims: n,
            num_symbols: 0,
            results: (0..n).map(AffineExpr::Dim).collect(),
        }
    }
    /// True if this is the identity map.
    pub fn is_identity(&self) -> bool {
        self.num_symbols == 0
            && self.results.len() == self.num_dims as usize
            && self
                .results
                .iter()
                .enumerate()
                .all(|(i, e)| *e == AffineExpr::Dim(i as u32))
    }
}

fn write_dims_syms(f: &mut fmt::Formatter<'_>, nd: u32, ns: u32) -> fmt::Result {
    f.write_str("(")?;
    for i in 0..nd {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "d{i}")?;
    }
    f.write_str(")")?;
    if ns > 0 {
        f.write_str("[")?;
        for i in 0..ns {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "s{i}")?;
        }
        f.write_str("]")?;
    }
    Ok(())
}

impl fmt::Display for AffineMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_dims_syms(f, self.num_dims, self.num_symbols)?;
        f.write_str(" -> (")?;
        for (i, e) in self.results.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{e}")?;
        }
        f.write_str(")")
    }
}

/// `(d0)[s0] : (d0 - s0 >= 0, d0 == 0)`: constraints are `expr >= 0` or `expr == 0`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IntegerSet {
    /// Number of dimensions.
    pub num_dims: u32,
    /// Number of symbols.
    pub num_symbols: u32,
    /// Constraint expressions with `true` for equalities (`== 0`), `false` for `>= 0`.
    pub constraints: Vec<(AffineExpr, bool)>,
}

impl fmt::Display for IntegerSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_dims_syms(f, self.num_dims, self.num_symbols)?;
        f.write_str(" : (")?;
        if self.constraints.is_empty() {
            f.write_str("0 == 0")?;
        }
        for (i, (e, eq)) in self.constraints.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{e} {} 0", if *eq { "==" } else { ">=" })?;
        }
        f.write_str(")")
    }
}
