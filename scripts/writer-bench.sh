#!/usr/bin/env bash
# ParallelArrowWriter against ArrowWriter (`make writer-bench`): the whole matrix on each
# allocator, into results/<host>/writer/ with the build's metadata.
# Usage: scripts/writer-bench.sh   (REPS, SPEC, SPEC_ROWS; scripts/settings.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
dir="$root/results/$HOST/writer"; mkdir -p "$dir"
for allocator in system mimalloc; do
  "$bin_dir/writer-bench" --reps "$REPS" --allocator "$allocator" --output "$dir" \
    ${SPEC:+--spec "$SPEC" --spec-rows "$SPEC_ROWS"}
done
# The benchmark links the same crates as the pipeline; its build stamp is the pipeline's.
"$bin" --rows 1 --sink null --json > "$dir/build.json"
SHREDLAB_ALLOCATOR="system, mimalloc (one table each)" write_metadata "$dir" "$dir/build.json" "
  \"command\": \"$(json_escape "make writer-bench REPS=$REPS${SPEC:+ SPEC=$SPEC}")\",
  \"reps\": $REPS,"
rm -f "$dir/build.json"
