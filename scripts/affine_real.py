#!/usr/bin/env python3
"""Differential test of memplan's affine dependence check and loop fusion on programs that real
mlir-opt-22 pipelines emit (issue 14: test against what we did not write).

Usage:
  python3 scripts/affine_real.py gen  [--seed S] [--count N] [--dynamic F] OUT_DIR
  python3 scripts/affine_real.py check [--memplan BIN] [--jobs N] [--report FILE] [--no-values]
                                       [--allow-unregistered] [--strict-bytes] PATH...

`gen` writes N random tensor-level programs (chains of linalg named ops and linalg.generic on
tensors: elementwise chains, matmul + bias + relu, conv_2d, max/sum pooling through
expand_shape/collapse_shape, reductions, transposes, broadcasts, tensor.pad, extract_slice,
insert_slice) and lowers each with mlir-opt-22 through one of these pipelines:

  v0  --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map"
      --convert-linalg-to-affine-loops
  v1  v0 with --buffer-deallocation-pipeline before the linalg lowering (memref.dealloc present)
  v2  --one-shot-bufferize="bufferize-function-boundaries" (fully dynamic layouts at the boundary)
      --buffer-deallocation-pipeline --convert-linalg-to-affine-loops --affine-loop-normalize --canonicalize
  v3  v0 then --affine-scalrep
  v4  v1 then --affine-loop-normalize --affine-scalrep
  v5  v0 then --affine-loop-tile=tile-size=3 (partial tiles: min bounds)
  v6  v1, then (a second mlir-opt-22 run) affine-loop-unroll{unroll-factor=2} and
      affine-loop-invariant-code-motion on each function

Then it appends a driver: `@main` allocates and fills the kernel's inputs (scf only, so the driver
adds no dependence remarks and is never fused), calls the kernel and prints every result with
printMemrefF32. OUT_DIR gets NAME.mlir (the lowered program) and NAME.tensor.mlir (its source).

`check` takes .mlir files or directories of them. A file may be cut into cases by `// -----` lines
(upstream's test files, e.g. mlir/test/Dialect/Affine/loop-fusion*.mlir; their CHECK lines are
ignored). Cases that mlir-opt-22 rejects are skipped. Per case:
  deps    `memplan opt P --test-memref-dependence-check` remarks equal mlir-opt-22's (sorted multiset)
  fusion  for each mode (default, mode=producer, mode=sibling, "mode=greedy maximal"): memplan exits
          0 and its output verifies in mlir-opt-22; where the case has a @main, the output prints the
          same as the original under mlir-runner-22 (MALLOC_PERTURB_ set); whole-file static bytes of
          memplan's output and of `mlir-opt-22 --affine-loop-fusion=MODE` (whose values are checked too)
Prints one line per failing case, then a summary (per mode: values kept, bytes memplan / upstream
over the cases where upstream's output is right, smaller/equal/larger). Exit status 1 on any failure
(with --strict-bytes, default-mode bytes above upstream's correct output count as one).
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

MLIR_OPT = os.environ.get("MLIR_OPT", "mlir-opt-22")
MLIR_RUNNER = os.environ.get("MLIR_RUNNER", "mlir-runner-22")
MODES = ["", "mode=producer", "mode=sibling", "mode=greedy maximal"]
TIMEOUT = int(os.environ.get("AFFINE_REAL_TIMEOUT", "60"))
# Extra mlir-opt-22 flags of `check` (`--allow-unregistered` adds --allow-unregistered-dialect).
OPT_FLAGS = []

BUF_ID = ("--one-shot-bufferize=bufferize-function-boundaries "
          "function-boundary-type-conversion=identity-layout-map")
BUF_DYN = "--one-shot-bufferize=bufferize-function-boundaries"
PIPELINES = [
    [BUF_ID, "--convert-linalg-to-affine-loops"],
    [BUF_ID, "--buffer-deallocation-pipeline", "--convert-linalg-to-affine-loops"],
    [BUF_DYN, "--buffer-deallocation-pipeline", "--convert-linalg-to-affine-loops",
     "--affine-loop-normalize", "--canonicalize"],
    [BUF_ID, "--convert-linalg-to-affine-loops", "--affine-scalrep"],
    [BUF_ID, "--buffer-deallocation-pipeline", "--convert-linalg-to-affine-loops",
     "--affine-loop-normalize", "--affine-scalrep"],
    [BUF_ID, "--convert-linalg-to-affine-loops", "--affine-loop-tile=tile-size=3"],
    [BUF_ID, "--buffer-deallocation-pipeline", "--convert-linalg-to-affine-loops", "|",
     "--pass-pipeline=builtin.module(func.func(affine-loop-unroll{unroll-factor=2},"
     "affine-loop-invariant-code-motion))"],
]


# ----------------------------------------------------------------------------- generator

def ttype(shape):
    """Tensor type; a size -1 is dynamic (`?`)."""
    return "tensor<%sxf32>" % "x".join(str(d) if d >= 0 else "?" for d in shape)


def idmap(rank):
    ds = ", ".join("d%d" % i for i in range(rank))
    return "affine_map<(%s) -> (%s)>" % (ds, ds)


class Gen:
    """A random chain of tensor ops in one function @kernel."""

    def __init__(self, rng, dynamic=False):
        self.rng = rng
        # dynamic: the first input's first size is `?` (its run-time value is the same for every
        # `?` of the program); ops that need static sizes are not used.
        self.dynamic = dynamic
        self.args = []      # (name, shape)
        self.body = []      # lines
        self.vals = []      # (name, shape) live tensors
        self.n = 0
        self.kinds = []

    def fresh(self, p="v"):
        self.n += 1
        return "%%%s%d" % (p, self.n)

    def new_arg(self, shape):
        name = "%%a%d" % len(self.args)
        self.args.append((name, shape))
        return name

    def empty(self, shape):
        e = self.fresh("e")
        dyn = ", ".join("%n" for d in shape if d < 0)
        self.body.append("%s = tensor.empty(%s) : %s" % (e, dyn, ttype(shape)))
        return e

    def filled(self, shape, value):
        c = self.fresh("c")
        self.body.append("%s = arith.constant %s : f32" % (c, value))
        e = self.empty(shape)
        f = self.fresh("f")
        self.body.append("%s = linalg.fill ins(%s : f32) outs(%s : %s) -> %s"
                         % (f, c, e, ttype(shape), ttype(shape)))
        return f

    def pick(self, pred=lambda s: True):
        cands = [v for v in self.vals if pred(v[1])]
        if not cands:
            return None
        # prefer recent values: chains, but older ones too (siblings, longer live ranges)
        if self.rng.random() < 0.6:
            return cands[-1]
        return self.rng.choice(cands)

    def dim(self):
        return self.rng.randint(2, 9)

    def push(self, name, shape, kind):
        self.vals.append((name, shape))
        self.kinds.append(kind)

    # --- ops
    def op_unary(self):
        x, s = self.pick()
        r = self.fresh()
        rank = len(s)
        fn = self.rng.choice(["mulf", "addf", "relu", "negf", "square"])
        k = self.rng.choice(["0.5", "-1.5", "2.0", "0.25"])
        lines = ["^bb0(%in: f32, %out: f32):"]
        if fn == "relu":
            lines += ["  %z = arith.constant 0.0 : f32", "  %y = arith.maximumf %in, %z : f32"]
        elif fn == "negf":
            lines += ["  %y = arith.negf %in : f32"]
        elif fn == "square":
            lines += ["  %y = arith.mulf %in, %in : f32"]
        else:
            lines += ["  %%k = arith.constant %s : f32" % k, "  %%y = arith.%s %%in, %%k : f32" % fn]
        lines += ["  linalg.yield %y : f32"]
        e = self.empty(s)
        par = ", ".join(['"parallel"'] * rank)
        self.body.append('%s = linalg.generic {indexing_maps = [%s, %s], iterator_types = [%s]} '
                         'ins(%s : %s) outs(%s : %s) {' % (r, idmap(rank), idmap(rank), par, x,
                                                          ttype(s), e, ttype(s)))
        self.body += ["  " + ln for ln in lines] + ["} -> %s" % ttype(s)]
        self.push(r, s, "unary")

    def op_binary(self):
        x, s = self.pick()
        others = [v for v in self.vals if v[1] == s and v[0] != x]
        if others and self.rng.random() < 0.7:
            y = self.rng.choice(others)[0]
        else:
            y = self.new_arg(s)
        op = self.rng.choice(["add", "mul", "sub", "max"])
        r = self.fresh()
        e = self.empty(s)
        t = ttype(s)
        self.body.append("%s = linalg.%s ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
                         % (r, op, x, y, t, t, e, t, t))
        self.push(r, s, "binary")

    def op_matmul(self):
        v = self.pick(lambda s: len(s) == 2)
        if v is None:
            return False
        x, (m, k) = v
        n = self.dim()
        w = self.new_arg((k, n))
        f = self.filled((m, n), "0.0")
        r = self.fresh()
        self.body.append("%s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
                         % (r, x, w, ttype((m, k)), ttype((k, n)), f, ttype((m, n)), ttype((m, n))))
        self.push(r, (m, n), "matmul")
        if self.rng.random() < 0.6:   # bias + relu, the bias broadcast along rows
            b = self.new_arg((n,))
            r2 = self.fresh()
            e = self.empty((m, n))
            self.body.append(
                '%s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, '
                'affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = '
                '["parallel", "parallel"]} ins(%s, %s : %s, %s) outs(%s : %s) {'
                % (r2, r, b, ttype((m, n)), ttype((n,)), e, ttype((m, n))))
            self.body += ["  ^bb0(%x: f32, %b: f32, %o: f32):",
                          "    %z = arith.constant 0.0 : f32",
                          "    %s = arith.addf %x, %b : f32",
                          "    %y = arith.maximumf %s, %z : f32",
                          "    linalg.yield %y : f32",
                          "} -> %s" % ttype((m, n))]
            self.push(r2, (m, n), "bias_relu")
        return True

    def op_transpose(self):
        v = self.pick(lambda s: len(s) == 2)
        if v is None:
            return False
        x, (a, b) = v
        e = self.empty((b, a))
        r = self.fresh()
        self.body.append("%s = linalg.transpose ins(%s : %s) outs(%s : %s) permutation = [1, 0]"
                         % (r, x, ttype((a, b)), e, ttype((b, a))))
        self.push(r, (b, a), "transpose")
        return True

    def op_broadcast(self):
        v = self.pick(lambda s: len(s) == 1)
        if v is None:
            return False
        x, (n,) = v
        m = self.dim()
        if self.rng.random() < 0.5:
            shape, dims = (m, n), "[0]"
        else:
            shape, dims = (n, m), "[1]"
        e = self.empty(shape)
        r = self.fresh()
        self.body.append("%s = linalg.broadcast ins(%s : %s) outs(%s : %s) dimensions = %s"
                         % (r, x, ttype((n,)), e, ttype(shape), dims))
        self.push(r, shape, "broadcast")
        return True

    def op_reduce(self):
        v = self.pick(lambda s: len(s) == 2)
        if v is None:
            return False
        x, (a, b) = v
        d = self.rng.randint(0, 1)
        out = (b,) if d == 0 else (a,)
        kind = self.rng.choice(["addf", "maximumf"])
        f = self.filled(out, "0.0" if kind == "addf" else "-1.0e+30")
        r = self.fresh()
        if self.rng.random() < 0.5:
            self.body.append("%s = linalg.reduce ins(%s : %s) outs(%s : %s) dimensions = [%d]"
                             % (r, x, ttype((a, b)), f, ttype(out), d))
            self.body += ["  (%in: f32, %init: f32) {",
                          "    %%y = arith.%s %%in, %%init : f32" % kind,
                          "    linalg.yield %y : f32",
                          "  }"]
        else:   # the same as a linalg.generic with a reduction iterator
            omap = "(d0)" if d == 1 else "(d1)"
            self.body.append(
                '%s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, '
                'affine_map<(d0, d1) -> %s>], iterator_types = [%s]} ins(%s : %s) outs(%s : %s) {'
                % (r, omap, '"parallel", "reduction"' if d == 1 else '"reduction", "parallel"',
                   x, ttype((a, b)), f, ttype(out)))
            self.body += ["  ^bb0(%in: f32, %acc: f32):",
                          "    %%y = arith.%s %%in, %%acc : f32" % kind,
                          "    linalg.yield %y : f32",
                          "} -> %s" % ttype(out)]
        self.push(r, out, "reduce")
        return True

    def op_conv(self):
        v = self.pick(lambda s: len(s) == 2 and s[0] >= 3 and s[1] >= 3)
        if v is None:
            return False
        x, (h, w) = v
        kh, kw = self.rng.randint(1, min(3, h - 1)), self.rng.randint(1, min(3, w - 1))
        k = self.new_arg((kh, kw))
        out = (h - kh + 1, w - kw + 1)
        f = self.filled(out, "0.0")
        r = self.fresh()
        self.body.append("%s = linalg.conv_2d ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
                         % (r, x, k, ttype((h, w)), ttype((kh, kw)), f, ttype(out), ttype(out)))
        self.push(r, out, "conv")
        return True

    def op_pool(self):
        v = self.pick(lambda s: len(s) == 2 and s[0] >= 2 and s[1] >= 2)
        if v is None:
            return False
        x, (h, w) = v
        st = self.rng.choice([1, 2])
        kh = kw = 2
        oh, ow = (h - kh) // st + 1, (w - kw) // st + 1
        x4 = self.fresh()
        self.body.append("%s = tensor.expand_shape %s [[0, 1], [2, 3]] output_shape [1, %d, %d, 1] "
                         ": %s into tensor<1x%dx%dx1xf32>" % (x4, x, h, w, ttype((h, w)), h, w))
        kind = self.rng.choice(["max", "sum"])
        f = self.filled((1, oh, ow, 1), "-1.0e+30" if kind == "max" else "0.0")
        win = self.empty((kh, kw))
        p = self.fresh()
        self.body.append("%s = linalg.pooling_nhwc_%s {dilations = dense<1> : tensor<2xi64>, "
                         "strides = dense<%d> : tensor<2xi64>} ins(%s, %s : tensor<1x%dx%dx1xf32>, %s) "
                         "outs(%s : tensor<1x%dx%dx1xf32>) -> tensor<1x%dx%dx1xf32>"
                         % (p, kind, st, x4, win, h, w, ttype((kh, kw)), f, oh, ow, oh, ow))
        r = self.fresh()
        self.body.append("%s = tensor.collapse_shape %s [[0, 1], [2, 3]] : tensor<1x%dx%dx1xf32> "
                         "into %s" % (r, p, oh, ow, ttype((oh, ow))))
        self.push(r, (oh, ow), "pool")
        return True

    def op_pad(self):
        x, s = self.pick()
        lo = [self.rng.randint(0, 2) for _ in s]
        hi = [self.rng.randint(0, 2) for _ in s]
        out = tuple(d + a + b for d, a, b in zip(s, lo, hi))
        r = self.fresh()
        idx = ", ".join("%%i%d: index" % i for i in range(len(s)))
        self.body.append("%s = tensor.pad %s low[%s] high[%s] {" % (
            r, x, ", ".join(map(str, lo)), ", ".join(map(str, hi))))
        self.body += ["^bb0(%s):" % idx,
                      "  %pv = arith.constant 0.75 : f32",
                      "  tensor.yield %pv : f32",
                      "} : %s to %s" % (ttype(s), ttype(out))]
        self.push(r, out, "pad")

    def op_slice(self):
        v = self.pick(lambda s: all(d >= 2 for d in s))
        if v is None:
            return False
        x, s = v
        offs, sizes, strides = [], [], []
        for d in s:
            st = self.rng.choice([1, 1, 2])
            size = self.rng.randint(1, max(1, (d - 1) // st + 1))
            off = self.rng.randint(0, d - 1 - (size - 1) * st)
            offs.append(off)
            sizes.append(size)
            strides.append(st)
        out = tuple(sizes)
        r = self.fresh()
        self.body.append("%s = tensor.extract_slice %s[%s] [%s] [%s] : %s to %s" % (
            r, x, ", ".join(map(str, offs)), ", ".join(map(str, sizes)),
            ", ".join(map(str, strides)), ttype(s), ttype(out)))
        self.push(r, out, "extract_slice")
        return True

    def op_insert(self):
        v = self.pick(lambda s: True)
        x, s = v
        bigs = [b for b in self.vals if len(b[1]) == len(s) and b[0] != x
                and all(bd >= d for bd, d in zip(b[1], s))]
        if not bigs:
            return False
        big, bs = self.rng.choice(bigs)
        offs = [self.rng.randint(0, bd - d) for bd, d in zip(bs, s)]
        r = self.fresh()
        self.body.append("%s = tensor.insert_slice %s into %s[%s] [%s] [%s] : %s into %s" % (
            r, x, big, ", ".join(map(str, offs)), ", ".join(map(str, s)),
            ", ".join("1" for _ in s), ttype(s), ttype(bs)))
        self.push(r, bs, "insert_slice")
        return True

    def build(self, n_ops):
        for k in range(self.rng.randint(1, 2)):
            shape = (self.dim(), self.dim()) if self.rng.random() < 0.8 else (self.dim(),)
            if self.dynamic and k == 0:
                shape = (-1,) + shape[1:]
            self.vals.append((self.new_arg(shape), shape))
        if self.dynamic:
            self.body += ["%c0i = arith.constant 0 : index",
                          "%%n = tensor.dim %%a0, %%c0i : %s" % ttype(self.args[0][1])]
        ops = [(self.op_unary, 3), (self.op_binary, 3), (self.op_matmul, 2), (self.op_transpose, 1),
               (self.op_broadcast, 1), (self.op_reduce, 2)]
        if not self.dynamic:
            ops += [(self.op_conv, 1), (self.op_pool, 1), (self.op_pad, 1), (self.op_slice, 1),
                    (self.op_insert, 1)]
        fns = [f for f, w in ops for _ in range(w)]
        done = 0
        tries = 0
        while done < n_ops and tries < 100:
            tries += 1
            if self.rng.choice(fns)() is not False:
                done += 1
        results = [self.vals[-1]]
        inner = [v for v in self.vals[:-1] if v[0].startswith("%v")]
        if inner and self.rng.random() < 0.4:
            results.append(self.rng.choice(inner))
        sig = ", ".join("%s: %s" % (n, ttype(s)) for n, s in self.args)
        rts = ", ".join(ttype(s) for _, s in results)
        out = ["func.func @kernel(%s) -> (%s) {" % (sig, rts)]
        out += ["  " + ln for ln in self.body]
        out.append("  return %s : %s" % (", ".join(n for n, _ in results), rts))
        out.append("}")
        return "\n".join(out) + "\n"


def split_types(s):
    """Splits a comma list of types at top level."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def memref_shape(t, n=None):
    """Sizes of a memref type (`?` -> n)."""
    m = re.match(r"memref<((?:(?:\d+|\?)x)*)f32", t)
    if not m:
        return None
    return [int(d) if d != "?" else n for d in m.group(1).split("x") if d]


DRIVER_HELPERS = """
func.func private @printMemrefF32(memref<*xf32>) attributes { llvm.emit_c_interface }
// Driver helper (scf only): m[i] = ((i * p) mod 17) * s + b
func.func @fill_flat(%m: memref<?xf32>, %p: index, %s: f32, %b: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c17 = arith.constant 17 : index
  %n = memref.dim %m, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %ip = arith.muli %i, %p : index
    %r = arith.remui %ip, %c17 : index
    %ri = arith.index_cast %r : index to i64
    %rf = arith.sitofp %ri : i64 to f32
    %m1 = arith.mulf %rf, %s : f32
    %v = arith.addf %m1, %b : f32
    memref.store %v, %m[%i] : memref<?xf32>
  }
  return
}
"""


def driver(lowered, rng, n=None):
    """@main for the lowered kernel: fills its memref arguments, calls it, prints its results."""
    m = re.search(r"func\.func @kernel\((.*)\)\s*->\s*(\(.*\)|[^{]*?)\s*\{", lowered)
    if not m:
        raise ValueError("no @kernel signature in the lowered program")
    params = [p.split(":", 1)[1].strip() for p in split_types(m.group(1))]
    rets = m.group(2).strip()
    if rets.startswith("("):
        rets = rets[1:-1]
    rtypes = split_types(rets)
    lines = ["func.func @main() {"]
    args = []
    for i, t in enumerate(params):
        shape = memref_shape(t, n)
        plain = "memref<%sxf32>" % "x".join(map(str, shape))
        total = 1
        for d in shape:
            total *= d
        lines.append("  %%in%d = memref.alloc() : %s" % (i, plain))
        flat = "%%in%d" % i
        if len(shape) > 1:
            flat = "%%flat%d" % i
            lines.append("  %s = memref.collapse_shape %%in%d [[%s]] : %s into memref<%dxf32>" % (
                flat, i, ", ".join(str(k) for k in range(len(shape))), plain, total))
        lines.append("  %%dyn%d = memref.cast %s : memref<%dxf32> to memref<?xf32>" % (i, flat, total))
        lines.append("  %%p%d = arith.constant %d : index" % (i, rng.choice([1, 3, 5, 7, 11])))
        lines.append("  %%s%d = arith.constant %s : f32" % (i, rng.choice(["0.5", "0.25", "-0.5", "1.0"])))
        lines.append("  %%b%d = arith.constant %s : f32" % (i, rng.choice(["-2.0", "1.5", "-0.75", "0.0"])))
        lines.append("  call @fill_flat(%%dyn%d, %%p%d, %%s%d, %%b%d) : (memref<?xf32>, index, f32, f32) -> ()"
                     % (i, i, i, i))
        if t != plain:
            lines.append("  %%arg%d = memref.cast %%in%d : %s to %s" % (i, i, plain, t))
            args.append("%%arg%d" % i)
        else:
            args.append("%%in%d" % i)
    res = "%r" if len(rtypes) == 1 else "%%r:%d" % len(rtypes)
    lines.append("  %s = call @kernel(%s) : (%s) -> (%s)" % (res, ", ".join(args), ", ".join(params),
                                                          ", ".join(rtypes)))
    for j, t in enumerate(rtypes):
        name = "%r" if len(rtypes) == 1 else "%%r#%d" % j
        lines.append("  %%u%d = memref.cast %s : %s to memref<*xf32>" % (j, name, t))
        lines.append("  call @printMemrefF32(%%u%d) : (memref<*xf32>) -> ()" % j)
    lines.append("  return")
    lines.append("}")
    return "\n".join(lines) + "\n" + DRIVER_HELPERS


def run(cmd, inp=None, env=None, timeout=TIMEOUT):
    try:
        p = subprocess.run(cmd, input=inp, capture_output=True, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "timeout"
    except OSError as e:
        return 127, "", str(e)


def gen(args):
    os.makedirs(args.out, exist_ok=True)
    made = failed = 0
    for k in range(args.count):
        seed = args.seed + k
        rng = random.Random(seed)
        dyn_n = None
        if args.dynamic > 0 and random.Random(seed * 7919 + 1).random() < args.dynamic:
            dyn_n = random.Random(seed * 7919 + 2).randint(2, 9)
        g = Gen(rng, dynamic=dyn_n is not None)
        src = g.build(rng.randint(2, 6))
        v = seed % len(PIPELINES)
        name = "real_%d_v%d%s" % (seed, v, "_dyn%d" % dyn_n if dyn_n else "")
        out, code, err = src, 0, ""
        stage = []
        for flag in PIPELINES[v] + ["|"]:
            if flag != "|":
                stage.append(flag)
                continue
            code, out, err = run([MLIR_OPT, "-"] + stage, inp=out)
            stage = []
            if code != 0:
                break
        if code != 0:
            failed += 1
            print("GENFAIL %s: %s" % (name, err.strip().splitlines()[0] if err.strip() else code))
            with open(os.path.join(args.out, name + ".tensor.mlir.fail"), "w") as f:
                f.write(src + "\n// " + err.replace("\n", "\n// "))
            continue
        body = out.rstrip()
        assert body.endswith("}")
        head = ("// %s: generated by scripts/affine_real.py (seed %d, ops %s)\n// pipeline: mlir-opt-22 %s\n"
                % (name, seed, ",".join(g.kinds), " ".join("'%s'" % p if (" " in p or "(" in p) else p for p in PIPELINES[v])))
        prog = head + body[:-1] + driver(out, rng, dyn_n) + "}\n"
        with open(os.path.join(args.out, name + ".mlir"), "w") as f:
            f.write(prog)
        with open(os.path.join(args.out, name + ".tensor.mlir"), "w") as f:
            f.write(src)
        made += 1
    print("generated %d programs (%d generator failures) in %s" % (made, failed, args.out))
    return 0 if failed == 0 else 1


# ----------------------------------------------------------------------------- vector programs

VEC_OPS = ["arith.addf", "arith.mulf", "arith.subf", "arith.maximumf"]


def vec_kernel(rng):
    """A kernel of 2-5 nests on RxC buffers mixing affine.vector_load/vector_store (vector<Vxf32>; n-D
    vectors are left out, the oracle's lowering does not take them) with scalar affine.load/store: elementwise chains at step
    V, overlapping vector windows at step 1 (WAW between iterations), a zero-init nest and a
    vector row reduction into it, scalar consumers of vector-written buffers. Returns the text
    (already affine: no lowering pipeline) and the nest kinds."""
    R = rng.choice([2, 3, 4])
    C = rng.choice([8, 12, 16])
    widths = [v for v in (2, 4, 8) if C % v == 0 and v < C]
    ty = "memref<%dx%dxf32>" % (R, C)
    n_in = rng.randint(1, 2)
    bufs = ["%%a%d" % i for i in range(n_in)]
    lines, kinds, temps = [], [], []
    consts = set()

    def vt(v):
        return "vector<%dxf32>" % v

    for k in range(rng.randint(2, 5)):
        t = "%%t%d" % k
        temps.append(t)
        lines.append("  %s = memref.alloc() : %s" % (t, ty))
        p, q = rng.choice(bufs), rng.choice(bufs)
        op = rng.choice(VEC_OPS)
        kind = rng.choice(["vec_ew", "vec_ew", "scalar_ew", "vec_window", "vec_reduce"])
        V = rng.choice(widths)
        kinds.append(kind)
        if kind == "vec_ew":
            lines += ["  affine.for %%i = 0 to %d {" % R,
                      "    affine.for %%j = 0 to %d step %d {" % (C, V),
                      "      %%x = affine.vector_load %s[%%i, %%j] : %s, %s" % (p, ty, vt(V)),
                      "      %%y = affine.vector_load %s[%%i, %%j] : %s, %s" % (q, ty, vt(V)),
                      "      %%z = %s %%x, %%y : %s" % (op, vt(V)),
                      "      affine.vector_store %%z, %s[%%i, %%j] : %s, %s" % (t, ty, vt(V)),
                      "    }", "  }"]
        elif kind == "scalar_ew":
            lines += ["  affine.for %%i = 0 to %d {" % R,
                      "    affine.for %%j = 0 to %d {" % C,
                      "      %%x = affine.load %s[%%i, %%j] : %s" % (p, ty),
                      "      %%y = affine.load %s[%%i, %%j] : %s" % (q, ty),
                      "      %%z = %s %%x, %%y : f32" % op,
                      "      affine.store %%z, %s[%%i, %%j] : %s" % (t, ty),
                      "    }", "  }"]
        elif kind == "vec_window":
            # Windows of V at every column: each element is written by up to V iterations.
            lines += ["  affine.for %%i = 0 to %d {" % R,
                      "    affine.for %%j = 0 to %d {" % (C - V + 1),
                      "      %%x = affine.vector_load %s[%%i, %%j] : %s, %s" % (p, ty, vt(V)),
                      "      %%y = %s %%x, %%x : %s" % (op, vt(V)),
                      "      affine.vector_store %%y, %s[%%i, %%j] : %s, %s" % (t, ty, vt(V)),
                      "    }", "  }"]
        elif kind == "vec_reduce":
            consts.add(V)
            lines += ["  affine.for %%i = 0 to %d {" % R,
                      "    affine.for %%j = 0 to %d step %d {" % (C, V),
                      "      affine.vector_store %%zero%d, %s[%%i, %%j] : %s, %s" % (V, t, ty, vt(V)),
                      "    }", "  }",
                      "  affine.for %%i = 0 to %d {" % R,
                      "    affine.for %%k = 0 to %d {" % (C // V),
                      "      %%x = affine.vector_load %s[%%i, %%k * %d] : %s, %s" % (p, V, ty, vt(V)),
                      "      %%s = affine.vector_load %s[%%i, 0] : %s, %s" % (t, ty, vt(V)),
                      "      %%y = arith.addf %%s, %%x : %s" % vt(V),
                      "      affine.vector_store %%y, %s[%%i, 0] : %s, %s" % (t, ty, vt(V)),
                      "    }", "  }"]
        bufs.append(t)
    outs = [temps[-1]] + ([temps[0]] if len(temps) > 2 and rng.random() < 0.4 else [])
    head = "func.func @kernel(%s) -> (%s) {" % (", ".join("%s: %s" % (b, ty) for b in bufs[:n_in]),
                                               ", ".join([ty] * len(outs)))
    cst = ["  %%zero%d = arith.constant dense<0.0> : vector<%dxf32>" % (v, v) for v in sorted(consts)]
    body = [head] + cst + lines + ["  return %s : %s" % (", ".join(outs), ", ".join([ty] * len(outs))), "}"]
    return "\n".join(body) + "\n", kinds


def gen_vector(args):
    os.makedirs(args.out, exist_ok=True)
    made = failed = 0
    for k in range(args.count):
        seed = args.seed + k
        rng = random.Random(seed)
        kern, kinds = vec_kernel(rng)
        name = "vec_%d" % seed
        prog = ("// %s: generated by scripts/affine_real.py gen-vector (seed %d, nests %s)\nmodule {\n"
                % (name, seed, ",".join(kinds))) + kern + driver(kern, rng) + "}\n"
        code, _, err = run([MLIR_OPT, "-"], inp=prog)
        if code != 0:
            failed += 1
            print("GENFAIL %s: %s" % (name, err.strip().splitlines()[0] if err.strip() else code))
            continue
        with open(os.path.join(args.out, name + ".mlir"), "w") as f:
            f.write(prog)
        made += 1
    print("generated %d vector programs (%d generator failures) in %s" % (made, failed, args.out))
    return 0 if failed == 0 else 1


# ----------------------------------------------------------------------------- checker

ELEM = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2, "i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "index": 8}


def static_bytes(text):
    """Whole-file bytes of memref.alloc/alloca results and non-constant memref.global; None if
    some alloc is dynamically shaped."""
    total = 0
    for m in re.finditer(r"memref\.alloca?\b[^\n]*?:\s*memref<([^>]*)>", text):
        parts = m.group(1).split(",")[0].split("x")
        elem = parts[-1].strip()
        n = 1
        for d in parts[:-1]:
            if not d.strip().isdigit():
                return None
            n *= int(d)
        total += n * ELEM.get(elem, 4)
    for m in re.finditer(r"memref\.global\s+(\"[a-z]+\"\s+)?(constant\s+)?@\S+\s*:\s*memref<([^>]*)>", text):
        if m.group(2):
            continue
        parts = m.group(3).split(",")[0].split("x")
        n = 1
        for d in parts[:-1]:
            n *= int(d)
        total += n * ELEM.get(parts[-1].strip(), 4)
    return total


def remarks(stderr, fname):
    out = []
    for line in stderr.split("\n"):
        if "remark:" not in line:
            continue
        m = re.search(re.escape(fname) + r":(\d+):(\d+):\s*remark:\s*(.*?)\s*$", line)
        out.append("%s:%s: remark: %s" % m.groups() if m else line.strip())
    return sorted(out)


def mlir_lib_dir():
    if os.environ.get("MLIR_LIB_DIR"):
        return os.environ["MLIR_LIB_DIR"]
    import shutil
    r = shutil.which(MLIR_RUNNER)
    return os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(r))), "lib") if r else "."


LIB = None


def oracle(path):
    """Normalised stdout of @main, or None when lowering or running fails."""
    global LIB
    if LIB is None:
        LIB = mlir_lib_dir()
    code, ll, err = run([MLIR_OPT, path, "--lower-affine", "--convert-bufferization-to-memref",
                         "--test-lower-to-llvm"])
    if code != 0:
        return None
    env = dict(os.environ, MALLOC_PERTURB_="165", LLVM_DISABLE_SYMBOLIZATION="1")
    libs = "%s/libmlir_runner_utils.so.22.1,%s/libmlir_c_runner_utils.so.22.1" % (LIB, LIB)
    code, out, err = run([MLIR_RUNNER, "-e", "main", "-entry-point-result=void", "-shared-libs=" + libs],
                         inp=ll, env=env)
    if code != 0:
        return None
    return re.sub(r"base@ = 0x[0-9a-f]+", "base@ = ADDR", out)


def fusion_flag(mode):
    return "--affine-loop-fusion" if not mode else "--affine-loop-fusion=%s" % mode


def vector_overflow(text):
    """True if some affine.vector_load/store's vector is wider, along a trailing dimension, than
    its buffer: out of bounds at every index (mlir-opt-22 sizes private buffers from the scalar
    subscripts, e.g. memref<1x1xf32> under a vector<8xf32> store). Such an output is counted as
    wrong even when its run happens to print the right values."""
    pat = r"affine\.vector_(?:load|store)\b[^\n]*:\s*memref<((?:\d+x)+)[^>]*>,\s*vector<((?:\d+x)+)"
    for m in re.finditer(pat, text):
        mem = [int(x) for x in m.group(1).split("x") if x]
        vec = [int(x) for x in m.group(2).split("x") if x]
        if len(vec) <= len(mem) and any(v > d for v, d in zip(vec, mem[-len(vec):])):
            return True
    return False


def check_case(memplan, path, want_values):
    """Returns a dict: name, skipped, failures [...], remarks n, per mode results."""
    d = os.path.dirname(path)
    fname = os.path.basename(path)
    res = {"name": path, "failures": [], "modes": {}, "remarks": 0}
    code, _, err = run([MLIR_OPT, path, "-o", "/dev/null"] + OPT_FLAGS)
    if code != 0:
        res["skipped"] = "mlir-opt-22 rejects it"
        return res
    # (1) dependence remarks, both run from the file's directory with the relative name
    c1, _, up = run_in(d, [MLIR_OPT, fname, "--test-memref-dependence-check", "-o", "/dev/null"] + OPT_FLAGS)
    c2, _, mp = run_in(d, [memplan, "opt", fname, "--test-memref-dependence-check", "-o", "/dev/null"])
    want, got = remarks(up, fname), remarks(mp, fname)
    res["remarks"] = len(want)
    if c2 != 0:
        res["failures"].append("deps: memplan exit %d: %s" % (c2, first(mp)))
    elif want != got:
        from collections import Counter
        miss = sorted((Counter(want) - Counter(got)).elements())
        extra = sorted((Counter(got) - Counter(want)).elements())
        res["failures"].append("deps: %d missing (%s), %d extra (%s)" % (
            len(miss), miss[0] if miss else "", len(extra), extra[0] if extra else ""))
    with open(path) as f:
        text = f.read()
    has_main = want_values and "func.func @main" in text
    base = oracle(path) if has_main else None
    if has_main and base is None:
        res["failures"].append("original does not run")
        has_main = False
    res["orig_bytes"] = static_bytes(text)
    # (2) fusion per mode
    for mode in MODES:
        r = {}
        with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as tf:
            out = tf.name
        c, _, e = run_in(d, [memplan, "opt", fname, fusion_flag(mode), "-o", out])
        label = mode or "default"
        if c != 0:
            res["failures"].append("%s: memplan exit %d: %s" % (label, c, first(e)))
            r["ok"] = False
        else:
            vc, _, ve = run([MLIR_OPT, out, "-o", "/dev/null"] + OPT_FLAGS)
            if vc != 0:
                res["failures"].append("%s: output does not verify: %s" % (label, first(ve)))
                r["ok"] = False
            else:
                with open(out) as f:
                    otext = f.read()
                r["bytes"] = static_bytes(otext)
                r["ok"] = True
                if vector_overflow(otext):
                    res["failures"].append("%s: a vector access wider than its buffer" % label)
                    r["ok"] = False
                if has_main:
                    got_v = oracle(out)
                    if got_v != base:
                        res["failures"].append("%s: values differ" % label)
                        r["ok"] = False
        os.unlink(out)
        # upstream
        uc, uo, ue = run_in(d, [MLIR_OPT, fname, fusion_flag(mode)] + OPT_FLAGS)
        if uc != 0:
            r["up"] = "crash"
        else:
            r["up_bytes"] = static_bytes(uo)
            r["up"] = "wrong" if vector_overflow(uo) else "ok"
            if has_main:
                with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as tf:
                    tf.write(uo)
                    upath = tf.name
                if r["up"] == "ok" and oracle(upath) != base:
                    r["up"] = "wrong"
                os.unlink(upath)
        res["modes"][label] = r
    return res


def run_in(d, cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, cwd=d or None)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "timeout"
    except OSError as e:
        return 127, "", str(e)


def first(s):
    for ln in s.splitlines():
        if ln.strip():
            return ln.strip()[:200]
    return ""


def split_cases(path, work):
    """Files with `// -----` separators become one file per case under WORK."""
    with open(path) as f:
        text = f.read()
    if not re.search(r"^// -----\s*$", text, re.M):
        return [path]
    parts = re.split(r"^// -----\s*$", text, flags=re.M)
    out = []
    base = os.path.splitext(os.path.basename(path))[0]
    for i, p in enumerate(parts):
        # keep line numbers: pad with the lines before this case
        q = os.path.join(work, "%s.case%d.mlir" % (base, i))
        with open(q, "w") as f:
            f.write(p)
        out.append(q)
    return out


def check(args):
    memplan = os.path.abspath(args.memplan)
    work = tempfile.mkdtemp(prefix="affine_real.")
    files = []
    for p in args.paths:
        if os.path.isdir(p):
            for n in sorted(os.listdir(p)):
                if n.endswith(".mlir") and not n.endswith(".tensor.mlir"):
                    files.append(os.path.join(p, n))
        else:
            files.append(p)
    cases = []
    for f in files:
        cases += split_cases(f, work)
    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        results = list(ex.map(lambda c: check_case(memplan, c, not args.no_values), cases))
    lines = []
    nfail = nskip = nrem = 0
    deps_ok = 0
    agg = {m or "default": {"kept": 0, "n": 0, "mb": 0, "ub": 0, "s": 0, "e": 0, "l": 0, "wrong": 0,
                            "crash": 0, "mb_all": 0} for m in MODES}
    larger = []
    for r in results:
        if r.get("skipped"):
            nskip += 1
            continue
        nrem += r["remarks"]
        if not any(x.startswith("deps") for x in r["failures"]):
            deps_ok += 1
        if r["failures"]:
            nfail += 1
            lines.append("FAIL %s: %s" % (r["name"], "; ".join(r["failures"])))
        for label, m in r["modes"].items():
            a = agg[label]
            a["n"] += 1
            if m.get("ok"):
                a["kept"] += 1
                a["mb_all"] += m.get("bytes") or 0
            if m.get("up") == "crash":
                a["crash"] += 1
            elif m.get("up") == "wrong":
                a["wrong"] += 1
            elif m.get("ok") and m.get("bytes") is not None and m.get("up_bytes") is not None:
                a["mb"] += m["bytes"]
                a["ub"] += m["up_bytes"]
                if m["bytes"] < m["up_bytes"]:
                    a["s"] += 1
                elif m["bytes"] == m["up_bytes"]:
                    a["e"] += 1
                else:
                    a["l"] += 1
                    if args.strict_bytes and label == "default" and not r["failures"]:
                        nfail += 1
                        lines.append("FAIL %s: default-mode bytes %d > mlir-opt-22's %d" % (
                            r["name"], m["bytes"], m["up_bytes"]))
                    larger.append("%s (%s): %d B vs upstream %d B" % (r["name"], label, m["bytes"],
                                                                     m["up_bytes"]))
    n = len(results) - nskip
    lines.append("cases %d (skipped %d: mlir-opt-22 rejects them); dependence remarks %d lines, identical on "
                 "%d/%d" % (n, nskip, nrem, deps_ok, n))
    lines.append("mode | ok (verifies%s) | memplan B | upstream B (where upstream is right) | smaller/equal/larger"
                 " | upstream wrong values | upstream crash" % (", same values" if not args.no_values else ""))
    for label, a in agg.items():
        lines.append("%s | %d/%d | %d | %d | %d/%d/%d | %d | %d" % (label, a["kept"], a["n"], a["mb"], a["ub"],
                                                                  a["s"], a["e"], a["l"], a["wrong"], a["crash"]))
    lines.append("original bytes %d" % sum(r.get("orig_bytes") or 0 for r in results if not r.get("skipped")))
    for x in larger:
        lines.append("LARGER %s" % x)
    rep = "\n".join(lines)
    import shutil
    shutil.rmtree(work, ignore_errors=True)
    print(rep)
    if args.report:
        with open(args.report, "w") as f:
            f.write(rep + "\n")
    return 1 if nfail else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--count", type=int, default=20)
    g.add_argument("--dynamic", type=float, default=0.0,
                   help="fraction of programs whose first input has a dynamic size (symbolic loop bounds)")
    g.add_argument("out")
    gv = sub.add_parser("gen-vector")
    gv.add_argument("--seed", type=int, default=1)
    gv.add_argument("--count", type=int, default=20)
    gv.add_argument("out")
    c = sub.add_parser("check")
    c.add_argument("--memplan", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                     "target", "release", "memplan"))
    c.add_argument("--jobs", type=int, default=2)
    c.add_argument("--report")
    c.add_argument("--no-values", action="store_true")
    c.add_argument("--strict-bytes", action="store_true",
                   help="a default-mode output larger than mlir-opt-22's (where upstream's is right) fails")
    c.add_argument("--allow-unregistered", action="store_true",
                   help="pass --allow-unregistered-dialect to mlir-opt-22 (upstream test files)")
    c.add_argument("paths", nargs="+")
    a = ap.parse_args()
    if a.cmd == "check" and a.allow_unregistered:
        OPT_FLAGS.append("--allow-unregistered-dialect")
    if a.cmd == "gen-vector":
        return gen_vector(a)
    return gen(a) if a.cmd == "gen" else check(a)


if __name__ == "__main__":
    sys.exit(main())
