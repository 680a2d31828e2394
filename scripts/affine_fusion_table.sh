#!/bin/bash
# affine_fusion_table.sh [SET_DIR] — the BENCHMARKS.md table for --affine-loop-fusion (issue 14):
# per program of SET_DIR (default ../shared/mlir/affine): static bytes of the original, of
# mlir-opt-22 --affine-loop-fusion (EXPECTED.tsv), of memplan --affine-loop-fusion, and of
# memplan --affine-loop-fusion --merge-alloc; then the CPU time (user + sys) of memplan's fusion
# and of mlir-opt-22's on the same file (best of 3, ms). Bytes use the set's tools/static_bytes.py
# (every memref.alloc/alloca of the whole file, @main included). Needs target/release/memplan.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SET=${1:-$ROOT/../shared/mlir/affine}
SET=$(cd "$SET" && pwd)
MEMPLAN=${MEMPLAN:-$ROOT/target/release/memplan}
BYTES="$SET/tools/static_bytes.py"
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
col() { grep -v '^#' "$SET/EXPECTED.tsv" | head -1 | tr '\t' '\n' | grep -nx "$1" | cut -d: -f1; }
CF=$(col file); CO=$(col orig_static_bytes); CU=$(col upstream_fused_bytes); CD=$(col dealloc_free_bytes)
bytes() { python3 "$BYTES" "$1" | cut -d' ' -f1; }
ms() {  # ms CMD... -> best CPU time (user + sys) of 3 runs in ms (the machine is shared: wall
        # time mostly measures the other jobs; /usr/bin/time has 10 ms resolution)
  local best=999999 d
  for _ in 1 2 3; do
    /usr/bin/time -o "$W/time" -f '%U %S' "$@" > /dev/null 2>&1 || true
    d=$(awk '{printf "%d", ($1 + $2) * 1000}' "$W/time")
    [ "$d" -lt "$best" ] && best=$d
  done
  echo "$best"
}
echo "| program | original B | upstream fusion B | dealloc-free target B | memplan fusion B | memplan fusion + merge-alloc B | memplan fusion CPU ms | mlir-opt-22 fusion CPU ms |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
so=0; su=0; sf=0; sm=0
while IFS= read -r row; do
  f=$(echo "$row" | cut -f"$CF"); o=$(echo "$row" | cut -f"$CO"); u=$(echo "$row" | cut -f"$CU"); d=$(echo "$row" | cut -f"$CD")
  ( cd "$SET" && "$MEMPLAN" opt "$f" --affine-loop-fusion -o "$W/f.mlir" )
  ( cd "$SET" && "$MEMPLAN" opt "$f" --affine-loop-fusion --merge-alloc -o "$W/fm.mlir" )
  fb=$(bytes "$W/f.mlir"); mb=$(bytes "$W/fm.mlir")
  tm=$(cd "$SET" && ms "$MEMPLAN" opt "$f" --affine-loop-fusion -o /dev/null)
  tu=$(cd "$SET" && ms mlir-opt-22 "$f" --affine-loop-fusion -o /dev/null)
  echo "| ${f%.mlir} | $o | $u | $d | $fb | $mb | $tm | $tu |"
  so=$((so + o)); su=$((su + u)); sf=$((sf + fb)); sm=$((sm + mb))
done < <(grep -v '^#' "$SET/EXPECTED.tsv" | tail -n +2 | grep -v '^[[:space:]]*$')
echo "| **total** | $so | $su | | $sf | $sm | | |"
