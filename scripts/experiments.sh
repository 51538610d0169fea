#!/usr/bin/env bash
# Measures the catalog (`make experiments`): first every experiment's gate, peak memory, heap
# counts and counters (scripts/experiment.sh with TIMING=later), then the timings in interleaved
# rounds, each timing every experiment once and then running every experiment's floor once
# (time_rounds, scripts/common.sh). Then summaries, charts and the README.
# Usage: scripts/experiments.sh   (RUNS rounds after WARMUP warm-up rounds; EXPERIMENTS="20 21"
# for a subset; other settings as for scripts/experiment.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
numbers="${EXPERIMENTS:-$("$bin" --list | awk 'NR > 1 { print $1 + 0 }')}"

names=()
for n in $numbers; do
  names+=("$(experiment_name "$n")")
done

for n in $numbers; do
  TIMING=later "$root/scripts/experiment.sh" "$n"
done

# One prepare (remove that experiment's output) and one name per command, in catalog order;
# every experiment's floor runs in each round too.
commands=()
round_floors=()
for name in "${names[@]}"; do
  n=$((10#${name%%-*}))
  commands+=(--prepare "rm -rf '$root/out/experiment-$n'" --command-name "$name"
             "$(cat "$catalog_dir/$name/timed-command")")
  add_round_floors "$catalog_dir/$name"
done
rounds="$(mktemp -d)"
trap 'rm -rf "$rounds"' EXIT
time_rounds "$rounds" "${commands[@]}"
for n in $numbers; do rm -rf "$root/out/experiment-$n"; done

"$results" merge-rounds "$catalog_dir" "$rounds"/round-*.json
for name in "${names[@]}"; do
  "$results" summarize "$catalog_dir/$name"
  record_history "$catalog_dir/$name"
done
"$results" render "$catalog_dir"
