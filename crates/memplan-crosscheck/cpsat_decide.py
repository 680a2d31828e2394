#!/usr/bin/env python3
"""CP-SAT on one decision problem: does everything of FILE.json fit below CAP?
Same model as cpsat.py (offsets `align * k`, one rectangle per live interval,
one NoOverlap2D), with CP-SAT's log on, then its status, wall time, branches
and conflicts. Extra `name=value` arguments set CP-SAT parameters, e.g.
`cp_model_presolve=false` or `cp_model_probing_level=0` (used to find out what
CP-SAT's root does that the pair search lacked, BENCHMARKS.md §8).

Usage: cpsat_decide.py FILE.json CAP [WORKERS=1] [name=value ...]
"""
import json, sys
from ortools.sat.python import cp_model


def main():
    bufs = json.load(open(sys.argv[1]))["buffers"]
    cap = int(sys.argv[2])
    workers = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    m = cp_model.CpModel()
    xs, ys = [], []
    for i, b in enumerate(bufs):
        a, size = b.get("alignment", 1), b["size"]
        if "offset" in b:
            y = m.NewConstant(b["offset"])
        else:
            k = m.NewIntVar(0, max(0, (cap - size) // a), f"k{i}")
            y = m.NewIntVar(0, max(0, cap - size), f"y{i}")
            m.Add(y == a * k)
        yi = m.NewFixedSizeIntervalVar(y, size, f"yi{i}")
        for s, e in b["live"]:
            xs.append(m.NewFixedSizeIntervalVar(s, e - s, f"x{i}_{s}"))
            ys.append(yi)
    m.AddNoOverlap2D(xs, ys)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.log_search_progress = True
    for kv in sys.argv[4:]:
        name, value = kv.split("=", 1)
        old = getattr(solver.parameters, name)
        setattr(solver.parameters, name, value == "true" if isinstance(old, bool) else type(old)(value))
    st = solver.Solve(m)
    print(solver.StatusName(st), solver.WallTime(), "s", solver.NumBranches(), "branches",
          solver.NumConflicts(), "conflicts")


main()
