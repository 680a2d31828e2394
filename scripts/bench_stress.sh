#!/usr/bin/env bash
# bench_stress.sh [N=100000] [RUNS=5]
#
# Issue-4 stress benchmark: parse + verify + print of one function with N
# memref.alloc / linalg.fill / memref.dealloc triples
# (/work/shared/mlir/corpus/stress/gen_stress.py), memplan vs mlir-opt-22 on the same
# files in the same run. Runs of the two tools are interleaved (A B A B ...) so that
# machine load hits both alike; the table shows medians over RUNS of user time, wall
# time and max RSS (GNU time), and memplan's speed-up on user time.
#
# Forms: custom -> custom, generic -> generic (--mlir-print-op-generic on both sides)
# and generic -> custom. The generic input is mlir-opt-22's own generic print of the
# custom file. A form memplan cannot read yet (missing custom syntax) is reported as
# such instead of timed.
#
# Environment: MEMPLAN (default: target/release/memplan, built if missing),
# MLIR_OPT (default mlir-opt-22), GEN (stress generator), KEEP=1 keeps the work dir.
set -euo pipefail
N=${1:-100000}
RUNS=${2:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MLIR_OPT=${MLIR_OPT:-mlir-opt-22}
GEN=${GEN:-$ROOT/../shared/mlir/corpus/stress/gen_stress.py}
if [ -z "${MEMPLAN:-}" ]; then
  MEMPLAN=$ROOT/target/release/memplan
  (cd "$ROOT" && cargo build --release -q -p memplan)
fi
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (/usr/bin/time)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/bench_stress.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$W"' EXIT

python3 "$GEN" "$N" "$W/custom.mlir" >/dev/null
"$MLIR_OPT" --mlir-print-op-generic "$W/custom.mlir" -o "$W/generic.mlir"

# one TOOL LABEL FLAGS... INPUT: runs once, appends "user wall rss_kb" to $W/LABEL.TOOL
one() {
  local tool=$1 label=$2; shift 2
  local bin=$MEMPLAN sub=(opt)
  if [ "$tool" = mlir-opt ]; then bin=$MLIR_OPT; sub=(); fi
  if ! /usr/bin/time -f '%U %e %M' -o "$W/t" "$bin" "${sub[@]}" "$@" -o "$W/out.$tool.mlir" 2>"$W/err"; then
    echo "FAILED"
    return 1
  fi
  cat "$W/t" >>"$W/$label.$tool"
}

median() { # column file
  awk -v c="$1" '{print $c}' "$2" | sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'
}

forms=("custom->custom|custom.mlir|" "generic->generic|generic.mlir|--mlir-print-op-generic" "generic->custom|generic.mlir|")
printf 'stress N=%s (%s lines custom, %s MB custom, %s MB generic), %s runs each, medians\n\n' \
  "$N" "$(wc -l <"$W/custom.mlir")" "$(($(stat -c %s "$W/custom.mlir") / 1000000))" \
  "$(($(stat -c %s "$W/generic.mlir") / 1000000))" "$RUNS"
printf '| form | tool | user s | wall s | max RSS MB | user speed-up |\n|---|---|---|---|---|---|\n'
for f in "${forms[@]}"; do
  IFS='|' read -r label input flag <<<"$f"
  label_id=${label//[^a-z]/_}
  ok=1
  if ! "$MEMPLAN" opt $flag "$W/$input" -o "$W/probe.mlir" 2>"$W/probe.err"; then
    ok=0
  fi
  for _ in $(seq "$RUNS"); do
    one mlir-opt "$label_id" $flag "$W/$input" >/dev/null || true
    if [ $ok = 1 ]; then one memplan "$label_id" $flag "$W/$input" >/dev/null || ok=0; fi
  done
  mu=$(median 1 "$W/$label_id.mlir-opt"); mw=$(median 2 "$W/$label_id.mlir-opt")
  mr=$(median 3 "$W/$label_id.mlir-opt")
  printf '| %s | mlir-opt-22 | %s | %s | %d | |\n' "$label" "$mu" "$mw" "$((${mr%.*} / 1024))"
  if [ $ok = 1 ]; then
    pu=$(median 1 "$W/$label_id.memplan"); pw=$(median 2 "$W/$label_id.memplan")
    pr=$(median 3 "$W/$label_id.memplan")
    sp=$(awk -v a="$mu" -v b="$pu" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "inf" }')
    printf '| %s | memplan | %s | %s | %d | %s |\n' "$label" "$pu" "$pw" "$((${pr%.*} / 1024))" "$sp"
  else
    printf '| %s | memplan | cannot read it yet: %s | | | |\n' "$label" \
      "$(grep -m1 'error' "$W/probe.err" | sed 's/.*error: //' | cut -c1-70)"
  fi
done
