#!/usr/bin/env bash
# Prints the path of a tpchgen-cli binary (the TPC-H generator `make spec-bench` compares the
# lineitem preset with), installing the pinned version into .tools/ if none is on PATH.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version="2.0.2"
local_bin="$root/.tools/bin/tpchgen-cli"
if [ -x "$local_bin" ]; then
  echo "$local_bin"
elif command -v tpchgen-cli >/dev/null 2>&1; then
  command -v tpchgen-cli
else
  echo "tpchgen-cli not found: installing tpchgen-cli@$version into .tools/ (one-time, ~5 min)" >&2
  cargo install --locked --quiet --root "$root/.tools" "tpchgen-cli@$version" >&2
  echo "$local_bin"
fi
