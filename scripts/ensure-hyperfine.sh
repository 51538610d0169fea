#!/usr/bin/env bash
# Prints the path of a hyperfine binary, installing the pinned version into .tools/ if none is
# on PATH. Debian's 1.15 and the pinned 1.20 both work: the results parser reads both formats.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version="1.20.0"
local_bin="$root/.tools/bin/hyperfine"
if [ -x "$local_bin" ]; then
  echo "$local_bin"
elif command -v hyperfine >/dev/null 2>&1; then
  command -v hyperfine
else
  echo "hyperfine not found: installing hyperfine@$version into .tools/ (one-time, ~2 min)" >&2
  cargo install --locked --quiet --root "$root/.tools" "hyperfine@$version" >&2
  echo "$local_bin"
fi
