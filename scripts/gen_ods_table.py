#!/usr/bin/env python3
"""Generates crates/memplan-ir/src/dialects/ods_table.txt, memplan's table of MLIR 22's op
definitions, from the dialects' own ODS files.

For each .td file below, `llvm-tblgen-22 --dump-json -I /usr/lib/llvm-22/include FILE.td` gives
every record; this script keeps the ops (records that derive from `Op`) and writes one line per op
(sorted by name, duplicates from files that include each other dropped), tab-separated:

  name  traits  operands  attributes  results  regions  successors  assemblyFormat

  traits      comma-separated: the structural traits memplan uses (Terminator, IsolatedFromAbove,
              NoTerminator, SingleBlock, SymbolTable, SameOperandsAndResultType, SameTypeOperands,
              AttrSizedOperandSegments, AttrSizedResultSegments, SameVariadicOperandSize,
              SameVariadicResultSize, InferTypeOpInterface, Elementwise, SingleBlockImplicitTerminator=OP,
              AllTypesMatch=a|b, TypesMatchWith=from|to|how, ElemSame=r0|o1|summary (element
              types of result 0 and operand 1 equal; the summary with `+` for spaces),
              NVVMRequiresSM=N (the op needs a target chip of at least sm_N),
              NVVMRequiresSMa=N|M (the op needs one of the arch-accelerated chips sm_Na, sm_Ma),
              DefaultDialect=D (OpAsmOpInterface's getDefaultDialect), CustomAssemblyFormat)
  operands    `;`-separated `name kind type`: kind `1` single, `?` optional, `*` variadic,
              `**:ATTR` variadic of variadic (ATTR: the attribute with its group sizes); type
              `=T` (the constraint builds exactly type T, written as MLIR text),
              `~!dialect.mnemonic` (a dialect type class: formats print only its parameters),
              `~!dialect.mnemonic=T` (both) or
              `:Name` (any other constraint, by its ODS name, or its summary)
  attributes  `;`-separated `name req kind`: req `r` required, `o` optional, `d` has a default;
              kind (see memplan-ir's ods/mod.rs; any kind may end in `@c,c@summary`: the
              ConfinedAttr predicates memplan checks, pos, nonneg, pow2, min=N, max=N,
              oneof=A:B, sorted, mincount=N, count=N, then the attribute's summary with `+`
              for spaces, which MLIR's message quotes): unit, ienum:W:case|case, denum:#dia:mnemonic:style:
              case|case (style kw, lt or ltbit: `<flag, flag>`), typed:=T, type, darray:T, sym, symname, str, attr, strip:#dia.mnemonic:style,
              uprop, prop:Name
  results     like operands
  regions     `;`-separated `name kind` (1 or *), then `@=N`, `@<=N` or `@>=N` where the region
              constraint fixes its block count (SizedRegion, MaxSizedRegion, MinSizedRegion)
  successors  `;`-separated `name kind`
  format      the assemblyFormat with whitespace runs collapsed to one space (empty when the op
              has none)

After the ops, `%summary<TAB>Name<TAB>summary` lines give the summary (non-alphanumeric runs as
`_`, like anonymous constraints) of each named operand/result constraint the ops use.

The table is checked in: building memplan needs neither libmlir nor this script. `--check`
regenerates it and compares (the test `ods_table_is_current` runs it when llvm-tblgen-22 and the
MLIR .td files are installed).

usage: gen_ods_table.py [--include DIR] [--tblgen BIN] [--check | -o FILE]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

DEFAULT_INCLUDE = "/usr/lib/llvm-22/include"
TD_FILES = [
    "mlir/IR/BuiltinOps.td",
    "mlir/Dialect/Func/IR/FuncOps.td",
    "mlir/Dialect/Arith/IR/ArithOps.td",
    "mlir/Dialect/Math/IR/MathOps.td",
    "mlir/Dialect/MemRef/IR/MemRefOps.td",
    "mlir/Dialect/SCF/IR/SCFOps.td",
    "mlir/Dialect/Affine/IR/AffineOps.td",
    "mlir/Dialect/Linalg/IR/LinalgOps.td",
    "mlir/Dialect/Linalg/IR/LinalgStructuredOps.td",
    "mlir/Dialect/Linalg/IR/LinalgRelayoutOps.td",
    "mlir/Dialect/Tensor/IR/TensorOps.td",
    "mlir/Dialect/Bufferization/IR/BufferizationOps.td",
    "mlir/Dialect/Vector/IR/VectorOps.td",
    "mlir/Dialect/GPU/IR/GPUOps.td",
    "mlir/Dialect/ControlFlow/IR/ControlFlowOps.td",
    "mlir/Dialect/Index/IR/IndexOps.td",
    "mlir/Dialect/UB/IR/UBOps.td",
    "mlir/Dialect/LLVMIR/LLVMOps.td",
    "mlir/Dialect/LLVMIR/LLVMIntrinsicOps.td",
    "mlir/Dialect/LLVMIR/NVVMOps.td",
    "mlir/Dialect/LLVMIR/ROCDLOps.td",
    "mlir/Dialect/NVGPU/IR/NVGPUOps.td",
    "mlir/Dialect/AMDGPU/IR/AMDGPU.td",
    "mlir/Dialect/Async/IR/AsyncOps.td",
    "mlir/Dialect/Complex/IR/ComplexOps.td",
    # the transform dialect and the extensions mlir-opt-22 registers
    "mlir/Dialect/Transform/IR/TransformOps.td",
    "mlir/Dialect/Transform/DebugExtension/DebugExtensionOps.td",
    "mlir/Dialect/Transform/IRDLExtension/IRDLExtensionOps.td",
    "mlir/Dialect/Transform/LoopExtension/LoopExtensionOps.td",
    "mlir/Dialect/Transform/PDLExtension/PDLExtensionOps.td",
    "mlir/Dialect/Transform/SMTExtension/SMTExtensionOps.td",
    "mlir/Dialect/Transform/TuneExtension/TuneExtensionOps.td",
    "mlir/Dialect/Affine/TransformOps/AffineTransformOps.td",
    "mlir/Dialect/ArmNeon/TransformOps/ArmNeonVectorTransformOps.td",
    "mlir/Dialect/ArmSVE/TransformOps/ArmSVEVectorTransformOps.td",
    "mlir/Dialect/Bufferization/TransformOps/BufferizationTransformOps.td",
    "mlir/Dialect/DLTI/TransformOps/DLTITransformOps.td",
    "mlir/Dialect/Func/TransformOps/FuncTransformOps.td",
    "mlir/Dialect/GPU/TransformOps/GPUTransformOps.td",
    "mlir/Dialect/Linalg/TransformOps/LinalgMatchOps.td",
    "mlir/Dialect/Linalg/TransformOps/LinalgTransformOps.td",
    "mlir/Dialect/MemRef/TransformOps/MemRefTransformOps.td",
    "mlir/Dialect/NVGPU/TransformOps/NVGPUTransformOps.td",
    "mlir/Dialect/SCF/TransformOps/SCFTransformOps.td",
    "mlir/Dialect/SparseTensor/TransformOps/SparseTensorTransformOps.td",
    "mlir/Dialect/Tensor/TransformOps/TensorTransformOps.td",
    "mlir/Dialect/Vector/TransformOps/VectorTransformOps.td",
    "mlir/Dialect/X86Vector/TransformOps/X86VectorTransformOps.td",
    "mlir/Dialect/XeGPU/TransformOps/XeGPUTransformOps.td",
]
# files read only for their TypeDefs (dialect type classes that formats print stripped)
TYPE_FILES = ["mlir/Dialect/LLVMIR/LLVMTypes.td", "mlir/Dialect/Transform/IR/TransformTypes.td"]
OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "crates",
    "memplan-ir",
    "src",
    "dialects",
    "ods_table.txt",
)
HEADER = (
    "# @generated by scripts/gen_ods_table.py from MLIR 22's ODS files (llvm-tblgen-22 --dump-json);\n"
    "# do not edit. Regenerate: python3 scripts/gen_ods_table.py. Columns: see the script.\n"
)

PLAIN_TRAITS = {
    "Terminator",
    "IsolatedFromAbove",
    "NoTerminator",
    "SingleBlock",
    "SymbolTable",
    "SameOperandsAndResultType",
    "SameTypeOperands",
    "AttrSizedOperandSegments",
    "AttrSizedResultSegments",
    "SameVariadicOperandSize",
    "SameVariadicResultSize",
    "InferTypeOpInterface",
    "InferTypeOpAdaptor",
    "SameOperandsAndResultElementType",
    "SameOperandsAndResultShape",
    "Elementwise",
}

FLOATS = {
    "BFloat16Type": "bf16",
    "Float4E2M1FNType": "f4E2M1FN",
    "Float6E2M3FNType": "f6E2M3FN",
    "Float6E3M2FNType": "f6E3M2FN",
    "Float8E3M4Type": "f8E3M4",
    "Float8E4M3Type": "f8E4M3",
    "Float8E4M3B11FNUZType": "f8E4M3B11FNUZ",
    "Float8E4M3FNType": "f8E4M3FN",
    "Float8E4M3FNUZType": "f8E4M3FNUZ",
    "Float8E5M2Type": "f8E5M2",
    "Float8E5M2FNUZType": "f8E5M2FNUZ",
    "Float8E8M0FNUType": "f8E8M0FNU",
    "FloatTF32Type": "tf32",
}


# dialect types written in C++ (no TypeDef record) that builder calls construct
CPP_TYPES = {
    "::mlir::gpu::AsyncTokenType": "!gpu.async.token",
    "::mlir::LLVM::LLVMTokenType": "!llvm.token",
    "::mlir::gpu::SparseDnTensorHandleType": "!gpu.sparse.dntensor_handle",
    "::mlir::gpu::SparseSpMatHandleType": "!gpu.sparse.spmat_handle",
    "::mlir::gpu::SparseSpGEMMOpHandleType": "!gpu.sparse.spgemmop_handle",
}


class GenError(Exception):
    pass


def scalar_call(s):
    """MLIR text of a scalar builder call, or None."""
    s = s.strip()
    m = re.fullmatch(r"\$_builder\.getIntegerType\((\d+)(?:, /\*isSigned=\*/(true|false))?\)", s)
    if m:
        pre = {None: "i", "true": "si", "false": "ui"}[m.group(2)]
        return f"{pre}{m.group(1)}"
    m = re.fullmatch(r"\$_builder\.getI(\d+)Type\(\)", s)
    if m:
        return f"i{m.group(1)}"
    m = re.fullmatch(r"\$_builder\.getF(\d+)Type\(\)", s)
    if m:
        return f"f{m.group(1)}"
    if s == "$_builder.getIndexType()":
        return "index"
    m = re.fullmatch(r"\$_builder\.getType<(?:::mlir::)?(\w+)>\(\)", s)
    if m and m.group(1) in FLOATS:
        return FLOATS[m.group(1)]
    if m and m.group(1) == "NoneType":
        return "none"
    return None


def builder_type(call, typedefs):
    """MLIR text of the type a `builderCall` builds, or None when it is not recognised."""
    s = call.strip().rstrip(";").strip()
    t = scalar_call(s)
    if t:
        return t
    m = re.fullmatch(r"\$_builder\.getType<::mlir::LLVM::LLVMPointerType>\((\d+)\)", s)
    if m:
        return "~!llvm.ptr=" + ("!llvm.ptr" if m.group(1) == "0" else f"!llvm.ptr<{m.group(1)}>")
    m = re.fullmatch(r"::mlir::VectorType::get\(\{(\d+)\}\s*,\s*(.*?)\s*\)", s)
    if m:
        e = scalar_call(m.group(2))
        return f"vector<{m.group(1)}x{e}>" if e else None
    m = re.fullmatch(r"\$_builder\.getType<(::mlir::\w+::\w+)>\(\)", s) or re.fullmatch(
        r"(?:::)?(mlir::\w+::\w+)::get\(\$_builder\.getContext\(\)\)", s
    )
    if m:
        cls = m.group(1)
        if not cls.startswith("::"):
            cls = "::" + cls
        td = typedefs.get(cls)
        if td and td[2]:
            return f"~!{td[0]}.{td[1]}=!{td[0]}.{td[1]}"
        if cls in CPP_TYPES:
            return CPP_TYPES[cls]
    return None


def defname(x):
    if isinstance(x, dict) and x.get("kind") == "def":
        return x["def"]
    return None


def read_typedefs(records, typedefs):
    """Adds {cpp class: (dialect, mnemonic, parameterless)} of the TypeDefs in `records`."""
    if True:
        for n in records.get("!instanceof", {}).get("TypeDef", []):
            t = records[n]
            dia = records.get(defname(t.get("dialect")) or "", {}).get("name")
            mn = t.get("mnemonic")
            if not dia or not mn:
                continue
            ns = t.get("cppNamespace") or records[defname(t["dialect"])].get("cppNamespace", "")
            if not ns.startswith("::"):
                ns = "::" + ns
            params = (t.get("parameters") or {}).get("args") or []
            typedefs[f"{ns}::{t['cppClassName']}"] = (dia, mn, not params)


class Reader:
    def __init__(self, records, typedefs):
        self.r = records
        self.typedefs = typedefs
        # named type constraint -> its summary, written like anonymous ones (`%summary` lines)
        self.summaries = {}
        # `ns::Class` (last namespace component) -> op name, for SingleBlockImplicitTerminator
        self.op_classes = {}
        for n in records.get("!instanceof", {}).get("Op", []):
            op = records[n]
            dia = records[defname(op["opDialect"])]
            ns = (op.get("cppNamespace") or dia.get("cppNamespace") or "").split("::")[-1]
            cls = n.split("_")[-1] if "_" in n else n
            self.op_classes[f"{ns}::{cls}"] = f"{dia['name']}.{op['opName']}"

    def sc(self, n):
        return self.r[n]["!superclasses"]

    def type_desc(self, n):
        """(kind, type text) of an operand/result constraint def name."""
        rec = self.r[n]
        sc = rec["!superclasses"]
        kind = "1"
        if "VariadicOfVariadic" in sc:
            kind = "**"
            if rec.get("segmentAttrName"):
                kind += ":" + rec["segmentAttrName"]
        elif "Variadic" in sc:
            kind = "*"
        elif "Optional" in sc:
            kind = "?"
        base = rec
        while kind != "1" and defname(base.get("baseType")):
            nb = defname(base["baseType"])
            base = self.r[nb]
            bsc = base["!superclasses"]
            if not ({"Variadic", "Optional"} & set(bsc)):
                break
        call = base.get("builderCall") or ""
        if call:
            t = builder_type(call, self.typedefs)
            if t:
                # `~PREFIX=T`: a dialect type class (printed stripped) that builds exactly T
                return kind, t if t.startswith("~") else "=" + t
        cpp = (base.get("cppType") or "").strip()
        td = self.typedefs.get(cpp)
        if td:
            return kind, f"~!{td[0]}.{td[1]}"
        name = base["!name"]
        mangled = re.sub(r"[^A-Za-z0-9]+", "_", base.get("summary") or "any").strip("_") or "any"
        if name.startswith("anonymous_"):
            name = mangled
        elif mangled != name:
            self.summaries.setdefault(name, mangled)
        return kind, ":" + name

    def enum_cases(self, rec, values=False):
        cases = []
        for e in rec.get("enumerants") or []:
            er = self.r[defname(e)]
            c = er.get("str") or er.get("symbol")
            if c and values:
                c = f"{c}={er.get('value')}"
            if c:
                cases.append(c)
        return cases

    def confinements(self, n):
        """`@c,c@summary`: the predicates of a ConfinedAttr that memplan checks, from the
        constraints' summaries (pos, nonneg, pow2, min=N, max=N, oneof=A:B:..., sorted,
        mincount=N, count=N), and the attribute's summary (MLIR's message) with `+` for
        spaces; empty if none. Predicates not listed here are left unchecked."""
        out, summary = [], None
        rec, seen = self.r[n], 0
        while rec is not None and seen < 10:
            if rec.get("attrConstraints") and summary is None:
                summary = rec.get("summary") or ""
            for c in rec.get("attrConstraints") or []:
                csum = self.r[defname(c)].get("summary") or ""
                for part in csum.split(" and "):
                    part = part.strip()
                    m = re.fullmatch(r"whose (minimum|maximum) value is (-?\d+)", part)
                    one = re.fullmatch(r"whose value is one of \{(-?\d+(?:, -?\d+)*)\}", part)
                    least = re.fullmatch(r"with at least (\d+) elements", part)
                    exact = re.fullmatch(r"with (\d+) elements \(if present\)", part)
                    if part == "whose value is positive":
                        out.append("pos")
                    elif part == "whose value is non-negative":
                        out.append("nonneg")
                    elif part == "whose value is a power of two > 0":
                        out.append("pow2")
                    elif m:
                        out.append(("min=" if m.group(1) == "minimum" else "max=") + m.group(2))
                    elif one:
                        out.append("oneof=" + one.group(1).replace(", ", ":"))
                    elif part == "should be in increasing order":
                        out.append("sorted")
                    elif least:
                        out.append("mincount=" + least.group(1))
                    elif exact:
                        out.append("count=" + exact.group(1))
            nb = defname(rec.get("baseAttr"))
            rec = self.r[nb] if nb else None
            seen += 1
        if not out:
            return ""
        summary = summary or ""
        if re.search(r"[+;@\t]", summary):
            raise GenError(f"attribute summary {summary!r} holds a table separator")
        return "@" + ",".join(out) + "@" + summary.replace(" ", "+")

    def attr_kind(self, n):
        """(req, kind) of an attribute or property constraint def name."""
        rec = self.r[n]
        sc = rec["!superclasses"]
        if "Property" in sc:
            if n == "UnitProp" or "_cls_UnitProp" in sc:
                return "o", "uprop"
            req = "o" if ("OptionalProp" in sc or "DefaultValuedProp" in sc) else "r"
            return req, "prop:" + re.sub(r"\W", "_", n)
        req = "r"
        if "OptionalAttr" in sc:
            req = "o"
        elif "DefaultValuedAttr" in sc or "DefaultValuedOptionalAttr" in sc:
            req = "d"
        elif rec.get("isOptional") in (1, "1") or n == "UnitAttr":
            req = "o"
        elif isinstance(rec.get("defaultValue"), str) and rec["defaultValue"]:
            # an attribute constraint with its own default (e.g. an EnumAttr with
            # `defaultValue`): MLIR neither requires it nor prints it when it is the default
            req = "d"
        base = rec
        seen = 0
        while defname(base.get("baseAttr")) and seen < 10:
            base = self.r[defname(base["baseAttr"])]
            seen += 1
        bsc = base["!superclasses"]
        bname = base["!name"]
        if bname == "UnitAttr":
            return "o", "unit"
        if "EnumAttr" in bsc and "DialectAttr" in bsc:
            dia = self.r[defname(base["dialect"])]["name"]
            en = self.r[defname(base["enum"])]
            fmt = (base.get("assemblyFormat") or "").strip()
            style = "lt" if fmt.startswith("`<`") else ("kw" if fmt in ("$value", "") else "other")
            if style == "lt" and ("BitEnumAttr" in self.sc(en["!name"]) or "BitEnumBase" in self.sc(en["!name"])):
                style = "ltbit"  # a set of flags (`<nnan, ninf>`), not one case
            return req, f"denum:#{dia}:{base['mnemonic']}:{style}:" + "|".join(self.enum_cases(en))
        if "EnumAttrInfo" in bsc or "IntEnumAttr" in bsc or "BitEnumAttr" in bsc:
            w = base.get("bitwidth") or 64
            bit = "b" if ("BitEnumAttr" in bsc or "BitEnumBase" in bsc) else ""
            return req, f"ienum{bit}:{w}:" + "|".join(self.enum_cases(base, True))
        if "DenseArrayAttrBase" in bsc:
            st = base.get("storageType") or ""
            m = re.search(r"Dense(I\d+|F\d+|Bool)ArrayAttr", st)
            el = {"Bool": "i1"}.get(m.group(1), m.group(1).lower()) if m else "?"
            return req, f"darray:{el}"
        if "TypeAttrBase" in bsc or bname.startswith("TypeAttr"):
            return req, "type"
        if "DialectAttr" in bsc and base.get("mnemonic") and defname(base.get("dialect")):
            dia = self.r[defname(base["dialect"])]["name"]
            fmt = (base.get("assemblyFormat") or "").strip()
            style = "lt" if fmt.startswith("`<`") or base.get("hasCustomAssemblyFormat") in (1, "1") else "other"
            return req, f"strip:#{dia}.{base['mnemonic']}:{style}"
        if "DialectAttr" in bsc and not base.get("mnemonic"):
            # a constraint on one attribute class (LLVM's TailCallKind on TailCallKindAttr):
            # formats print only that class's parameters, as for the class itself
            st = (base.get("storageType") or "").split("::")[-1]
            for an in self.r.get("!instanceof", {}).get("AttrDef", []):
                ad = self.r[an]
                fmt = (ad.get("assemblyFormat") or "").strip()
                if ad.get("cppClassName") == st and ad.get("mnemonic") and fmt.startswith("`<`"):
                    dia = self.r[defname(ad["dialect"])]["name"]
                    return req, f"strip:#{dia}.{ad['mnemonic']}:lt"
        vt = defname(base.get("valueType"))
        if vt and vt != "NoneType" and ("TypedAttrBase" in bsc or "FloatAttrBase" in bsc):
            call = self.r[vt].get("builderCall") or ""
            t = builder_type(call, self.typedefs) if call else None
            if t:
                return req, "typed:=" + t
        if bname == "SymbolNameAttr":
            return req, "symname"
        if "StringBasedAttr" in bsc:
            return req, "str"
        if bname in ("FlatSymbolRefAttr", "SymbolRefAttr"):
            return req, "sym"
        return req, "attr"

    def traits(self, op):
        out = []
        for t in op.get("traits") or []:
            n = defname(t)
            if not n:
                continue
            tr = self.r[n]
            tsc = tr["!superclasses"]
            if not tr["!anonymous"] and n in PLAIN_TRAITS:
                out.append(n)
            elif "SingleBlockImplicitTerminator" in tsc:
                texts = [tr.get("trait") or ""] + [
                    self.r[defname(x)].get("trait") or "" for x in tr.get("traits") or [] if defname(x)
                ]
                term = re.search(r"SingleBlockImplicitTerminator<(.*?)>::Impl", " ".join(texts))
                out.append("SingleBlock")
                cls = term.group(1) if term else "?"
                if "::" not in cls:
                    dia = self.r[defname(op["opDialect"])]
                    ns = (op.get("cppNamespace") or dia.get("cppNamespace") or "").split("::")[-1]
                    cls = f"{ns}::{cls}"
                parts = cls.split("::")
                out.append("SingleBlockImplicitTerminator=" + self.op_classes.get("::".join(parts[-2:]), cls))
            elif tsc and tsc[-1] in ("AllTypesMatch", "AllElementTypesMatch", "AllShapesMatch", "AllRanksMatch"):
                out.append(tsc[-1] + "=" + "|".join(tr["values"]))
            elif tsc and tsc[-1] in ("TypesMatchWith", "OptionalTypesMatchWith", "RangedTypesMatchWith"):
                tf = re.sub(r"\s+", "", tr.get("transformer") or "")
                how = {
                    "$_self": "same",
                    "::llvm::cast<Type>($_self)": "same",
                    "getElementTypeOrSelf($_self)": "elem",
                    "::mlir::getElementTypeOrSelf($_self)": "elem",
                    "::llvm::cast<MemRefType>($_self).getElementType()": "elem",
                    "::llvm::cast<ShapedType>($_self).getElementType()": "elem",
                    "::llvm::cast<VectorType>($_self).getElementType()": "elem",
                    "::llvm::cast<TensorType>($_self).getElementType()": "elem",
                    "::llvm::cast<::mlir::VectorType>($_self).getElementType()": "elem",
                    "::mlir::LLVM::getVectorElementType($_self)": "elem",
                    "LLVM::getVectorElementType($_self)": "elem",
                    "::getI1SameShape($_self)": "i1shape",
                    "::llvm::cast<ComplexType>($_self).getElementType()": "celem",
                }.get(tf, "other")

                opt = "?" if tsc[-1] == "OptionalTypesMatchWith" else ""
                out.append(f"TypesMatchWith{opt}={tr['lhs']}|{tr['rhs']}|{how}")
            elif "PredOpTrait" in tsc and defname(tr.get("predicate")):
                # `TCresVTEtIsSameAsOp` and friends: the element types (or the types) of two
                # values by flat index must be equal
                pe = re.sub(r"\s+", " ", self.r[defname(tr["predicate"])].get("predExpr") or "")
                m = re.fullmatch(
                    r"\(getElementTypeOrSelf\(\$_op\.get(Result|Operand)\((\d+)\)\) == "
                    r"getElementTypeOrSelf\(\$_op\.get(Result|Operand)\((\d+)\)\)\)",
                    pe,
                )
                if m:
                    a = m.group(1)[0].lower() + m.group(2)
                    b = m.group(3)[0].lower() + m.group(4)
                    why = re.sub(r"[^A-Za-z0-9 ']", "", tr.get("summary") or "").replace(" ", "+")
                    out.append(f"ElemSame={a}|{b}|{why}")
            elif tsc and tsc[-1] in ("NVVMRequiresSM", "NVVMRequiresSMa"):
                # the trait's arguments (NVVMRequiresSM<90>, NVVMRequiresSMa<[100, 101]>):
                # MLIR 22 checks them against the #nvvm.target chip of the enclosing gpu.module
                m = re.search(r"NVVMRequiresSMa?<([0-9, ]+)>::Impl", tr.get("trait") or "")
                if m:
                    nums = [x.strip() for x in m.group(1).split(",") if x.strip()]
                    out.append(tsc[-1] + "=" + "|".join(nums))
            elif not tr["!anonymous"] and n in ("InferTypeOpAdaptorWithIsCompatible",):
                out.append("InferTypeOpInterface")
            elif "OpInterfaceTrait" in tsc or "DeclareOpInterfaceMethods" in tsc:
                if (tr.get("cppInterfaceName") or "") == "InferTypeOpInterface":
                    out.append("InferTypeOpInterface")
        # OpAsmOpInterface's `getDefaultDialect` written in the op's extra declarations, when the op
        # implements that interface (transform.sequence: bare op names in its region resolve to
        # `transform.*`; transform.foreach declares the method but not the interface)
        dd = re.search(
            r"getDefaultDialect\(\)\s*\{\s*return\s*\"(\w+)\";", op.get("extraClassDeclaration") or ""
        )
        asm_iface = any(
            (self.r[defname(t)].get("cppInterfaceName") or defname(t)) == "OpAsmOpInterface"
            for t in op.get("traits") or []
            if defname(t)
        )
        if dd and asm_iface:
            out.append("DefaultDialect=" + dd.group(1))
        if op.get("hasCustomAssemblyFormat") in (1, "1"):
            out.append("CustomAssemblyFormat")
        seen = []
        for t in out:
            if t not in seen:
                seen.append(t)
        return ",".join(seen)

    def op_line(self, n):
        op = self.r[n]
        dia = self.r[defname(op["opDialect"])]["name"]
        name = f"{dia}.{op['opName']}" if dia else op["opName"]
        operands, attrs = [], []
        for a, an in (op.get("arguments") or {}).get("args") or []:
            d = defname(a)
            if d is None:
                raise GenError(f"{name}: argument {an} is not a def")
            sc = self.sc(d)
            if ("Arg" in sc or "OpVariable" in sc) and defname(self.r[d].get("constraint")):
                d = defname(self.r[d]["constraint"])
                sc = self.sc(d)
            if "TypeConstraint" in sc:
                k, t = self.type_desc(d)
                operands.append(f"{an} {k} {t}")
            elif "Attr" in sc or "Property" in sc or "AttrConstraint" in sc:
                req, k = self.attr_kind(d)
                k += self.confinements(d)
                attrs.append(f"{an} {req} {k}")
            else:
                raise GenError(f"{name}: argument {an} ({d}) is neither operand nor attribute")
        results = []
        for a, an in (op.get("results") or {}).get("args") or []:
            d = defname(a)
            sc = self.sc(d)
            if ("Arg" in sc or "OpVariable" in sc) and defname(self.r[d].get("constraint")):
                d = defname(self.r[d]["constraint"])
            k, t = self.type_desc(d)
            results.append(f"{an} {k} {t}")
        regions = []
        for a, an in (op.get("regions") or {}).get("args") or []:
            d = defname(a)
            variadic = "VariadicRegion" in self.sc(d)
            # SizedRegion / MaxSizedRegion / MinSizedRegion (variadic ones carry the summary of
            # their element): the block count MLIR checks
            m = re.fullmatch(r"region with (at most |at least )?(\d+) blocks", self.r[d].get("summary") or "")
            size = ""
            if m:
                size = "@" + {"at most ": "<=", "at least ": ">=", None: "="}[m.group(1)] + m.group(2)
            regions.append(f"{an} {'*' if variadic else '1'}{size}")
        succs = []
        for a, an in (op.get("successors") or {}).get("args") or []:
            d = defname(a)
            succs.append(f"{an} {'*' if 'VariadicSuccessor' in self.sc(d) else '1'}")
        fmt = op.get("assemblyFormat") or ""
        fmt = re.sub(r"\s+", " ", fmt).strip()
        for field in (operands, attrs, results, regions, succs):
            for x in field:
                if ";" in x or "\t" in x:
                    raise GenError(f"{name}: separator inside {x!r}")
        return name, "\t".join(
            [name, self.traits(op), ";".join(operands), ";".join(attrs), ";".join(results),
             ";".join(regions), ";".join(succs), fmt]
        )


def generate(include, tblgen):
    lines = {}
    summaries = {}
    records = []
    typedefs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for td in TD_FILES:
            path = os.path.join(include, td)
            if not os.path.exists(path):
                raise GenError(f"{path} not found (apt-get install libmlir-22-dev)")
            out = os.path.join(tmp, "out.json")
            subprocess.run([tblgen, "--dump-json", "-I", include, path, "-o", out], check=True)
            with open(out) as f:
                records.append(json.load(f))
        for td in TYPE_FILES:
            out = os.path.join(tmp, "out.json")
            subprocess.run(
                [tblgen, "--dump-json", "-I", include, os.path.join(include, td), "-o", out], check=True
            )
            with open(out) as f:
                read_typedefs(json.load(f), typedefs)
        for recs in records:
            read_typedefs(recs, typedefs)
        for recs in records:
            rd = Reader(recs, typedefs)
            for n in rd.r["!instanceof"].get("Op", []):
                name, line = rd.op_line(n)
                lines.setdefault(name, line)
            for k, v in rd.summaries.items():
                summaries.setdefault(k, v)
    return (
        HEADER
        + "".join(lines[k] + "\n" for k in sorted(lines))
        + "".join(f"%summary\t{k}\t{summaries[k]}\n" for k in sorted(summaries))
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--include", default=DEFAULT_INCLUDE)
    ap.add_argument("--tblgen", default="llvm-tblgen-22")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("-o", default=OUT)
    a = ap.parse_args()
    try:
        text = generate(a.include, a.tblgen)
    except (GenError, subprocess.CalledProcessError, OSError) as e:
        print(f"gen_ods_table: {e}", file=sys.stderr)
        return 2
    if a.check:
        with open(OUT) as f:
            cur = f.read()
        if cur != text:
            print(f"{OUT} is stale: run python3 scripts/gen_ods_table.py", file=sys.stderr)
            return 1
        print("ods_table.txt is current")
        return 0
    with open(a.o, "w") as f:
        f.write(text)
    nops = sum(1 for line in text.splitlines() if line and line[0] not in "#%")
    print(f"wrote {a.o} ({nops} ops)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
