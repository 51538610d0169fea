#!/usr/bin/env bash
# `make peers`: the same contacts written by the Rust writers and the Python peers (pyarrow,
# DuckDB, polars, DataFusion), every file read back by DuckDB, pyarrow and polars, and the read
# side of each write choice; raw results, README and charts in results/<host>/peers/.
# Usage: scripts/peers.sh   (ROWS, PEER_COMPRESSIONS, RUNS, SCAN_RUNS, READ_EXPERIMENTS, HOST from the Makefile)
set -euo pipefail
source "$(dirname "$0")/common.sh"
dir="$root/results/$host/peers${SPEC:+-$(basename "$SPEC" .json)}"
work="$root/out/peers"
compressions="${PEER_COMPRESSIONS:-none,zstd(1)}"
command="make peers${SPEC:+ SPEC=${SPEC#"$root"/}} ROWS=$ROWS PEER_COMPRESSIONS=\"$compressions\" RUNS=$RUNS WARMUP=${WARMUP:-1} SCAN_RUNS=${SCAN_RUNS:-3}"
status=0
python="$("$root/scripts/ensure-venv.sh")" || status=$?
if [ "$status" -eq 3 ]; then
  # No Python: the Rust writers alone, so the comparison that needs nothing else still runs.
  echo "running the Rust writers only (ArrowWriter, ParallelArrowWriter); results in $dir" >&2
  mkdir -p "$dir" "$work"
  "$bin_dir/peers" export --rows "$ROWS" ${spec_args[@]+"${spec_args[@]}"} "$work/hand-over.arrow" > /dev/null
  rm -f "$dir/writes.jsonl"
  IFS=',' read -r -a codecs <<< "$compressions"
  for round in $(seq $((-${WARMUP:-1})) $((RUNS - 1))); do
    for codec in "${codecs[@]}"; do
      for spec in "ParallelArrowWriter --writer parallel --early-writeback-mib 8" \
                  "ParallelArrowWriter-plain-file --writer parallel" "ArrowWriter --writer arrow"; do
        read -r name arguments <<< "$spec"
        # shellcheck disable=SC2086 # the writer's arguments are words
        record="$("$bin_dir/peers" write $arguments --compression "$codec" "$work/hand-over.arrow" "$work/$name.parquet")"
        [ "$round" -lt 0 ] && continue  # warm-up rounds are not kept
        echo "${record%\}},\"round\":$round,\"writer\":\"$name\",\"settings\":\"default\",\"compression\":\"$codec\"}" >> "$dir/writes.jsonl"
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
  --rows "$ROWS" --compressions "$compressions" --runs "$RUNS" --warmup "${WARMUP:-1}" --scan-runs "${SCAN_RUNS:-3}" \
  --experiments "${READ_EXPERIMENTS:-14 21}" --bin-dir "$bin_dir" --work "$work" \
  --command-line "$command" ${SPEC:+--spec "$SPEC"} "$dir" || status=$?
"$results" peers "$dir"
echo "results in $dir" >&2
exit "$status"
