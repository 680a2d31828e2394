#!/usr/bin/env bash
# lifetime_pipeline.sh PROG.mlir [MAX_ALLOC]: the lifetime-marker pipeline of README.md, step by
# step, on a tensor-level program with a @main (e.g. tests/pipelines/branches.mlir):
#   1. bufferize with mlir-opt-22; buffers up to MAX_ALLOC bytes (default 4096) become memref.alloca
#   2. memplan: memref lifelines, merge-alloc over the heap buffers left (the verified lifelines
#      are its lifetime source), then the lifelines are checked and stripped
#   3. lower to the LLVM dialect with mlir-opt-22
#   4. memplan --llvm-lifetime-markers, mlir-translate-22, llc-22 -O2
# and checks that mlir-runner-22 prints the same for the bufferized program and the final LLVM
# dialect (default and -O3). Prints each function's llc-22 frame with and without markers.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_tools mlir-opt-22 mlir-translate-22 mlir-runner-22 llc-22 llvm-readobj-22
build_memplan
P=$(realpath "$1"); MAX=${2:-4096}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
cd "$W"
# 1.
mlir-opt-22 "$P" "--one-shot-bufferize=bufferize-function-boundaries allow-return-allocs-from-loops" \
  "--promote-buffers-to-stack=max-alloc-size-in-bytes=$MAX" --buffer-deallocation-pipeline \
  --convert-linalg-to-loops -o b.mlir
# 2.
"$MEMPLAN" opt b.mlir --insert-lifetime-markers --merge-alloc -o m.mlir
"$MEMPLAN" opt m.mlir --verify-lifetime-markers --strip-lifetime-markers -o s.mlir
# 3.
mlir-opt-22 s.mlir --convert-bufferization-to-memref --convert-linalg-to-loops \
  --expand-strided-metadata --lower-affine --convert-scf-to-cf --convert-math-to-llvm \
  --finalize-memref-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --convert-cf-to-llvm \
  --convert-func-to-llvm --reconcile-unrealized-casts -o l.mlir
# 4.
"$MEMPLAN" opt l.mlir --llvm-lifetime-markers -o lm.mlir
mlir-translate-22 --mlir-to-llvmir lm.mlir -o p.ll
llc-22 -O2 -stack-size-section -filetype=obj p.ll -o p.o
# Checks.
lib() { ls "${MLIR_LIB_DIR:-/usr/lib/llvm-22/lib}"/"$1".so* | head -1; }
LIBS="$(lib libmlir_runner_utils),$(lib libmlir_c_runner_utils)"
run() { mlir-runner-22 "$@" -e main -entry-point-result=void -shared-libs="$LIBS" | sed -E 's/0x[0-9a-f]+/ADDR/g'; }
mlir-opt-22 b.mlir --convert-bufferization-to-memref --test-lower-to-llvm -o ref.mlir
ref=$(run ref.mlir)
for o in "" -O3; do
  [ "$(run lm.mlir $o)" == "$ref" ] || { echo "FAIL: values differ ($o)" >&2; exit 1; }
done
mlir-translate-22 --mlir-to-llvmir l.mlir -o q.ll
llc-22 -O2 -stack-size-section -filetype=obj q.ll -o q.o
sizes() { llvm-readobj-22 --stack-sizes "$1" 2>/dev/null | awk '/Functions:/{gsub(/[\[\]]/,"",$2); f=$2} /^ *Size:/{print f, $2}'; }
echo "values: same as the bufferized program (mlir-runner-22, default and -O3)"
echo "llc-22 -O2 frames in bytes (function, without markers, with; dyn = no static frame):"
join -a1 -a2 -e dyn -o 0,1.2,2.2 <(sizes q.o | sort) <(sizes p.o | sort) | grep -v '^?' || true
