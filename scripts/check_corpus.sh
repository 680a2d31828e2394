#!/usr/bin/env bash
# check_corpus.sh [CASES_DIR]: builds memplan (release) once and runs the parser/printer
# conformance check shared/mlir/corpus/check_roundtrip.sh (default CASES_DIR: the whole corpus
# cases/ and invalid/ directories). Exit 0 only if every case passes.
# Env: MEMPLAN, SHARED_DIR, and the checker's own MLIR_OPT, TIMEOUT, JOBS, INCLUDE_FOREIGN, STRICT_POS.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_tools mlir-opt-22
build_memplan
CORPUS="$SHARED/mlir/corpus"
[ -f "$CORPUS/check_roundtrip.sh" ] || { echo "error: $CORPUS/check_roundtrip.sh not found (set SHARED_DIR)" >&2; exit 2; }
echo "MEMPLAN=$MEMPLAN  corpus: ${1:-$CORPUS}" >&2
export JOBS=${JOBS:-2}
bash "$CORPUS/check_roundtrip.sh" "${1:-$CORPUS}"
