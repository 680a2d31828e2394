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
# 1 otherwise, and this script stops).
set -euo pipefail
LIMIT=${1:-60}
source "$(dirname "$0")/lib.sh"
build_memplan
export MEMPLAN LIMIT SHARED
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

def run(graph, sched, *extra):
    out = subprocess.run([memplan, "model", graph, "--schedule", sched, "--time-limit", limit, "--json", *extra],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"memplan model {graph} --schedule {sched} failed: {out.stderr}")
    return json.loads(out.stdout)

heur = ["given", "lpmf", "bfs", "dfs", "list", "xla-dfs", "postorder", "best"]
print("| graph | nodes | buffers | README given / ONNX order | " + " | ".join(
    ["given", "lpmf", "bfs", "dfs", "XLA list", "XLA dfs", "XLA post-order", "best"]) +
      " | README best heuristic | exact peak | proven bound | gap | proved | exact s | exact / README best | no reuse across branches | in-place elementwise: exact peak / bound |")
print("|---|---:|---:|---:|" + "---:|" * len(heur) + "---:|---:|---:|---:|---|---:|---:|---:|---:|")
for d in dirs:
    gdir = os.path.join(d, "graphs") if d.endswith("onnx") else d
    for f in sorted(os.listdir(gdir)):
        if not f.endswith(".json"):
            continue
        g = os.path.join(gdir, f)
        name = f[:-5]
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
              f"{'yes' if e['proved'] else 'no'} | {e['seconds']:.3f} | {ratio} | {cost} | {ip_cell} |")
PY
