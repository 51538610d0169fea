#!/usr/bin/env bash
# Compares the pipeline of commit BASE with this tree's, binary against binary: builds BASE once
# in a git worktree under .compare/ (one target directory for every base, kept for reuse), then
# times `pipeline -e N` from both binaries in RUNS interleaved rounds as `make ab` does, and
# says whether this tree is faster, slower or no different, with the round-by-round test.
# Into results/<host>/compare-<base>-<N>/.
# Usage: BASE=HEAD~1 [N=35] scripts/compare.sh   (ROWS, RUNS, WARMUP; scripts/settings.sh)
#        ARGS='--spec my.json --prebuilt --sink count': more pipeline arguments for both sides
#        (the folder is then compare-<base>-<N>-<NAME>, NAME required with ARGS).
#        BASE_BIN=path/to/pipeline: time that binary as the base instead of building BASE
#        (BASE then only names it).
set -euo pipefail
source "$(dirname "$0")/common.sh"
if [ -z "${BASE:-}" ]; then
  echo "error: give the commit to compare with, e.g. make compare BASE=HEAD~1 N=35" >&2
  exit 2
fi
n="${N:-$(last_experiment)}"
read -ra extra <<< "${ARGS:-}"
suffix=""
if [ "${#extra[@]}" -gt 0 ]; then
  if [[ ! "${NAME:-}" =~ ^[A-Za-z0-9._-]+$ ]]; then
    echo "error: with ARGS, give NAME=<letters, digits, . _ -> to tell the results folder apart" >&2
    exit 2
  fi
  suffix="-$NAME"
fi
if [ -n "${BASE_BIN:-}" ]; then
  [ -x "$BASE_BIN" ] || { echo "error: BASE_BIN=$BASE_BIN is not an executable" >&2; exit 2; }
  base_bin="$(realpath "$BASE_BIN")"
  base_name="$(basename "$BASE")"
else
  base_name="$(commit_name BASE "$BASE")"
  base_bin="$(base_pipeline "$base_name")"
fi
dir="$root/results/$HOST/compare-$base_name-$n$suffix"
rm -rf "$dir"; mkdir -p "$dir/rounds"
# Each side run once on one row, so an experiment the base lacks fails here, in its own words.
"$base_bin" -e "$n" --rows 1 "${extra[@]}" --output-dir "$root/out/compare-base" --overwrite --quiet --json > "$dir/base.json"
"$bin" -e "$n" --rows 1 "${extra[@]}" --output-dir "$root/out/compare-head" --overwrite --quiet --json > "$dir/head.json"
side() { printf '%s -e %s --rows %s %s --output-dir %s --overwrite --quiet' "$1" "$n" "$ROWS" "${ARGS:-}" "$root/out/compare-$2"; }
time_rounds "$dir/rounds" \
  --prepare "rm -rf '$root/out/compare-base'" --command-name base "$(side "$base_bin" base)" \
  --prepare "rm -rf '$root/out/compare-head'" --command-name head "$(side "$bin" head)"
rm -rf "$root/out/compare-base" "$root/out/compare-head"
invocation="make compare BASE=$BASE N=$n ROWS=$ROWS RUNS=$RUNS"
[ -n "$suffix" ] && invocation+=" ARGS='${ARGS}' NAME=$NAME"
"$results" ab "$dir" --title "This tree against $base_name on $HOST: experiment $n" \
  --command "$invocation" --a "pipeline of $base_name" --b "pipeline of this tree" \
  --steal "$dir/rounds/steal.tsv" "$dir"/rounds/round-*.json
write_metadata "$dir" "$dir/head.json" "
  \"command\": \"$(json_escape "$invocation")\",
  \"base\": \"$(json_escape "$base_name")\",
  \"experiment\": $n,
  \"rows\": $ROWS,
  \"runs\": $RUNS,
  \"warmup\": $WARMUP,"
rm -f "$dir/base.json" "$dir/head.json"
record_history "$dir"
"$results" verdict "$dir/ab.json"
