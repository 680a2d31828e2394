#!/usr/bin/env python3
"""CP-SAT side of the mid-size comparison (issue 11): solve every NNNN.json that
`memplan-crosscheck ... DUMP_DIR` wrote, minimising the peak, and compare with
exact's result in NNNN.exact (`peak optimal seconds`).

Model: per buffer an offset y = align * k (fixed if the buffer is), one
rectangle per live interval (x = the interval, y = [y, y + size)), all in one
NoOverlap2D; the peak is at least every y + size and at least the max-load bound.

Usage: cpsat.py DUMP_DIR [SECONDS=60] [WORKERS=2] [TAG...]

With TAGs, exact's results are read from NNNN.TAG.exact (written by `exact.py`)
and compared tag by tag; the first tag's peak is CP-SAT's upper bound. CP-SAT's
result is kept in NNNN.cpsat (`value proved seconds`) and reused when present.
"""
import json, os, sys, time
from ortools.sat.python import cp_model


def max_load(bufs):
    ev = []
    for b in bufs:
        for s, e in b["live"]:
            ev.append((s, 1, b["size"]))
            ev.append((e, 0, b["size"]))
    ev.sort()
    cur = best = 0
    for _, start, size in ev:
        cur = cur + size if start else cur - size
        best = max(best, cur)
    top = max([b["offset"] + b["size"] for b in bufs if "offset" in b] or [0])
    return max(best, top)


def solve(bufs, ub, secs, workers):
    m = cp_model.CpModel()
    lb = max_load(bufs)
    peak = m.NewIntVar(lb, ub, "peak")
    xs, ys = [], []
    for i, b in enumerate(bufs):
        a, size = b.get("alignment", 1), b["size"]
        if "offset" in b:
            y = m.NewConstant(b["offset"])
        else:
            k = m.NewIntVar(0, max(0, (ub - size) // a), f"k{i}")
            y = m.NewIntVar(0, ub - size, f"y{i}")
            m.Add(y == a * k)
        m.Add(y + size <= peak)
        yi = m.NewFixedSizeIntervalVar(y, size, f"yi{i}")
        for s, e in b["live"]:
            xs.append(m.NewFixedSizeIntervalVar(s, e - s, f"x{i}_{s}"))
            ys.append(yi)
    m.AddNoOverlap2D(xs, ys)
    m.Minimize(peak)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = secs
    solver.parameters.num_workers = workers
    t = time.perf_counter()
    st = solver.Solve(m)
    el = time.perf_counter() - t
    return st, int(solver.ObjectiveValue()) if st in (cp_model.OPTIMAL, cp_model.FEASIBLE) else None, el


def report(tag, rows):
    import statistics
    both = cp_only = ex_only = neither = mismatch = faster = 0
    ratios = []
    for n, peak, opt, te, val, cp_opt, tc in rows:
        if cp_opt and opt:
            both += 1
            if val != peak:
                mismatch += 1
            ratios.append(te / max(tc, 1e-6))
            faster += te < tc
        elif cp_opt:
            cp_only += 1
        elif opt:
            ex_only += 1
        else:
            neither += 1
    gm = statistics.geometric_mean(ratios) if ratios else float("nan")
    med = statistics.median(ratios) if ratios else float("nan")
    te_sum = sum(r[3] for r in rows if r[2] and r[5])
    tc_sum = sum(r[6] for r in rows if r[2] and r[5])
    print(f"[{tag}] instances {len(rows)}: both proved {both} (optimum differs on {mismatch}); CP-SAT only {cp_only}; "
          f"exact only {ex_only}; neither {neither}; exact faster on {faster} of {both}; time ratio exact/CP-SAT "
          f"geomean {gm:.4f}, median {med:.4f}, max {max(ratios) if ratios else float('nan'):.3f}; "
          f"total on both-proved: exact {te_sum:.1f} s, CP-SAT {tc_sum:.1f} s")


def main():
    d = sys.argv[1]
    secs = float(sys.argv[2]) if len(sys.argv) > 2 else 60.0
    workers = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    tags = sys.argv[4:] or [None]
    ext = lambda t: ".exact" if t is None else f".{t}.exact"
    names = sorted(f[:-5] for f in os.listdir(d) if f.endswith(".json")
                   and all(os.path.exists(os.path.join(d, f[:-5] + ext(t))) for t in tags))
    rows = {t: [] for t in tags}
    for n in names:
        bufs = json.load(open(os.path.join(d, n + ".json")))["buffers"]
        res = {}
        for t in tags:
            peak, opt, te = open(os.path.join(d, n + ext(t))).read().split()
            res[t] = (int(peak), opt == "true", float(te))
        cache = os.path.join(d, n + ".cpsat")
        if os.path.exists(cache):
            v, p, tc = open(cache).read().split()
            val, cp_opt, tc = (None if v == "none" else int(v)), p == "true", float(tc)
        else:
            st, val, tc = solve(bufs, res[tags[0]][0], secs, workers)
            cp_opt = st == cp_model.OPTIMAL
            open(cache, "w").write(f"{'none' if val is None else val} {str(cp_opt).lower()} {tc}\n")
        line = f"{n} buffers={len(bufs)} cpsat={val} proved={cp_opt} {tc:.3f}s"
        for t in tags:
            peak, opt, te = res[t]
            rows[t].append((n, peak, opt, te, val, cp_opt, tc))
            line += f" | {t or 'exact'}={peak} proved={opt} {te:.3f}s"
        print(line, flush=True)
    for t in tags:
        report(t or "exact", rows[t])


main()
