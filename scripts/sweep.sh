#!/usr/bin/env bash
# Writers x batch size (x producers) for one experiment: hyperfine over the grid, then heatmaps
# of median time and rows/s, into results/<host>/sweep-NN/ with the build's metadata.
# Usage: scripts/sweep.sh   (N, ROWS, RUNS, WARMUP, SWEEP_*; scripts/settings.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
n="${N:-$(last_experiment)}"
dir="$root/results/$HOST/sweep-$(printf '%02d' "$n")"; mkdir -p "$dir"
use_allocator_of "$n"
hyperfine="$("$root/scripts/ensure-hyperfine.sh")"
"$hyperfine" --warmup "$WARMUP" --runs "$RUNS" --style basic --prepare "rm -rf '$root/out/sweep'" \
  --parameter-list writers "$SWEEP_WRITERS" --parameter-list batch "$SWEEP_BATCHES" \
  --parameter-list producers "$SWEEP_PRODUCERS" --export-json "$dir/sweep.json" \
  "$bin --experiment $n --rows $ROWS --output-dir $root/out/sweep --overwrite --quiet --writers {writers} --batch-size {batch} --producers {producers}" >&2
rm -rf "$root/out/sweep"
"$results" heatmap "$dir/sweep.json" --rows "$ROWS" --title "experiment $n, $ROWS rows"
"$bin" --experiment "$n" --rows 1 --sink null --json > "$dir/build.json"
write_metadata "$dir" "$dir/build.json" "
  \"command\": \"$(json_escape "hyperfine over writers {$SWEEP_WRITERS} x batch {$SWEEP_BATCHES} x producers {$SWEEP_PRODUCERS}: $bin --experiment $n --rows $ROWS")\",
  \"rows\": $ROWS,
  \"runs\": $RUNS,"
rm -f "$dir/build.json"
