#!/usr/bin/env bash
# stack_frames.sh [OUT.md]: stack frames of the real-pipeline suite with buffers promoted to the
# stack (BENCHMARKS.md §9). Each tests/pipelines/*.mlir goes through mlir-opt-22
#   --one-shot-bufferize=... --promote-buffers-to-stack=max-alloc-size-in-bytes=$MAX_ALLOC
#   --buffer-deallocation-pipeline --convert-linalg-to-loops
# then is lowered to the LLVM dialect (LOWER below) and run through
#   memplan opt --llvm-lifetime-markers
# For every function with a static frame, llc-22 -O2 -stack-size-section + llvm-readobj-22 give
# the frame (locals, spills, callee-saved pushes) of:
#   without : the lowering as mlir-opt-22 prints it (functions with allocas outside the entry
#             block have no static frame: counted as "dyn");
#   hoisted : memplan's output with the markers deleted (static allocas moved to the entry
#             block by the pass, no markers: what StackColoring can do without lifetimes);
#   marked  : memplan's output;
#   slots   : the sum of the function's static llvm.alloca sizes (lifetime_struct.py slots).
# Per program the sums over functions that have a static frame in hoisted and marked, and
# whether mlir-runner-22 (default and -O3) prints the same for the lowering and memplan's output.
# Exit status 1 when memplan fails or a program prints other values.
# Env: MAX_ALLOC (default 1048576), MEMPLAN (binary; built if unset), PROGRAMS (space list).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
need_tools mlir-opt-22 mlir-translate-22 mlir-runner-22 llc-22 llvm-readobj-22 python3 || exit 2
lib() { ls "${MLIR_LIB_DIR:-/usr/lib/llvm-22/lib}"/"$1".so* 2>/dev/null | head -1; }
LIBS="$(lib libmlir_runner_utils),$(lib libmlir_c_runner_utils)"
# values FILE [-O3]: what its @main prints, heap addresses normalised
values() {
  timeout 300 mlir-runner-22 "$1" -e main -entry-point-result=void -shared-libs="$LIBS" ${2:-} 2>&1 |
    sed -E 's/0x[0-9a-f]+/ADDR/g'
}
build_memplan || exit 2
OUT=$(realpath -m "${1:-stack_frames.md}")
MAX_ALLOC=${MAX_ALLOC:-1048576}
STRUCT="$SHARED/mlir/lifetimes/lifetime_struct.py"
[ -f "$STRUCT" ] || { echo "error: $STRUCT not found" >&2; exit 2; }
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
LOWER=(--convert-bufferization-to-memref --convert-linalg-to-loops --expand-strided-metadata
  --lower-affine --convert-scf-to-cf --convert-math-to-llvm --finalize-memref-to-llvm
  --convert-arith-to-llvm --convert-index-to-llvm --convert-cf-to-llvm --convert-func-to-llvm
  --reconcile-unrealized-casts)

# frames FILE.mlir -> "function bytes" lines
frames() {
  mlir-translate-22 --mlir-to-llvmir "$1" -o "$1.ll" 2>>"$W/err" || return 1
  llc-22 -O2 -stack-size-section -filetype=obj "$1.ll" -o "$1.o" 2>>"$W/err" || return 1
  llvm-readobj-22 --stack-sizes "$1.o" 2>/dev/null |
    awk 'function num(x,  i, c, v) { if (x !~ /^0x/) return x + 0; v = 0
           for (i = 3; i <= length(x); i++) { c = index("0123456789abcdef", tolower(substr(x, i, 1))) - 1; v = v * 16 + c }
           return v }
         /Functions:/{gsub(/[\[\]]/,"",$2); f=$2} /^ *Size:/{ if (f != "?") print f, num($2) }'
}

{
echo "| program | functions | slots B | frame without | frame hoisted, no markers | frame with memplan's markers | with / hoisted | values |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
} >"$OUT"
tot_s=0; tot_h=0; tot_m=0; tot_w=0; ndyn=0; bad=0
cd "$REPO/tests/pipelines" || exit 2
for f in ${PROGRAMS:-*.mlir}; do
  n=${f%.mlir}
  if ! mlir-opt-22 "$f" "--one-shot-bufferize=bufferize-function-boundaries allow-return-allocs-from-loops" \
      "--promote-buffers-to-stack=max-alloc-size-in-bytes=$MAX_ALLOC" --buffer-deallocation-pipeline \
      --convert-linalg-to-loops -o "$W/$n.b.mlir" 2>>"$W/err" ||
     ! mlir-opt-22 "$W/$n.b.mlir" "${LOWER[@]}" -o "$W/$n.l.mlir" 2>>"$W/err"; then
    echo "| $n | mlir-opt-22 fails | | | | | | |" >>"$OUT"; continue
  fi
  if ! "$MEMPLAN" opt "$W/$n.l.mlir" --llvm-lifetime-markers -o "$W/$n.m.mlir" 2>>"$W/err"; then
    echo "| $n | memplan fails | | | | | | |" >>"$OUT"; bad=1; continue
  fi
  grep -v 'llvm.intr.lifetime' "$W/$n.m.mlir" >"$W/$n.h.mlir"
  frames "$W/$n.l.mlir" >"$W/$n.l.fr" || { echo "| $n | llc-22 fails | | | | | |" >>"$OUT"; continue; }
  frames "$W/$n.h.mlir" >"$W/$n.h.fr" || { echo "| $n | llc-22 fails (hoisted) | | | | | |" >>"$OUT"; continue; }
  frames "$W/$n.m.mlir" >"$W/$n.m.fr" || { echo "| $n | llc-22 fails (marked) | | | | | |" >>"$OUT"; continue; }
  mlir-opt-22 "$W/$n.h.mlir" --mlir-print-op-generic -o "$W/$n.h.gen" 2>>"$W/err"
  python3 "$STRUCT" slots "$W/$n.h.gen" >"$W/$n.slots" 2>>"$W/err"
  # Join per function: slots, without (or dyn), hoisted, marked.
  row=$(awk -v L="$W/$n.l.fr" -v H="$W/$n.h.fr" -v M="$W/$n.m.fr" '
    FILENAME==ARGV[1] { if ($3 ~ /^[0-9]+$/) s[$1]+=$3; next }
    END {
      while ((getline l < L) > 0) { split(l, a, " "); w[a[1]]=a[2] }
      while ((getline l < H) > 0) { split(l, a, " "); h[a[1]]=a[2] }
      while ((getline l < M) > 0) { split(l, a, " "); m[a[1]]=a[2] }
      for (fn in h) if (fn in m) {
        nf++; S+=s[fn]; Hs+=h[fn]; Ms+=m[fn]
        if (fn in w) W+=w[fn]; else { W+=h[fn]; dyn++ }
      }
      printf "%d %d %d %d %d %d\n", nf, S, W, Hs, Ms, dyn
    }' "$W/$n.slots")
  read -r nf s w h m dyn <<<"$row"
  ratio=$(awk -v a="$m" -v b="$h" 'BEGIN{ if (b>0) printf "%.2f", a/b; else print "-" }')
  wtxt=$w; [ "$dyn" -gt 0 ] && wtxt="$w ($dyn dyn)"
  vals=same
  for o in "" -O3; do
    [ "$(values "$W/$n.l.mlir" $o)" == "$(values "$W/$n.m.mlir" $o)" ] || vals="DIFFER${o:+ ($o)}"
  done
  [ "$vals" == same ] || bad=1
  echo "| $n | $nf | $s | $wtxt | $h | $m | $ratio | $vals |" >>"$OUT"
  tot_s=$((tot_s+s)); tot_w=$((tot_w+w)); tot_h=$((tot_h+h)); tot_m=$((tot_m+m)); ndyn=$((ndyn+dyn))
done
echo "| **total** | | $tot_s | $tot_w ($ndyn dyn) | $tot_h | $tot_m | $(awk -v a=$tot_m -v b=$tot_h 'BEGIN{ if (b>0) printf "%.2f", a/b }') | |" >>"$OUT"
echo >>"$OUT"
echo "\"dyn\": functions without a static frame as mlir-opt-22 lowers them (an alloca outside the entry block); their hoisted frame stands in for the column's sum." >>"$OUT"
cat "$OUT"
[ -s "$W/err" ] && { echo "--- tool messages (first lines):" >&2; head -5 "$W/err" >&2; }
exit "$bad"
