#!/usr/bin/env python3
"""Lists the ops of MLIR 22 whose ODS definition has a C++ verifier (`hasVerifier = 1` or
`hasRegionVerifier = 1`) and where memplan's source mentions each of them in a place that
verifies ops: a hand-written dialect file (`crates/memplan-ir/src/dialects/*.rs`), a C++-rule
file (`crates/memplan-ir/src/cpp_rules/*.rs`) or the op-table verifier (`src/ods/verify.rs`).

An op that no such file names has only the table-driven checks (operand / result / attribute
constraints, traits) and none of its C++ `verify()` rules: those are the gaps to look at first.
A mention is not proof that every rule of the C++ verifier is there; the inventory in
BENCHMARKS.md section 4.2 records what was checked by hand.

usage: verifier_inventory.py [--include DIR] [--tblgen BIN] [--dialects a,b,...] [--gaps]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "crates", "memplan-ir", "src")
TD = {
    "builtin": ["mlir/IR/BuiltinOps.td"],
    "func": ["mlir/Dialect/Func/IR/FuncOps.td"],
    "arith": ["mlir/Dialect/Arith/IR/ArithOps.td"],
    "math": ["mlir/Dialect/Math/IR/MathOps.td"],
    "memref": ["mlir/Dialect/MemRef/IR/MemRefOps.td"],
    "scf": ["mlir/Dialect/SCF/IR/SCFOps.td"],
    "affine": ["mlir/Dialect/Affine/IR/AffineOps.td"],
    "linalg": [
        "mlir/Dialect/Linalg/IR/LinalgOps.td",
        "mlir/Dialect/Linalg/IR/LinalgStructuredOps.td",
        "mlir/Dialect/Linalg/IR/LinalgRelayoutOps.td",
    ],
    "tensor": ["mlir/Dialect/Tensor/IR/TensorOps.td"],
    "bufferization": ["mlir/Dialect/Bufferization/IR/BufferizationOps.td"],
    "vector": ["mlir/Dialect/Vector/IR/VectorOps.td"],
    "gpu": ["mlir/Dialect/GPU/IR/GPUOps.td"],
    "cf": ["mlir/Dialect/ControlFlow/IR/ControlFlowOps.td"],
    "index": ["mlir/Dialect/Index/IR/IndexOps.td"],
    "ub": ["mlir/Dialect/UB/IR/UBOps.td"],
    "async": ["mlir/Dialect/Async/IR/AsyncOps.td"],
    "nvvm": ["mlir/Dialect/LLVMIR/NVVMOps.td"],
    "nvgpu": ["mlir/Dialect/NVGPU/IR/NVGPUOps.td"],
}


def verified_ops(include, tblgen, dialects):
    """{op name: 'verifier' | 'region' | 'both'} of the ops with a C++ verifier."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for dia in dialects:
            for td in TD[dia]:
                path = os.path.join(tmp, "o.json")
                subprocess.run(
                    [tblgen, "--dump-json", "-I", include, os.path.join(include, td), "-o", path],
                    check=True,
                )
                with open(path) as f:
                    recs = json.load(f)
                for n in recs["!instanceof"].get("Op", []):
                    o = recs[n]
                    dname = recs[o["opDialect"]["def"]]["name"]
                    if dname != dia:
                        continue
                    v, rv = o.get("hasVerifier", 0), o.get("hasRegionVerifier", 0)
                    if v or rv:
                        kind = "both" if v and rv else ("verifier" if v else "region")
                        out[f"{dname}.{o['opName']}"] = kind
    return out


def sources():
    files = {}
    for sub in ("dialects", "cpp_rules"):
        top = os.path.join(SRC, sub)
        # rule files may sit in per-family subdirectories (cpp_rules/llvm/, cpp_rules/nvvm/)
        for d, dirs, names in os.walk(top):
            dirs.sort()
            for f in sorted(names):
                if f.endswith(".rs") and f != "linalg_named_table.rs":
                    rel = os.path.relpath(os.path.join(d, f), SRC)
                    files[rel] = open(os.path.join(d, f)).read()
    files["ods/verify.rs"] = open(os.path.join(SRC, "ods", "verify.rs")).read()
    return files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--include", default="/usr/lib/llvm-22/include")
    ap.add_argument("--tblgen", default="llvm-tblgen-22")
    ap.add_argument("--dialects", default=",".join(TD))
    ap.add_argument("--gaps", action="store_true", help="only the ops no verifying file names")
    a = ap.parse_args()
    try:
        ops = verified_ops(a.include, a.tblgen, a.dialects.split(","))
    except (subprocess.CalledProcessError, OSError, KeyError) as e:
        print(f"verifier_inventory: {e}", file=sys.stderr)
        return 2
    files = sources()
    # a rule may be dispatched by name prefix: `n if n.starts_with("nvvm.read.ptx.sreg.")`
    # (only prefixes below the dialect level: `"nvgpu."` alone names no particular op)
    prefixes = {
        f: [
            p
            for p in re.findall(r'starts_with\("([a-z0-9_.]+\.)"\)', text)
            if p.count(".") >= 2
        ]
        for f, text in files.items()
    }
    gaps = 0
    for name in sorted(ops):
        pat = re.compile(r'"' + re.escape(name) + r'"')
        where = [
            f
            for f, text in files.items()
            if pat.search(text) or any(name.startswith(p) for p in prefixes[f])
        ]
        if not where:
            gaps += 1
        if a.gaps and where:
            continue
        print(f"{name}\t{ops[name]}\t{','.join(where) or '-'}")
    print(f"# {len(ops)} ops with a C++ verifier, {gaps} named in no verifying file", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
