#!/usr/bin/env python3
"""Soundness test of lp_bound.py (issue 11): on random small problems the
certified LP bound never exceeds `exact`'s proved optimum, and it rises above
max-load on some of them. `--mutate` raises every certified bound by one unit
(as if one more capacity were refuted): the test must then fail.

Usage: lp_bound_test.py MEMPLAN [COUNT=300] [SEED=1] [--mutate] [--cg]
(--cg: decide each LP by column and row generation instead of the whole LP)
Exit 0 when every check holds (and at least one bound is above max-load).
"""
import json, os, random, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lp_bound  # noqa: E402


def problem(r):
    """Few buffers over few time steps, sizes up to 12 units of 1 KiB, some
    aligned, now and then one fixed: small enough for `exact` to prove, with
    optima above max-load often enough to matter."""
    n = r.randint(4, 12)
    steps = r.randint(3, 10)
    g = 1024
    rows = []
    for _ in range(n):
        lo = r.randrange(steps)
        up = r.randrange(lo + 1, steps + 1)
        size = r.randint(1, 12) * g
        rows.append({"lower": lo, "upper": up, "size": size})
    if r.random() < 0.3:
        b = r.choice(rows)
        b["alignment"] = r.choice([2, 4]) * g
    if r.random() < 0.2:
        b = r.choice(rows)
        b.pop("alignment", None)
        b["offset"] = r.randint(0, 8) * g
    return rows


def write(path, rows):
    cols = ["lower", "upper", "size"]
    extra = [c for c in ("alignment", "offset") if any(c in b for b in rows)]
    with open(path, "w") as f:
        f.write(",".join(["id"] + cols + extra) + "\n")
        for i, b in enumerate(rows):
            f.write(",".join([str(i)] + [str(b[c]) for c in cols] + [str(b.get(c, "")) for c in extra]) + "\n")


def main():
    memplan = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 and not sys.argv[2].startswith("--") else 300
    seed = int(sys.argv[3]) if len(sys.argv) > 3 and not sys.argv[3].startswith("--") else 1
    mutate = "--mutate" in sys.argv
    method = "cg" if "--cg" in sys.argv else "lp"
    r = random.Random(seed)
    above = failures = certified = skipped = gapped = tight = 0
    with tempfile.TemporaryDirectory() as d:
        for k in range(count):
            rows = problem(r)
            path = os.path.join(d, f"p{k}.csv")
            write(path, rows)
            out = subprocess.run([memplan, "plan", path, "--algo", "exact", "--time-limit", "20", "--json"],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                skipped += 1  # e.g. fixed blocks that collide: not a problem
                continue
            s = json.loads(out.stdout)
            if not s["optimal"]:
                skipped += 1
                continue
            opt = s["peak"]
            p = lp_bound.Problem(lp_bound.read(path))
            hi = -(-opt // p.g) + 2
            bound, _ = lp_bound.lp_bound(p, hi, log=lambda _s: None, method=method)
            if bound > p.floor:
                certified += 1
            if mutate and bound > p.floor:
                bound += 1
            b = bound * p.g
            if opt > p.floor * p.g:
                gapped += 1
            if b > p.floor * p.g:
                above += 1
            if opt > p.floor * p.g and b == opt:
                tight += 1
            if b > opt:
                failures += 1
                print(f"FAIL problem {k}: LP bound {b} > exact's optimum {opt} (max-load {p.max_load * p.g})")
                write(f"/tmp/lp_bound_fail_{k}.csv", rows)
    print(f"{count} problems (seed {seed}, {method}{', mutated' if mutate else ''}): {skipped} skipped, "
          f"{gapped} with optimum above max-load, bound above max-load on {above} "
          f"({certified} certified), equal to an optimum above max-load on {tight}, "
          f"bound above the optimum on {failures}")
    ok = failures == 0 and above > 0
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
