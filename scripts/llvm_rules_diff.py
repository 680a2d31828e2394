#!/usr/bin/env python3
"""Differential check of LLVM / NVVM dialect rules against mlir-opt-22 on generated variants.

Families (pick with --family, default all):
  constraint   generic-form LLVM dialect ops from the op table (no required attributes, no
               segment sizes), operand and result types drawn from a pool of builtin and LLVM
               types: the LLVM type constraints (`LLVM_ScalarOrVectorOf`, `LLVM_VectorOf`, ...)
  flags        `llvm.module_flags` keys x values (`ModuleFlagAttr::verify`)
  target       `#nvvm.target` chips / options x ops with `NVVMRequiresSM` / `NVVMRequiresSMa`
  constrained  `llvm.intr.experimental.constrained.*` rounding / exception attributes, custom
               and generic form
  layout       `llvm.data_layout` strings on a module
  attrkind     attribute kinds on the hand-written LLVM ops in generic form

Each module goes to both tools; the script prints how often they disagree on accept/reject and
the first disagreements. Exit status 1 when any disagree.

usage: llvm_rules_diff.py [--memplan BIN] [--family F ...] [--count N] [--seed S] [--show N]
"""

import argparse
import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TABLE = os.path.join(ROOT, "crates/memplan-ir/src/dialects/ods_table.txt")

TYPES = [
    "i1", "i8", "i16", "i32", "i64", "si32", "ui8", "index", "f16", "bf16", "f32", "f64", "f80",
    "f128", "tf32", "f8E4M3FN", "vector<4xi32>", "vector<4xi1>", "vector<2xi64>", "vector<4xf32>",
    "vector<[4]xf32>", "vector<[2]xi32>", "vector<2x2xf32>", "vector<4xsi32>", "vector<4xf8E5M2>",
    "vector<4xindex>", "vector<2x!llvm.ptr>", "vector<2x!llvm.ptr<1>>", "!llvm.ptr", "!llvm.ptr<1>",
    "!llvm.struct<(i32, f32)>", "!llvm.array<2 x i32>", "!llvm.ppc_fp128", "tensor<4xf32>",
    "complex<f32>", "none",
]


def table_ops():
    ops = []
    for line in open(TABLE):
        if line.startswith(("#", "%")):
            continue
        f = line.rstrip("\n").split("\t")
        if len(f) < 8 or not f[0].startswith("llvm."):
            continue
        name, traits, operands, attrs, results, regions, succs = f[:7]
        if regions or succs or "AttrSized" in traits:
            continue
        if any(a.split(" ")[1] == "r" for a in attrs.split(";") if a):
            continue
        opnds = [o.split(" ") for o in operands.split(";") if o]
        ress = [o.split(" ") for o in results.split(";") if o]
        if any(o[1] not in ("1",) for o in opnds + ress):
            continue
        if not opnds:
            continue
        ops.append((name, len(opnds), len(ress)))
    return ops


def fam_constraint(r, ops):
    name, n, nres = r.choice(ops)
    base = r.choice(TYPES)
    # mostly one type everywhere (the usual shape), sometimes a random one per value
    tys = [base if r.random() < 0.6 else r.choice(TYPES) for _ in range(n)]
    rts = [base if r.random() < 0.6 else r.choice(TYPES) for _ in range(nres)]
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(tys))
    res = "%r = " if nres else ""
    rt = rts[0] if nres else "()"
    return (f"llvm.func @f({args}) {{\n  {res}\"{name}\"({', '.join(f'%a{i}' for i in range(n))}) : "
            f"({', '.join(tys)}) -> {rt}\n  llvm.return\n}}\n")


SUMMARY = ("#llvm.profile_summary<format = InstrProf, total_count = 1, max_count = 1, "
           "max_internal_count = 1, max_function_count = 1, num_counts = 1, num_functions = 1, "
           "detailed_summary = <cut_off = 1, min_count = 1, num_counts = 1>>")
FLAG_VALUES = [
    "4 : i32", "1 : i64", "true", "\"s\"", "\"\"", "@foo", "[]", "[\"a\", \"b\"]", "[1]", "1.0 : f32",
    "unit", "[#llvm.cgprofile_entry<from = @foo, to = @foo, count = 2>]",
    "[#llvm.cgprofile_entry<from = @foo, count = 2>, \"x\"]", SUMMARY, "{a = 1}", "array<i32: 1>",
    "i32", "dense<1> : vector<2xi32>",
]


def fam_flags(r, _ops):
    n = r.choice([1, 1, 2])
    flags = []
    for _ in range(n):
        beh = r.choice(["error", "warning", "require", "override", "append", "append_unique", "max", "min",
                         "appendunique"])
        key = r.choice(["CG Profile", "ProfileSummary", "yolo", "wchar_size", "riscv-isa"])
        flags.append(f"#llvm.mlir.module_flag<{beh}, \"{key}\", {r.choice(FLAG_VALUES)}>")
    return ("llvm.func @foo()\nllvm.module_flags [" + ", ".join(flags) + "]\n")


TARGET_OPS = [
    "nvvm.cluster.wait", "nvvm.cluster.arrive.relaxed", "%0 = nvvm.read.ptx.sreg.clusterid.x : i32",
    "%0 = nvvm.read.ptx.sreg.cluster.ctarank : i32", "nvvm.wgmma.fence.aligned",
    "nvvm.tcgen05.relinquish_alloc_permit", "nvvm.tcgen05.fence #nvvm.tcgen05_fence<before>",
    "nvvm.tcgen05.shift %p6 : !llvm.ptr<6>", "nvvm.cp.async.bulk.wait_group 1",
    "%0 = nvvm.shfl.sync bfly %i, %i, %i, %i : i32 -> i32",
    "%0 = nvvm.redux.sync add %i, %i : i32 -> i32", "nvvm.barrier0",
    "%0 = nvvm.read.ptx.sreg.tid.x : i32",
]
CHIPS = ["sm_20", "sm_30", "sm_50", "sm_70", "sm_80", "sm_86", "sm_90", "sm_90a", "sm_100",
         "sm_100a", "sm_101a", "sm_103a", "sm_110a", "sm_100f", "sm_120f", "sm_10", "sm_", "foo",
         "xyz_95", "sm_1000"]


def nvvm_target(r):
    parts = []
    if r.random() < 0.9:
        parts.append(f"chip = \"{r.choice(CHIPS)}\"")
    if r.random() < 0.15:
        parts.append(f"O = {r.choice([0, 2, 3, 4, -1])}")
    if r.random() < 0.15:
        parts.append(f"verifyTarget = {r.choice(['true', 'false'])}")
    if r.random() < 0.05:
        parts.append("triple = \"\"")
    r.shuffle(parts)
    # tblgen prints parameters in declaration order: O, triple, chip, ... verifyTarget
    order = ["O", "triple", "chip", "features", "flags", "link", "verifyTarget"]
    parts.sort(key=lambda p: order.index(p.split(" ")[0]))
    return "#nvvm.target" + (f"<{', '.join(parts)}>" if parts else "")


def fam_target(r, _ops):
    targets = [nvvm_target(r) for _ in range(r.choice([1, 1, 2]))]
    if r.random() < 0.1:
        targets.append("#rocdl.target<chip = \"gfx90a\">")
    body = "\n    ".join(r.choice(TARGET_OPS) .replace("%0", f"%v{k}") for k in range(r.choice([1, 2])))
    return (f"gpu.module @m [{', '.join(targets)}] {{\n"
            f"  llvm.func @f(%i: i32, %p6: !llvm.ptr<6>) {{\n    {body}\n    llvm.return\n  }}\n}}\n")


CONSTRAINED = [("fptrunc", "f64", "f32", True), ("fpext", "f32", "f64", False),
               ("sitofp", "i32", "f32", True), ("uitofp", "i64", "f64", True)]
ROUNDING = ["towardzero", "tonearest", "upward", "downward", "tonearestaway", "dynamic", "invalid"]
EXCEPT = ["ignore", "maytrap", "strict"]


def fam_constrained(r, _ops):
    name, a, b, has_rm = r.choice(CONSTRAINED)
    if r.random() < 0.5:
        rm = (r.choice(ROUNDING + ["bogus"]) + " ") if has_rm else ""
        ex = r.choice(EXCEPT + ["bogus"])
        op = f"%r = llvm.intr.experimental.constrained.{name} %x {rm}{ex} : {a} to {b}"
    else:
        props = []
        if has_rm and r.random() < 0.9:
            v = r.choice(["0", "1", "4", "5", "6", "7", "8", "-1", "1.0 : f32", "\"x\""])
            ty = r.choice(["i64", "i64", "i32"]) if ":" not in v and '"' not in v else ""
            props.append(f"roundingmode = {v}" + (f" : {ty}" if ty else ""))
        if r.random() < 0.9:
            v = r.choice(["0", "1", "2", "3", "-1", "unit"])
            ty = r.choice(["i64", "i64", "i32"]) if v != "unit" else ""
            props.append(f"fpExceptionBehavior = {v}" + (f" : {ty}" if ty else ""))
        op = (f"%r = \"llvm.intr.experimental.constrained.{name}\"(%x) <{{{', '.join(props)}}}> : "
              f"({a}) -> {b}")
    return f"llvm.func @f(%x: {a}) {{\n  {op}\n  llvm.return\n}}\n"


LAYOUT_PARTS = ["e", "E", "m:e", "m:o", "m:x", "m:q", "p:64:64", "p:32:32:32", "p1:32:32", "p:64",
                "p:64:64:64:32", "i64:64", "i32:32:64", "i8:8:8", "f80:128", "f64:64", "v128:128",
                "n8:16:32:64", "S128", "S0", "A5", "G1", "P4", "a:0:64", "Fi8", "Fn32", "ni:1", "i64",
                "p:0:64", "i7:8", "v64:64:64", "x", "", "m:", "S-8", "i64:64:32", "p:65536:64"]


def fam_layout(r, _ops):
    parts = [r.choice(LAYOUT_PARTS) for _ in range(r.choice([1, 2, 3, 4]))]
    s = "-".join(parts)
    if r.random() < 0.05:
        s = "e-" + s
    return f"module attributes {{llvm.data_layout = \"{s}\"}} {{\n}}\n"


ATTR_VALUES = ["1 : i32", "1 : i64", "1.0 : f32", "\"s\"", "@foo", "unit", "[]", "i32", "true",
               "#llvm.linkage<internal>", "0 : i32", "-1 : i32"]


def fam_attrkind(r, _ops):
    v = r.choice(ATTR_VALUES)
    kind = r.choice(["global_as", "global_name", "global_type", "addressof", "align", "alloca_align"])
    if kind == "global_as":
        return (f"\"llvm.mlir.global\"() <{{addr_space = {v}, global_type = i32, linkage = "
                f"#llvm.linkage<external>, sym_name = \"g\"}}> ({{\n}}) : () -> ()\n")
    if kind == "global_name":
        return (f"\"llvm.mlir.global\"() <{{global_type = i32, linkage = #llvm.linkage<external>, "
                f"sym_name = {v}}}> ({{\n}}) : () -> ()\n")
    if kind == "global_type":
        return (f"\"llvm.mlir.global\"() <{{global_type = {v}, linkage = #llvm.linkage<external>, "
                f"sym_name = \"g\"}}> ({{\n}}) : () -> ()\n")
    if kind == "align":
        return (f"\"llvm.mlir.global\"() <{{alignment = {v}, global_type = i32, linkage = "
                f"#llvm.linkage<external>, sym_name = \"g\"}}> ({{\n}}) : () -> ()\n")
    if kind == "alloca_align":
        return (f"llvm.func @f(%n: i32) {{\n  %0 = \"llvm.alloca\"(%n) <{{alignment = {v}, elem_type = i32}}> : "
                f"(i32) -> !llvm.ptr\n  llvm.return\n}}\n")
    return ("llvm.mlir.global external @foo() : i32\n"
            f"llvm.func @f() {{\n  %0 = \"llvm.mlir.addressof\"() <{{global_name = {v}}}> : () -> !llvm.ptr\n"
            "  llvm.return\n}\n")


FAMILIES = {
    "constraint": fam_constraint,
    "flags": fam_flags,
    "target": fam_target,
    "constrained": fam_constrained,
    "layout": fam_layout,
    "attrkind": fam_attrkind,
}


def verdict(cmd, src):
    p = subprocess.run(cmd, input=src, capture_output=True, text=True, timeout=60)
    crashed = p.returncode not in (0, 1, 2)
    first = next((l for l in p.stderr.splitlines() if "error" in l), "")
    return p.returncode == 0, first.strip(), crashed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--memplan", default=os.path.join(ROOT, "target/release/memplan"))
    ap.add_argument("--family", action="append", choices=sorted(FAMILIES))
    ap.add_argument("--count", type=int, default=300, help="modules per family")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show", type=int, default=8)
    a = ap.parse_args()
    ops = table_ops()
    total_bad = 0
    for fam in a.family or sorted(FAMILIES):
        r = random.Random(f"{a.seed}-{fam}")
        srcs = sorted({FAMILIES[fam](r, ops) for _ in range(a.count)})

        def one(src):
            return (verdict(["mlir-opt-22", "--allow-unregistered-dialect"], src),
                    verdict([a.memplan, "opt", "-"], src))

        with ThreadPoolExecutor(a.jobs) as ex:
            res = list(ex.map(one, srcs))
        crashes = [s for s, (_, o) in zip(srcs, res) if o[2]]
        oracle_crash = sum(1 for _, (m, _) in zip(srcs, res) if m[2])
        judged = [(s, m, o) for s, (m, o) in zip(srcs, res) if not m[2]]
        bad = [(s, m, o) for s, m, o in judged if m[0] != o[0]]
        acc = sum(1 for _, m, _ in judged if m[0])
        total_bad += len(bad) + len(crashes)
        print(f"{fam}: {len(judged)} distinct modules judged (mlir-opt-22 accepts {acc}, rejects "
              f"{len(judged) - acc}; {oracle_crash} crash mlir-opt-22, not counted): memplan disagrees on "
              f"{len(bad)} ({sum(1 for _, m, _ in bad if m[0])} it rejects, "
              f"{sum(1 for _, m, _ in bad if not m[0])} it accepts); memplan crashes {len(crashes)}")
        for s, m, o in bad[: a.show]:
            print(f"  --- mlir-opt-22: {m[1] or 'ok'}\n      memplan:     {o[1] or 'ok'}\n"
                  + "".join("      | " + l + "\n" for l in s.splitlines()))
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main())
