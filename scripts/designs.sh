#!/usr/bin/env bash
# The pipeline's designs side by side (`make designs`): producers -> channel -> parallel writer
# (26), the ordered hand-off (27) and fused row-group workers (28) as the catalog runs them,
# then fused workers with 65,536- and 1,048,576-row row groups and with 1 and 3 workers. Each
# design is measured as a catalog experiment is (scripts/experiment.sh: data gate, peak memory,
# heap, CPU by role) into its own folder of results/<host>/designs/, then all are timed in
# interleaved rounds (time_rounds), each followed by every design's floor, and compared with the
# first round by round: README.md, designs.json and the charts.
# Usage: scripts/designs.sh   (ROWS, RUNS, WARMUP, SPEC; scripts/settings.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
# folder|experiment|pipeline arguments added to the experiment's|what it is
designs=(
  "26-channel|26||producers -> channel -> parallel writer (26)"
  "27-ordered-hand-off|27||batches handed over in order (27)"
  "28-fused|28||fused workers (28): 2 workers, 262,144-row row groups"
  "28-fused-64ki-rows|28|--row-group-rows 65536|fused, 65,536-row row groups"
  "28-fused-1mi-rows|28|--row-group-rows 1048576|fused, 1,048,576-row row groups"
  "28-fused-1-worker|28|--producers 1|fused, 1 worker"
  "28-fused-3-workers|28|--producers 3|fused, 3 workers"
)
dir="$catalog_dir/designs"
rm -rf "$dir"; mkdir -p "$dir"
rounds="$(mktemp -d)"
trap 'rm -rf "$rounds"' EXIT

commands=()
round_floors=()
for design in "${designs[@]}"; do
  IFS='|' read -r folder n added label <<< "$design"
  read -r -a added_args <<< "$added"
  # The cachegrind simulation is left out: the comparison is of time, CPU and memory.
  CACHEGRIND_ROWS=0 TIMING=later "$root/scripts/experiment.sh" "$n" "$dir/$folder" \
    ${added_args[@]+"${added_args[@]}"}
  printf '%s\t%s\t%s\n' "$folder" "$label" "pipeline --experiment $n${added:+ $added}" >> "$dir/designs.tsv"
  commands+=(--prepare "rm -rf '$root/out/experiment-$n'" --command-name "$folder"
             "$(cat "$dir/$folder/timed-command")")
  add_round_floors "$dir/$folder"
done
time_rounds "$rounds" "${commands[@]}"
rm -rf "$root"/out/experiment-{26,27,28}

"$results" merge-rounds "$dir" "$rounds"/round-*.json
for design in "${designs[@]}"; do
  "$results" summarize "$dir/${design%%|*}"
done
"$results" designs "$dir" --command "make designs ROWS=$ROWS RUNS=$RUNS WARMUP=$WARMUP${SPEC:+ SPEC=${SPEC#"$root"/}}"
record_history "$dir"
cat "$dir/README.md"
