#!/usr/bin/env bash
# Times two pipeline command lines side by side in RUNS interleaved rounds (after WARMUP
# rounds), A first in odd rounds and B first in even ones, and compares B with A round by
# round, into results/<host>/ab-NAME/.
# Usage: AB_A="-e 26" AB_B="-e 26 --counters" AB_NAME=counters scripts/ab.sh
#        (ROWS, RUNS, WARMUP; scripts/settings.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
if [ -z "$AB_NAME" ] || [ "$AB_A$AB_B" = "" ]; then
  echo "error: give AB_NAME and the two sides' arguments, e.g. make ab AB_A='-e 26' AB_B='-e 26 --counters' AB_NAME=counters" >&2
  exit 2
fi
dir="$root/results/$HOST/ab-$AB_NAME"
rm -rf "$dir"; mkdir -p "$dir/rounds"
# Each side run once on one row, so a typo fails here with the pipeline's own message.
check_side() {
  local side="$1" arguments
  read -r -a arguments <<< "$2"
  "$bin" ${arguments[@]+"${arguments[@]}"} --rows 1 --output-dir "$root/out/ab-$side" --overwrite --quiet --json > "$dir/$side.json"
}
check_side a "$AB_A"
check_side b "$AB_B"
side_command() { printf '%s --rows %s --output-dir %s --overwrite --quiet' "$bin $1" "$ROWS" "$root/out/ab-$2"; }
side_a=(--prepare "rm -rf '$root/out/ab-a'" --command-name A "$(side_command "$AB_A" a)")
side_b=(--prepare "rm -rf '$root/out/ab-b'" --command-name B "$(side_command "$AB_B" b)")
# A then B in odd rounds, B then A in even ones (time_rounds), so that going second costs both
# sides alike.
time_rounds "$dir/rounds" "${side_a[@]}" "${side_b[@]}"
rm -rf "$root/out/ab-a" "$root/out/ab-b"
invocation="make ab AB_A='$AB_A' AB_B='$AB_B' AB_NAME=$AB_NAME ROWS=$ROWS RUNS=$RUNS"
"$results" ab "$dir" --title "A/B on $HOST: $AB_NAME" --command "$invocation" \
  --a "pipeline $AB_A" --b "pipeline $AB_B" --steal "$dir/rounds/steal.tsv" \
  "$dir"/rounds/round-*.json
write_metadata "$dir" "$dir/a.json" "
  \"command\": \"$(json_escape "$invocation")\",
  \"rows\": $ROWS,
  \"runs\": $RUNS,
  \"warmup\": $WARMUP,"
rm -f "$dir/a.json" "$dir/b.json"
record_history "$dir"
