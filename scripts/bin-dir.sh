#!/usr/bin/env bash
# Prints the directory of this workspace's release binaries, wherever cargo puts them
# (CARGO_TARGET_DIR, build.target-dir in a cargo config, or the default target/). It runs before
# those binaries exist, so it reads cargo metadata's JSON with python3.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if ! command -v python3 >/dev/null 2>&1; then
  echo "error: python3 not found: scripts/bin-dir.sh needs it to read cargo metadata (Debian/Ubuntu: apt install python3)" >&2
  exit 1
fi
target="$(cargo metadata --manifest-path "$root/Cargo.toml" --format-version 1 --no-deps \
  | python3 -c 'import json, sys; print(json.load(sys.stdin).get("target_directory", ""))')"
if [ -z "$target" ]; then
  echo "error: cargo metadata did not report a target directory" >&2
  exit 1
fi
echo "$target/release"
