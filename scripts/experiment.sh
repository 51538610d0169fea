#!/usr/bin/env bash
# Measures one experiment: the data gate once, then hyperfine timings of the release binary.
# Usage: scripts/experiment.sh N   (settings come from the environment; see the Makefile)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
n="${1:?usage: experiment.sh N}"
bin="$root/target/release/pipeline"
rows="${ROWS:-10000000}"; runs="${RUNS:-10}"; warmup="${WARMUP:-1}"
host="${HOST:-$(hostname -s)}"

slug="$("$bin" --list | awk -v n="$(printf '%02d' "$n")" '$1 == n { print $2 }')"
if [ -z "$slug" ]; then
  echo "error: unknown experiment $n: run 'make list' to see the catalog" >&2
  exit 2
fi
dir="$root/results/$host/$(printf '%02d' "$n")-$slug"
scratch="$root/out/experiment-$n"
mkdir -p "$dir"

args=(--experiment "$n" --rows "$rows" --output-dir "$scratch" --overwrite --quiet
      --compression "${COMPRESSION:-none}")
[ -n "${PRODUCERS:-}" ] && args+=(--producers "$PRODUCERS")
[ -n "${WRITERS:-}" ] && args+=(--writers "$WRITERS")
[ -n "${BATCH:-}" ] && args+=(--batch-size "$BATCH")

echo "== $(basename "$dir"): data gate" >&2
"$bin" "${args[@]}" --verify --json > "$dir/gate.json"

hyperfine="$("$root/scripts/ensure-hyperfine.sh")"
command_line="$bin ${args[*]}"
echo "== $(basename "$dir"): hyperfine, $runs runs" >&2
"$hyperfine" --warmup "$warmup" --runs "$runs" --style basic \
  --prepare "rm -rf '$scratch'" --export-json "$dir/hyperfine.json" \
  --command-name "$(basename "$dir")" "$command_line" >&2
rm -rf "$scratch"
echo "$command_line" > "$dir/command.txt"
echo "results in $dir" >&2
