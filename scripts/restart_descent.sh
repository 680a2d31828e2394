#!/bin/bash
# Descending restart search on one MiniMalloc-style CSV (issue 11, D and J; BENCHMARKS.md §8):
# asks `exact_bench --restarts` whether everything fits within START units, and after every plan
# found asks again one unit lower, until SECS seconds have passed. One line per capacity on stdout;
# plans go to OUTDIR/NAME.CAP.sSEED.csv (written only after memplan's checker passed them).
#
# usage: scripts/restart_descent.sh EXACT_BENCH FILE START_UNITS SEED NOISE SECS OUTDIR [UNIT=1024]
# e.g.   cargo build --release -p memplan-core --example exact_bench
#        scripts/restart_descent.sh target/release/examples/exact_bench \
#          ../shared/benchmarks/dsa/minimalloc/D.1048576.csv 989 301 2 300 /tmp/plans
# Run one per core with different seeds and start capacities.
set -u
bin=$1; file=$2; u=$3; seed=$4; noise=$5; secs=$6; outdir=$7; unit=${8:-1024}
end=$(( $(date +%s) + secs ))
name=$(basename "$file" .csv)
mkdir -p "$outdir"
while :; do
  left=$(( end - $(date +%s) ))
  [ "$left" -le 5 ] && break
  cap=$(( u * unit ))
  line=$("$bin" --restarts "$cap" --seed "$seed" --noise "$noise" --time "$left" \
    --out "$outdir/$name.$cap.s$seed.csv" "$file" | tail -1)
  echo "$(date +%T) $name units=$u seed=$seed noise=$noise: ${line#*: }"
  case "$line" in *"plan found"*) u=$(( u - 1 )) ;; *) break ;; esac
done
