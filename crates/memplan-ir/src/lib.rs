//! memplan-ir: MLIR 22 text in pure Rust — a model with typed arena ids, a lexer and
//! parser with byte-span diagnostics, a printer (generic and custom forms) and a
//! structural verifier. Custom op syntaxes plug in through the [`Registry`]
//! (`dialects/*.rs`), the way MLIR ops provide `parse`/`print` through `OpAsmParser`
//! and `OpAsmPrinter`. See ARCHITECTURE.md (memplan-ir) and issue 4.
//!
//! ```
//! use memplan_ir::{parse_module, print_module, verify, ParseOptions, PrintOptions, Registry};
//! let reg = Registry::with_all_dialects();
//! let src = "func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n  return %0 : i32\n}\n";
//! let m = parse_module(src, &reg, ParseOptions::default()).unwrap();
//! verify(&m, &reg).unwrap();
//! let text = print_module(&m, &reg, PrintOptions::default());
//! assert!(text.contains("arith.addi %a, %a : i32"));
//! ```

pub mod affine;
pub mod attrs;
mod cpp_rules;
pub mod diag;
pub mod dialects;
pub mod fxhash;
pub mod ident;
pub mod ir;
pub mod lexer;
pub mod ods;
pub mod parser;
pub mod printer;
pub mod registry;
pub mod types;
pub mod verify;

pub use affine::{AffineExpr, AffineMap, IntegerSet};
pub use attrs::{Attribute, DenseArrayValues, Dict, Location, NamedAttr};
pub use diag::{Diagnostic, SourceMap, Span};
pub use ident::Ident;
pub use ir::{BlockId, Module, OpId, OperationState, RegionId, Use, ValueDef, ValueId};
pub use parser::{
    parse_module, Argument, Delimiter, PResult, ParseOptions, Parser, UnresolvedOperand,
};
pub use printer::{
    print_module, print_module_chunked, print_module_to, print_op, PrintOptions, Printer,
};
pub use registry::{OpDef, Registry};
pub use types::{FloatKind, Signedness, Type, TypeKind, DYNAMIC};
pub use verify::verify;
