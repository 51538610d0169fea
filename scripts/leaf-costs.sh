#!/usr/bin/env bash
# Where arrow-rs's encoding CPU goes, leaf by leaf and stage by stage (`make leaf-costs`): the
# contacts, every spec preset and the writer matrix's two shapes, each leaf encoded alone on one
# thread, into results/<host>/leaf-costs/ with the build's metadata.
# Usage: scripts/leaf-costs.sh   (LEAF_ROWS, LEAF_ROUNDS; scripts/settings.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
dir="$root/results/$HOST/leaf-costs"; mkdir -p "$dir"
# The newest experiment's allocator, as the properties are its own; metadata.json names it.
use_allocator_of "$(last_experiment)"
specs="$(find "$root/specs" -maxdepth 1 -name '*.json' | sort | paste -sd, -)"
"$bin_dir/leaf-costs" measure --rows "$LEAF_ROWS" --rounds "$LEAF_ROUNDS" --spec "$specs" > "$dir/costs.json.tmp"
mv "$dir/costs.json.tmp" "$dir/costs.json"
# The tool links the same crates as the pipeline; its build stamp is the pipeline's.
"$bin" --rows 1 --sink null --json > "$dir/build.json"
write_metadata "$dir" "$dir/build.json" "
  \"command\": \"$(json_escape "make leaf-costs LEAF_ROWS=$LEAF_ROWS LEAF_ROUNDS=$LEAF_ROUNDS")\",
  \"rows\": $LEAF_ROWS,
  \"rounds\": $LEAF_ROUNDS,"
rm -f "$dir/build.json"
"$bin_dir/leaf-costs" render "$dir"
