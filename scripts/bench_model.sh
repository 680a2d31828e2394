#!/usr/bin/env bash
# bench_model.sh [TIME_LIMIT=60]
#
# Issue-15 table: `memplan model` on every graph of ../shared/benchmarks/onnx/graphs and
# ../shared/benchmarks/graphs. For each graph: the order peak (max-load) of every scheduler
# (given, Inductor lpmf/bfs/dfs, XLA list/dfs/post-order, best) with its portfolio placement,
# then `exact` (--time-limit TIME_LIMIT): its peak, the proven lower bound over all orders
# and the gap, against the figures of the two READMEs (parsed from their tables), and the
# peak of `exact --no-reuse-across-branches` with its cost over the normal placement, and
# `exact --inplace elementwise` (peak / proven bound, change against exact without). Every
# result was re-checked by memplan's independent schedule+plan checker (memplan model exits
# 1 otherwise, and this script stops). The ONNX rows are read from the .onnx models (memplan's
# own reader and shape inference), the training rows from their graph JSON; "wall s" is the
# whole `exact` run (reading the file included). A second table models the parameter gradients
# of the training graphs (tests/graphs/*.gradients.json, scripts/training_gradients.py): held
# to the end for one optimizer step, or updated in place per parameter.
set -euo pipefail
LIMIT=${1:-60}
source "$(dirname "$0")/lib.sh"
build_memplan
export MEMPLAN LIMIT SHARED REPO
python3 - <<'PY'
import json, os, subprocess, sys

shared = os.environ["SHARED"]
memplan = os.environ["MEMPLAN"]
limit = os.environ["LIMIT"]
dirs = [os.path.join(shared, "benchmarks/onnx"), os.path.join(shared, "benchmarks/graphs")]

# README figures: model -> {column: value}
readme = {}
for d in dirs:
    header = None
    for line in open(os.path.join(d, "README.md")):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| model") or line.startswith("| graph"):
            header = cells
        elif header and line.startswith("|") and not line.startswith("|---") and len(cells) == len(header):
            readme[cells[0]] = dict(zip(header, cells))
        elif not line.startswith("|"):
            header = None

import time
def run(graph, sched, *extra):
    t0 = time.time()
    out = subprocess.run([memplan, "model", graph, "--schedule", sched, "--time-limit", limit, "--json", *extra],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"memplan model {graph} --schedule {sched} failed: {out.stderr}")
    r = json.loads(out.stdout)
    r["wall"] = time.time() - t0
    return r

heur = ["given", "lpmf", "bfs", "dfs", "list", "xla-dfs", "postorder", "best"]
print("| graph | nodes | buffers | README given / ONNX order | " + " | ".join(
    ["given", "lpmf", "bfs", "dfs", "XLA list", "XLA dfs", "XLA post-order", "best"]) +
      " | README best heuristic | exact peak | proven bound | gap | proved | exact s | wall s | exact / README best | no reuse across branches | in-place elementwise: exact peak / bound |")
print("|---|---:|---:|---:|" + "---:|" * len(heur) + "---:|---:|---:|---:|---|---:|---:|---:|---:|---:|")
for d in dirs:
    gdir = os.path.join(d, "graphs") if d.endswith("onnx") else d
    for f in sorted(os.listdir(gdir)):
        if not f.endswith(".json"):
            continue
        name = f[:-5]
        g = os.path.join(gdir, f)
        if d.endswith("onnx"):
            g = os.path.join(d, name + ".onnx")
        cells = []
        for s in heur:
            r = run(g, s)
            c = str(r["schedule_peak"])
            if r["peak"] != r["schedule_peak"]:
                c += f" (placed {r['peak']})"
            cells.append(c)
        e = run(g, "exact")
        nb = run(g, "exact", "--no-reuse-across-branches")
        ip = run(g, "exact", "--inplace", "elementwise")
        ip_cell = f"{ip['peak']} / {ip['schedule_lower_bound']}{'' if ip['proved'] else ' (not proved)'} ({100.0 * (ip['peak'] / e['peak'] - 1):+.1f}%)"
        cost = f"{nb['peak']} (+{100.0 * (nb['peak'] / nb['peak_with_reuse_across_branches'] - 1):.2f}%)"
        fig = readme.get(name, {})
        given_fig = fig.get("ONNX order") or fig.get("given order") or "?"
        best_fig = fig.get("best heuristic", "?")
        gap = 100.0 * (e["peak"] / e["schedule_lower_bound"] - 1) if e["schedule_lower_bound"] else 0.0
        placed = "" if e["peak"] == e["schedule_peak"] else f" (order {e['schedule_peak']})"
        ratio = f"{e['peak'] / int(best_fig):.4f}" if best_fig.isdigit() else "?"
        print(f"| {name} | {e['nodes']} | {e['buffers']} | {given_fig} | " + " | ".join(cells) +
              f" | {best_fig} | {e['peak']}{placed} | {e['schedule_lower_bound']} | {gap:.2f}% | "
              f"{'yes' if e['proved'] else 'no'} | {e['seconds']:.3f} | {e['wall']:.2f} | {ratio} | {cost} | {ip_cell} |")

# Training graphs with their parameter gradients.
repo = os.path.join(os.path.dirname(memplan), "../..")
print()
print("| graph | gradients (bytes) | without gradients: exact | optimizer step: given | best | exact (bound, gap) | per-parameter updates: given | best | exact (bound, gap) | per-parameter / step (exact) |")
print("|---|---:|---:|---:|---:|---|---:|---:|---|---:|")
for name in ["train_resnet18_b8", "train_bert_b4"]:
    g = os.path.join(dirs[1], name + ".json")
    gf = os.path.join(os.environ.get("REPO", "."), "tests/graphs", name + ".gradients.json")
    total = json.load(open(gf))["total_bytes"]
    base = run(g, "exact")
    cells = []
    ex = {}
    for mode in ["step", "per-parameter"]:
        extra = ["--gradients", gf, "--optimizer", mode]
        gv, be, e = run(g, "given", *extra), run(g, "best", *extra), run(g, "exact", *extra)
        gap = 100.0 * (e["peak"] / e["schedule_lower_bound"] - 1) if e["schedule_lower_bound"] else 0.0
        cells += [str(gv["peak"]), str(be["peak"]),
                  f"{e['peak']} ({e['schedule_lower_bound']}, {gap:.2f}%{', proved' if e['proved'] else ''}, {e['seconds']:.1f} s)"]
        ex[mode] = e["peak"]
    print(f"| {name} | {total} | {base['peak']} | " + " | ".join(cells) +
          f" | {ex['per-parameter'] / ex['step']:.3f} |")
PY
