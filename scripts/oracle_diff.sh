#!/usr/bin/env bash
# oracle_diff.sh A.mlir B.mlir: runs both programs' @main under the execution oracle
# (mlir-opt-22 --convert-bufferization-to-memref --test-lower-to-llvm | mlir-runner-22, heap
# addresses normalised) and compares what they print.
# Exit 0: identical output. 1: outputs differ (a diff is printed). 2: a program failed to lower or run.
# Env: ORACLE_TIMEOUT (seconds per step, default 20), MLIR_LIB_DIR (default /usr/lib/llvm-22/lib).
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: $0 A.mlir B.mlir" >&2; exit 2; }
for t in mlir-opt-22 mlir-runner-22; do
  command -v "$t" >/dev/null || { echo "error: $t not found (apt-get install -y mlir-22-tools)" >&2; exit 2; }
done
L=${MLIR_LIB_DIR:-/usr/lib/llvm-22/lib}
lib() { ls "$L/$1".so* 2>/dev/null | sort | tail -1; }
LIBS="$(lib libmlir_runner_utils),$(lib libmlir_c_runner_utils)"
T=${ORACLE_TIMEOUT:-20}
export LLVM_DISABLE_SYMBOLIZATION=1
W=$(mktemp -d "${TMPDIR:-/tmp}/oracle_diff.XXXXXX"); trap 'rm -rf "$W"' EXIT
run() {  # run FILE OUT
  timeout "$T" mlir-opt-22 "$1" --convert-bufferization-to-memref --test-lower-to-llvm 2>"$2.err" \
    | timeout -s KILL "$T" mlir-runner-22 -e main -entry-point-result=void -shared-libs="$LIBS" 2>>"$2.err" \
    | sed -E 's/base@ = 0x[0-9a-f]+/base@ = ADDR/' > "$2"
}
rc=0
for i in 1 2; do
  f=$([ $i = 1 ] && echo "$1" || echo "$2")
  if ! run "$f" "$W/$i.out"; then
    echo "FAIL: $f does not lower or run: $(grep -m1 -i -e error -e fault -e abort "$W/$i.out.err" | cut -c1-200)" >&2
    rc=2
  fi
done
[ $rc = 0 ] || exit 2
if cmp -s "$W/1.out" "$W/2.out"; then
  echo "SAME: $(wc -l < "$W/1.out") output lines"
  exit 0
fi
echo "DIFFERENT: $1 vs $2"
diff -u --label "$1" --label "$2" "$W/1.out" "$W/2.out" | head -n "${DIFF_LINES:-60}"
exit 1
