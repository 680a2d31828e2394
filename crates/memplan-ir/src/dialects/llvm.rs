//! The custom forms of the `llvm` dialect ops that MLIR's lowering to LLVM emits
//! (mlir/lib/Dialect/LLVMIR/IR/LLVMDialect.cpp), as `mlir-opt-22` prints them. Only parsing
//! is custom: memplan prints these ops in generic form, which every MLIR tool reads back.
//! The parsers fill the same properties the generic form carries, so the generic output
//! translates to LLVM IR unchanged.
//!
//! ```text
//! llvm.func @f(%arg0: !llvm.ptr, %arg1: i64) -> i64 attributes {sym_visibility = "private"} {...}
//! %0 = llvm.mlir.constant(1024 : index) : i64
//! %1 = llvm.alloca %0 x f32 : (i64) -> !llvm.ptr
//! %2 = llvm.insertvalue %1, %s[1] : !llvm.struct<(ptr, ptr, i64)>
//! %3 = llvm.getelementptr inbounds|nuw %1[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
//! %4 = llvm.load %3 : !llvm.ptr -> f32
//! llvm.store %4, %3 : f32, !llvm.ptr
//! %5 = llvm.icmp "slt" %i, %n : i64
//! llvm.call @g(%1) : (!llvm.ptr) -> ()
//! llvm.intr.lifetime.start %1 : !llvm.ptr
//! llvm.switch %c : i32, ^bb1(%x : f32) [
//!   0: ^bb2,
//!   -5: ^bb1(%x : f32)
//! ]
//! llvm.mlir.global private constant @cst(dense<1.0> : tensor<4xf32>) {addr_space = 0 : i32} : !llvm.array<4 x f32>
//! llvm.mlir.global private @buf() {addr_space = 0 : i32} : !llvm.array<4 x i32> { ... }
//! %6 = llvm.mlir.addressof @cst : !llvm.ptr
//! ```

use crate::attrs::{Attribute, Dict};
use crate::ir::OperationState;
use crate::lexer::{skip_trivia, Tok};
use crate::parser::{PResult, Parser, UnresolvedOperand};
use crate::registry::{traits, OpDef, Registry};
use crate::types::{FloatKind, Type, TypeKind};
use crate::Delimiter;

/// `kDynamicIndex` of `llvm.getelementptr`'s `rawConstantIndices`.
pub const GEP_DYNAMIC_INDEX: i64 = i32::MIN as i64;

const BINARY_INT: &[&str] = &[
    "llvm.add",
    "llvm.sub",
    "llvm.mul",
    "llvm.shl",
    "llvm.udiv",
    "llvm.sdiv",
    "llvm.urem",
    "llvm.srem",
    "llvm.and",
    "llvm.or",
    "llvm.xor",
    "llvm.lshr",
    "llvm.ashr",
];
const BINARY_FLOAT: &[&str] = &[
    "llvm.fadd",
    "llvm.fsub",
    "llvm.fmul",
    "llvm.fdiv",
    "llvm.frem",
];
const CASTS: &[&str] = &[
    "llvm.sitofp",
    "llvm.uitofp",
    "llvm.fptosi",
    "llvm.fptoui",
    "llvm.trunc",
    "llvm.zext",
    "llvm.sext",
    "llvm.fpext",
    "llvm.fptrunc",
    "llvm.bitcast",
    "llvm.ptrtoint",
    "llvm.inttoptr",
    "llvm.addrspacecast",
];
/// Ops printed `llvm.NAME : T` (no operands, one result).
const CONSTANTS: &[&str] = &[
    "llvm.mlir.poison",
    "llvm.mlir.zero",
    "llvm.mlir.undef",
    "llvm.intr.stacksave",
];
/// Intrinsics printed `llvm.intr.NAME(%a, %b) : (T, T) -> T`.
const CALL_LIKE_INTRINSICS: &[&str] = &[
    "llvm.intr.maximum",
    "llvm.intr.minimum",
    "llvm.intr.maxnum",
    "llvm.intr.minnum",
    "llvm.intr.smax",
    "llvm.intr.smin",
    "llvm.intr.umax",
    "llvm.intr.umin",
    "llvm.intr.fabs",
    "llvm.intr.sqrt",
    "llvm.intr.exp",
    "llvm.intr.exp2",
    "llvm.intr.log",
    "llvm.intr.log2",
    "llvm.intr.log10",
    "llvm.intr.pow",
    "llvm.intr.powi",
    "llvm.intr.fma",
    "llvm.intr.fmuladd",
    "llvm.intr.copysign",
    "llvm.intr.floor",
    "llvm.intr.ceil",
    "llvm.intr.round",
    "llvm.intr.roundeven",
    "llvm.intr.trunc",
    "llvm.intr.sin",
    "llvm.intr.cos",
    "llvm.intr.tanh",
    "llvm.intr.ctpop",
];
/// Ops printed `llvm.intr.NAME %p : T` (one operand, no result).
const PTR_INTRINSICS: &[&str] = &[
    "llvm.intr.lifetime.start",
    "llvm.intr.lifetime.end",
    "llvm.intr.stackrestore",
];

/// Registers the parsers of `llvm.*`.
pub fn register(r: &mut Registry) {
    r.register(OpDef {
        parse: Some(parse_func),
        traits: traits::ISOLATED_FROM_ABOVE,
        ..OpDef::new("llvm.func")
    });
    r.register(OpDef {
        parse: Some(parse_constant),
        ..OpDef::new("llvm.mlir.constant")
    });
    for n in CONSTANTS {
        r.register(OpDef {
            parse: Some(parse_colon_result),
            ..OpDef::new(n)
        });
    }
    for n in BINARY_INT {
        r.register(OpDef {
            parse: Some(parse_binary),
            ..OpDef::new(n)
        });
    }
    for n in BINARY_FLOAT {
        r.register(OpDef {
            parse: Some(parse_binary),
            ..OpDef::new(n)
        });
    }
    for n in CASTS {
        r.register(OpDef {
            parse: Some(parse_cast),
            ..OpDef::new(n)
        });
    }
    for n in PTR_INTRINSICS {
        r.register(OpDef {
            parse: Some(parse_ptr_intrinsic),
            ..OpDef::new(n)
        });
    }
    for n in CALL_LIKE_INTRINSICS {
        r.register(OpDef {
            parse: Some(parse_call_like_intrinsic),
            ..OpDef::new(n)
        });
    }
    r.register(OpDef {
        parse: Some(parse_unary),
        ..OpDef::new("llvm.fneg")
    });
    r.register(OpDef {
        parse: Some(parse_fcmp),
        ..OpDef::new("llvm.fcmp")
    });
    r.register(OpDef {
        parse: Some(parse_icmp),
        ..OpDef::new("llvm.icmp")
    });
    r.register(OpDef {
        parse: Some(parse_select),
        ..OpDef::new("llvm.select")
    });
    r.register(OpDef {
        parse: Some(parse_insertvalue),
        ..OpDef::new("llvm.insertvalue")
    });
    r.register(OpDef {
        parse: Some(parse_extractvalue),
        ..OpDef::new("llvm.extractvalue")
    });
    r.register(OpDef {
        parse: Some(parse_alloca),
        inherent: &["elem_type", "alignment"],
        ..OpDef::new("llvm.alloca")
    });
    r.register(OpDef {
        parse: Some(parse_gep),
        inherent: &["elem_type", "rawConstantIndices", "noWrapFlags"],
        ..OpDef::new("llvm.getelementptr")
    });
    r.register(OpDef {
        parse: Some(parse_load),
        inherent: &["ordering"],
        ..OpDef::new("llvm.load")
    });
    r.register(OpDef {
        parse: Some(parse_store),
        ..OpDef::new("llvm.store")
    });
    r.register(OpDef {
        parse: Some(parse_call),
        inherent: &["op_bundle_sizes"],
        ..OpDef::new("llvm.call")
    });
    r.register(OpDef {
        parse: Some(parse_call_intrinsic),
        inherent: &["intrin", "op_bundle_sizes", "op_bundle_tags"],
        ..OpDef::new("llvm.call_intrinsic")
    });
    r.register(OpDef {
        parse: Some(parse_br),
        traits: traits::TERMINATOR,
        ..OpDef::new("llvm.br")
    });
    r.register(OpDef {
        parse: Some(parse_cond_br),
        traits: traits::TERMINATOR,
        ..OpDef::new("llvm.cond_br")
    });
    r.register(OpDef {
        parse: Some(parse_return),
        traits: traits::TERMINATOR,
        ..OpDef::new("llvm.return")
    });
    r.register(OpDef {
        parse: Some(parse_switch),
        traits: traits::TERMINATOR,
        inherent: &["case_values", "case_operand_segments", "branch_weights"],
        ..OpDef::new("llvm.switch")
    });
    r.register(OpDef {
        parse: Some(parse_global),
        inherent: GLOBAL_INHERENT,
        ..OpDef::new("llvm.mlir.global")
    });
    r.register(OpDef {
        parse: Some(parse_invoke),
        traits: traits::TERMINATOR,
        inherent: &["op_bundle_sizes"],
        ..OpDef::new("llvm.invoke")
    });
    r.register(OpDef {
        parse: Some(parse_landingpad),
        ..OpDef::new("llvm.landingpad")
    });
    r.register(OpDef {
        parse: Some(parse_alias),
        inherent: ALIAS_INHERENT,
        ..OpDef::new("llvm.mlir.alias")
    });
    r.register(OpDef {
        parse: Some(parse_addressof),
        inherent: &["global_name"],
        ..OpDef::new("llvm.mlir.addressof")
    });
}

/// Inherent attributes of `llvm.mlir.global` that its custom form prints in the attribute
/// dictionary (they are properties in the generic form).
const GLOBAL_INHERENT: &[&str] = &[
    "addr_space",
    "alignment",
    "section",
    "dso_local",
    "externally_initialized",
    "comdat",
    "dbg_exprs",
    "target_specific_attrs",
    "global_type",
    "sym_name",
    "linkage",
    "constant",
    "value",
    "unnamed_addr",
    "visibility_",
    "thread_local_",
];

/// Inherent attributes of `llvm.mlir.alias` (properties in the generic form).
const ALIAS_INHERENT: &[&str] = &[
    "alias_type",
    "sym_name",
    "linkage",
    "dso_local",
    "thread_local_",
    "unnamed_addr",
    "visibility_",
];

// ===================== LLVM type spelling =====================

/// The spelling of `t` inside an LLVM type (`!llvm.ptr` -> `ptr`).
fn short_name(t: &Type) -> String {
    match t.kind() {
        TypeKind::Opaque(s) => s.strip_prefix("!llvm.").unwrap_or(s).to_string(),
        _ => t.to_string(),
    }
}

/// A type written inside an LLVM aggregate (`ptr`, `i64`, `array<2 x i64>`, `f32`) as a
/// memplan type (`!llvm.ptr`, `i64`, ...).
fn from_short(s: &str) -> Type {
    let s = s.trim();
    if let Some(w) = s.strip_prefix('i').and_then(|w| w.parse::<u32>().ok()) {
        return Type::int(w);
    }
    if let Some(k) = FloatKind::from_name(s) {
        return Type::float(k);
    }
    if s.starts_with('!') {
        return Type::new(TypeKind::Opaque(s.to_string()));
    }
    // builtin types nested in LLVM aggregates (`vector<8xf32>`, `index`)
    if let Some(t) = crate::parser::parse_type_str(s) {
        return t;
    }
    Type::new(TypeKind::Opaque(format!("!llvm.{s}")))
}

/// Splits `s` at top-level commas.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push(&s[start..]);
    }
    out
}

/// The element of the aggregate `t` at `pos` (`llvm.extractvalue`'s result type).
pub fn aggregate_element(t: &Type, pos: &[i64]) -> Option<Type> {
    let mut cur = t.clone();
    for &i in pos {
        let TypeKind::Opaque(s) = cur.kind() else {
            return None;
        };
        let s = s.strip_prefix("!llvm.").unwrap_or(s);
        let next = if let Some(body) = s.strip_prefix("struct<") {
            let body = body.strip_suffix('>')?.trim();
            let body = body.strip_prefix("packed").unwrap_or(body).trim();
            let body = body.strip_prefix('(')?.strip_suffix(')')?;
            from_short(split_top(body).get(usize::try_from(i).ok()?)?)
        } else if let Some(body) = s.strip_prefix("array<") {
            let body = body.strip_suffix('>')?;
            let (_, elem) = body.split_once('x')?;
            from_short(elem)
        } else {
            return None;
        };
        cur = next;
    }
    Some(cur)
}

// ===================== helpers =====================

fn parse_int_list(p: &mut Parser<'_>) -> PResult<Vec<i64>> {
    let mut v = Vec::new();
    p.parse_comma_separated_list(Delimiter::Square, &mut |p| {
        v.push(p.parse_integer()?);
        Ok(())
    })?;
    Ok(v)
}

/// `overflow<nsw, nuw>` -> `overflowFlags`.
fn parse_overflow(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    if p.parse_optional_keyword("overflow") {
        p.parse_less()?;
        let mut flags = 0;
        loop {
            match p.parse_keyword_any("overflow flag")? {
                "nsw" => flags |= 1,
                "nuw" => flags |= 2,
                "none" => {}
                f => return Err(p.error_here(format!("unknown overflow flag '{f}'"))),
            }
            if !p.parse_optional_comma() {
                break;
            }
        }
        p.parse_greater()?;
        st.props
            .set("overflowFlags", Attribute::int(flags, Type::int(32)));
    }
    Ok(())
}

fn result_of(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(&mut st.attrs)?;
    p.parse_colon()?;
    st.result_types.push(p.parse_type()?);
    Ok(())
}

// ===================== ops =====================

/// LLVM's calling-convention keywords (MLIR's `CConv` enum).
const CCONVS: &[&str] = &[
    "ccc",
    "fastcc",
    "coldcc",
    "cc_10",
    "cc_11",
    "anyregcc",
    "preserve_mostcc",
    "preserve_allcc",
    "swiftcc",
    "cxx_fast_tlscc",
    "tailcc",
    "cfguard_checkcc",
    "swifttailcc",
    "x86_stdcallcc",
    "x86_fastcallcc",
    "arm_apcscc",
    "arm_aapcscc",
    "arm_aapcs_vfpcc",
    "msp430_intrcc",
    "x86_thiscallcc",
    "ptx_kernelcc",
    "ptx_devicecc",
    "spir_funccc",
    "spir_kernelcc",
    "intel_ocl_bicc",
    "x86_64_sysvcc",
    "win64cc",
    "x86_vectorcallcc",
    "hhvmcc",
    "hhvm_ccc",
    "x86_intrcc",
    "avr_intrcc",
    "avr_builtincc",
    "amdgpu_vscc",
    "amdgpu_gscc",
    "amdgpu_cscc",
    "amdgpu_kernelcc",
    "x86_regcallcc",
    "amdgpu_hscc",
    "msp430_builtincc",
    "amdgpu_lscc",
    "amdgpu_escc",
    "aarch64_vectorcallcc",
    "aarch64_sve_vectorcallcc",
    "wasm_emscripten_invokecc",
    "amdgpu_gfxcc",
    "m68k_intrcc",
];

fn parse_func(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    if let Some(l) = p.parse_optional_keyword_of(&crate::ods::LINKAGES) {
        st.props
            .set("linkage", Attribute::Opaque(format!("#llvm.linkage<{l}>")));
    }
    // MLIR's LLVMFuncOp::parse: [visibility] [unnamed_addr] [cconv] before the name
    if let Some(v) = p.parse_optional_keyword_of(&["default", "hidden", "protected"]) {
        let n = match v {
            "hidden" => 1,
            "protected" => 2,
            _ => 0,
        };
        st.props
            .set("visibility_", Attribute::int(n, Type::int(64)));
    }
    if let Some(u) = p.parse_optional_keyword_of(&["unnamed_addr", "local_unnamed_addr"]) {
        let n = if u == "unnamed_addr" { 2 } else { 1 };
        st.props
            .set("unnamed_addr", Attribute::int(n, Type::int(64)));
    }
    if let Some(cc) = p.parse_optional_keyword_of(CCONVS) {
        st.props
            .set("CConv", Attribute::Opaque(format!("#llvm.cconv<{cc}>")));
    }
    let name_span = p.current_span();
    let name = p.parse_symbol_name()?;
    st.props.set("sym_name", Attribute::string(&name));
    let mut args = Vec::new();
    let mut in_types = Vec::new();
    let mut arg_attrs = Vec::new();
    let mut vararg = false;
    p.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
        if p.peek_text() == "..." || p.peek_text() == "." {
            while p.peek_text() == "." || p.peek_text() == "..." {
                p.bump();
            }
            vararg = true;
        } else if vararg {
            return Err(p.error_here("variadic arguments must be in the end of the argument list"));
        } else if p.at(Tok::PercentId) {
            let a = p.parse_argument(true, true)?;
            in_types.push(a.ty.clone());
            arg_attrs.push(a.attrs.clone().unwrap_or_default());
            args.push(a);
        } else {
            in_types.push(p.parse_type()?);
            let mut d = Dict::new();
            p.parse_optional_attr_dict(&mut d)?;
            arg_attrs.push(d);
        }
        Ok(())
    })?;
    let (outs, res_attrs) = super::func::parse_result_list(p)?;
    if !in_types.iter().all(crate::cpp_rules::llvm_compatible) {
        return Err(crate::diag::Diagnostic::new(
            name_span,
            "failed to construct function type: expected LLVM type for function arguments",
        ));
    }
    if let Some(t) = outs.iter().find(|t| !crate::cpp_rules::llvm_compatible(t)) {
        return Err(crate::diag::Diagnostic::new(
            name_span,
            format!(
                "failed to construct function type: expected LLVM type for function results'{t}'"
            ),
        ));
    }
    let ret = match &outs[..] {
        [] => "void".to_string(),
        [t] => short_name(t),
        _ => return Err(p.error_here("llvm.func returns at most one value")),
    };
    let mut ins: Vec<String> = in_types.iter().map(short_name).collect();
    if vararg {
        ins.push("...".into());
    }
    st.props.set(
        "function_type",
        Attribute::Type(Type::new(TypeKind::Opaque(format!(
            "!llvm.func<{ret} ({})>",
            ins.join(", ")
        )))),
    );
    if arg_attrs.iter().any(|d| !d.is_empty()) {
        st.props.set(
            "arg_attrs",
            Attribute::Array(arg_attrs.into_iter().map(Attribute::Dict).collect()),
        );
    }
    if res_attrs.iter().any(|d| !d.is_empty()) {
        st.props.set(
            "res_attrs",
            Attribute::Array(res_attrs.into_iter().map(Attribute::Dict).collect()),
        );
    }
    if p.parse_optional_keyword("vscale_range") {
        p.parse_lparen()?;
        let lo = p.parse_integer()?;
        p.parse_comma()?;
        let hi = p.parse_integer()?;
        p.parse_rparen()?;
        st.props.set(
            "vscale_range",
            Attribute::Opaque(format!(
                "#llvm.vscale_range<minRange = {lo} : i32, maxRange = {hi} : i32>"
            )),
        );
    }
    if p.parse_optional_keyword("comdat") {
        p.parse_lparen()?;
        let c = p.parse_attribute()?;
        p.parse_rparen()?;
        st.props.set("comdat", c);
    }
    p.parse_optional_attr_dict_with_keyword(&mut st.attrs)?;
    // What mlir-opt's custom parser sets when the keyword is absent.
    if !st.attrs.contains("unnamed_addr") && !st.props.contains("unnamed_addr") {
        st.props
            .set("unnamed_addr", Attribute::int(0, Type::int(64)));
    }
    if let Some(r) = p.parse_optional_region(&args)? {
        st.regions.push(r);
    } else {
        st.regions.push(p.module_mut().create_region());
    }
    Ok(())
}

fn parse_constant(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_lparen()?;
    let v = p.parse_attribute()?;
    p.parse_rparen()?;
    st.props.set("value", v);
    result_of(p, st)
}

fn parse_colon_result(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    result_of(p, st)
}

fn parse_binary(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let a = p.parse_operand()?;
    p.parse_comma()?;
    let b = p.parse_operand()?;
    parse_overflow(p, st)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    st.operands = vec![p.resolve_operand(&a, &t)?, p.resolve_operand(&b, &t)?];
    st.result_types.push(t);
    Ok(())
}

fn parse_cast(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let a = p.parse_operand()?;
    parse_overflow(p, st)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let from = p.parse_colon_type()?;
    p.parse_keyword("to")?;
    let to = p.parse_type()?;
    st.operands = vec![p.resolve_operand(&a, &from)?];
    st.result_types.push(to);
    Ok(())
}

fn parse_ptr_intrinsic(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let a = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    st.operands = vec![p.resolve_operand(&a, &t)?];
    Ok(())
}

fn parse_call_like_intrinsic(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let mut args = Vec::new();
    p.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
        args.push(p.parse_operand()?);
        Ok(())
    })?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    p.parse_colon()?;
    let (ins, outs) = p.parse_function_type()?;
    if ins.len() != args.len() {
        return Err(p.error_here("operand count does not match the intrinsic's type"));
    }
    for (u, t) in args.iter().zip(&ins) {
        st.operands.push(p.resolve_operand(u, t)?);
    }
    st.result_types = outs;
    Ok(())
}

fn parse_unary(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let a = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    st.operands = vec![p.resolve_operand(&a, &t)?];
    st.result_types.push(t);
    Ok(())
}

fn parse_fcmp(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let pred = p.parse_string()?;
    let k = [
        "_false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult",
        "ule", "une", "uno", "_true",
    ]
    .iter()
    .position(|&x| x.trim_start_matches('_') == pred)
    .ok_or_else(|| p.error_here(format!("unknown fcmp predicate '{pred}'")))?;
    st.props
        .set("predicate", Attribute::int(k as i128, Type::int(64)));
    let a = p.parse_operand()?;
    p.parse_comma()?;
    let b = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    st.operands = vec![p.resolve_operand(&a, &t)?, p.resolve_operand(&b, &t)?];
    // A vector comparison gives a vector of i1 of the same shape.
    let r = match t.kind() {
        TypeKind::Vector {
            shape, scalable, ..
        } => Type::new(TypeKind::Vector {
            shape: shape.clone(),
            scalable: scalable.clone(),
            elem: Type::int(1),
        }),
        _ => Type::int(1),
    };
    st.result_types.push(r);
    Ok(())
}

fn parse_icmp(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let pred = p.parse_string()?;
    let k = [
        "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge",
    ]
    .iter()
    .position(|&x| x == pred)
    .ok_or_else(|| p.error_here(format!("unknown icmp predicate '{pred}'")))?;
    st.props
        .set("predicate", Attribute::int(k as i128, Type::int(64)));
    let a = p.parse_operand()?;
    p.parse_comma()?;
    let b = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    st.operands = vec![p.resolve_operand(&a, &t)?, p.resolve_operand(&b, &t)?];
    // A vector comparison gives a vector of i1 of the same shape.
    let r = match t.kind() {
        TypeKind::Vector {
            shape, scalable, ..
        } => Type::new(TypeKind::Vector {
            shape: shape.clone(),
            scalable: scalable.clone(),
            elem: Type::int(1),
        }),
        _ => Type::int(1),
    };
    st.result_types.push(r);
    Ok(())
}

fn parse_select(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let c = p.parse_operand()?;
    p.parse_comma()?;
    let a = p.parse_operand()?;
    p.parse_comma()?;
    let b = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let ct = p.parse_colon_type()?;
    p.parse_comma()?;
    let t = p.parse_type()?;
    st.operands = vec![
        p.resolve_operand(&c, &ct)?,
        p.resolve_operand(&a, &t)?,
        p.resolve_operand(&b, &t)?,
    ];
    st.result_types.push(t);
    Ok(())
}

fn parse_insertvalue(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let v = p.parse_operand()?;
    p.parse_comma()?;
    let c = p.parse_operand()?;
    let pos = parse_int_list(p)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    let et = aggregate_element(&t, &pos)
        .ok_or_else(|| p.error_here(format!("no element at {pos:?} in {t}")))?;
    st.operands = vec![p.resolve_operand(&c, &t)?, p.resolve_operand(&v, &et)?];
    st.props.set("position", Attribute::i64_array(&pos));
    st.result_types.push(t);
    Ok(())
}

fn parse_extractvalue(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let c = p.parse_operand()?;
    let pos = parse_int_list(p)?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    let et = aggregate_element(&t, &pos)
        .ok_or_else(|| p.error_here(format!("no element at {pos:?} in {t}")))?;
    st.operands = vec![p.resolve_operand(&c, &t)?];
    st.props.set("position", Attribute::i64_array(&pos));
    st.result_types.push(et);
    Ok(())
}

/// Moves inherent attributes written in the attribute dictionary into the properties.
fn move_to_props(st: &mut OperationState, names: &[&'static str]) {
    for n in names {
        if let Some(a) = st.attrs.remove(n) {
            st.props.set(*n, a);
        }
    }
}

fn parse_alloca(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    if p.parse_optional_keyword("inalloca") {
        st.props.set("inalloca", Attribute::Unit);
    }
    let n = p.parse_operand()?;
    p.parse_keyword("x")?;
    let elem = p.parse_type()?;
    let at = crate::diag::Span::at(p.current_pos());
    p.parse_optional_attr_dict(&mut st.attrs)?;
    // MLIR's `AllocaOp::parse`: the alignment must be an integer, and zero means none
    match st.attrs.get("alignment") {
        Some(Attribute::Integer { value: 0, .. }) => {
            st.attrs.remove("alignment");
        }
        Some(Attribute::Integer { .. }) | None => {}
        Some(_) => {
            return Err(crate::diag::Diagnostic::new(
                at,
                "custom op 'llvm.alloca' expected integer alignment",
            ));
        }
    }
    move_to_props(st, &["alignment"]);
    p.parse_colon()?;
    let (ins, outs) = p.parse_function_type()?;
    let [it] = &ins[..] else {
        return Err(p.error_here("llvm.alloca takes one operand"));
    };
    st.operands = vec![p.resolve_operand(&n, it)?];
    st.props.set("elem_type", Attribute::Type(elem));
    st.result_types = outs;
    Ok(())
}

fn parse_gep(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    // `inbounds|nuw`: the lexer has no `|` token, so the flags are read from the source.
    let mut flags = 0i128;
    if p.at(Tok::BareId) && !p.peek_text().starts_with('%') {
        let src = p.source();
        let mut pos = p.current_pos();
        let b = src.as_bytes();
        loop {
            let start = pos;
            while pos < b.len() && (b[pos].is_ascii_alphanumeric() || b[pos] == b'_') {
                pos += 1;
            }
            flags |= match &src[start..pos] {
                "inbounds" => 3,
                "inbounds_flag" => 1,
                "nusw" => 2,
                "nuw" => 4,
                "none" => 0,
                w => return Err(p.error_here(format!("unknown getelementptr flag '{w}'"))),
            };
            let q = skip_trivia(b, pos);
            if b.get(q) == Some(&b'|') {
                pos = skip_trivia(b, q + 1);
            } else {
                break;
            }
        }
        p.reset(pos);
    }
    let base = p.parse_operand()?;
    let mut raw = Vec::new();
    let mut dynamic = Vec::new();
    p.parse_comma_separated_list(Delimiter::Square, &mut |p| {
        if p.at(Tok::PercentId) {
            dynamic.push(p.parse_operand()?);
            raw.push(GEP_DYNAMIC_INDEX);
        } else {
            raw.push(p.parse_integer()?);
        }
        Ok(())
    })?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    p.parse_colon()?;
    let (ins, outs) = p.parse_function_type()?;
    p.parse_comma()?;
    let elem = p.parse_type()?;
    if ins.len() != 1 + dynamic.len() {
        return Err(p.error_here("operand count does not match the getelementptr's type"));
    }
    st.operands.push(p.resolve_operand(&base, &ins[0])?);
    for (u, t) in dynamic.iter().zip(&ins[1..]) {
        st.operands.push(p.resolve_operand(u, t)?);
    }
    st.props.set("elem_type", Attribute::Type(elem));
    st.props
        .set("rawConstantIndices", Attribute::i32_array(&raw));
    if flags != 0 {
        st.props
            .set("noWrapFlags", Attribute::int(flags, Type::int(32)));
    }
    st.result_types = outs;
    Ok(())
}

fn parse_mem_flags(p: &mut Parser<'_>, st: &mut OperationState) {
    for k in ["volatile", "nontemporal", "invariant"] {
        if p.parse_optional_keyword(k) {
            let name = if k == "volatile" { "volatile_" } else { k };
            st.props.set(name, Attribute::Unit);
        }
    }
}

fn parse_load(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    parse_mem_flags(p, st);
    let a = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    move_to_props(st, &["alignment"]);
    let pt = p.parse_colon_type()?;
    p.parse_arrow()?;
    let t = p.parse_type()?;
    st.operands = vec![p.resolve_operand(&a, &pt)?];
    st.result_types.push(t);
    Ok(())
}

fn parse_store(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    parse_mem_flags(p, st);
    let v = p.parse_operand()?;
    p.parse_comma()?;
    let a = p.parse_operand()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    move_to_props(st, &["alignment"]);
    let vt = p.parse_colon_type()?;
    p.parse_comma()?;
    let pt = p.parse_type()?;
    st.operands = vec![p.resolve_operand(&v, &vt)?, p.resolve_operand(&a, &pt)?];
    Ok(())
}

/// What [`parse_call_signature`] reads: the callee pointer's type (indirect calls), the
/// argument and result types, and where the function type starts.
type CallSignature = (Option<Type>, Vec<Type>, Vec<Type>, crate::diag::Span);

/// `vararg(!llvm.func<...>)` of `llvm.call` / `llvm.invoke`, if written.
/// The `@callee(%args...)` or `%fnptr(%args...)` part shared by `llvm.call` and
/// `llvm.invoke`: the symbol or the pointer operand, then the argument operands.
fn parse_callee_and_args(
    p: &mut Parser<'_>,
) -> PResult<(
    Option<String>,
    Option<UnresolvedOperand>,
    Vec<UnresolvedOperand>,
)> {
    let (callee, callee_ptr) = if p.at(Tok::PercentId) {
        (None, Some(p.parse_operand()?))
    } else {
        (Some(p.parse_symbol_name()?), None)
    };
    let mut args = Vec::new();
    p.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
        args.push(p.parse_operand()?);
        Ok(())
    })?;
    Ok((callee, callee_ptr, args))
}

fn parse_vararg(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    if p.peek_keyword("vararg") {
        p.parse_keyword("vararg")?;
        p.parse_lparen()?;
        let t = p.parse_type()?;
        p.parse_rparen()?;
        st.props.set("var_callee_type", Attribute::Type(t));
    }
    Ok(())
}

/// The tail shared by `llvm.call` and `llvm.invoke`: `{attrs} : [ptr-type ,] (ins) -> outs`
/// (the pointer type only for an indirect call); at most one result. Also returns where the
/// function type starts, for later diagnostics.
fn parse_call_signature(
    p: &mut Parser<'_>,
    st: &mut OperationState,
    indirect: bool,
) -> PResult<CallSignature> {
    p.parse_optional_attr_dict(&mut st.attrs)?;
    p.parse_colon()?;
    let ptr_ty = if indirect {
        let t = p.parse_type()?;
        p.parse_comma()?;
        Some(t)
    } else {
        None
    };
    let types_at = p.current_span();
    let (ins, outs) = p.parse_function_type()?;
    if outs.len() > 1 {
        return Err(crate::diag::Diagnostic::new(
            types_at,
            "expected function with 0 or 1 result",
        ));
    }
    Ok((ptr_ty, ins, outs, types_at))
}

/// `llvm.call cconv? tailcallkind? (@callee | %ptr) (args) (vararg(T))? {attrs} :
/// (ptr-type ,)? (ins) -> outs`, as MLIR's CallOp::parse.
fn parse_call(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    const TAIL: &[&str] = &["none", "tail", "musttail", "notail"];
    if p.at(Tok::BareId) && !TAIL.contains(&p.peek_text()) {
        let cc = p.parse_optional_keyword_any().unwrap_or_default();
        st.props
            .set("CConv", Attribute::Opaque(format!("#llvm.cconv<{cc}>")));
    }
    if p.at(Tok::BareId) && TAIL.contains(&p.peek_text()) {
        let k = p.parse_optional_keyword_any().unwrap_or_default();
        st.props.set(
            "TailCallKind",
            Attribute::Opaque(format!("#llvm.tailcallkind<{k}>")),
        );
    }
    let (callee, callee_ptr, args) = parse_callee_and_args(p)?;
    parse_vararg(p, st)?;
    let (ptr_ty, ins, outs, types_at) = parse_call_signature(p, st, callee_ptr.is_some())?;
    if outs.len() == 1 && matches!(outs[0].kind(), TypeKind::Opaque(s) if s.trim() == "!llvm.void")
    {
        return Err(crate::diag::Diagnostic::new(
            types_at,
            "expected a non-void result type",
        ));
    }
    if ins.len() != args.len() {
        return Err(p.error_here("operand count does not match the call's type"));
    }
    if let (Some(u), Some(t)) = (&callee_ptr, &ptr_ty) {
        st.operands.push(p.resolve_operand(u, t)?);
    }
    for (u, t) in args.iter().zip(&ins) {
        st.operands.push(p.resolve_operand(u, t)?);
    }
    if let Some(c) = callee {
        st.props.set("callee", Attribute::symbol(&c));
    }
    st.props.set(
        "operandSegmentSizes",
        Attribute::i32_array(&[st.operands.len() as i64, 0]),
    );
    st.props.set("op_bundle_sizes", Attribute::i32_array(&[]));
    st.result_types = outs;
    Ok(())
}

/// One `type {attrs}?` of a call signature; the dictionary is empty when absent.
fn parse_type_and_attrs(p: &mut Parser<'_>) -> PResult<(Type, Attribute)> {
    let t = p.parse_type()?;
    let mut d = Dict::new();
    p.parse_optional_attr_dict(&mut d)?;
    Ok((t, Attribute::Dict(d)))
}

/// The `arg_attrs` / `res_attrs` array of a signature: set only when some entry is
/// non-empty, as MLIR's `call_interface_impl` does.
fn set_attr_array(st: &mut OperationState, name: &'static str, dicts: Vec<Attribute>) {
    if dicts
        .iter()
        .any(|d| matches!(d, Attribute::Dict(d) if !d.is_empty()))
    {
        st.props.set(name, Attribute::Array(dicts));
    }
}

/// `llvm.call_intrinsic "llvm.name"(args) ["tag"(%x, %y : t1, t2), ...]? attr-dict :
/// (arg-type {attrs}?, ...) -> (result-type {attrs}?)`, as MLIR's CallIntrinsicOp::parse
/// (LLVMDialect.cpp): at most one result, no `!llvm.void` result, one type per argument,
/// and each bundle `"tag"(operands : types)` with as many types as operands.
fn parse_call_intrinsic(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let intrin = p.parse_string()?;
    let mut args = Vec::new();
    p.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
        args.push(p.parse_operand()?);
        Ok(())
    })?;
    let mut bundles: Vec<(Vec<_>, Vec<Type>)> = Vec::new();
    let mut tags = Vec::new();
    if p.consume_if(Tok::LBracket) && !p.consume_if(Tok::RBracket) {
        loop {
            let at = p.current_span();
            let tag = p
                .parse_string()
                .map_err(|_| crate::diag::Diagnostic::new(at, "expect operand bundle tag"))?;
            p.parse_lparen()?;
            let (mut ops, mut tys) = (Vec::new(), Vec::new());
            if !p.consume_if(Tok::RParen) {
                ops = p.parse_operand_list()?;
                p.parse_colon()?;
                tys = p.parse_type_list()?;
                p.parse_rparen()?;
            }
            if ops.len() != tys.len() {
                return Err(crate::diag::Diagnostic::new(
                    at,
                    format!(
                        "expected {} types for operand bundle operands for operand bundle #{}, but actually got {}",
                        ops.len(),
                        tags.len(),
                        tys.len()
                    ),
                ));
            }
            tags.push(Attribute::string(&tag));
            bundles.push((ops, tys));
            if !p.consume_if(Tok::Comma) {
                break;
            }
        }
        p.parse_rsquare()?;
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    move_to_props(st, &["fastmathFlags"]);
    p.parse_colon()?;
    let types_at = p.current_span();
    let mut ins = Vec::new();
    p.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
        ins.push(parse_type_and_attrs(p)?);
        Ok(())
    })?;
    let mut outs = Vec::new();
    p.parse_arrow()?;
    if p.at(Tok::LParen) {
        p.parse_comma_separated_list(Delimiter::Paren, &mut |p| {
            outs.push(parse_type_and_attrs(p)?);
            Ok(())
        })?;
    } else {
        outs.push((p.parse_type()?, Attribute::Dict(Dict::new())));
    }
    if outs.len() > 1 {
        return Err(crate::diag::Diagnostic::new(
            types_at,
            "expected function with 0 or 1 result",
        ));
    }
    if outs
        .first()
        .is_some_and(|(t, _)| matches!(t.kind(), TypeKind::Opaque(s) if s.trim() == "!llvm.void"))
    {
        return Err(crate::diag::Diagnostic::new(
            types_at,
            "expected a non-void result type",
        ));
    }
    if ins.len() != args.len() {
        return Err(crate::diag::Diagnostic::new(
            types_at,
            format!(
                "number of operands and types do not match: got {} operands and {} types",
                args.len(),
                ins.len()
            ),
        ));
    }
    for (u, (t, _)) in args.iter().zip(&ins) {
        st.operands.push(p.resolve_operand(u, t)?);
    }
    let mut sizes = Vec::new();
    for (ops, tys) in &bundles {
        for (u, t) in ops.iter().zip(tys) {
            st.operands.push(p.resolve_operand(u, t)?);
        }
        sizes.push(ops.len() as i64);
    }
    set_attr_array(st, "arg_attrs", ins.into_iter().map(|(_, a)| a).collect());
    st.props.set("intrin", Attribute::string(&intrin));
    st.props
        .set("op_bundle_sizes", Attribute::i32_array(&sizes));
    if !tags.is_empty() {
        st.props.set("op_bundle_tags", Attribute::Array(tags));
    }
    st.props.set(
        "operandSegmentSizes",
        Attribute::i32_array(&[args.len() as i64, sizes.iter().sum()]),
    );
    let (res, res_attrs): (Vec<_>, Vec<_>) = outs.into_iter().unzip();
    set_attr_array(st, "res_attrs", res_attrs);
    st.result_types = res;
    Ok(())
}

/// `llvm.invoke [cconv] (@callee | %ptr)(args) to ^normal(...) unwind ^unwind(...)
/// [vararg(type)] {attrs} : [ptr-type,] (arg types) -> result`.
fn parse_invoke(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let cc = if p.at(Tok::BareId) {
        p.parse_optional_keyword_any().unwrap_or("ccc")
    } else {
        "ccc"
    };
    st.props
        .set("CConv", Attribute::Opaque(format!("#llvm.cconv<{cc}>")));
    let (callee, callee_ptr, args) = parse_callee_and_args(p)?;
    p.parse_keyword("to")?;
    let (normal, normal_vals) = p.parse_successor_and_use_list()?;
    p.parse_keyword("unwind")?;
    let (unwind, unwind_vals) = p.parse_successor_and_use_list()?;
    parse_vararg(p, st)?;
    if p.at(Tok::LBracket) {
        return Err(p.error_here("memplan does not read operand bundles of 'llvm.invoke'"));
    }
    let (ptr_ty, ins, outs, _) = parse_call_signature(p, st, callee_ptr.is_some())?;
    if ins.len() != args.len() {
        return Err(p.error_here("operand count does not match the invoke's type"));
    }
    if let (Some(u), Some(t)) = (&callee_ptr, &ptr_ty) {
        st.operands.push(p.resolve_operand(u, t)?);
    }
    for (u, t) in args.iter().zip(&ins) {
        st.operands.push(p.resolve_operand(u, t)?);
    }
    let n_callee = st.operands.len() as i64;
    st.operands.extend(normal_vals.iter().copied());
    st.operands.extend(unwind_vals.iter().copied());
    if let Some(c) = callee {
        st.props.set("callee", Attribute::symbol(&c));
    }
    st.props.set(
        "operandSegmentSizes",
        Attribute::i32_array(&[
            n_callee,
            normal_vals.len() as i64,
            unwind_vals.len() as i64,
            0,
        ]),
    );
    st.props.set("op_bundle_sizes", Attribute::i32_array(&[]));
    st.successors.push(normal);
    st.successors.push(unwind);
    st.result_types = outs;
    Ok(())
}

/// `llvm.landingpad [cleanup] ((catch | filter) %v : type)* {attrs} : type`.
fn parse_landingpad(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    if p.parse_optional_keyword("cleanup") {
        st.props.set("cleanup", Attribute::Unit);
    }
    while p.consume_if(Tok::LParen) {
        p.parse_keyword_any("'catch' or 'filter'")
            .and_then(|k| match k {
                "catch" | "filter" => Ok(()),
                _ => Err(p.error_expected("'catch' or 'filter'")),
            })?;
        let v = p.parse_operand()?;
        let t = p.parse_colon_type()?;
        p.parse_rparen()?;
        st.operands.push(p.resolve_operand(&v, &t)?);
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    let t = p.parse_colon_type()?;
    st.result_types.push(t);
    Ok(())
}

fn parse_br(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let (b, vals) = p.parse_successor_and_use_list()?;
    st.successors.push(b);
    st.operands = vals;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    Ok(())
}

fn parse_cond_br(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let c = p.parse_operand()?;
    p.parse_comma()?;
    let (t, tv) = p.parse_successor_and_use_list()?;
    p.parse_comma()?;
    let (f, fv) = p.parse_successor_and_use_list()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    st.operands.push(p.resolve_operand(&c, &Type::int(1))?);
    st.props.set(
        "operandSegmentSizes",
        Attribute::i32_array(&[1, tv.len() as i64, fv.len() as i64]),
    );
    st.operands.extend(tv);
    st.operands.extend(fv);
    st.successors = vec![t, f];
    Ok(())
}

/// `llvm.switch %v : T, ^default(args) [ CASE: ^bb(args), ... ] {attrs}`.
fn parse_switch(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let v = p.parse_operand()?;
    let t = p.parse_colon_type()?;
    p.parse_comma()?;
    let (d, dv) = p.parse_successor_and_use_list()?;
    let mut cases: Vec<i64> = Vec::new();
    let mut segments: Vec<i64> = Vec::new();
    let mut case_operands = Vec::new();
    let mut succs = vec![d];
    p.parse_lsquare()?;
    if !p.at(Tok::RBracket) {
        loop {
            cases.push(p.parse_integer()?);
            p.parse_colon()?;
            let (b, bv) = p.parse_successor_and_use_list()?;
            segments.push(bv.len() as i64);
            case_operands.extend(bv);
            succs.push(b);
            if !p.parse_optional_comma() {
                break;
            }
        }
    }
    p.parse_rsquare()?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    move_to_props(st, &["branch_weights"]);
    st.operands.push(p.resolve_operand(&v, &t)?);
    st.props.set(
        "operandSegmentSizes",
        Attribute::i32_array(&[1, dv.len() as i64, case_operands.len() as i64]),
    );
    st.props
        .set("case_operand_segments", Attribute::i32_array(&segments));
    if !cases.is_empty() {
        let vals: Vec<String> = cases.iter().map(|c| c.to_string()).collect();
        st.props.set(
            "case_values",
            Attribute::Opaque(format!(
                "dense<[{}]> : vector<{}x{}>",
                vals.join(", "),
                cases.len(),
                t
            )),
        );
    }
    st.operands.extend(dv);
    st.operands.extend(case_operands);
    st.successors = succs;
    Ok(())
}

/// The optional `[visibility] [thread_local] [unnamed_addr]` keywords shared by
/// `llvm.mlir.global` and `llvm.mlir.alias`, stored as their properties.
fn parse_global_flags(p: &mut Parser<'_>, st: &mut OperationState) {
    if let Some(v) = p.parse_optional_keyword_of(&["default", "hidden", "protected"]) {
        let n = match v {
            "hidden" => 1,
            "protected" => 2,
            _ => 0,
        };
        st.props
            .set("visibility_", Attribute::int(n, Type::int(64)));
    }
    if p.parse_optional_keyword("thread_local") {
        st.props.set("thread_local_", Attribute::Unit);
    }
    if let Some(u) = p.parse_optional_keyword_of(&["unnamed_addr", "local_unnamed_addr"]) {
        let n = if u == "unnamed_addr" { 2 } else { 1 };
        st.props
            .set("unnamed_addr", Attribute::int(n, Type::int(64)));
    }
}

/// `llvm.mlir.global [linkage] [visibility] [thread_local] [unnamed_addr] [constant] @name(
/// [value]) [attrs] [: type] [initializer region]`.
fn parse_global(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    if let Some(l) = p.parse_optional_keyword_of(&crate::ods::LINKAGES) {
        st.props
            .set("linkage", Attribute::Opaque(format!("#llvm.linkage<{l}>")));
    }
    parse_global_flags(p, st);
    if p.parse_optional_keyword("constant") {
        st.props.set("constant", Attribute::Unit);
    }
    // What mlir-opt's custom parser sets when the keyword is absent.
    if !st.props.contains("linkage") {
        st.props.set(
            "linkage",
            Attribute::Opaque("#llvm.linkage<external>".into()),
        );
    }
    let name = p.parse_symbol_name()?;
    st.props.set("sym_name", Attribute::string(&name));
    p.parse_lparen()?;
    let mut value = None;
    if !p.at(Tok::RParen) {
        value = Some(p.parse_attribute()?);
    }
    p.parse_rparen()?;
    if p.parse_optional_keyword("comdat") {
        p.parse_lparen()?;
        let c = p.parse_attribute()?;
        p.parse_rparen()?;
        st.props.set("comdat", c);
    }
    p.parse_optional_attr_dict(&mut st.attrs)?;
    move_to_props(st, GLOBAL_INHERENT);
    let ty = if p.at(Tok::Colon) {
        Some(p.parse_colon_type()?)
    } else {
        None
    };
    let ty = match (ty, &value) {
        (Some(t), _) => t,
        // A string initialiser without a type: an array of its bytes.
        (None, Some(Attribute::String { value: bytes, .. })) => Type::new(TypeKind::Opaque(
            format!("!llvm.array<{} x i8>", bytes.len()),
        )),
        (None, _) => return Err(p.error_here("llvm.mlir.global needs a type")),
    };
    st.props.set("global_type", Attribute::Type(ty));
    // What mlir-opt's custom parser sets when the keyword is absent.
    if !st.props.contains("unnamed_addr") {
        st.props
            .set("unnamed_addr", Attribute::int(0, Type::int(64)));
    }
    if let Some(v) = value {
        st.props.set("value", v);
    }
    if let Some(r) = p.parse_optional_region(&[])? {
        st.regions.push(r);
    } else {
        st.regions.push(p.module_mut().create_region());
    }
    Ok(())
}

/// `llvm.mlir.alias [linkage] [visibility] [thread_local] [unnamed_addr] @name {attrs} : type
/// { initializer }`.
fn parse_alias(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let l = p
        .parse_optional_keyword_of(&crate::ods::LINKAGES)
        .unwrap_or("external");
    st.props
        .set("linkage", Attribute::Opaque(format!("#llvm.linkage<{l}>")));
    parse_global_flags(p, st);
    let name = p.parse_symbol_name()?;
    st.props.set("sym_name", Attribute::string(&name));
    p.parse_optional_attr_dict(&mut st.attrs)?;
    move_to_props(st, ALIAS_INHERENT);
    let ty = p.parse_colon_type()?;
    st.props.set("alias_type", Attribute::Type(ty));
    // What mlir-opt's custom parser sets when the keyword is absent (as for globals).
    if !st.props.contains("unnamed_addr") {
        st.props
            .set("unnamed_addr", Attribute::int(0, Type::int(64)));
    }
    match p.parse_optional_region(&[])? {
        Some(r) => st.regions.push(r),
        None => return Err(p.error_expected("'{'")),
    }
    Ok(())
}

/// `%p = llvm.mlir.addressof @name : !llvm.ptr`.
fn parse_addressof(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    let name = p.parse_symbol_name()?;
    st.props.set("global_name", Attribute::symbol(&name));
    result_of(p, st)
}

fn parse_return(p: &mut Parser<'_>, st: &mut OperationState) -> PResult<()> {
    if let Some(u) = p.parse_optional_operand()? {
        p.parse_optional_attr_dict(&mut st.attrs)?;
        let t = p.parse_colon_type()?;
        st.operands.push(p.resolve_operand(&u, &t)?);
    } else {
        p.parse_optional_attr_dict(&mut st.attrs)?;
    }
    Ok(())
}

// ===== the `llvm.data_layout` string =====

/// An unsigned decimal number as LLVM's `to_integer` reads it (digits only), below `2^bits`.
fn dl_uint(s: &str, bits: u32) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<u64>().ok().filter(|&v| v < (1u64 << bits))
}

fn dl_addr_space(s: &str) -> Result<u64, String> {
    if s.is_empty() {
        return Err("address space component cannot be empty".into());
    }
    dl_uint(s, 24).ok_or_else(|| "address space must be a 24-bit integer".into())
}

fn dl_size(s: &str, name: &str) -> Result<u64, String> {
    if s.is_empty() {
        return Err(format!("{name} component cannot be empty"));
    }
    dl_uint(s, 24)
        .filter(|&v| v != 0)
        .ok_or_else(|| format!("{name} must be a non-zero 24-bit integer"))
}

/// An alignment in bits, returned in bytes (0 allowed only with `allow_zero`, read as 1).
fn dl_align(s: &str, name: &str, allow_zero: bool) -> Result<u64, String> {
    if s.is_empty() {
        return Err(format!("{name} alignment component cannot be empty"));
    }
    let v = dl_uint(s, 16).ok_or_else(|| format!("{name} alignment must be a 16-bit integer"))?;
    if v == 0 {
        return if allow_zero {
            Ok(1)
        } else {
            Err(format!("{name} alignment must be non-zero"))
        };
    }
    if v % 8 != 0 || !(v / 8).is_power_of_two() {
        return Err(format!(
            "{name} alignment must be a power of two times the byte width"
        ));
    }
    Ok(v / 8)
}

fn dl_form(f: &str) -> String {
    format!("malformed specification, must be of the form \"{f}\"")
}

/// `<abi>[:<pref>]` with pref >= abi.
fn dl_abi_pref(abi: &str, pref: Option<&&str>, abi_zero: bool) -> Result<(), String> {
    let a = dl_align(abi, "ABI", abi_zero)?;
    let p = match pref {
        Some(p) => dl_align(p, "preferred", false)?,
        None => a,
    };
    if p < a {
        return Err("preferred alignment cannot be less than the ABI alignment".into());
    }
    Ok(())
}

/// One `-`-separated specification of an LLVM data layout string (LLVM 22's
/// `DataLayout::parseSpecification`); `names` collects the named address spaces.
fn dl_spec(spec: &str, names: &mut Vec<String>) -> Result<(), String> {
    if let Some(rest) = spec.strip_prefix("ni") {
        let rest = rest
            .strip_prefix(':')
            .ok_or_else(|| dl_form("ni:<address space>[:<address space>]..."))?;
        for a in rest.split(':') {
            if dl_addr_space(a)? == 0 {
                return Err("address space 0 cannot be non-integral".into());
            }
        }
        return Ok(());
    }
    let c = spec.chars().next().unwrap_or(' ');
    let rest = &spec[c.len_utf8()..];
    match c {
        'i' | 'f' | 'v' => {
            let parts: Vec<&str> = rest.split(':').collect();
            if !(2..=3).contains(&parts.len()) {
                return Err(dl_form(&format!("{c}<size>:<abi>[:<pref>]")));
            }
            let size = dl_size(parts[0], "size")?;
            let abi = dl_align(parts[1], "ABI", false)?;
            if c == 'i' && size == 8 && abi != 1 {
                return Err("i8 must be 8-bit aligned".into());
            }
            dl_abi_pref(parts[1], parts.get(2), false)
        }
        'a' => {
            let parts: Vec<&str> = rest.split(':').collect();
            if !(2..=3).contains(&parts.len()) {
                return Err(dl_form("a:<abi>[:<pref>]"));
            }
            if !parts[0].is_empty() && dl_uint(parts[0], 32) != Some(0) {
                return Err("size must be zero".into());
            }
            dl_abi_pref(parts[1], parts.get(2), true)
        }
        'p' => {
            let parts: Vec<&str> = rest.split(':').collect();
            if !(3..=5).contains(&parts.len()) {
                return Err(dl_form("p[<n>]:<size>:<abi>[:<pref>[:<idx>]]"));
            }
            // flags `e` (external state) and `u` (unstable representation), then the
            // address space number and an optional `(name)`
            let mut a = parts[0];
            let mut flagged = false;
            while let Some(f) = a.chars().next().filter(|f| f.is_ascii_alphabetic()) {
                if f != 'e' && f != 'u' {
                    return Err(format!("'{f}' is not a valid pointer specification flag"));
                }
                flagged = true;
                a = &a[1..];
            }
            let digits = a.bytes().take_while(u8::is_ascii_digit).count();
            let space = if digits == 0 {
                0
            } else {
                dl_uint(&a[..digits], 24)
                    .ok_or_else(|| "address space must be a 24-bit integer".to_string())?
            };
            let name = &a[digits..];
            if !name.is_empty() {
                if !name.starts_with('(') {
                    return Err("address space must be a 24-bit integer".into());
                }
                if !name.ends_with(')') || name.len() == 2 {
                    return Err("Expected `( address space name )`".into());
                }
                let n = &name[1..name.len() - 1];
                if matches!(n, "P" | "G" | "A") {
                    return Err(
                        "Cannot use predefined address space names P/G/A in data layout".into(),
                    );
                }
                if space == 0 && flagged {
                    return Err("address space 0 cannot be unstable or have external state".into());
                }
                if names.iter().any(|x| x == n) {
                    return Err(format!("address space name `{n}` already used"));
                }
                names.push(n.to_string());
            } else if space == 0 && flagged {
                return Err("address space 0 cannot be unstable or have external state".into());
            }
            let size = dl_size(parts[1], "pointer size")?;
            dl_abi_pref(parts[2], parts.get(3), false)?;
            if let Some(idx) = parts.get(4) {
                if dl_size(idx, "index size")? > size {
                    return Err("index size cannot be larger than the pointer size".into());
                }
            }
            Ok(())
        }
        's' => Ok(()),
        'e' | 'E' => {
            if rest.is_empty() {
                Ok(())
            } else {
                Err("malformed specification, must be just 'e' or 'E'".into())
            }
        }
        'n' => {
            for s in rest.split(':') {
                dl_size(s, "size")?;
            }
            Ok(())
        }
        'S' => {
            if rest.is_empty() {
                return Err(dl_form("S<size>"));
            }
            dl_align(rest, "stack natural", false).map(|_| ())
        }
        'F' => {
            let Some(t) = rest.chars().next() else {
                return Err(dl_form("F<type><abi>"));
            };
            if t != 'i' && t != 'n' {
                return Err(format!("unknown function pointer alignment type '{t}'"));
            }
            dl_align(&rest[t.len_utf8()..], "ABI", false).map(|_| ())
        }
        'P' | 'A' | 'G' => {
            if rest.is_empty() {
                return Err(dl_form(&format!("{c}<address space>")));
            }
            dl_addr_space(rest).map(|_| ())
        }
        'm' => {
            let r = rest
                .strip_prefix(':')
                .filter(|r| !r.is_empty())
                .ok_or_else(|| dl_form("m:<mangling>"))?;
            if r.len() != 1 || !"elomwxa".contains(r) {
                return Err("unknown mangling mode".into());
            }
            Ok(())
        }
        _ => Err(format!("unknown specifier '{c}'")),
    }
}

/// Why an LLVM data layout string is malformed (LLVM 22's `DataLayout::parse`), or `None`.
pub(crate) fn data_layout_error(s: &str) -> Option<String> {
    if s.is_empty() {
        return None;
    }
    let mut names = Vec::new();
    for spec in s.split('-') {
        if spec.is_empty() {
            return Some("empty specification is not allowed".into());
        }
        if let Err(e) = dl_spec(spec, &mut names) {
            return Some(e);
        }
    }
    None
}

/// The LLVM dialect's discardable attributes on any op (`LLVMDialect::verifyOperationAttribute`):
/// `llvm.data_layout` must be a string LLVM can read as a data layout.
pub fn verify_discardable_attrs(m: &crate::ir::Module, op: crate::ir::OpId) -> Result<(), String> {
    let Some(a) = m.op(op).attrs.get("llvm.data_layout") else {
        return Ok(());
    };
    let Attribute::String { value, .. } = a else {
        return Err("expected 'llvm.data_layout' to be a string attributes".into());
    };
    match data_layout_error(&String::from_utf8_lossy(value)) {
        Some(e) => Err(format!("invalid data layout descriptor: {e}")),
        None => Ok(()),
    }
}
