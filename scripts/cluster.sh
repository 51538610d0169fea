#!/usr/bin/env bash
# make cluster: the `pipeline --part i --parts N` shards as Dask tasks (scripts/cluster.py), on a
# LocalCluster for each count in WORKERS, or on the cluster at SCHEDULER; checks the union of
# the shards against one process's digest; writes results/<host>/scale-out/dask.json and the
# scale-out README.
# Usage: scripts/cluster.sh   (N, PARTS, WORKERS, ROWS_PER_PART, SCHEDULER, OUTPUT; scripts/settings.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
n="${N:-$(last_experiment)}"
dir="$root/results/$HOST/scale-out"
mkdir -p "$dir"
# A shared directory by default: tmpfs, as make scaling uses, so the two efficiencies compare.
output="$OUTPUT"
if [ -z "$output" ]; then
  if [ -d /dev/shm ] && [ -w /dev/shm ]; then output=/dev/shm/shredlab-cluster; else output="$root/out/cluster"; fi
  trap 'rm -rf "$output"' EXIT
fi
python="$("$root/scripts/ensure-venv.sh")"
# An s3:// OUTPUT uses the caller's AWS_* credentials; no instance metadata service unless asked.
export AWS_EC2_METADATA_DISABLED="${AWS_EC2_METADATA_DISABLED:-true}"
use_allocator_of "$n"
args=(--bin "$bin" --experiment "$n" --workers "$WORKERS" --rows-per-part "$ROWS_PER_PART" --output "$output" --json-out "$dir/dask.json")
[ -n "$PARTS" ] && args+=(--parts "$PARTS")
[ -n "$SCHEDULER" ] && args+=(--scheduler "$SCHEDULER")
[ -n "$SPEC" ] && args+=(--spec "$SPEC")
status=0
"$python" "$root/scripts/cluster.py" "${args[@]}" || status=$?
if [ -s "$dir/dask.json" ]; then
  "$python" "$root/scripts/scale_out.py" render "$dir" --scaling "$root/results/$HOST/scaling/scaling.json"
fi
exit "$status"
