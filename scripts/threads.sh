#!/usr/bin/env bash
# Thread-count sweep of one experiment, plus the whole process pinned to one CPU with taskset as
# the like-for-like single-core case.
# Usage: scripts/threads.sh   (N, ROWS, RUNS, WARMUP, THREADS; scripts/settings.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
n="${N:-$(last_experiment)}"
dir="$root/results/$HOST/threads"; mkdir -p "$dir"
use_allocator_of "$n"
hyperfine="$("$root/scripts/ensure-hyperfine.sh")"
cmd="$bin --experiment $n --rows $ROWS --output-dir $root/out/threads --overwrite --quiet"
"$hyperfine" --warmup "$WARMUP" --runs "$RUNS" --style basic --prepare "rm -rf '$root/out/threads'" \
  --parameter-list threads "$THREADS" --export-json "$dir/threads.json" \
  --command-name "producers={threads} writers={threads}" "$cmd --producers {threads} --writers {threads}" >&2
"$hyperfine" --warmup "$WARMUP" --runs "$RUNS" --style basic --prepare "rm -rf '$root/out/threads'" \
  --export-json "$dir/pinned.json" --command-name "taskset -c 0 (1 producer, 1 writer)" \
  "taskset -c 0 $cmd --producers 1 --writers 1" >&2
rm -rf "$root/out/threads"
"$results" threads "$dir/threads.json" "$dir/pinned.json" --rows "$ROWS"
