# Shared helpers of the scripts in this directory (sourced, not run).
# REPO: repository root. SHARED: the shared/ data directory (env SHARED_DIR, else ../shared beside
# the repository, else /work/shared).
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -n "${SHARED_DIR:-}" ]; then SHARED=$SHARED_DIR
elif [ -d "$REPO/../shared/mlir" ]; then SHARED=$(cd "$REPO/../shared" && pwd)
else SHARED=/work/shared; fi

# build_memplan: builds the release binary once and exports MEMPLAN (unless MEMPLAN is already set).
build_memplan() {
  if [ -n "${MEMPLAN:-}" ]; then export MEMPLAN; return 0; fi
  (cd "$REPO" && cargo build --release -p memplan --bin memplan) >&2 || { echo "error: cargo build failed" >&2; return 1; }
  local dir
  dir=$(cd "$REPO" && cargo metadata --format-version 1 --no-deps 2>/dev/null | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
  export MEMPLAN="${dir:-$REPO/target}/release/memplan"
  [ -x "$MEMPLAN" ] || { echo "error: no binary at $MEMPLAN" >&2; return 1; }
}

need_tools() {
  for t in "$@"; do
    command -v "$t" >/dev/null || { echo "error: $t not found (apt-get install -y mlir-22-tools)" >&2; return 1; }
  done
}
