#!/usr/bin/env bash
# report_screenshot.sh GRAPH.json [OUT_DIR=report]
#
# Writes `memplan model GRAPH.json --report OUT_DIR/report.html` and renders it in headless
# Chromium (Debian's `chromium`) to OUT_DIR/report.png, so the page is seen as a browser draws it.
set -euo pipefail
GRAPH=$1
OUT=${2:-report}
source "$(dirname "$0")/lib.sh"
build_memplan
command -v chromium >/dev/null || { echo "needs chromium (apt-get install chromium)" >&2; exit 2; }
mkdir -p "$OUT"
"$MEMPLAN" model "$GRAPH" --report "$OUT/report.html" >&2
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,2400 \
  --screenshot="$OUT/report.png" "file://$(cd "$OUT" && pwd)/report.html" 2>/dev/null
ls -l "$OUT/report.png"
