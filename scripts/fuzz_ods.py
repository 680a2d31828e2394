#!/usr/bin/env python3
"""Differential fuzzing of memplan's MLIR reader/printer against mlir-opt-22 (issue 10).

Two sources of inputs:

  generated  random modules drawn from the op table (crates/memplan-ir/src/dialects/ods_table.txt):
             each module is one func.func whose body holds 1-4 ops of the table, written in
             generic form, with operand/result types picked from the ops' type constraints and
             traits (SameOperandsAndResultType, AllTypesMatch, TypesMatchWith) and attributes
             from their kinds (enums, typed integers, units, types, strings, dense arrays).
  mutated    the shared corpus cases and the custom forms of generated modules, with one random
             textual mutation (drop/duplicate/swap a token or line, change a type or a number).

Checks, per input:
  accept     mlir-opt-22 accepts exactly when memplan accepts (exit 0 vs error);
  roundtrip  when both accept: memplan's print (custom form), re-read by mlir-opt-22, normalises
             (`--mlir-print-op-generic --mlir-print-local-scope`) to the same text as the input;
  custom     (generated only) mlir-opt-22's own custom print of the module is read by memplan, and
             memplan's print of it normalises to the same text (this is what exercises the format
             engine's parser); counted only where mlir-opt-22 reads its own custom print back
             (some C++ printers write text their parsers reject, e.g. operand types the parser
             fixes; those are reported as not counted). Two references: the generic original,
             and (second row) mlir-opt-22's own reading of its custom print, which differs where
             a C++ printer loses information (e.g. `llvm.shufflevector` with a result type that
             disagrees with its mask; counted as "reads back as a different module").

mlir-opt-22 runs once per batch (`--split-input-file`); memplan once per input. Prints a summary
with disagreement classes; `--report FILE` writes it as markdown; `--keep DIR` keeps the first
`--keep-each N` (default 1) disagreeing inputs of each class and message pattern.

usage: fuzz_ods.py [--seed N] [--modules N] [--mutants N] [--batch N] [--jobs N]
                   [--memplan BIN] [--mlir-opt BIN] [--report FILE] [--keep DIR [--keep-each N]]
                   [--min-gen PCT] [--min-custom PCT] [--min-reject PCT]
"""

import argparse
import concurrent.futures as cf
import os
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
TABLE = os.path.join(ROOT, "crates", "memplan-ir", "src", "dialects", "ods_table.txt")
SPLIT = "// -----"

# sample types for the type constraints that occur most in the table
CANDIDATES = {
    "AnyType": ["i32", "f32", "index", "i64"],
    "LLVM_Type": ["i32", "i64", "f32", "!llvm.ptr"],
    "FloatLike": ["f32", "f64", "f16", "vector<4xf32>"],
    "AnyFloat": ["f32", "f64"],
    "SignlessIntegerOrIndexLike": ["i32", "i64", "index", "vector<4xi32>"],
    "SignlessIntegerLike": ["i32", "i64", "vector<4xi32>"],
    "SignlessFixedWidthIntegerLike": ["i32", "i64"],
    "AnySignlessInteger": ["i32", "i64", "i8"],
    "AnySignlessIntegerOrIndex": ["i32", "index"],
    "AnyInteger": ["i32", "i64"],
    "BoolLike": ["i1", "vector<4xi1>"],
    "I1": ["i1"],
    "Index": ["index"],
    "signless_integer_or_LLVM_dialect_compatible_vector_of_signless_integer": ["i32", "i64", "vector<4xi32>"],
    "integer_or_LLVM_dialect_compatible_vector_of_integer": ["i32", "i16"],
    "floating_point_LLVM_type_or_LLVM_dialect_compatible_vector_of_floating_point_LLVM_type": ["f32", "f64", "vector<2xf32>"],
    "LLVM_dialect_compatible_vector_of_1_bit_signless_integer": ["vector<4xi1>"],
    "LLVM_dialect_compatible_vector_of_signless_integer": ["vector<4xi32>"],
    "LLVM_dialect_compatible_vector_of_floating_point": ["vector<4xf32>"],
    "32_bit_float_or_LLVM_dialect_compatible_vector_of_32_bit_float": ["f32"],
    "16_bit_float_or_LLVM_dialect_compatible_vector_of_16_bit_float": ["f16"],
    "bfloat16_type_or_LLVM_dialect_compatible_vector_of_bfloat16_type": ["bf16"],
    "LLVM_AnyFloat": ["f32", "f64"],
    "LLVM_AnyVector": ["vector<4xf32>", "vector<2xi32>"],
    "LLVM_AnyPointer": ["!llvm.ptr"],
    "LLVM_pointer_in_address_space_0_or_LLVM_pointer_in_address_space_3": ["!llvm.ptr", "!llvm.ptr<3>"],
    "LLVM_pointer_type_or_LLVM_dialect_compatible_vector_of_LLVM_pointer_type": ["!llvm.ptr"],
    "LLVM_LoadableType": ["i32", "f32", "!llvm.ptr"],
    "AnyMemRef": ["memref<4xf32>", "memref<2x3xi32>"],
    "AnyStridedMemRef": ["memref<4xf32>"],
    "AnyRankedOrUnrankedMemRef": ["memref<4xf32>", "memref<*xf32>"],
    "AnyRankedTensor": ["tensor<4xf32>", "tensor<?x3xi32>"],
    "AnyTensor": ["tensor<4xf32>"],
    "AnyShaped": ["tensor<4xf32>", "memref<4xf32>"],
    "TensorOrMemref": ["tensor<4xf32>", "memref<4xf32>"],
    "AnyVectorOfNonZeroRank": ["vector<4xf32>", "vector<2x3xi32>"],
    "AnyVectorOfAnyRank": ["vector<4xf32>", "vector<f32>"],
    "AnyIntegerOrFloatOr1DVector": ["i32", "f32", "vector<4xf32>"],
    "vector_of_1_bit_signless_integer_values": ["vector<4xi1>"],
    "integer_or_index": ["i32", "index"],
    "Async_AnyValueOrTokenType": ["!async.token"],
    "any": ["i32"],
}
DIALECT_CLASS = {
    "!llvm.ptr": ["!llvm.ptr", "!llvm.ptr<3>"],
    "!async.token": ["!async.token"],
    "!async.group": ["!async.group"],
    "!nvgpu.device.async.token": ["!nvgpu.device.async.token"],
    "!nvgpu.mbarrier.token": ["!nvgpu.mbarrier.token"],
}


def load_table(path):
    ops = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        if len(f) < 8:
            continue

        def vals(s):
            out = []
            for x in filter(None, s.split(";")):
                n, k, t = x.split(" ", 2)
                out.append((n, k, t))
            return out

        attrs = []
        for x in filter(None, f[3].split(";")):
            n, req, kind = x.split(" ", 2)
            attrs.append((n, req, kind.split("@")[0]))
        ops.append(
            {
                "name": f[0],
                "traits": list(filter(None, f[1].split(","))),
                "operands": vals(f[2]),
                "attrs": attrs,
                "results": vals(f[4]),
                "regions": list(filter(None, f[5].split(";"))),
                "successors": list(filter(None, f[6].split(";"))),
                "format": f[7],
            }
        )
    return ops


WIDE = False  # set by --wide: the generator also reads constraint names it has no sample for


def type_choices(t):
    if t.startswith("="):
        return [t[1:]]
    if t.startswith("~"):
        got = DIALECT_CLASS.get(t[1:])
        if got is None and WIDE and "=" in t:
            # `~class=buildable`: the table names a buildable instance of the dialect type
            return [t.split("=", 1)[1]]
        return got
    got = CANDIDATES.get(t[1:])
    if got is None and WIDE:
        got = constraint_types(t[1:]) or None
    return got


FLOAT_NAMES = {"16": "f16", "32": "f32", "64": "f64", "80": "f80", "128": "f128"}


def element_types(s):
    """Element types named by an ODS constraint description fragment (`16_bit_float`,
    `8_bit_signless_integer`, `f8E4M3FN_type`, `bfloat16_type`, joined by `_or_`)."""
    out = []
    for a in s.split("_or_"):
        m = re.fullmatch(r"(\d+)_bit_(?:signless_)?integer", a)
        if m:
            out.append(f"i{m.group(1)}")
            continue
        m = re.fullmatch(r"(\d+)_bit_float", a)
        if m and m.group(1) in FLOAT_NAMES:
            out.append(FLOAT_NAMES[m.group(1)])
            continue
        if a == "bfloat16_type":
            out.append("bf16")
            continue
        m = re.fullmatch(r"(f\d+E\d+M\d+\w*|tf32|bf16|f16|f32|f64)_type", a)
        if m:
            out.append(m.group(1))
            continue
        if a in ("index", "any_type", "floating_point", "integer", "signless_integer"):
            out.append({"index": "index", "any_type": "f32", "floating_point": "f32"}.get(a, "i32"))
            continue
        return []
    return out


def constraint_types(name):
    """Sample types for a constraint the CANDIDATES table lacks, read from its name: vectors
    and tensors of named element types and lengths/ranks, LLVM pointers in address spaces,
    scalars; `A_or_B` unions of such. Empty when the name is not understood."""
    m = re.fullmatch(r"(?:fixed_length_)?vector_of_(.+?)_values(?:_of_length_([\d_]+))?", name)
    if m:
        es = element_types(m.group(1))
        lens = m.group(2).split("_") if m.group(2) else ["4"]
        return [f"vector<{n}x{e}>" for e in es for n in lens] if es else []
    m = re.fullmatch(r"(\d)D_tensor_of_(.+)_values", name)
    if m:
        es = element_types(m.group(2))
        return [f"tensor<{'x'.join(['2'] * int(m.group(1)))}x{e}>" for e in es] if es else []
    m = re.fullmatch(r"LLVM_pointer_in_address_space_(\d+)", name)
    if m:
        return ["!llvm.ptr" if m.group(1) == "0" else f"!llvm.ptr<{m.group(1)}>"]
    fixed = {
        "AnyUnrankedMemRef": ["memref<*xf32>"],
        "LLVM_AnyStruct": ["!llvm.struct<(i32, f32)>"],
        "LLVM_AnyAggregate": ["!llvm.struct<(i32, f32)>", "!llvm.array<4 x i32>"],
        "GPU_MMAMatrix": ['!gpu.mma_matrix<16x16xf16, "AOp">'],
        "AnyFixedVectorOfAnyRank": ["vector<4xf32>", "vector<2x2xi32>"],
        "IndexCastTypeConstraint": ["index", "i32", "vector<4xindex>"],
        "Async_AnyAsyncType": ["!async.token", "!async.value<f32>"],
    }
    if name in fixed:
        return fixed[name]
    es = element_types(name)
    if es:
        return es
    # `A_or_B` where each side is understood on its own
    parts = name.split("_or_")
    for i in range(1, len(parts)):
        left, right = "_or_".join(parts[:i]), "_or_".join(parts[i:])
        lt = CANDIDATES.get(left) or constraint_types(left)
        rt = CANDIDATES.get(right) or constraint_types(right)
        if lt and rt:
            return lt + rt
    return []


def elem_of(t):
    m = re.match(r"(?:vector|tensor|memref)<(?:[0-9?*]+x)*(\w+)", t)
    return m.group(1) if m else t


def gen_attr(rng, kind):
    """Attribute text for a kind of the table, or None when the fuzzer cannot make one."""
    head, _, rest = kind.partition(":")
    if head in ("unit", "uprop"):
        return ""
    if head == "ienum":
        w, _, cases = rest.partition(":")
        n, v = rng.choice(cases.split("|")).split("=")
        return f"{v} : i{w}"
    if head == "denum":
        dia, mn, style, cases = rest.split(":", 3)
        c = rng.choice(cases.split("|"))
        if style == "kw":
            return f"{dia}<{mn} {c}>"
        if style in ("lt", "ltbit"):
            return f"{dia}.{mn}<{c}>"
        return None
    if head == "typed":
        t = rest.lstrip("=")
        if t.startswith(("f", "bf")):
            return f"{rng.choice(['1.5', '0.0', '-2.0'])} : {t}"
        if t == "i1":
            return rng.choice(["true", "false"])
        if re.fullmatch(r"(i|si|ui)\d+|index", t):
            return f"{rng.choice([0, 1, 4, 7, 64])} : {t}"
        return None
    if head == "type":
        return rng.choice(["i32", "f32", "!llvm.ptr"])
    if head == "darray":
        if rest.startswith("i"):
            return f"array<{rest}: " + ", ".join(str(rng.randint(0, 4)) for _ in range(rng.randint(0, 3))) + ">"
        return None
    if head == "str":
        return '"x"'
    if head == "sym":
        return "@sym"
    return None


# --wide: random types, attribute values and locations the op table never asks for (used on
# extra function arguments, as discardable attributes and as op locations)
WIDE_TYPES = [
    "i1", "i7", "i128", "si8", "ui16", "index", "f16", "bf16", "f80", "f128", "tf32", "f8E4M3FN",
    "f8E5M2", "f4E2M1FN", "complex<f32>", "complex<i8>", "none", "tuple<>", "tuple<i32, tuple<f32>>",
    "vector<[4]xf32>", "vector<2x[4]xi8>", "vector<f32>", "vector<1x1x1xi1>", "tensor<*xf32>",
    "tensor<?x4xi32>", "tensor<0xf32>", 'tensor<2xf32, "enc">', "tensor<4xf32, #fz.enc<1>>",
    "memref<4x?xf32, strided<[?, 1], offset: ?>>", "memref<4xf32, 1>",
    "memref<4xf32, #gpu.address_space<workgroup>>", "memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>",
    "memref<*xf32, 3>", "memref<0xf32>", "memref<2x3xf32, strided<[3, 1], offset: 5>>",
    "memref<4xvector<2xf32>>", "memref<f32>", "!llvm.struct<(i32, ptr)>", '!llvm.struct<"fz", (i32, f64)>',
    "!llvm.struct<packed (i8, i32)>", "!llvm.array<4 x i8>", "!llvm.func<void (i32, ...)>", "!llvm.ptr<5>",
    "(i32) -> f32", "() -> ()", "(i32, f32) -> (i64, i1)", "!fz.ty", '!fz<"x y">', "!fz.ty<1, [2], {a = 3}>",
    "!async.value<f32>", "!gpu.async.token", "!llvm.target<\"spirv\">",
]
WIDE_ATTRS = [
    "5 : i64", "-3 : si8", "7 : ui16", "0x10 : i32", "true", "false", "1.5 : f32", "-0.0 : f64",
    "0x7FC00000 : f32", "1.0e10 : f64", "2.5 : bf16", "1 : index", "-1", "3.0", '"a\\"b\\n"', '"\\00\\ff"',
    "unit", '[1, "x", unit]', "[]", "{a = 1 : i32, b}", "{}",
    "dense<[1, 2]> : tensor<2xi32>", "dense<1.0> : vector<4xf32>", "dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>",
    'dense<"0x01020304"> : tensor<4xi8>', "dense<(1.0, 2.0)> : tensor<complex<f32>>", "dense<[true, false]> : tensor<2xi1>",
    "dense<> : tensor<0xi32>", "dense<[0x7F800000]> : tensor<1xf32>", "sparse<[[0, 0]], [1]> : tensor<2x2xi32>",
    "array<i32: 1, 2>", "array<f32: 1.0>", "array<i1: true>", "array<i64>", "affine_map<(d0)[s0] -> (d0 + s0, d0 mod 2)>",
    "affine_set<(d0) : (d0 >= 0, d0 - 4 == 0)>", "i32", "memref<?xf32>", "!llvm.ptr", "@a::@b", "@c",
    '#fz.attr<"x">', "#fz<bar>", "#fz.a<[1, 2], {k = f32}>", "strided<[1]>", "strided<[?, 1], offset: ?>",
    "#llvm.linkage<internal>", "#gpu.address_space<private>", "#arith.fastmath<fast>", "distinct[0]<unit>",
]
WIDE_LOCS = [
    'loc("f.mlir":3:4)', "loc(unknown)", 'loc("nm"("a.mlir":1:1))', 'loc(fused["a", "b":2:3])',
    'loc(callsite("a" at "b":1:1))', 'loc(fused<"x">["a":1:2])', 'loc("a.mlir":1:2 to 3:4)',
]


class Gen:
    def __init__(self, ops, rng):
        self.rng = rng
        self.ops = [o for o in ops if self.usable(o)]
        # --wide: ops with regions join the ordinary ones, successor ops end a first block
        self.term_ops = [o for o in ops if WIDE and o["successors"] and self.usable(o, True)]

    def usable(self, o, successors=False):
        if WIDE and o["name"] in ("builtin.module", "func.func"):
            return False
        if WIDE and not successors:
            if o["successors"] or "Terminator" in o["traits"]:
                return False
        elif WIDE:
            if not o["successors"] or o["regions"]:
                return False
        elif o["regions"] or o["successors"] or "Terminator" in o["traits"]:
            return False
        if o["name"].startswith(("builtin.", "func.")) and not WIDE:
            return False
        for _, k, t in o["operands"] + o["results"]:
            if k.startswith("**") or type_choices(t) is None:
                return False
        for n, req, kind in o["attrs"]:
            if req == "r" and gen_attr(random.Random(0), kind) is None:
                return False
        return True

    def op_text(self, o, args, depth=0):
        """(text, arg types) of one op in generic form; `args` names fresh arguments."""
        rng = self.rng
        types = {}
        same = "SameOperandsAndResultType" in o["traits"]
        shared = None
        for n, k, t in o["operands"] + o["results"]:
            ch = type_choices(t)
            if same:
                if shared is None:
                    shared = rng.choice(ch)
                types[n] = shared
            else:
                types[n] = rng.choice(ch)
        for tr in o["traits"]:
            if tr.startswith("AllTypesMatch="):
                names = tr.split("=", 1)[1].split("|")
                base = next((types[x] for x in names if x in types), None)
                for x in names:
                    if x in types and base:
                        types[x] = base
            elif tr.startswith("TypesMatchWith"):
                frm, to, how = tr.split("=", 1)[1].split("|")
                if frm in types and to in types:
                    if how == "same":
                        types[to] = types[frm]
                    elif how == "elem":
                        types[to] = elem_of(types[frm])
        operands, otypes, seg = [], [], []
        for n, k, t in o["operands"]:
            cnt = 1 if k == "1" else (rng.randint(0, 1) if k == "?" else rng.randint(0, 2))
            seg.append(cnt)
            for _ in range(cnt):
                operands.append(args(types[n]))
                otypes.append(types[n])
        rtypes = []
        rseg = []
        for n, k, t in o["results"]:
            cnt = 1 if k == "1" else (rng.randint(0, 1) if k == "?" else rng.randint(0, 2))
            rseg.append(cnt)
            rtypes.extend([types[n]] * cnt)
        props = []
        for n, req, kind in o["attrs"]:
            if req == "r" or rng.random() < 0.3:
                a = gen_attr(rng, kind)
                if a is None:
                    continue
                props.append(n if a == "" else f"{n} = {a}")
        if "AttrSizedOperandSegments" in o["traits"]:
            props.append("operandSegmentSizes = array<i32: " + ", ".join(map(str, seg)) + ">")
        if "AttrSizedResultSegments" in o["traits"]:
            props.append("resultSegmentSizes = array<i32: " + ", ".join(map(str, rseg)) + ">")
        res = ""
        if rtypes:
            res = f"%r{self.counter}:{len(rtypes)} = " if len(rtypes) > 1 else f"%r{self.counter} = "
        self.counter += 1
        pd = f" <{{{', '.join(props)}}}>" if props else ""
        rt = rtypes[0] if len(rtypes) == 1 and not rtypes[0].startswith("(") else "(" + ", ".join(rtypes) + ")"
        succ = regs = extra = ""
        if WIDE:
            if o["successors"]:
                n = sum(1 if k == "1" else rng.randint(0, 2) for k in [x.split(" ")[1] for x in o["successors"]])
                succ = "[" + ", ".join(["^bb1"] * n) + "]"
            if o["regions"]:
                regs = " (" + ", ".join(self.region(o, args, depth) for _ in range(self.region_count(o))) + ")"
            if rng.random() < 0.2:
                extra += f" {{fz_attr = {rng.choice(WIDE_ATTRS)}}}"
            if rng.random() < 0.2:
                extra += f" : ({', '.join(otypes)}) -> {rt} {rng.choice(WIDE_LOCS)}"
                return f'{"  " * depth}    {res}"{o["name"]}"({", ".join(operands)}){succ}{pd}{regs}{extra}'
        return f'{"  " * depth}    {res}"{o["name"]}"({", ".join(operands)}){succ}{pd}{regs}{extra} : ({", ".join(otypes)}) -> {rt}'

    def region_count(self, o):
        n = 0
        for x in o["regions"]:
            k = x.split(" ")[1].split("@")[0]  # `1@=1`: one region with one block
            n += 1 if k == "1" else self.rng.randint(0, 2)
        return n

    def region(self, o, args, depth):
        """A region for an op of --wide: empty, or one block (sometimes with arguments of the
        op's element types) holding at most one op and the op's implicit terminator."""
        rng = self.rng
        if rng.random() < 0.15:
            return "{\n" + "  " * depth + "    }"
        term = None
        for tr in o["traits"]:
            if tr.startswith("SingleBlockImplicitTerminator="):
                t = tr.split("=", 1)[1]
                m = re.fullmatch(r"(\w+)::(\w+)Op", t)
                term = f"{m.group(1)}.{m.group(2)[0].lower()}{m.group(2)[1:]}" if m else t
        ind = "  " * depth
        head = ""
        if rng.random() < 0.4:
            tys = [rng.choice(["index", "f32", "i32"]) for _ in range(rng.randint(1, 3))]
            head = f"{ind}    ^bb0(" + ", ".join(f"%b{depth}_{i}: {t}" for i, t in enumerate(tys)) + "):\n"
        body = []
        if depth < 2 and rng.random() < 0.5:
            body.append(self.op_text(rng.choice(self.ops), args, depth + 1))
        if term:
            body.append(f'{ind}      "{term}"() : () -> ()')
        elif "NoTerminator" not in o["traits"]:
            body.append(f'{ind}      "{rng.choice(["scf.yield", "llvm.return", "func.return"])}"() : () -> ()')
        if not body and not head:
            head = f"{ind}    ^bb0:\n"
        return "{\n" + head + "\n".join(body) + "\n" + ind + "    }"

    def module(self):
        self.counter = 0
        arg_types = []

        def arg(t):
            arg_types.append(t)
            return f"%a{len(arg_types) - 1}"

        lines = [self.op_text(self.rng.choice(self.ops), arg) for _ in range(self.rng.randint(1, 4))]
        if not WIDE:
            sig = ", ".join(f"%a{i}: {t}" for i, t in enumerate(arg_types))
            return f"func.func @f({sig}) {{\n" + "\n".join(lines) + "\n    return\n}\n"
        rng = self.rng
        if self.term_ops and rng.random() < 0.15:
            lines.append(self.op_text(rng.choice(self.term_ops), arg))
            lines.append("  ^bb1:")
        for _ in range(rng.randint(0, 2) if rng.random() < 0.3 else 0):
            arg_types.append(rng.choice(WIDE_TYPES))
        sig = ", ".join(f"%a{i}: {t}" for i, t in enumerate(arg_types))
        text = f"func.func @f({sig}) {{\n" + "\n".join(lines) + "\n    return\n}\n"
        r = rng.random()
        if r < 0.1:
            text = "module {\n" + text + "}\n"
        elif r < 0.15:
            text = f"module @m attributes {{fz.a = {rng.choice(WIDE_ATTRS)}}} {{\n" + text + "}\n"
        elif r < 0.2:
            text = "module {\n  module @inner {\n  }\n" + text + "}\n"
        return text


def mutate(rng, text):
    lines = text.split("\n")
    k = rng.randrange(7)
    body = [i for i, l in enumerate(lines) if l.strip() and not l.strip().startswith("//")]
    if not body:
        return text
    i = rng.choice(body)
    toks = re.findall(r"%[\w#:]+|@\w+|\"[^\"]*\"|[\w.]+|->|\S", lines[i])
    if k == 0:
        del lines[i]
    elif k == 1:
        lines.insert(i, lines[i])
    elif k == 2 and toks:
        j = rng.randrange(len(toks))
        del toks[j]
        lines[i] = "  " + " ".join(toks)
    elif k == 3 and len(toks) > 1:
        j = rng.randrange(len(toks) - 1)
        toks[j], toks[j + 1] = toks[j + 1], toks[j]
        lines[i] = "  " + " ".join(toks)
    elif k == 4:
        lines[i] = re.sub(r"\b(i32|f32|index|i64|f16)\b", lambda m: rng.choice(["i32", "f32", "index", "i1", "f64"]), lines[i], count=1)
    elif k == 5:
        lines[i] = re.sub(r"\b\d+\b", lambda m: str(rng.choice([0, 1, -1, 3, 99])), lines[i], count=1)
    else:
        lines[i] = re.sub(r"%\w+", lambda m: rng.choice(["%a0", "%0", "%arg0", "%zz"]), lines[i], count=1)
    return "\n".join(lines)


def upstream_seeds(d):
    """The cases of the MLIR test files below `d` (split at `// -----`), without their
    `// CHECK`/`// RUN`/`expected-*` comment lines; cases that use MLIR's test dialect (which
    mlir-opt-22 registers and memplan does not) or file-level directives are left out."""
    out = []
    for dp, _, fs in sorted(os.walk(d)):
        for f in sorted(fs):
            if not f.endswith(".mlir"):
                continue
            text = open(os.path.join(dp, f), encoding="utf-8", errors="replace").read()
            for case in re.split(r"(?m)^// -----\s*$", text):
                case = "\n".join(l for l in case.split("\n") if not re.match(r"\s*//", l))
                if not case.strip() or re.search(r"\btest\.|#test\.|!test\.|\{-#", case):
                    continue
                out.append(case)
    return out


def run(cmd, inp=None, timeout=60):
    try:
        p = subprocess.run(cmd, input=inp, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "timeout"


def opt_batch(mlir_opt, texts, generic=True, tmp="."):
    """mlir-opt-22 over many modules at once: [(ok, output, error)] per text; ok is None
    where mlir-opt-22 itself crashed on that text (a crash loses the whole batch's output, so
    a crashing batch is split in halves until the crashing inputs are alone)."""
    if not texts:
        return []
    path = os.path.join(tmp, "batch.mlir")
    with open(path, "w") as f:
        f.write(f"\n{SPLIT}\n".join(texts))
    flags = ["--split-input-file", "--mlir-print-local-scope", "--allow-unregistered-dialect"]
    if generic:
        flags.append("--mlir-print-op-generic")
    rc, out, err = run([mlir_opt, *flags, path], timeout=600)
    if rc not in (0, 1):
        if len(texts) == 1:
            return [(None, "", f"mlir-opt-22 crashed (rc {rc})")]
        h = len(texts) // 2
        return opt_batch(mlir_opt, texts[:h], generic, tmp) + opt_batch(mlir_opt, texts[h:], generic, tmp)
    chunks = out.split(f"{SPLIT}\n")
    if len(chunks) != len(texts):
        chunks = (chunks + [""] * len(texts))[: len(texts)]
    errs = defaultdict(str)
    # errors name the chunk's line: map by line ranges
    starts, line = [], 1
    for t in texts:
        starts.append(line)
        line += t.count("\n") + 2
    for m in re.finditer(r"batch\.mlir:(\d+):\d+: error: (.*)", err):
        ln = int(m.group(1))
        idx = max(i for i, s in enumerate(starts) if s <= ln)
        errs[idx] = errs[idx] or m.group(2)
    return [(c.strip() != "", c, errs[i]) for i, c in enumerate(chunks)]


def memplan_one(memplan, text, generic_out=False):
    fd, path = tempfile.mkstemp(suffix=".mlir")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    cmd = [memplan, "opt", path]
    if generic_out:
        cmd.insert(2, "--mlir-print-op-generic")
    rc, out, err = run(cmd)
    os.unlink(path)
    msg = ""
    m = re.search(r"error: (.*)", err)
    if m:
        msg = m.group(1)
    if rc not in (0, 1, 2):
        msg = f"crash rc={rc}: {err[-200:]}"
    return rc == 0, out, msg


def klass(msg):
    m = re.sub(r"'[^']*'", "'X'", msg)
    m = re.sub(r"\"[^\"]*\"", '"X"', m)
    m = re.sub(r"%\w+", "%v", m)
    m = re.sub(r"\d+", "N", m)
    return m[:90]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--modules", type=int, default=1000)
    ap.add_argument("--mutants", type=int, default=1000)
    ap.add_argument("--batch", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--memplan", default=os.path.join(ROOT, "target", "release", "memplan"))
    ap.add_argument("--mlir-opt", default="mlir-opt-22")
    ap.add_argument("--corpus", default=os.path.join(ROOT, "..", "shared", "mlir", "corpus", "cases"))
    ap.add_argument("--report")
    ap.add_argument("--min-gen", type=float, help="fail unless the generated round trip agrees at least this often (percent)")
    ap.add_argument("--min-custom", type=float, help="same for mlir-opt-22's custom form read by memplan")
    ap.add_argument("--min-reject", type=float, help="same for mutants mlir-opt-22 rejects that memplan rejects")
    ap.add_argument("--keep", help="directory: keep disagreeing inputs there")
    ap.add_argument("--keep-each", type=int, default=1, help="inputs kept per class and message pattern")
    ap.add_argument("--wide", action="store_true", help="widen the generator: constraint types read from their names, ops with regions and successors, discardable attributes of every attribute kind, locations, extra argument types, nested modules")
    ap.add_argument("--seed-dir", action="append", default=[], help="also mutate the cases (split at `// -----`) of every *.mlir below this directory, e.g. upstream MLIR test files (repeatable)")
    ap.add_argument("--no-corpus", action="store_true", help="do not mutate the shared corpus cases")
    a = ap.parse_args()
    global WIDE
    WIDE = a.wide
    rng = random.Random(a.seed)
    gen = Gen(load_table(TABLE), rng)
    stats = Counter()
    classes = defaultdict(Counter)
    examples = {}
    pool = cf.ThreadPoolExecutor(a.jobs)
    tmp = tempfile.mkdtemp(prefix="fuzz_ods.")
    customs = []

    def note(cls, key, text):
        classes[cls][key] += 1
        # keep up to --keep-each inputs per class and message pattern
        if a.keep and examples.get((cls, key), 0) < a.keep_each:
            os.makedirs(a.keep, exist_ok=True)
            p = os.path.join(a.keep, f"{cls}-{sum(examples.values()):04d}.mlir")
            with open(p, "w") as f:
                f.write(f"// {cls}: {key}\n{text}")
            examples[(cls, key)] = examples.get((cls, key), 0) + 1

    done = 0
    while done < a.modules:
        n = min(a.batch, a.modules - done)
        mods = [gen.module() for _ in range(n)]
        ref = opt_batch(a.mlir_opt, mods, True, tmp)
        cus = opt_batch(a.mlir_opt, mods, False, tmp)
        mine = list(pool.map(lambda t: memplan_one(a.memplan, t), mods))
        mine_c = list(pool.map(lambda c: memplan_one(a.memplan, c[1]) if c[0] else (False, "", ""), cus))
        # mlir-opt-22's custom print is valid input only where mlir-opt-22 reads it back itself
        # (it cannot, e.g., where an op's C++ printer writes types its parser then rejects)
        cus_idx = [i for i in range(n) if cus[i][0]]
        cus_back = dict(zip(cus_idx, opt_batch(a.mlir_opt, [cus[i][1] for i in cus_idx], True, tmp)))
        outs, idx = [], []
        for i in range(n):
            ok_r, _, err_r = ref[i]
            ok_m, out_m, err_m = mine[i]
            if ok_r is None:
                stats["gen.opt_crash"] += 1
                note("mlir-opt-crash", "", mods[i])
                continue
            stats["gen.total"] += 1
            if ok_r and ok_m:
                stats["gen.both_accept"] += 1
                outs.append(out_m)
                idx.append(("gen", i))
                if cus[i][0] and not cus_back[i][0]:
                    stats["cus.opt_unreadable"] += 1
                elif cus[i][0]:
                    customs.append(cus[i][1])
                    if mine_c[i][0]:
                        outs.append(mine_c[i][1])
                        idx.append(("cus", i))
                    else:
                        stats["cus.memplan_reject"] += 1
                        note("custom-rejected", klass(mine_c[i][2]), cus[i][1])
            elif not ok_r and not ok_m:
                stats["gen.both_reject"] += 1
            elif ok_r:
                stats["gen.memplan_only_reject"] += 1
                note("gen-memplan-rejects", klass(err_m), mods[i])
            else:
                stats["gen.opt_only_reject"] += 1
                note("gen-memplan-accepts", klass(err_r), mods[i])
        norm = opt_batch(a.mlir_opt, outs, True, tmp) if outs else []
        for (kind, i), (ok, text, err) in zip(idx, norm):
            stats[f"{kind}.roundtrip_total"] += 1
            if kind == "cus" and ok:
                # the reference for a custom form is what mlir-opt-22 itself reads it as: some
                # C++ printers lose information (e.g. llvm.shufflevector drops a result type
                # that disagrees with the mask), so the re-read can differ from the original
                same_opt = text.strip() == cus_back[i][1].strip()
                stats["cus.vs_opt_same"] += same_opt
                if cus_back[i][1].strip() != ref[i][1].strip():
                    stats["cus.opt_lossy"] += 1
                    note("cus-opt-lossy", "mlir-opt-22 reads its own custom print differently", cus[i][1])
                if not same_opt:
                    note("cus-vs-opt", "normalises differently from mlir-opt-22's reading", cus[i][1] + "\n// memplan printed:\n" + "\n".join("// " + l for l in (outs[idx.index((kind, i))]).split("\n")))
            if ok and text.strip() == ref[i][1].strip():
                stats[f"{kind}.roundtrip_same"] += 1
            else:
                why = "print not re-read: " + klass(err) if not ok else "normalises differently"
                src = mods[i] if kind == "gen" else cus[i][1]
                note(f"{kind}-roundtrip", why, src + "\n// memplan printed:\n" + "\n".join("// " + l for l in (outs[idx.index((kind, i))]).split("\n")))
        done += n
        print(f"generated {done}/{a.modules}: {dict(stats)}", file=sys.stderr)

    # mutants: corpus inputs and custom forms of generated modules
    seeds = []
    for dp, _, fs in sorted(os.walk(a.corpus)) if not a.no_corpus else []:
        for f in sorted(fs):
            if f.endswith(".mlir") and "/foreign" not in dp:
                seeds.append(open(os.path.join(dp, f)).read())
    for d in a.seed_dir:
        seeds += upstream_seeds(d)
    seeds += customs
    done = 0
    while done < a.mutants and seeds:
        n = min(a.batch, a.mutants - done)
        muts = [mutate(rng, rng.choice(seeds)) for _ in range(n)]
        ref = opt_batch(a.mlir_opt, muts, True, tmp)
        mine = list(pool.map(lambda t: memplan_one(a.memplan, t), muts))
        outs, idx = [], []
        for i in range(n):
            ok_r, ok_m = ref[i][0], mine[i][0]
            if ok_r is None:
                stats["mut.opt_crash"] += 1
                note("mlir-opt-crash", "", muts[i])
                continue
            stats["mut.total"] += 1
            if ok_r and ok_m:
                stats["mut.both_accept"] += 1
                outs.append(mine[i][1])
                idx.append(i)
            elif not ok_r and not ok_m:
                stats["mut.both_reject"] += 1
            elif ok_r:
                stats["mut.memplan_only_reject"] += 1
                note("mut-memplan-rejects", klass(mine[i][2]), muts[i])
            else:
                stats["mut.opt_only_reject"] += 1
                note("mut-memplan-accepts", klass(ref[i][2]), muts[i])
        norm = opt_batch(a.mlir_opt, outs, True, tmp) if outs else []
        for i, (ok, text, err) in zip(idx, norm):
            stats["mut.roundtrip_total"] += 1
            if ok and text.strip() == ref[i][1].strip():
                stats["mut.roundtrip_same"] += 1
            else:
                note("mut-roundtrip", "print not re-read: " + klass(err) if not ok else "normalises differently", muts[i])
        done += n
        print(f"mutants {done}/{a.mutants}: {dict(stats)}", file=sys.stderr)

    def pct(x, y):
        return f"{100.0 * x / y:.2f}%" if y else "n/a"

    s = stats
    lines = [
        f"seed {a.seed}: {s['gen.total']} generated modules, {s['mut.total']} mutants "
        f"(not counted: {s['gen.opt_crash']} generated and {s['mut.opt_crash']} mutated inputs that crash mlir-opt-22; "
        f"{s['cus.opt_unreadable']} custom prints of mlir-opt-22 that mlir-opt-22 itself does not read back; "
        f"{s['cus.opt_lossy']} custom prints that mlir-opt-22 reads back as a different module)",
        "",
        "| check | agree | of | rate |",
        "|---|---|---|---|",
        f"| generated: accept/reject agreement | {s['gen.both_accept'] + s['gen.both_reject']} | {s['gen.total']} | {pct(s['gen.both_accept'] + s['gen.both_reject'], s['gen.total'])} |",
        f"| generated: both accept | {s['gen.both_accept']} | {s['gen.total']} | {pct(s['gen.both_accept'], s['gen.total'])} |",
        f"| generated (generic in): memplan's print normalises the same | {s['gen.roundtrip_same']} | {s['gen.roundtrip_total']} | {pct(s['gen.roundtrip_same'], s['gen.roundtrip_total'])} |",
        f"| generated, mlir-opt's custom form read by memplan, print normalises the same | {s['cus.roundtrip_same']} | {s['cus.roundtrip_total'] + s['cus.memplan_reject']} | {pct(s['cus.roundtrip_same'], s['cus.roundtrip_total'] + s['cus.memplan_reject'])} |",
        f"| generated, mlir-opt's custom form read by memplan, print normalises as mlir-opt-22 reads it | {s['cus.vs_opt_same']} | {s['cus.roundtrip_total'] + s['cus.memplan_reject']} | {pct(s['cus.vs_opt_same'], s['cus.roundtrip_total'] + s['cus.memplan_reject'])} |",
        f"| mutants: accept/reject agreement | {s['mut.both_accept'] + s['mut.both_reject']} | {s['mut.total']} | {pct(s['mut.both_accept'] + s['mut.both_reject'], s['mut.total'])} |",
        f"| mutants rejected by mlir-opt-22: memplan rejects too | {s['mut.both_reject']} | {s['mut.both_reject'] + s['mut.opt_only_reject']} | {pct(s['mut.both_reject'], s['mut.both_reject'] + s['mut.opt_only_reject'])} |",
        f"| mutants both accept: print normalises the same | {s['mut.roundtrip_same']} | {s['mut.roundtrip_total']} | {pct(s['mut.roundtrip_same'], s['mut.roundtrip_total'])} |",
        "",
        "Disagreement classes (count, class, message pattern):",
        "",
    ]
    for cls in sorted(classes):
        for key, c in classes[cls].most_common(12):
            lines.append(f"- {c} × {cls}: {key}")
        more = sum(classes[cls].values()) - sum(c for _, c in classes[cls].most_common(12))
        if more:
            lines.append(f"- {more} × {cls}: (other patterns)")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.report:
        with open(a.report, "w") as f:
            f.write(text)

    def rate(x, y):
        return 100.0 * x / y if y else 100.0

    fails = []
    for what, lim, val in [
        ("generated round trip", a.min_gen, rate(s["gen.roundtrip_same"], s["gen.roundtrip_total"])),
        ("custom-form round trip", a.min_custom, rate(s["cus.roundtrip_same"], s["cus.roundtrip_total"] + s["cus.memplan_reject"])),
        ("mutant rejection", a.min_reject, rate(s["mut.both_reject"], s["mut.both_reject"] + s["mut.opt_only_reject"])),
    ]:
        if lim is not None and val < lim:
            fails.append(f"{what}: {val:.2f}% < {lim}%")
    for f in fails:
        print(f"FAIL {f}", file=sys.stderr)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
