#!/usr/bin/env bash
# check_examples.sh: builds memplan (release) once and runs the merge-alloc execution checker
# shared/mlir/examples/check_merge_alloc.sh over the example programs. Exit 0 only if all pass.
# Env: MEMPLAN (use this binary instead of building), SHARED_DIR, and the checker's own
# ARENA_SLACK, MEMPLAN_TIMEOUT, ORACLE_TIMEOUT, KEEP_WORK=1.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_tools mlir-opt-22 mlir-runner-22
build_memplan
EX="$SHARED/mlir/examples"
[ -f "$EX/check_merge_alloc.sh" ] || { echo "error: $EX/check_merge_alloc.sh not found (set SHARED_DIR)" >&2; exit 2; }
echo "MEMPLAN=$MEMPLAN  examples: $EX" >&2
bash "$EX/check_merge_alloc.sh" "$EX"
