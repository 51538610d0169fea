#!/usr/bin/env bash
# ParallelArrowWriter against ArrowWriter, or against itself with arrow-rs's column encoder
# (`make writer-bench [BASELINE=arrow-rs-encoder]`): the whole matrix on each allocator, into
# results/<host>/writer/ (writer-vs-arrow-rs-encoder/ for that baseline) with the build's
# metadata.
# Usage: scripts/writer-bench.sh   (REPS, SPEC, SPEC_ROWS, BASELINE; scripts/settings.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
case "$BASELINE" in
  arrow-writer) dir="$root/results/$HOST/writer" ;;
  arrow-rs-encoder) dir="$root/results/$HOST/writer-vs-arrow-rs-encoder" ;;
  *) echo "BASELINE=$BASELINE: use arrow-writer or arrow-rs-encoder" >&2; exit 2 ;;
esac
mkdir -p "$dir"
for allocator in system mimalloc; do
  "$bin_dir/writer-bench" --reps "$REPS" --allocator "$allocator" --output "$dir" --baseline "$BASELINE" \
    ${SPEC:+--spec "$SPEC" --spec-rows "$SPEC_ROWS"}
done
# The benchmark links the same crates as the pipeline; its build stamp is the pipeline's.
"$bin" --rows 1 --sink null --json > "$dir/build.json"
SHREDLAB_ALLOCATOR="system, mimalloc (one table each)" write_metadata "$dir" "$dir/build.json" "
  \"command\": \"$(json_escape "make writer-bench REPS=$REPS BASELINE=$BASELINE${SPEC:+ SPEC=$SPEC}")\",
  \"reps\": $REPS,"
rm -f "$dir/build.json"
record_history "$dir"
