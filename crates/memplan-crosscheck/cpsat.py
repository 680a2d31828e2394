#!/usr/bin/env python3
"""CP-SAT side of the mid-size comparison (issue 11): solve every NNNN.json that
`memplan-crosscheck ... DUMP_DIR` wrote, minimising the peak, and compare with
exact's result in NNNN.exact (`peak optimal seconds`).

Model: per buffer an offset y = align * k (fixed if the buffer is), one
rectangle per live interval (x = the interval, y = [y, y + size)), all in one
NoOverlap2D; the peak is at least every y + size and at least the max-load bound.

Usage: cpsat.py DUMP_DIR [SECONDS=60] [WORKERS=2]
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


def main():
    d = sys.argv[1]
    secs = float(sys.argv[2]) if len(sys.argv) > 2 else 60.0
    workers = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    names = sorted(f[:-5] for f in os.listdir(d) if f.endswith(".json"))
    both = cp_only = ex_only = neither = mismatch = faster = 0
    ratios = []
    for n in names:
        bufs = json.load(open(os.path.join(d, n + ".json")))["buffers"]
        peak, opt, te = open(os.path.join(d, n + ".exact")).read().split()
        peak, opt, te = int(peak), opt == "true", float(te)
        st, val, tc = solve(bufs, peak, secs, workers)
        cp_opt = st == cp_model.OPTIMAL
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
        print(f"{n} buffers={len(bufs)} exact={peak} proved={opt} {te:.3f}s cpsat={val} proved={cp_opt} {tc:.3f}s", flush=True)
    import statistics
    gm = statistics.geometric_mean(ratios) if ratios else float("nan")
    print(f"instances {len(names)}: both proved {both} (optimum differs on {mismatch}); CP-SAT only {cp_only}; exact only {ex_only}; neither {neither}; "
          f"exact faster on {faster} of {both}; time ratio exact/CP-SAT geomean {gm:.4f}, max {max(ratios) if ratios else float('nan'):.3f}")


main()
