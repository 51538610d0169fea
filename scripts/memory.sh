#!/usr/bin/env bash
# Where experiment N's memory goes (`make memory`): one setting at a time (row groups in flight,
# the writer's queue, row-group size, batch size, allocator, and generation alone), each run
# twice: timed under /usr/bin/time for peak RSS, wall and CPU, and again with
# --count-allocations for the peak of live heap bytes and the bytes allocated per row. RSS minus
# peak heap is what the allocator keeps beyond what the program holds. Into
# results/<host>/memory-NN/ (runs.jsonl, README.md, metadata.json).
# Usage: scripts/memory.sh   (N, ROWS; scripts/settings.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
n="${N:-$(last_experiment)}"
dir="$root/results/$HOST/memory-$(printf '%02d' "$n")"
scratch="$root/out/memory-$n"
mkdir -p "$dir"
trap 'rm -rf "$scratch" "$scratch.time"' EXIT
use_allocator_of "$n"
base=(--experiment "$n" --rows "$ROWS" --output-dir "$scratch" --overwrite --quiet --json)
"$bin" --experiment "$n" --rows 1 --sink null --json > "$dir/build.json"
# null unless the experiment writes with ParallelArrowWriter (the budget) or fused row groups.
in_flight="$("$results" json-get "$dir/build.json" /row_groups_in_flight)"
budget="$("$results" json-get "$dir/build.json" /writer_budget_bytes)"

cases=("as the experiment|")
if [ "$in_flight" != null ]; then
  cases+=("1 row group in flight|--row-groups-in-flight 1" "3 row groups in flight|--row-groups-in-flight 3")
fi
if [ "$budget" != null ]; then
  cases+=("4 MiB writer queue|--writer-budget-mib 4" "32 MiB writer queue|--writer-budget-mib 32")
fi
for rg in 1048576 524288 262144 131072 65536; do
  cases+=("$rg-row row groups|--row-group-rows $rg")
done
cases+=("4,096-row batches|--batch-size 4096" "65,536-row batches|--batch-size 65536"
        "glibc allocator|--disable mimalloc,jemalloc"
        "mimalloc|--enable mimalloc --disable jemalloc" "jemalloc (one arena)|--enable jemalloc"
        "generation alone (--sink null)|--sink null")

: > "$dir/runs.jsonl"
for case in "${cases[@]}"; do
  label="${case%%|*}"; read -r -a extra <<< "${case#*|}"
  echo "== $label" >&2
  rm -rf "$scratch"
  /usr/bin/time -f '%M' -o "$scratch.time" "$bin" "${base[@]}" "${extra[@]}" > "$scratch.timed"
  rm -rf "$scratch"
  "$bin" "${base[@]}" "${extra[@]}" --count-allocations > "$scratch.counted"
  printf '{"label":"%s","args":"%s","peak_rss_kb":%s,"timed":%s,"counted":%s}\n' \
    "$(json_escape "$label")" "$(json_escape "${extra[*]}")" "$(tail -n 1 "$scratch.time")" \
    "$(cat "$scratch.timed")" "$(cat "$scratch.counted")" >> "$dir/runs.jsonl"
  rm -f "$scratch.timed" "$scratch.counted"
done
write_metadata "$dir" "$dir/build.json" "
  \"command\": \"$(json_escape "make memory N=$n ROWS=$ROWS")\",
  \"rows\": $ROWS,"
rm -f "$dir/build.json"
"$results" memory "$dir"
cat "$dir/README.md"
