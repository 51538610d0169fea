#!/usr/bin/env bash
# make history: seeds results/<host>/history.jsonl from the committed results the first time,
# finds each figure's change points with Apache Otava (scripts/history/changes.py, in
# .tools/otava-venv) and writes history.md and the charts beside it.
# Usage: scripts/history.sh   (HOST; scripts/settings.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
host_dir="$root/results/$HOST"
if [ ! -d "$host_dir" ]; then
  echo "error: no results for host $HOST in $host_dir: run make experiment first, or set HOST" >&2
  exit 2
fi
[ -s "$host_dir/history.jsonl" ] || "$results" history-import "$host_dir"
python="$("$root/scripts/ensure-venv.sh" history)"
"$python" "$root/scripts/history/changes.py" "$host_dir/history.jsonl" "$host_dir/history-changes.json"
"$results" history "$host_dir" --changes "$host_dir/history-changes.json"
"$results" index "$host_dir"
