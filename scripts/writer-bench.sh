#!/usr/bin/env bash
# ParallelArrowWriter against ArrowWriter (`make writer-bench`): the whole matrix on each
# allocator, into results/<host>/writer/ with the build's metadata.
# Usage: scripts/writer-bench.sh   (REPS from the Makefile)
set -euo pipefail
source "$(dirname "$0")/common.sh"
reps="${REPS:-5}"
dir="$root/results/$host/writer"; mkdir -p "$dir"
for allocator in system mimalloc; do
  "$bin_dir/writer-bench" --reps "$reps" --allocator "$allocator" --output "$dir" \
    ${SPEC:+--spec "$SPEC" --spec-rows "${SPEC_ROWS:-1000000}"}
done
# The benchmark links the same crates as the pipeline; its build stamp is the pipeline's.
"$bin" --rows 1 --sink null --json > "$dir/build.json"
SHREDLAB_ALLOCATOR="system, mimalloc (one table each)" write_metadata "$dir" "$dir/build.json" "
  \"command\": \"make writer-bench REPS=$reps${SPEC:+ SPEC=$SPEC}\",
  \"reps\": $reps,"
rm -f "$dir/build.json"
