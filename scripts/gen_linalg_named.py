#!/usr/bin/env python3
"""Generates crates/memplan-ir/src/dialects/linalg_named_table.rs, memplan's table of the
named linalg ops that MLIR defines through OpDSL (LinalgNamedStructuredOps.yaml).

MLIR's packages do not ship the yaml itself, but libmlir-22-dev ships what mlir-linalg-ods-yaml-gen
made of it:

  LinalgNamedStructuredOps.yamlgen.td      op names, operands, attributes (strides, dilations, cast)
  LinalgNamedStructuredOps.yamlgen.cpp.inc iterator types, indexing maps (with their symbol
                                           bindings to strides/dilations) and the region builder
                                           (the implicit body, as RegionBuilderHelper calls)
  LinalgEnums.td                           the UnaryFn / BinaryFn / TernaryFn / TypeFn enums

This script reads those three files and prints a compact Rust table (sorted by op name, so
memplan finds an op by binary search). The table is checked in: building memplan needs neither
libmlir nor this script. `--check` compares the checked-in file with a fresh generation
(the test `linalg_named_table_is_current` runs it when the MLIR files are installed).

usage: gen_linalg_named.py [--include DIR] [--check | -o FILE]
"""

import argparse
import os
import re
import sys

DEFAULT_INCLUDE = "/usr/lib/llvm-22/include"
LINALG = "mlir/Dialect/Linalg/IR"
OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "crates",
    "memplan-ir",
    "src",
    "dialects",
    "linalg_named_table.rs",
)


class GenError(Exception):
    pass


def camel(s):
    return "".join(p[:1].upper() + p[1:] for p in s.split("_"))


def read_enums(path):
    """{enum name: [case, ...]} for the I32EnumAttrs with literal case lists."""
    text = open(path).read()
    enums = {}
    for m in re.finditer(r"def (\w+) : I32EnumAttr<\"\w+\", \"[^\"]*\", \[(.*?)\]", text, re.S):
        cases = re.findall(r'I32EnumAttrCase<"(\w+)", (\d+)>', m.group(2))
        if cases:
            enums[m.group(1)] = [c for c, _ in sorted(cases, key=lambda c: int(c[1]))]
    for need in ("UnaryFn", "BinaryFn", "TernaryFn", "TypeFn"):
        if need not in enums:
            raise GenError(f"{path}: enum {need} not found")
    return enums


def read_td(path):
    """{class name: (op name, {attr: rank or None})} from the yamlgen .td."""
    text = open(path).read()
    ops = {}
    for m in re.finditer(r'^def (\w+) : LinalgStructuredBase_Op<"(\w+)"', text, re.M):
        cls, name = m.group(1), m.group(2)
        nxt = text.find("\ndef ", m.end())
        block = text[m.end() : nxt if nxt >= 0 else len(text)]
        args = re.search(r"let arguments = \(ins(.*?)\n    \);", block, re.S)
        if not args:
            raise GenError(f"{cls}: no arguments")
        attrs = {}
        for a in re.finditer(r"^(.*):\$(\w+)\s*,?\s*$", args.group(1), re.M):
            kind, an = a.group(1).strip(), a.group(2)
            if an in ("inputs", "outputs"):
                continue
            r = re.match(r"DefaultValuedOptionalAttr<RankedI64ElementsAttr<\[(\d+)\]>", kind)
            if r and an in ("strides", "dilations"):
                attrs[an] = int(r.group(1))
            elif kind.startswith("DefaultValuedOptionalAttr<TypeFnAttr") and an == "cast":
                attrs[an] = None
            else:
                raise GenError(f"{cls}: unsupported argument {kind}:${an}")
        ops[cls] = (name, attrs)
    return ops


def parse_expr(e, sym_bind):
    """One indexing-map result: d, d + d, or d * s + d * s with s bound to strides/dilations."""
    e = e.strip()
    m = re.fullmatch(r"d(\d+)", e)
    if m:
        return f"E::D({m.group(1)})"
    m = re.fullmatch(r"d(\d+) \+ d(\d+)", e)
    if m:
        return f"E::Add({m.group(1)}, {m.group(2)})"
    m = re.fullmatch(r"d(\d+) \* s(\d+) \+ d(\d+) \* s(\d+)", e)
    if m:
        c1, c2 = sym_bind[int(m.group(2))], sym_bind[int(m.group(4))]
        if c1 is None or c2 is None:
            raise GenError(f"map result {e!r}: coefficient bound to a symbol")
        return f"E::Win({m.group(1)}, {c1}, {m.group(3)}, {c2})"
    raise GenError(f"unsupported map result {e!r}")


def split_results(s):
    s = s.strip()
    return [] if not s else [x for x in s.split(",")]


def read_impls(path, td_ops, enums):
    text = open(path).read()
    parts = re.split(r"// Implementation of (\w+)\n", text)
    entries = []
    for i in range(1, len(parts), 2):
        cls, body = parts[i], parts[i + 1]
        if cls not in td_ops:
            raise GenError(f"{cls} is in the .cpp.inc but not in the .td")
        name, attrs = td_ops[cls]
        # Iterator types.
        it = re.search(r"getIteratorTypesArray\(\) \{\n(.*?)\n\}", body, re.S).group(1)
        if "getRank(getDpsInitOperand(0))" in it:
            iters = ""
        else:
            kinds = re.findall(r"utils::IteratorType::(\w+)", it)
            iters = "".join({"parallel": "p", "reduction": "r"}[k] for k in kinds)
        # Symbol bindings.
        sym_bind = []
        sb = re.search(r"getSymbolBindings\(\w+ self\) \{(.*?)\n\}", body, re.S)
        if sb:
            for m in re.finditer(
                r"getAffineSymbolExpr\((\d+), context\)|self\.get(Strides|Dilations)\(\)\.getValues<int64_t>\(\)\[(\d+)\]",
                sb.group(1),
            ):
                if m.group(1) is not None:
                    sym_bind.append(None)
                else:
                    kind = "Stride" if m.group(2) == "Strides" else "Dilation"
                    sym_bind.append(f"C::{kind}({m.group(3)})")
        # Indexing maps.
        maps_src = re.findall(r'parseAttribute\("affine_map<\(([^)]*)\)(?:\[[^\]]*\])? -> \(([^)]*)\)>"', body)
        if maps_src:
            maps = []
            for dims, res in maps_src:
                nd = len(split_results(dims))
                if nd != len(iters):
                    raise GenError(f"{cls}: map with {nd} dims for {len(iters)} loops")
                maps.append([parse_expr(e, sym_bind) for e in split_results(res)])
        elif "scalarMap" in body and "getMultiDimIdentityMap" in body:
            maps = None
            if iters:
                raise GenError(f"{cls}: rank-polymorphic maps with fixed iterators")
        else:
            raise GenError(f"{cls}: indexing maps not understood")
        nargs = int(re.search(r"getNumRegionArgs\(\) \{ return (\d+); \}", body).group(1))
        # Region builder.
        rb = re.search(r"::regionBuilder\(.*?\{\n(.*?)\n\}\n", body, re.S).group(1)
        values = {}
        steps = []
        yields = []

        def val(tok):
            tok = tok.strip()
            m = re.fullmatch(r"block\.getArgument\((\d+)\)", tok)
            if m:
                return int(m.group(1))
            m = re.fullmatch(r"value(\d+)", tok)
            if m and tok in values:
                return values[tok]
            raise GenError(f"{cls}: operand {tok!r} not understood")

        def target(tok):
            tok = tok.strip()
            m = re.fullmatch(r"block\.getArgument\((\d+)\)\.getType\(\)", tok)
            if m:
                return f"To::Arg({m.group(1)})"
            m = re.fullmatch(r"helper\.getIntegerType\((\d+)\)", tok)
            if m:
                return f"To::Int({m.group(1)})"
            if tok == "helper.getFloat64Type()":
                return "To::F64"
            if tok == "helper.getFloat32Type()":
                return "To::F32"
            raise GenError(f"{cls}: cast target {tok!r} not understood")

        stmt_re = re.compile(
            r"Value (value\d+) = helper\.(\w+)\((.*?)\);|yields\.push_back\((.*?)\);|helper\.yieldOutputs"
        )
        for m in stmt_re.finditer(rb):
            if m.group(0).startswith("helper.yieldOutputs"):
                break
            if m.group(4) is not None:
                yields.append(val(m.group(4)))
                continue
            dst, fn, args = m.group(1), m.group(2), m.group(3)
            a = [x.strip() for x in args.split(",")]
            if a and a[-1] == "emitError":
                a = a[:-1]
            if fn == "buildTypeFn":
                if a[0] == "castVal":
                    kind = "CastFn::Attr"
                else:
                    k = re.fullmatch(r"TypeFn::(\w+)", a[0]).group(1)
                    kind = {"cast_signed": "CastFn::Signed", "cast_unsigned": "CastFn::Unsigned"}[k]
                step = f"Step::Cast({kind}, {target(a[1])}, {val(a[2])})"
            elif fn in ("buildUnaryFn", "buildBinaryFn", "buildTernaryFn"):
                enum = fn[len("build") :]
                k = re.fullmatch(enum + r"::(\w+)", a[0]).group(1)
                if k not in enums[enum]:
                    raise GenError(f"{cls}: {enum}::{k} unknown")
                ops = ", ".join(str(val(x)) for x in a[1:])
                step = f"Step::{enum[:-2]}({enum}::{camel(k)}, {ops})"
            elif fn == "constant":
                lit = re.fullmatch(r'"(.*)"', args.strip()).group(1)
                step = f'Step::Const("{lit}")'
            elif fn == "index":
                step = f"Step::Index({int(args)})"
            else:
                raise GenError(f"{cls}: helper.{fn} not understood")
            values[dst] = nargs + len(steps)
            steps.append(step)
        if "castVal" in rb and "cast" not in attrs:
            raise GenError(f"{cls}: cast attribute used but not declared")
        outputs = len(yields)
        if outputs == 0 or outputs > nargs:
            raise GenError(f"{cls}: {outputs} yields for {nargs} region args")
        if maps is not None and len(maps) != nargs:
            raise GenError(f"{cls}: {len(maps)} maps for {nargs} operands")
        win = sorted({r for a, r in attrs.items() if r is not None})
        if len(win) > 1:
            raise GenError(f"{cls}: strides/dilations of different ranks")
        if win:
            kind = f"Attrs::Window({win[0]})"
        elif "cast" in attrs:
            kind = "Attrs::Cast"
        else:
            kind = "Attrs::None"
        entries.append(
            dict(
                name="linalg." + name,
                inputs=nargs - outputs,
                outputs=outputs,
                attrs=kind,
                iters=iters,
                maps=maps,
                steps=steps,
                yields=yields,
            )
        )
    if len(entries) != len(td_ops):
        missing = set(n for n, _ in td_ops.values()) - set(e["name"][7:] for e in entries)
        raise GenError(f"ops in the .td without implementation: {sorted(missing)}")
    entries.sort(key=lambda e: e["name"])
    return entries


def emit_enum(out, name, cases, doc):
    out.append(f"/// {doc}")
    out.append("#[derive(Clone, Copy, Debug, PartialEq, Eq)]")
    out.append(f"pub enum {name} {{")
    for c in cases:
        out.append(f"    /// `{c}`.")
        out.append(f"    {camel(c)},")
    out.append("}")
    out.append("")
    out.append(f"impl {name} {{")
    out.append("    /// Every case, in MLIR's enum order.")
    out.append(f"    pub const ALL: [{name}; {len(cases)}] = [")
    for c in cases:
        out.append(f"        {name}::{camel(c)},")
    out.append("    ];")
    out.append("    /// The case's name in MLIR.")
    out.append("    pub const fn name(self) -> &'static str {")
    out.append("        match self {")
    for c in cases:
        out.append(f'            {name}::{camel(c)} => "{c}",')
    out.append("        }")
    out.append("    }")
    out.append("}")
    out.append("")


def generate(include):
    base = os.path.join(include, LINALG)
    enums = read_enums(os.path.join(base, "LinalgEnums.td"))
    td_ops = read_td(os.path.join(base, "LinalgNamedStructuredOps.yamlgen.td"))
    entries = read_impls(os.path.join(base, "LinalgNamedStructuredOps.yamlgen.cpp.inc"), td_ops, enums)
    out = [
        "// @generated by scripts/gen_linalg_named.py from MLIR 22's LinalgEnums.td and",
        "// LinalgNamedStructuredOps.yamlgen.{td,cpp.inc} (libmlir-22-dev). Do not edit: re-run",
        "// `python3 scripts/gen_linalg_named.py`.",
        "//! The named linalg ops MLIR defines through OpDSL: operand counts, attributes, iterator",
        "//! types, indexing maps and the implicit body, as data (see `linalg_named.rs`).",
        "",
        "use super::linalg_named::{Attrs, CastFn, NamedOp, Step, To, C, E};",
        "",
    ]
    emit_enum(out, "UnaryFn", enums["UnaryFn"], "MLIR's `linalg::UnaryFn`.")
    emit_enum(out, "BinaryFn", enums["BinaryFn"], "MLIR's `linalg::BinaryFn`.")
    emit_enum(out, "TernaryFn", enums["TernaryFn"], "MLIR's `linalg::TernaryFn`.")
    out.append("/// The OpDSL named ops, sorted by name.")
    out.append("pub static NAMED_OPS: &[NamedOp] = &[")
    for e in entries:
        out.append("    NamedOp {")
        out.append(f'        name: "{e["name"]}",')
        out.append(f"        inputs: {e['inputs']},")
        out.append(f"        outputs: {e['outputs']},")
        out.append(f"        attrs: {e['attrs']},")
        out.append(f'        iterators: "{e["iters"]}",')
        if e["maps"] is None:
            out.append("        maps: &[],")
        else:
            out.append("        maps: &[")
            for m in e["maps"]:
                out.append(f"            &[{', '.join(m)}],")
            out.append("        ],")
        if e["steps"]:
            out.append("        body: &[")
            for s in e["steps"]:
                out.append(f"            {s},")
            out.append("        ],")
        else:
            out.append("        body: &[],")
        out.append(f"        yields: &[{', '.join(map(str, e['yields']))}],")
        out.append("    },")
    out.append("];")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--include", default=DEFAULT_INCLUDE, help="MLIR include directory")
    ap.add_argument("--check", action="store_true", help="exit 1 if the checked-in table differs")
    ap.add_argument("-o", "--output", default=OUT)
    args = ap.parse_args()
    try:
        text = generate(args.include)
    except (GenError, OSError, AttributeError) as e:
        print(f"gen_linalg_named.py: {e}", file=sys.stderr)
        return 2
    if args.check:
        try:
            old = open(args.output).read()
        except OSError:
            old = None
        if old != text:
            print(f"{args.output} is out of date: run scripts/gen_linalg_named.py", file=sys.stderr)
            return 1
        return 0
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
