#!/usr/bin/env bash
# Prints the path of a command-line tool, installing the pinned version of its crate into .tools/
# with cargo if it is neither there nor on PATH.
# Usage: scripts/ensure-cargo-tool.sh BINARY CRATE VERSION [INSTALL FLAGS...]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
binary="${1:?usage: ensure-cargo-tool.sh BINARY CRATE VERSION [INSTALL FLAGS...]}"; crate="${2:?}"; version="${3:?}"
shift 3
local_bin="$root/.tools/bin/$binary"
# Callers that start at once (tests run in parallel) wait for one install instead of racing two
# into the same folder; the lock is taken only when the tool is missing from .tools/.
if [ ! -x "$local_bin" ] && ! command -v "$binary" >/dev/null 2>&1; then
  mkdir -p "$root/.tools"
  exec 9> "$root/.tools/.install-$binary.lock"
  flock 9
fi
if [ -x "$local_bin" ]; then
  echo "$local_bin"
elif command -v "$binary" >/dev/null 2>&1; then
  command -v "$binary"
else
  echo "$binary not found: installing $crate@$version into .tools/ (one-time, a few minutes)" >&2
  cargo install --locked --quiet --root "$root/.tools" "$@" "$crate@$version" >&2
  echo "$local_bin"
fi
