#!/usr/bin/env bash
# Memory over a long run: the best experiment (or N) writes BILLION_ROWS rows (default one
# billion) to disk with a milestone every 100 M rows; the milestones, the final report, metadata
# and a README table go to results/<host>/billion-NN/. The Parquet output (~28 GB per billion rows)
# is removed at the end. Usage: scripts/billion.sh   (N, BILLION_ROWS, BILLION_OUTPUT)
set -euo pipefail
source "$(dirname "$0")/common.sh"
n="${N:-$(last_experiment)}"
rows="${BILLION_ROWS:-1000000000}"
every="${BILLION_EVERY:-100000000}"
output="${BILLION_OUTPUT:-$root/out/billion}"
dir="$root/results/$host/billion-$(printf '%02d' "$n")"
mkdir -p "$dir"
trap 'rm -rf "$output"' EXIT
export SHREDLAB_ALLOCATOR="$(allocator_of "$n")"
args=(--experiment "$n" --rows "$rows" --milestones "$every" --output-dir "$output" --overwrite
      --quiet --json)
echo "== $rows rows of experiment $n, a milestone every $every rows" >&2
"$bin" "${args[@]}" > "$dir/report.json" 2> "$dir/milestones.jsonl"
command="pipeline ${args[*]}"
write_metadata "$dir" "$dir/report.json" "
  \"command\": \"$(json_escape "$command")\","
"$results" long-run "$dir" --command "$command"
cat "$dir/README.md"
