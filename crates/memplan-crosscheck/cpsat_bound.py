#!/usr/bin/env python3
"""CP-SAT's lower bound on a MiniMalloc CSV (issue 11, D and J): the model of
cpsat.py (one NoOverlap2D of rectangles live interval x [y, y + size), peak >=
every top and >= the max-load bound), minimising the peak below UPPER, and
printing every improvement of the objective bound and of the incumbent.

Usage: cpsat_bound.py FILE.csv UPPER [SECONDS=480] [WORKERS=2] [extra CP-SAT
parameters as name=value ..., a repeated one as name=a,b: e.g.
subsolvers=objective_lb_search,max_lp]
"""
import csv, sys, time
from ortools.sat.python import cp_model


def read(path):
    bufs = []
    with open(path) as f:
        for r in csv.DictReader(f):
            b = {"size": int(r["size"]), "live": [(int(r["lower"]), int(r["upper"]))]}
            if r.get("alignment"):
                b["alignment"] = int(r["alignment"])
            if r.get("offset"):
                b["offset"] = int(r["offset"])
            bufs.append(b)
    return bufs


def max_load(bufs):
    ev = []
    for b in bufs:
        for s, e in b["live"]:
            ev.append((s, 0, b["size"]))
            ev.append((e, -1, b["size"]))
    ev.sort()
    cur = best = 0
    for _, kind, size in ev:
        cur = cur - size if kind < 0 else cur + size
        best = max(best, cur)
    return best


class Log(cp_model.CpSolverSolutionCallback):
    def __init__(self, t0):
        super().__init__()
        self.t0 = t0

    def on_solution_callback(self):
        print(f"{time.perf_counter() - self.t0:8.1f}s solution {int(self.ObjectiveValue())} "
              f"bound {int(self.BestObjectiveBound())}", flush=True)


def main():
    path, ub = sys.argv[1], int(sys.argv[2])
    secs = float(sys.argv[3]) if len(sys.argv) > 3 else 480.0
    workers = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    bufs = read(path)
    lb = max_load(bufs)
    m = cp_model.CpModel()
    peak = m.NewIntVar(lb, ub, "peak")
    xs, ys = [], []
    for i, b in enumerate(bufs):
        a, size = b.get("alignment", 1), b["size"]
        if "offset" in b:
            y = m.NewConstant(b["offset"])
        else:
            y = m.NewIntVar(0, ub - size, f"y{i}")
            if a > 1:
                k = m.NewIntVar(0, (ub - size) // a, f"k{i}")
                m.Add(y == a * k)
        m.Add(y + size <= peak)
        yi = m.NewFixedSizeIntervalVar(y, size, f"yi{i}")
        for s, e in b["live"]:
            xs.append(m.NewFixedSizeIntervalVar(s, e - s, f"x{i}_{s}"))
            ys.append(yi)
    m.AddNoOverlap2D(xs, ys)
    m.Minimize(peak)
    s = cp_model.CpSolver()
    s.parameters.max_time_in_seconds = secs
    s.parameters.num_workers = workers
    for kv in sys.argv[5:]:
        k, v = kv.split("=", 1)
        cur = getattr(s.parameters, k)
        if isinstance(cur, (bool, int, float, str)):
            setattr(s.parameters, k, v == "true" if isinstance(cur, bool) else type(cur)(v))
        else:
            cur.extend(v.split(","))
    s.parameters.log_search_progress = True
    s.log_callback = lambda line: print(line, flush=True) if ("#Bound" in line or "#Done" in line or "#Model" in line) else None
    print(f"{path}: {len(bufs)} buffers, max-load {lb}, upper {ub}, {secs} s, {workers} workers", flush=True)
    t0 = time.perf_counter()
    st = s.Solve(m, Log(t0))
    el = time.perf_counter() - t0
    val = int(s.ObjectiveValue()) if st in (cp_model.OPTIMAL, cp_model.FEASIBLE) else None
    bnd = int(s.BestObjectiveBound())
    print(f"RESULT {path}: status {s.StatusName(st)} best {val} bound {bnd} (max-load {lb}, +{bnd - lb}) "
          f"{el:.1f} s, workers {workers}, {s.NumBranches()} branches, {s.NumConflicts()} conflicts")


main()
