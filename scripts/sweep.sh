#!/usr/bin/env bash
# Writers x batch size (x producers) for one experiment: hyperfine over the grid, then heatmaps
# of median time and rows/s, into results/<host>/sweep-NN/ with the build's metadata.
# Usage: scripts/sweep.sh   (N, ROWS, RUNS, SWEEP_* from the Makefile)
set -euo pipefail
source "$(dirname "$0")/common.sh"
n="${N:-$(last_experiment)}"
rows="${ROWS:-10000000}"; runs="${RUNS:-5}"
writers="${SWEEP_WRITERS:-1,2,4}"; batches="${SWEEP_BATCHES:-1024,4096,16384,65536}"
producers="${SWEEP_PRODUCERS:-$(nproc)}"
dir="$root/results/$host/sweep-$(printf '%02d' "$n")"; mkdir -p "$dir"
export SHREDLAB_ALLOCATOR="$(allocator_of "$n")"
hyperfine="$("$root/scripts/ensure-hyperfine.sh")"
"$hyperfine" --warmup 1 --runs "$runs" --style basic --prepare "rm -rf '$root/out/sweep'" \
  --parameter-list writers "$writers" --parameter-list batch "$batches" \
  --parameter-list producers "$producers" --export-json "$dir/sweep.json" \
  "$bin --experiment $n --rows $rows --output-dir $root/out/sweep --overwrite --quiet --writers {writers} --batch-size {batch} --producers {producers}" >&2
rm -rf "$root/out/sweep"
"$results" heatmap "$dir/sweep.json" --rows "$rows" --title "experiment $n, $rows rows"
"$bin" --experiment "$n" --rows 1 --sink null --json > "$dir/build.json"
write_metadata "$dir" "$dir/build.json" "
  \"command\": \"$(json_escape "hyperfine over writers {$writers} x batch {$batches} x producers {$producers}: $bin --experiment $n --rows $rows")\",
  \"rows\": $rows,
  \"runs\": $runs,"
rm -f "$dir/build.json"
