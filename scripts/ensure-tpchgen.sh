#!/usr/bin/env bash
# Prints the path of a tpchgen-cli binary (the TPC-H generator `make spec-bench` compares the
# lineitem preset with), installing the pinned version into .tools/ if none is on PATH.
exec "$(dirname "$0")/ensure-cargo-tool.sh" tpchgen-cli tpchgen-cli 2.0.2
