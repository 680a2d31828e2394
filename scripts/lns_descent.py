#!/usr/bin/env python3
"""Large-neighbourhood descent from a known plan (issue 11, D and J; BENCHMARKS.md §8).

Starts from PLAN.csv (a MiniMalloc-style CSV with an `offset` column, e.g. one of
crates/memplan-crosscheck/plans/) at height H and asks for a plan within H - 1 units
in which only a band of buffers may move: the buffers that reach above H - 1, and the
buffers co-live with them whose tops lie above a line `band` units lower. Everything else
stays where the plan put it (fixed blocks for the search); on three questions of five
a random 5-20% of the other buffers may move too. Each question is one
`exact_bench --restarts` call (randomised restarts of memplan's decision search under
a node limit). The band doubles while questions are refuted, then is drawn between the
widest refuted width and the narrowest one that ran out of nodes. With --shake K, after
K failed questions in a row a random third of the buffers is placed anew at the current
height (a plateau move). A plan found is the new start (exact_bench writes it only after
memplan's checker passed it on the whole problem) and is copied to OUTDIR. The runs are
repeatable from the seed and the start plan (every question is under a node limit).

The same moves run inside memplan's own restart phase (`exact/band.rs`,
`memplan plan --algo exact --restarts`); this script can start from a stored plan.

usage: scripts/lns_descent.py EXACT_BENCH PROBLEM.csv PLAN.csv SECS OUTDIR
           [--seed S] [--nodes N] [--unit BYTES] [--band UNITS] [--shake K]
"""
import argparse
import csv
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time


def read(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench")
    ap.add_argument("problem")
    ap.add_argument("plan")
    ap.add_argument("secs", type=float)
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--nodes", type=int, default=200000)
    ap.add_argument("--unit", type=int, default=1024)
    ap.add_argument("--band", type=int, default=60)
    ap.add_argument("--shake", type=int, default=0,
                    help="after this many failed questions in a row, re-solve a random "
                         "third of the buffers at the current height (0: never)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    end = time.time() + a.secs
    os.makedirs(a.outdir, exist_ok=True)
    name = os.path.basename(a.problem).split(".")[0]
    rows = read(a.plan)
    lo = [int(r["lower"]) for r in rows]
    up = [int(r["upper"]) for r in rows]
    sz = [int(r["size"]) for r in rows]
    off = [int(r["offset"]) for r in rows]
    n = len(rows)
    # Bands known to be refuted (lo) or to run out of nodes (hi) at the current
    # capacity; each question draws its band between them, plus on some questions
    # a random share of all the other buffers released as well.
    lo_band, hi_band = 0, None
    tmp = tempfile.mkdtemp(prefix="lns.")
    it = 0
    failed = 0
    while time.time() < end - 2:
        it += 1
        top = [off[i] + sz[i] for i in range(n)]
        h = max(top)
        shake = a.shake > 0 and failed >= a.shake
        cap = h if shake else h - a.unit
        over = [i for i in range(n) if top[i] > h - a.unit]
        if hi_band is None:
            band = max(a.band, 2 * lo_band)
        else:
            band = rng.randint(lo_band, max(hi_band, lo_band + 10))
        extra = rng.choice([0.0, 0.0, 0.05, 0.1, 0.2])
        line = cap - band * a.unit
        free = set(over)
        for i in range(n):
            if top[i] > line and any(lo[i] < up[t] and lo[t] < up[i] for t in over):
                free.add(i)
        for i in range(n):
            if i not in free and rng.random() < extra:
                free.add(i)
        if shake:
            # (The band and share above are drawn anyway, so that a seed gives the
            # same questions as in the recorded runs.)
            # A move along the plateau: another plan of the same height, some
            # third of the buffers placed anew, to start the next descent from.
            extra = -1.0
            free = {i for i in range(n) if rng.random() < 0.33}
        sub = os.path.join(tmp, "sub.csv")
        with open(sub, "w") as f:
            f.write("id,lower,upper,size,offset\n")
            for i in range(n):
                o = "" if i in free else str(off[i])
                f.write(f"{rows[i]['id']},{lo[i]},{up[i]},{sz[i]},{o}\n")
        out = os.path.join(tmp, "out.csv")
        if os.path.exists(out):
            os.remove(out)
        seed = rng.randrange(1 << 30)
        left = max(1.0, end - time.time())
        r = subprocess.run(
            [a.bench, "--restarts", str(cap), "--seed", str(seed), "--noise", "2",
             "--node-limit", str(a.nodes), "--time", f"{left:.1f}", "--out", out, sub],
            capture_output=True, text=True)
        last = (r.stdout.strip().splitlines() or [""])[-1]
        verdict = last.split(": ", 1)[-1]
        print(f"{time.strftime('%T')} {name} it={it} cap={cap // a.unit} band={band} "
              f"extra={extra} free={len(free)} seed={seed}: {verdict}", flush=True)
        if "plan found" in last and os.path.exists(out):
            off = [int(x["offset"]) for x in read(out)]
            peak = max(off[i] + sz[i] for i in range(n))
            if peak < h:
                keep = os.path.join(a.outdir, f"{name}.{peak}.lns{a.seed}.csv")
                shutil.copy(out, keep)
                lo_band, hi_band = 0, None
        if shake or "plan found" in last:
            failed = 0
            continue
        failed += 1
        if "infeasible" in last and extra == 0.0:
            lo_band = max(lo_band, band)
            if hi_band is not None and hi_band <= lo_band:
                hi_band = None
        elif "undecided" in last and extra == 0.0:
            hi_band = band if hi_band is None else min(hi_band, band)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
