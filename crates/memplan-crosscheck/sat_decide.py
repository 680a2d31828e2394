#!/usr/bin/env python3
"""Does a MiniMalloc-style problem fit within CAP bytes? Asked of a CDCL SAT solver
(issue 11, D and J; BENCHMARKS.md §8). A dev tool: memplan-core does not use it.

Encoding (order encoding, as in SAT-based strip packing): offsets in units of the
gcd of the sizes (a plan that cannot be lowered has offsets in those units, so the
answer is the same); for buffer i with size s_i and top offset U_i = cap - s_i,
the variable p(i, v) says x_i <= v (v < U_i), chained p(i, v) -> p(i, v + 1).
Every co-live pair (lifetimes [lower, upper) overlap) gets two orientation
variables, "i below j" and "j below i", at least one true; "a below b" means
x_a + s_a <= x_b, i.e. for every v: x_b <= v -> x_a <= v - s_a. Buffers with the
same lifetime and size are interchangeable, so the lower id is put below (a
symmetry cut that keeps some plan of every feasible problem).

SAT: the plan is decoded, checked here pair by pair (every co-live pair apart,
every top within CAP) and written as CSV with an `offset` column (--out).
UNSAT: no plan within CAP exists. With --proof FILE the solver writes a DRAT proof
that `drat-trim CNF FILE` can check independently (--keep-cnf keeps the CNF).

usage: sat_decide.py PROBLEM.csv CAP_BYTES [--solver cadical] [--time SECS]
                     [--out PLAN.csv] [--proof FILE.drat] [--keep-cnf FILE.cnf]
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


def read(path):
    """Buffers as (rows for the output CSV, live ranges, sizes, alignments, fixed offsets).

    CSV: `id,lower,upper,size[,alignment][,offset]` (one range [lower, upper));
    JSON: memplan's problem format (`buffers`: `size`, `live` ranges, optional
    `alignment` and `offset`)."""
    if path.endswith(".json"):
        with open(path) as f:
            bufs = json.load(f)["buffers"]
        rows = [{"id": b.get("id", str(k)), "lower": min(r[0] for r in b["live"]),
                 "upper": max(r[1] for r in b["live"]), "size": b["size"]}
                for k, b in enumerate(bufs)]
        live = [[tuple(r) for r in b["live"]] for b in bufs]
        sz = [int(b["size"]) for b in bufs]
        al = [int(b.get("alignment", 1)) for b in bufs]
        fx = [b.get("offset") for b in bufs]
        return rows, live, sz, al, fx
    with open(path) as f:
        rows = list(csv.DictReader(f))
    live = [[(int(r["lower"]), int(r["upper"]))] for r in rows]
    sz = [int(r["size"]) for r in rows]
    al = [int(r.get("alignment") or 1) for r in rows]
    fx = [int(r["offset"]) if r.get("offset") not in (None, "") else None for r in rows]
    return rows, live, sz, al, fx


def colive(a, b):
    return any(s1 < e2 and s2 < e1 for s1, e1 in a for s2, e2 in b)


def encode(live, s, al, fx, cap_units, out):
    """Writes the CNF to the open binary file `out`; returns (pvar base per buffer, U, ...).

    Sizes, alignments, fixed offsets and the capacity are in units already."""
    n = len(s)
    # Highest offset of each buffer: aligned, the buffer within the capacity.
    U = [((cap_units - s[i]) // al[i]) * al[i] if cap_units >= s[i] else -1 for i in range(n)]
    if min(U) < 0 or any(fx[i] is not None and fx[i] > U[i] for i in range(n)):
        return None
    base = []
    nv = 0
    for i in range(n):
        base.append(nv)  # p(i, v) is variable base[i] + v + 1, v in [0, U_i)
        nv += U[i]
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if colive(live[i], live[j])]
    orient = {}
    for i, j in pairs:
        orient[(i, j)] = nv + 1
        orient[(j, i)] = nv + 2
        nv += 2
    # Clauses are written as they are made (one block of rows per call): the
    # header, written first with room to spare, gets the counts at the end.
    out.write(b" " * 64 + b"\n")
    count = [0]

    def emit(cols):
        # cols: equal-length int arrays; a 0 entry is an absent literal.
        m = np.stack(cols, axis=1)
        lines = [" ".join(str(x) for x in row if x != 0) + " 0" for row in m.tolist()]
        out.write(("\n".join(lines) + "\n").encode())
        count[0] += len(lines)

    for i in range(n):
        if U[i] >= 2:
            v = np.arange(U[i] - 1)
            emit([-(base[i] + v + 1), base[i] + v + 2, np.zeros_like(v)])
    units = []
    for i in range(n):
        # Alignment: x_i <= v means x_i <= v - 1 unless v is a multiple of it.
        if al[i] > 1 and U[i] >= 2:
            v = np.array([v for v in range(1, U[i]) if v % al[i] != 0], dtype=np.int64)
            if len(v):
                emit([-(base[i] + v + 1), base[i] + v, np.zeros_like(v)])
        if fx[i] is not None:
            if fx[i] >= 1:
                units.append(-(base[i] + fx[i]))
            if fx[i] < U[i]:
                units.append(base[i] + fx[i] + 1)
    for i, j in pairs:
        a_below_b = [(i, j), (j, i)]
        same = (live[i] == live[j] and s[i] == s[j] and al[i] == al[j]
                and fx[i] is None and fx[j] is None)
        emit([np.array([orient[(i, j)]]), np.array([orient[(j, i)]]), np.array([0])])
        if same:
            units.append(orient[(i, j)])
        for a, b in a_below_b:
            lit = orient[(a, b)]
            sa = s[a]
            # x_b >= s_a: not p(b, s_a - 1)
            if sa - 1 >= U[b]:
                units.append(-lit)
                continue
            if sa - 1 >= 0:
                emit([np.array([-lit]), np.array([-(base[b] + sa)]), np.array([0])])
            # v in [s_a, U_b]: (x_b <= v) -> (x_a <= v - s_a); skip when v - s_a >= U_a
            vmax = min(U[b], U[a] - 1 + sa)
            if vmax < sa:
                continue
            v = np.arange(sa, vmax + 1)
            w = v - sa
            pa = base[a] + w + 1
            pb = np.where(v < U[b], -(base[b] + v + 1), 0)
            emit([np.full_like(v, -lit), pb, pa])
    for u in units:
        out.write(f"{u} 0\n".encode())
    ncl = count[0] + len(units)
    out.seek(0)
    out.write(f"p cnf {nv} {ncl}".encode())
    return base, U, nv, ncl, len(pairs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("problem")
    ap.add_argument("cap", type=int)
    ap.add_argument("--solver", default="cadical")
    ap.add_argument("--time", type=int, default=600)
    ap.add_argument("--out")
    ap.add_argument("--proof")
    ap.add_argument("--keep-cnf")
    a = ap.parse_args()
    rows, live, sz, al, fx = read(a.problem)
    g = 0
    # Alignment 1 constrains nothing, so it does not enter the unit.
    for x in sz + [x for x in al if x > 1] + [o for o in fx if o is not None]:
        g = math.gcd(g, x)
    s = [x // g for x in sz]
    al_u = [max(1, x // g) for x in al]
    fx_u = [None if o is None else o // g for o in fx]
    cap_units = a.cap // g
    t0 = time.time()
    if a.keep_cnf:
        f = open(a.keep_cnf, "wb")
    else:
        f = tempfile.NamedTemporaryFile(suffix=".cnf", delete=False)
    cnf = f.name
    with f:
        enc = encode(live, s, al_u, fx_u, cap_units, f)
    if enc is None:
        if not a.keep_cnf:
            os.remove(cnf)
        print(f"{a.problem}: capacity {a.cap}: UNSAT (a buffer, or a fixed one at its offset, "
              "does not fit within the capacity)")
        return 0
    base, U, nv, ncl, npairs = enc
    t1 = time.time()
    print(f"{a.problem}: capacity {a.cap} ({cap_units} units of {g}): {len(s)} buffers, "
          f"{npairs} co-live pairs, {nv} variables, {ncl} clauses, encoded in {t1 - t0:.1f} s",
          flush=True)
    cmd = [a.solver, "-t", str(a.time), "-q"]
    if a.proof:
        cmd += ["--no-binary", cnf, a.proof]
    else:
        cmd.append(cnf)
    r = subprocess.run(cmd, capture_output=True, text=True)
    t2 = time.time()
    status = "UNKNOWN"
    model = {}
    for line in r.stdout.splitlines():
        if line.startswith("s "):
            status = line[2:].strip()
        elif line.startswith("v "):
            for x in line[2:].split():
                v = int(x)
                if v != 0:
                    model[abs(v)] = v > 0
    if not a.keep_cnf:
        os.remove(cnf)
    if status == "SATISFIABLE":
        off = []
        for i in range(len(s)):
            x = U[i]
            for v in range(U[i]):
                if model.get(base[i] + v + 1, False):
                    x = v
                    break
            off.append(x)
        bad = 0
        for i in range(len(s)):
            if off[i] + s[i] > cap_units or off[i] < 0 or off[i] % al_u[i] != 0:
                bad += 1
            if fx_u[i] is not None and off[i] != fx_u[i]:
                bad += 1
            for j in range(i + 1, len(s)):
                if colive(live[i], live[j]):
                    if off[i] < off[j] + s[j] and off[j] < off[i] + s[i]:
                        bad += 1
        peak = max(o + x for o, x in zip(off, s)) * g
        verdict = f"SAT, plan peak {peak}, {'checked' if bad == 0 else f'CHECK FAILED ({bad})'}"
        if a.out and bad == 0:
            with open(a.out, "w") as f:
                f.write("id,lower,upper,size,offset\n")
                for r_, o in zip(rows, off):
                    f.write(f"{r_['id']},{r_['lower']},{r_['upper']},{r_['size']},{o * g}\n")
    elif status == "UNSATISFIABLE":
        verdict = "UNSAT (no plan within the capacity)"
    else:
        verdict = "unknown (time limit)"
    print(f"{a.problem}: capacity {a.cap}: {verdict}; solver {t2 - t1:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
