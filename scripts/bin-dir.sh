#!/usr/bin/env bash
# Prints the directory of this workspace's release binaries, wherever cargo puts them
# (CARGO_TARGET_DIR, build.target-dir in a cargo config, or the default target/).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target="$(cargo metadata --manifest-path "$root/Cargo.toml" --format-version 1 --no-deps \
  | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
if [ -z "$target" ]; then
  echo "error: cargo metadata did not report a target directory" >&2
  exit 1
fi
echo "$target/release"
