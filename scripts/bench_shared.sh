#!/usr/bin/env bash
# Per-kernel shared bytes of --merge-shared-memory on a GPU kernel set (default ../shared/mlir/gpu):
# before (sum of the original workgroup buffers), after (memplan's default planner), the max-load lower
# bound, barriers added, the same lifetimes planned by TVM's algorithm (planner=tvm-layers) and with no
# reuse (planner=naive). Prints a Markdown table. Usage: scripts/bench_shared.sh [DIR] (MEMPLAN=binary).
set -euo pipefail
dir=${1:-../shared/mlir/gpu}
memplan=${MEMPLAN:-target/release/memplan}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
field() { sed -n "s/.*$1 \([0-9]*\) B.*/\1/p"; }
echo "| kernel | before B | after B | lower bound B | barriers added | tvm-layers B | tvm barriers | no reuse B |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for f in "$dir"/*.mlir; do
  case "$f" in *.merged.mlir|*.badmerge.mlir) continue ;; esac
  for planner in portfolio tvm-layers naive; do
    "$memplan" opt "$f" --merge-shared-memory="planner=$planner" --remarks -o "$out/o.mlir" \
      2> "$out/$planner.txt" || true
  done
  { grep -h "B before" "$out/portfolio.txt" || true; } | while read -r line; do
    k=$(sed -n 's/.*merge-shared-memory: @\([^:]*\):.*/\1/p' <<< "$line")
    pick() { grep -h "@$k: .*B before" "$out/$1.txt" | head -1; }
    before=$(sed -n 's/.* \([0-9]*\) B before.*/\1/p' <<< "$line")
    after=$(sed -n 's/.* \([0-9]*\) B after.*/\1/p' <<< "$line")
    lb=$(sed -n 's/.*lower bound \([0-9]*\) B.*/\1/p' <<< "$line")
    bar=$(sed -n 's/.* \([0-9]*\) barriers added.*/\1/p' <<< "$line")
    tvm=$(pick tvm-layers | sed -n 's/.* \([0-9]*\) B after.*/\1/p')
    tvmb=$(pick tvm-layers | sed -n 's/.* \([0-9]*\) barriers added.*/\1/p')
    naive=$(pick naive | sed -n 's/.* \([0-9]*\) B after.*/\1/p')
    echo "| $k | $before | $after | $lb | $bar | $tvm | $tvmb | $naive |"
  done
  if grep -q "error:" "$out/portfolio.txt"; then
    msg=$(grep -h "error:" "$out/portfolio.txt" | head -1 | sed 's/.*error: merge-shared-memory: //')
    echo "| $(basename "$f") | error: $msg | | | | | | |"
  fi
done
