#!/usr/bin/env bash
# `make peers`: the same contacts written by the Rust writers and the Python peers (pyarrow,
# DuckDB, polars, DataFusion), every file read back by DuckDB, pyarrow and polars, and the read
# side of each write choice; raw results, README and charts in results/<host>/peers/.
# Usage: scripts/peers.sh   (ROWS, PEER_COMPRESSIONS, RUNS, WARMUP, SCAN_RUNS, READ_EXPERIMENTS, SPEC; scripts/settings.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
dir="$root/results/$HOST/peers${SPEC:+-$(basename "$SPEC" .json)}"
work="$root/out/peers"
command="make peers${SPEC:+ SPEC=${SPEC#"$root"/}} ROWS=$ROWS PEER_COMPRESSIONS=\"$PEER_COMPRESSIONS\" RUNS=$RUNS WARMUP=$WARMUP SCAN_RUNS=$SCAN_RUNS READ_EXPERIMENTS=\"$READ_EXPERIMENTS\""
status=0
# The venv with the shredlab package built into it (the shredlab-python writer); if the package
# does not build, the venv without it, and that writer is reported missing.
python="$("$root/scripts/install-python-package.sh")" || status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
  echo "the shredlab Python package did not build: shredlab-python is reported missing" >&2
  status=0
  python="$("$root/scripts/ensure-venv.sh")" || status=$?
fi
if [ "$status" -eq 3 ]; then
  # No Python: the Rust writers alone, so the comparison that needs nothing else still runs.
  echo "running the Rust writers only (ArrowWriter, ParallelArrowWriter); results in $dir" >&2
  mkdir -p "$dir" "$work"
  "$bin_dir/peers" export --rows "$ROWS" ${spec_args[@]+"${spec_args[@]}"} "$work/hand-over.arrow" > /dev/null
  rm -f "$dir/writes.jsonl"
  IFS=',' read -r -a codecs <<< "$PEER_COMPRESSIONS"
  for round in $(seq $((-WARMUP)) $((RUNS - 1))); do
    for codec in "${codecs[@]}"; do
      for spec in "ParallelArrowWriter --writer parallel --file-options newest" \
                  "ParallelArrowWriter-plain-file --writer parallel" "ArrowWriter --writer arrow"; do
        read -r name arguments <<< "$spec"
        # shellcheck disable=SC2086 # the writer's arguments are words
        record="$("$bin_dir/peers" write $arguments --compression "$codec" "$work/hand-over.arrow" "$work/$name.parquet")"
        [ "$round" -lt 0 ] && continue  # warm-up rounds are not kept
        # The writer's record (one JSON object), with where it was made added as members.
        echo "${record%\}},\"round\":$round,\"writer\":\"$(json_escape "$name")\",\"settings\":\"default\",\"compression\":\"$(json_escape "$codec")\"}" >> "$dir/writes.jsonl"
      done
    done
  done
  "$bin" --rows 1 --sink null --json > "$dir/build.json"
  write_metadata "$dir" "$dir/build.json" "
  \"command\": \"$(json_escape "$command")\",
  \"missing\": {\"python3\": \"not installed\"},"
  rm -f "$dir/build.json"
  "$results" peers "$dir"
  exit 0
elif [ "$status" -ne 0 ]; then
  exit "$status"
fi
PYTHONPATH="$root/scripts/peers" "$python" -m shredlab_peers run \
  --rows "$ROWS" --compressions "$PEER_COMPRESSIONS" --runs "$RUNS" --warmup "$WARMUP" --scan-runs "$SCAN_RUNS" \
  --experiments "$READ_EXPERIMENTS" --bin-dir "$bin_dir" --work "$work" \
  --command-line "$command" ${SPEC:+--spec "$SPEC"} "$dir" || status=$?
"$results" peers "$dir"
record_history "$dir"
echo "results in $dir" >&2
exit "$status"
