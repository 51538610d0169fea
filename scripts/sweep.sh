#!/usr/bin/env bash
# Writers x batch size (x producers) for one experiment: every cell of the grid timed once per
# interleaved round (time_rounds), then heatmaps of median time and rows/s, into
# results/<host>/sweep-NN/ with the build's metadata.
# Usage: scripts/sweep.sh   (N, ROWS, RUNS, WARMUP, SWEEP_*; scripts/settings.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
n="${N:-$(last_experiment)}"
dir="$root/results/$HOST/sweep-$(printf '%02d' "$n")"; mkdir -p "$dir"
use_allocator_of "$n"
rounds="$(mktemp -d)"
trap 'rm -rf "$rounds"' EXIT
# One command per cell, named by its settings (merge-sweep turns the names into parameters),
# timed in interleaved rounds (time_rounds): the host's drift hits every cell alike instead of
# whichever ran during a slow spell.
# A list's values, comma-separated, spaces ignored; a repeated or non-numeric value is refused
# now rather than after the timing.
sweep_values() {
  local name="$1" list="${2// /}" value
  local -A seen=()
  IFS=',' read -r -a values <<< "$list"
  for value in "${values[@]}"; do
    if [[ ! "$value" =~ ^[0-9]+$ ]] || [ -n "${seen[$value]:-}" ]; then
      echo "error: $name=\"$2\": give distinct whole numbers separated by commas, e.g. $name=1,2,4" >&2
      exit 2
    fi
    seen[$value]=1
  done
}
sweep_values SWEEP_WRITERS "$SWEEP_WRITERS"; writer_counts=("${values[@]}")
sweep_values SWEEP_BATCHES "$SWEEP_BATCHES"; batch_sizes=("${values[@]}")
sweep_values SWEEP_PRODUCERS "$SWEEP_PRODUCERS"; producer_counts=("${values[@]}")
commands=()
for writers in "${writer_counts[@]}"; do
  for batch in "${batch_sizes[@]}"; do
    for producers in "${producer_counts[@]}"; do
      commands+=(--prepare "rm -rf '$root/out/sweep'"
                 --command-name "writers=$writers batch=$batch producers=$producers"
                 "$bin --experiment $n --rows $ROWS --output-dir $root/out/sweep --overwrite --quiet --writers $writers --batch-size $batch --producers $producers")
    done
  done
done
time_rounds "$rounds" "${commands[@]}"
rm -rf "$root/out/sweep"
"$results" merge-sweep "$dir/sweep.json" "$rounds"/round-*.json
"$results" heatmap "$dir/sweep.json" --rows "$ROWS" --title "experiment $n, $ROWS rows"
"$bin" --experiment "$n" --rows 1 --sink null --json > "$dir/build.json"
write_metadata "$dir" "$dir/build.json" "
  \"command\": \"$(json_escape "make sweep N=$n ROWS=$ROWS RUNS=$RUNS WARMUP=$WARMUP SWEEP_WRITERS=$SWEEP_WRITERS SWEEP_BATCHES=$SWEEP_BATCHES SWEEP_PRODUCERS=$SWEEP_PRODUCERS")\",
  \"timing\": \"rotated\",
  \"rows\": $ROWS,
  \"runs\": $RUNS,"
rm -f "$dir/build.json"
