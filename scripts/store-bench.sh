#!/usr/bin/env bash
# make store-bench: the same run written to local disk and to a local S3 server (Garage,
# scripts/s3-server.sh), in interleaved rounds, with the server's own CPU time; then the
# scale-out README. Writes results/<host>/scale-out/store.json.
# Usage: scripts/store-bench.sh   (N, ROWS, RUNS, WARMUP, WRITERS, BIG_ROWS; scripts/settings.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
n="${N:-$(last_experiment)}"
dir="$root/results/$HOST/scale-out"
mkdir -p "$dir"
# The server's data and the local-disk runs on the same disk, so both write the same device.
server="$(mktemp -d "$root/out/s3-server.XXXXXX")"
local_dir="$(mktemp -d "$root/out/store-bench.XXXXXX")"
trap '"$root/scripts/s3-server.sh" stop "$server"; rm -rf "$server" "$local_dir"' EXIT
# An assignment, so that a failed start stops this script with the server's own error.
env_file="$("$root/scripts/s3-server.sh" start "$server" shredlab)"
# shellcheck source=/dev/null
source "$env_file"
python="$("$root/scripts/ensure-venv.sh")"
use_allocator_of "$n"
"$python" "$root/scripts/scale_out.py" store --bin "$bin" --server-pid "$(cat "$server/pid")" \
  --server "Garage $("$("$root/scripts/ensure-garage.sh")" --version | head -n 1 | sed 's/^garage cargo://; s/ \[.*//') (one node, LMDB, no compression) on 127.0.0.1" \
  --url s3://shredlab/store-bench --local-dir "$local_dir" --dir "$dir" --experiment "$n" \
  --rows "$ROWS" --writers "${WRITERS:-0}" --runs "$RUNS" --warmup "$WARMUP" \
  --big-rows "$BIG_ROWS" --last-report "$server/last-report.json"
write_metadata "$dir" "$server/last-report.json" \
  "
  \"what\": \"make store-bench\",
  \"rows\": $ROWS,"
"$python" "$root/scripts/scale_out.py" render "$dir" --scaling "$root/results/$HOST/scaling/scaling.json"
