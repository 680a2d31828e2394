#!/usr/bin/env python3
"""Differential check of the NVVM memory / barrier / conversion verifier rules against
mlir-opt-22: draws random forms of the ops those rules cover (mbarrier arrive / expect_tx /
wait with scopes, address spaces, results and predicates; the TMA load / store / reduce /
prefetch ops with every mode, 0-6 coordinates and 0-3 im2col offsets, predicates,
multicast, cache hints, CTA groups; nvvm.prefetch; f32x2 -> f16x2/bf16x2 conversions;
clusterlaunchcontrol.query.cancel; sreg ranges; fence.proxy.sync_restrict; vector
expandload / compressstore), one op per module, and counts the modules where memplan and
mlir-opt-22 disagree on accept / reject.

    python3 scripts/nvvm_mem_diff.py --memplan target/release/memplan --count 600 --seed 1
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor


def pick(r, xs):
    return xs[r.randrange(len(xs))]


def attrs(parts):
    parts = [p for p in parts if p]
    return (" {" + ", ".join(parts) + "}") if parts else ""


def mbarrier(r):
    op = pick(r, ["arrive", "arrive_drop", "arrive.expect_tx", "arrive_drop.expect_tx",
                  "expect_tx", "complete_tx", "test.wait", "try_wait"])
    space = pick(r, ["", "<3>", "<7>"])
    ptr = f"!llvm.ptr{space}"
    scope = pick(r, [None, "cta", "cluster", "gpu", "sys"])
    a = [f"scope = #nvvm.mem_scope<{scope}>" if scope else None]
    if op in ("arrive", "arrive_drop", "arrive.expect_tx", "arrive_drop.expect_tx",
              "test.wait", "try_wait") and r.random() < 0.3:
        a.append("relaxed = true")
    res = ""
    if op in ("arrive", "arrive_drop"):
        cnt = ", %c" if r.random() < 0.5 else ""
        if r.random() < 0.5:
            res = " -> i64"
        body = f"nvvm.mbarrier.{op} %b{cnt}{attrs(a)} : {ptr}{res}"
    elif op in ("arrive.expect_tx", "arrive_drop.expect_tx"):
        pred = op == "arrive.expect_tx" and r.random() < 0.5
        if r.random() < 0.5:
            res = " -> i64"
        ptxt = ", predicate = %p" if pred else ""
        types = f"{ptr}, i32" + (", i1" if pred else "")
        body = f"nvvm.mbarrier.{op} %b, %c{ptxt}{attrs(a)} : {types}{res}"
    elif op in ("expect_tx", "complete_tx"):
        body = f"nvvm.mbarrier.{op} %b, %c{attrs(a)} : {ptr}, i32"
    else:
        ticks = ", %c" if op == "try_wait" and r.random() < 0.5 else ""
        tt = ", i32" if ticks else ""
        body = f"nvvm.mbarrier.{op} %b, %c{ticks}{attrs(a)} : {ptr}, i32{tt} -> i1"
    if body.rstrip().endswith(("-> i64", "-> i1")):
        body = "%r = " + body
    return f"func.func @f(%b: {ptr}, %c: i32, %p: i1) {{\n  {body}\n  return\n}}\n"


def tma(r):
    op = pick(r, ["shared.cluster.global", "prefetch", "global.shared.cta", "reduce"])
    n = r.randrange(0, 7)
    box = "box[" + ", ".join(["%x"] * n) + "]"
    k = r.randrange(0, 4)
    im2col = (" im2col[" + ", ".join(["%o"] * k) + "]") if k else ""
    a = []
    if op in ("shared.cluster.global", "prefetch"):
        mode = pick(r, [None, "tile", "im2col", "im2col_w", "im2col_w_128", "tile_gather4"])
        if mode:
            a.append(f"mode = #nvvm.tma_load_mode<{mode}>")
    else:
        mode = pick(r, [None, "tile", "im2col", "tile_scatter4"])
        if mode:
            a.append(f"mode = #nvvm.tma_store_mode<{mode}>")
    hint = " l2_cache_hint = %h" if r.random() < 0.3 else ""
    if op == "shared.cluster.global":
        dst = pick(r, ["<3>", "<7>"])
        mc = " multicast_mask = %m" if r.random() < 0.3 else ""
        pred = " predicate = %p" if r.random() < 0.3 else ""
        if r.random() < 0.4:
            a.append("isCTAOnly = true")
        if r.random() < 0.2:
            a.append("group = #nvvm.cta_group<cta_1>")
        body = (f"nvvm.cp.async.bulk.tensor.shared.cluster.global %d{dst}, %t, %bar, {box}"
                f"{im2col}{mc}{hint}{pred}{attrs(a)} : !llvm.ptr{dst}, !llvm.ptr")
    elif op == "prefetch":
        body = f"nvvm.cp.async.bulk.tensor.prefetch %t, {box}{im2col}{hint}{attrs(a)} : !llvm.ptr"
    elif op == "global.shared.cta":
        pred = ", predicate = %p" if r.random() < 0.4 else ""
        body = (f"nvvm.cp.async.bulk.tensor.global.shared.cta %t, %s, {box}{hint}{pred}"
                f"{attrs(a)} : !llvm.ptr, !llvm.ptr<3>")
    else:
        a.append("redKind = #nvvm.tma_redux_kind<add>")
        body = f"nvvm.cp.async.bulk.tensor.reduce %t, %s, {box}{hint}{attrs(a)} : !llvm.ptr, !llvm.ptr<3>"
    body = body.replace("%d<3>", "%d3").replace("%d<7>", "%d7")
    return ("func.func @f(%t: !llvm.ptr, %d3: !llvm.ptr<3>, %d7: !llvm.ptr<7>, %s: !llvm.ptr<3>, "
            "%bar: !llvm.ptr<3>, %x: i32, %o: i16, %m: i16, %h: i64, %p: i1) {\n"
            f"  {body}\n  return\n}}\n")


def prefetch(r):
    space = pick(r, ["", "<1>", "<4>", "<5>"])
    parts = []
    level = pick(r, [None, "L1", "L2"])
    if level:
        parts.append(f"level = {level}" + (" uniform" if r.random() < 0.3 else "") + ",")
    if r.random() < 0.4:
        parts.append("tensormap" + (" in_param_space" if r.random() < 0.4 else "") + ",")
    if r.random() < 0.3:
        parts.append("evict_priority = " + pick(r, ["evict_normal", "evict_first", "evict_last",
                                                   "evict_unchanged", "no_allocate"]) + ",")
    pred = r.random() < 0.3
    ops = f"%g, predicate = %p : !llvm.ptr{space}, i1" if pred else f"%g : !llvm.ptr{space}"
    return (f"func.func @f(%g: !llvm.ptr{space}, %p: i1) {{\n  nvvm.prefetch "
            f"{' '.join(parts)} {ops}\n  return\n}}\n")


def convert(r):
    dst = pick(r, ["f16", "bf16"])
    rnd = pick(r, [None, "none", "rn", "rm", "rp", "rz", "rna", "rs"])
    bits = ", %r" if r.random() < 0.5 else ""
    a = [f"rnd = #nvvm.fp_rnd_mode<{rnd}>" if rnd else None,
         "relu = true" if r.random() < 0.3 else None]
    return (f"func.func @f(%a: f32, %b: f32, %r: i32) {{\n  %0 = nvvm.convert.f32x2.to.{dst}x2 "
            f"%a, %b{bits}{attrs(a)} : vector<2x{dst}>\n  return\n}}\n")


def misc(r):
    c = r.randrange(4)
    if c == 0:
        q = pick(r, ["is_canceled", "get_first_cta_id_x", "get_first_cta_id_y", "get_first_cta_id_z"])
        t = pick(r, ["i1", "i32"])
        body = f"%0 = nvvm.clusterlaunchcontrol.query.cancel query = {q}, %q : {t}"
    elif c == 1:
        w = pick(r, [1, 8, 16, 32, 64])
        vals = [0, 1, 2, 5, -1, -2, (1 << w) - 1, 1 << (w - 1)]
        lo, hi = pick(r, vals), pick(r, vals)
        if r.random() < 0.4:
            hi = lo
        reg = pick(r, ["tid.x", "ctaid.y", "laneid", "warpsize", "cluster.ctarank", "nsmid"])
        body = f"%0 = nvvm.read.ptx.sreg.{reg} range <i{w}, {lo}, {hi}> : i32"
    elif c == 2:
        kinds = ["alias", "async", "async.global", "async.shared", "tensormap", "generic"]
        a = ["order = #nvvm.mem_order<" + pick(r, ["acquire", "release", "weak", "mmio"]) + ">"]
        if r.random() < 0.5:
            a.append("fromProxy = #nvvm.proxy_kind<" + pick(r, kinds) + ">")
        if r.random() < 0.5:
            a.append("toProxy = #nvvm.proxy_kind<" + pick(r, kinds) + ">")
        body = "nvvm.fence.proxy.sync_restrict" + attrs(a)
    else:
        rank = pick(r, [1, 1, 2])
        mt = pick(r, ["f32", "f32", "i32"])
        vt = pick(r, ["f32", "f32", "f64"])
        n, k = pick(r, [8, 16]), pick(r, [8, 16])
        idx = ", ".join(["index"] * pick(r, [1, 1, 2]))
        nidx = idx.count("index")
        mem = "memref<" + "?x" * rank + f"{mt}>"
        ins = ", ".join(["%i"] * nidx)
        if r.random() < 0.5:
            pt = f"vector<{pick(r, [n, k])}x{vt}>"
            body = (f'%0 = "vector.expandload"(%m, {ins}, %k, %v) : ({mem}, {idx}, vector<{k}xi1>, '
                    f"{pt}) -> vector<{n}x{vt}>")
            return (f"func.func @f(%m: {mem}, %i: index, %k: vector<{k}xi1>, %v: {pt}) {{\n  {body}\n"
                    "  return\n}\n")
        body = (f'"vector.compressstore"(%m, {ins}, %k, %v) : ({mem}, {idx}, vector<{k}xi1>, '
                f"vector<{n}x{vt}>) -> ()")
        return (f"func.func @f(%m: {mem}, %i: index, %k: vector<{k}xi1>, %v: vector<{n}x{vt}>) {{\n"
                f"  {body}\n  return\n}}\n")
    return f"func.func @f(%q: i128) {{\n  {body}\n  return\n}}\n"


GENS = [mbarrier, tma, tma, prefetch, convert, misc]


def verdict(cmd, src):
    p = subprocess.run(cmd, input=src, capture_output=True, text=True)
    return p.returncode == 0, (p.stderr.strip().splitlines() or [""])[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--memplan", default="target/release/memplan")
    ap.add_argument("--count", type=int, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show", type=int, default=10)
    a = ap.parse_args()
    r = random.Random(a.seed)
    srcs = [pick(r, GENS)(r) for _ in range(a.count)]

    def one(src):
        return (verdict(["mlir-opt-22", "--allow-unregistered-dialect"], src),
                verdict([a.memplan, "opt", "-"], src))

    with ThreadPoolExecutor(a.jobs) as ex:
        res = list(ex.map(one, srcs))
    bad = [(s, m, o) for s, (m, o) in zip(srcs, res) if m[0] != o[0]]
    acc = sum(1 for m, _ in res if m[0])
    print(f"{a.count} modules (seed {a.seed}): mlir-opt-22 accepts {acc}, rejects {a.count - acc}; "
          f"memplan disagrees on {len(bad)} "
          f"({sum(1 for _, m, _ in bad if m[0])} it rejects, {sum(1 for _, m, _ in bad if not m[0])} it accepts)")
    for s, m, o in bad[: a.show]:
        print(f"--- mlir-opt-22: {m[1] or 'ok'}\n    memplan: {o[1] or 'ok'}\n{s}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
