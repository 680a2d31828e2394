#!/usr/bin/env bash
# Dependence-analysis time: `memplan opt F --test-memref-dependence-check -o /dev/null` vs
# `mlir-opt-22 F --test-memref-dependence-check -o /dev/null`, median wall time of RUNS runs each
# (interleaved, so load changes hit both tools alike), whole process (parse + analysis + remarks).
# Usage: scripts/bench_affine_deps.sh [RUNS] FILE...   (MEMPLAN = the binary, default target/release/memplan)
set -euo pipefail
RUNS=${1:-9}; shift
MEMPLAN=${MEMPLAN:-$(pwd)/target/release/memplan}
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(( (e - s) / 1000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "| program | remarks | memplan ms | mlir-opt-22 ms | ratio |"
echo "|---|---:|---:|---:|---:|"
for f in "$@"; do
  d=$(dirname "$f"); b=$(basename "$f")
  n=$(cd "$d" && "$MEMPLAN" opt "$b" --test-memref-dependence-check -o /dev/null 2>&1 | grep -c 'remark:' || true)
  : > /tmp/bench_affdeps_m; : > /tmp/bench_affdeps_o
  for _ in $(seq "$RUNS"); do
    (cd "$d" && ms "$MEMPLAN" opt "$b" --test-memref-dependence-check -o /dev/null) >> /tmp/bench_affdeps_m
    (cd "$d" && ms mlir-opt-22 "$b" --test-memref-dependence-check -o /dev/null) >> /tmp/bench_affdeps_o
  done
  m=$(median < /tmp/bench_affdeps_m); o=$(median < /tmp/bench_affdeps_o)
  awk -v f="${b%.mlir}" -v n="$n" -v m="$m" -v o="$o" 'BEGIN { printf "| %s | %d | %.1f | %.1f | %.2f |\n", f, n, m/1000, o/1000, m/o }'
done
