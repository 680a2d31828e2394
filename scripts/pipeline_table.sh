#!/usr/bin/env bash
# pipeline_table.sh [OUT.md]: runs the real-pipeline suite (crates/memplan-cli/tests/real_pipelines.rs:
# tests/pipelines/*.mlir through every mlir-opt-22 pipeline, then memplan opt --merge-alloc) and
# writes its markdown table (allocs and static heap bytes of the kernel functions before and after,
# reduction, status, why allocs were kept) to OUT.md (default: pipeline_table.md), then prints it.
# Exit status: the test's (non-zero while any case fails or the savings target is missed).
# Env: MEMPLAN_PIPELINE_FILTER=program/pipeline (a subset; no savings check), MEMPLAN_PIPELINE_THREADS.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
need_tools mlir-opt-22 mlir-runner-22 || exit 2
OUT=$(realpath -m "${1:-pipeline_table.md}")
rm -f "$OUT"
cd "$REPO" || exit 2
MEMPLAN_REQUIRE_MLIR=1 MEMPLAN_PIPELINE_TABLE="$OUT" \
  cargo test --release -p memplan --test real_pipelines merge_alloc_on_real_pipelines 2>&1 \
  | grep -E '^[a-z_]+/[a-z_]+: FAIL|cases failed|savings target|test result'
rc=${PIPESTATUS[0]}
[ -f "$OUT" ] && cat "$OUT"
exit "$rc"
