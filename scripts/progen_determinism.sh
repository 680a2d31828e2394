#!/usr/bin/env bash
# progen_determinism.sh [N] [FIRST] [DIR]: the generator's determinism census. Writes the random
# programs of seeds FIRST..FIRST+N (default 0..100) with the `dump_programs` test tool (or takes
# DIR/seedS.mlir as they are when DIR is given), runs each
# original under the execution oracle three times (MALLOC_PERTURB_ unset, =165, =90: glibc fills
# fresh heap memory with 0x5a / 0xa5) and counts the programs whose printed output is not the
# same in all runs (those read memory nobody wrote and cannot serve as an oracle).
# Exit 0: all deterministic. 1: some differ (listed). 2: a program failed to run.
# Env: KEEP_DIR (write programs/outputs there and keep them), ORACLE_TIMEOUT, MLIR_LIB_DIR.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
need_tools mlir-opt-22 mlir-runner-22 || exit 2
N=${1:-100}; FIRST=${2:-0}; SRC=${3:-}
W=${KEEP_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/progen_det.XXXXXX")}
mkdir -p "$W"
[ -n "${KEEP_DIR:-}" ] || trap 'rm -rf "$W"' EXIT
if [ -n "$SRC" ]; then
  for s in $(seq "$FIRST" $((FIRST + N - 1))); do cp "$SRC/seed$s.mlir" "$W/" || exit 2; done
else (cd "$REPO" && MEMPLAN_PROGEN_DIR="$W" MEMPLAN_RANDOM_PROGRAMS="$N" MEMPLAN_RANDOM_SEED="$FIRST" \
  cargo test -q --release -p memplan --test random_programs -- --ignored --exact dump_programs) >&2 \
  || { echo "error: dump_programs failed" >&2; exit 2; }
fi
L=${MLIR_LIB_DIR:-/usr/lib/llvm-22/lib}
lib() { ls "$L/$1".so* 2>/dev/null | sort | tail -1; }
LIBS="$(lib libmlir_runner_utils),$(lib libmlir_c_runner_utils)"
T=${ORACLE_TIMEOUT:-20}
export LLVM_DISABLE_SYMBOLIZATION=1
same=0; differ=(); failed=()
for s in $(seq "$FIRST" $((FIRST + N - 1))); do
  f="$W/seed$s.mlir"
  if ! timeout "$T" mlir-opt-22 "$f" --convert-bufferization-to-memref --test-lower-to-llvm -o "$W/seed$s.ll.mlir" 2>"$W/seed$s.err"; then
    failed+=("$s"); continue
  fi
  ok=1
  for p in 0 165 90; do
    if ! MALLOC_PERTURB_=$p timeout -s KILL "$T" mlir-runner-22 "$W/seed$s.ll.mlir" -e main -entry-point-result=void \
         -shared-libs="$LIBS" 2>>"$W/seed$s.err" | sed -E 's/base@ = 0x[0-9a-f]+/base@ = ADDR/' >"$W/seed$s.p$p.out"; then
      ok=0
    fi
  done
  if [ $ok = 0 ]; then failed+=("$s")
  elif cmp -s "$W/seed$s.p0.out" "$W/seed$s.p165.out" && cmp -s "$W/seed$s.p0.out" "$W/seed$s.p90.out"; then
    same=$((same + 1))
  else differ+=("$s"); fi
done
echo "deterministic: $same of $N; differ: ${#differ[@]} [${differ[*]:-}]; failed to run: ${#failed[@]} [${failed[*]:-}]"
[ ${#failed[@]} = 0 ] || exit 2
[ ${#differ[@]} = 0 ] || exit 1
