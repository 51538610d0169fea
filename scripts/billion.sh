#!/usr/bin/env bash
# Memory over a long run: the best experiment (or N) writes BILLION_ROWS rows to disk with a
# milestone every BILLION_EVERY rows; the milestones, the final report, metadata and a README
# table go to results/<host>/billion-NN/. The Parquet output (its size: output_bytes in
# results/vm/billion-NN/report.json) is removed at the end.
# Usage: scripts/billion.sh   (N, BILLION_ROWS, BILLION_EVERY, BILLION_OUTPUT; scripts/settings.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
n="${N:-$(last_experiment)}"
output="${BILLION_OUTPUT:-$root/out/billion}"
dir="$root/results/$HOST/billion-$(printf '%02d' "$n")"
mkdir -p "$dir"
trap 'rm -rf "$output"' EXIT
use_allocator_of "$n"
args=(--experiment "$n" --rows "$BILLION_ROWS" --milestones "$BILLION_EVERY" --output-dir "$output" --overwrite
      --quiet --json)
echo "== $BILLION_ROWS rows of experiment $n, a milestone every $BILLION_EVERY rows" >&2
"$bin" "${args[@]}" > "$dir/report.json" 2> "$dir/milestones.jsonl"
command="pipeline ${args[*]}"
write_metadata "$dir" "$dir/report.json" "
  \"command\": \"$(json_escape "$command")\","
"$results" long-run "$dir" --command "$command"
cat "$dir/README.md"
