#!/usr/bin/env bash
# scoreboard.sh: regenerates the planner tables of BENCHMARKS.md (prints markdown to stdout).
#   1. every algorithm except exact on every shared benchmark (median of 3 runs);
#   2. exact (10 s limit) and the portfolio on the MiniMalloc suite and the large traces.
# Every plan is checked by memplan's independent checker inside `memplan bench`.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
build_memplan
B="$SHARED/benchmarks"
echo "### All planners (median of 3 runs)"
echo
"$MEMPLAN" bench "$B/models" "$B/dsa" --repeat 3
echo
echo "### Exact planner, 10 s limit (median of 3 runs)"
echo
"$MEMPLAN" bench "$B/dsa/minimalloc" "$B/dsa/idealloc" "$B/models" --algo portfolio,exact --time-limit 10 --repeat 3
