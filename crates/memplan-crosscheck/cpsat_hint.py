#!/usr/bin/env python3
"""Reference runs for the open problems D and J (issue 11): cpsat.py's model
(one NoOverlap2D over time x bytes, peak = max top) on a MiniMalloc CSV,
hinted with a plan memplan wrote (`memplan plan FILE -o PLAN.csv`), optionally
with the peak bounded above by UB. Prints every improving solution with its time
and writes CP-SAT's best plan (same CSV plus `offset`) to OUT.

CP-SAT's plan is only a reference: it shows what exists, it is never shipped
as memplan's.

Usage: cpsat_hint.py PROBLEM.csv HINT.csv OUT.csv [SECONDS=480] [WORKERS=2] [UB]
"""
import csv, sys, time
from ortools.sat.python import cp_model


def read(path):
    with open(path) as f:
        rows = [r for r in csv.DictReader(l for l in f if not l.startswith("#"))]
    return rows


def main():
    prob, hint, out = sys.argv[1:4]
    secs = float(sys.argv[4]) if len(sys.argv) > 4 else 480.0
    workers = int(sys.argv[5]) if len(sys.argv) > 5 else 2
    rows = read(prob)
    hoff = {r["id"]: int(r["offset"]) for r in read(hint)}
    bufs = [(r["id"], int(r["lower"]), int(r["upper"]), int(r["size"])) for r in rows]
    hpeak = max(hoff[i] + s for i, _, _, s in bufs)
    ub = int(sys.argv[6]) if len(sys.argv) > 6 else hpeak
    ev = sorted([(l, 1, s) for _, l, _, s in bufs] + [(u, 0, s) for _, _, u, s in bufs])
    cur = lb = 0
    for _, st, s in ev:
        cur = cur + s if st else cur - s
        lb = max(lb, cur)
    m = cp_model.CpModel()
    peak = m.NewIntVar(lb, ub, "peak")
    xs, ys, yv = [], [], []
    for k, (i, l, u, s) in enumerate(bufs):
        y = m.NewIntVar(0, ub - s, f"y{k}")
        m.Add(y + s <= peak)
        xs.append(m.NewFixedSizeIntervalVar(l, u - l, f"x{k}"))
        ys.append(m.NewFixedSizeIntervalVar(y, s, f"yi{k}"))
        yv.append(y)
        m.AddHint(y, hoff[i])
    m.AddHint(peak, hpeak)
    m.AddNoOverlap2D(xs, ys)
    m.Minimize(peak)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = secs
    solver.parameters.num_workers = workers
    t0 = time.perf_counter()

    class Cb(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self):
            print(f"{time.perf_counter() - t0:8.2f}s peak {int(self.ObjectiveValue())} "
                  f"bound {int(self.BestObjectiveBound())}", flush=True)

    print(f"buffers {len(bufs)} max-load {lb} hint {hpeak} ub {ub}", flush=True)
    st = solver.Solve(m, Cb())
    print(f"status {solver.StatusName(st)} {time.perf_counter() - t0:.1f}s "
          f"bound {int(solver.BestObjectiveBound())}", flush=True)
    if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        with open(out, "w") as f:
            w = csv.writer(f)
            w.writerow(["id", "lower", "upper", "size", "offset"])
            for k, (i, l, u, s) in enumerate(bufs):
                w.writerow([i, l, u, s, solver.Value(yv[k])])
        print(f"best {int(solver.ObjectiveValue())}", flush=True)


main()
