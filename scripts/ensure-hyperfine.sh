#!/usr/bin/env bash
# Prints the path of a hyperfine binary, installing the pinned version into .tools/ if none is
# on PATH. Debian's 1.15 and the pinned 1.20 both work: the results parser reads both formats.
exec "$(dirname "$0")/ensure-cargo-tool.sh" hyperfine hyperfine 1.20.0
