#!/usr/bin/env bash
# Fault injection: runs the pipeline into each fault and prints, as a Markdown table, its exit
# code, its message and the files it left (final names and temporaries). Also written to
# results/<host>/faults.md. Usage: scripts/faults.sh   (KILLS random SIGKILLs; scripts/settings.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
cargo build --release --locked --quiet --manifest-path "$root/Cargo.toml" --example faults
faults="$bin_dir/examples/faults"
work="$(mktemp -d "${TMPDIR:-/tmp}/shredlab-faults.XXXXXX")"
tmpfs_mounted=""
cleanup() {
  [ -n "$tmpfs_mounted" ] && umount "$tmpfs_mounted" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
rows=3000000
table="| fault | exit | message | final-named files left | temporaries left |
|---|---:|---|---:|---:|"

# Files in $1: "final temporaries", where final counts part files and manifests.
left() {
  local final tmp
  [ -d "$1" ] || { echo "0 0"; return; }
  final="$(find "$1" -maxdepth 1 \( -name '*.parquet' -o -name '*manifest.json' \) | wc -l)"
  tmp="$(find "$1" -maxdepth 1 -name '.*.tmp' | wc -l)"
  echo "$final $tmp"
}

violations=""
# Checks what a fault left: a failed run leaves no final-named file but the $5 of an earlier run
# (default 0), and no temporary unless it was SIGKILLed; a finished run (the reruns) leaves no
# temporary.
check() {
  local name="$1" code="$2" final="$3" tmp="$4" kept="${5:-0}"
  if [ "$code" = 0 ]; then
    [ "$tmp" = 0 ] || violations+="$name: finished but left $tmp temporaries"$'\n'
  elif [ "$code" = 137 ]; then
    [ "$final" = 0 ] || violations+="$name: killed but left $final final-named files"$'\n'
  else
    [ "$final" = "$kept" ] && [ "$tmp" = 0 ] || violations+="$name: failed but left $final final-named files (expected $kept) and $tmp temporaries"$'\n'
  fi
}

# Appends a row: fault, exit code, stderr file, directory, and the final-named files of an
# earlier run that must be left (default 0).
row() {
  local message final tmp
  message="$({ grep -m1 '^error' "$3" || true; } \
    | sed 's/^error: //; s/ at path "[^"]*"//; s/|/\\|/g' | cut -c1-200)"
  if [ -z "$message" ]; then
    case "$2" in
      0) message="(none: the run finished)" ;;
      137) message="(none: SIGKILL cannot be caught)" ;;
      *) message="(none)" ;;
    esac
  fi
  read -r final tmp <<< "$(left "$4")"
  table+=$'\n'"| $1 | $2 | $message | $final | $tmp |"
  check "$1" "$2" "$final" "$tmp" "${5:-0}"
}

# Runs "$@" in the background, sends $signal after $delay seconds, records the row ($KEPT: the
# final-named files of an earlier run that must be left).
signalled() {
  local name="$1" signal="$2" delay="$3" dir="$4"; shift 4
  "$@" > /dev/null 2> "$work/err" & local pid=$!
  sleep "$delay"; kill "-$signal" "$pid" 2>/dev/null || true
  local code=0; wait "$pid" || code=$?
  row "$name" "$code" "$work/err" "$dir" "${KEPT:-0}"
}

run() {
  local name="$1" dir="$2"; shift 2
  local code=0; "$@" > /dev/null 2> "$work/err" || code=$?
  row "$name" "$code" "$work/err" "$dir"
}

echo "== disk full" >&2
mkdir -p "$work/full"
if mount -t tmpfs -o size=8m tmpfs "$work/full" 2>/dev/null; then
  tmpfs_mounted="$work/full"
  run "disk full (8 MiB tmpfs)" "$work/full" "$bin" -e 20 -n "$rows" -q -o "$work/full"
  umount "$work/full"; tmpfs_mounted=""
else
  table+=$'\n'"| disk full | - | skipped: mounting a size-limited tmpfs needs root (the tests a_full_disk_stops_the_run_with_an_error and a_sink_failing_after_n_bytes_is_an_error_at_every_point cover it) | - | - |"
fi

echo "== disk full while the manifest is written" >&2
# One producer, so the same command writes the same bytes: a tmpfs of exactly the part files'
# pages takes them, and not the manifest.
mkdir -p "$work/manifest-full"
sizing=(-e 20 -n 300000 --producers 1 --writers 2 -q)
"$bin" "${sizing[@]}" -o "$work/sizing" > /dev/null
page="$(getconf PAGESIZE)"; pages=0
for part in "$work/sizing"/*.parquet; do pages=$(( pages + ($(stat -c %s "$part") + page - 1) / page )); done
if mount -t tmpfs -o size=$(( pages * page )) tmpfs "$work/manifest-full" 2>/dev/null; then
  tmpfs_mounted="$work/manifest-full"
  run "disk full while the manifest is written" "$work/manifest-full" "$bin" "${sizing[@]}" -o "$work/manifest-full"
  umount "$work/manifest-full"; tmpfs_mounted=""
else
  table+=$'\n'"| disk full while the manifest is written | - | skipped: mounting a size-limited tmpfs needs root (the test a_disk_full_at_the_manifest_leaves_no_run_or_the_earlier_one_whole covers it in a user namespace) | - | - |"
fi

echo "== SIGINT, SIGTERM, SIGHUP" >&2
signalled "SIGINT mid-run" INT 0.5 "$work/int" "$bin" -e 20 -n 2000000000 -q -o "$work/int"
signalled "SIGTERM mid-run" TERM 0.5 "$work/term" "$bin" -e 20 -n 2000000000 -q -o "$work/term"
signalled "SIGHUP mid-run" HUP 0.5 "$work/hup" "$bin" -e 20 -n 2000000000 -q -o "$work/hup"

echo "== SIGINT while --overwrite replaces a finished run" >&2
"$bin" -e 20 -n 100000 --writers 2 -q -o "$work/over" > /dev/null
earlier="$(cd "$work/over" && cksum ./*)"
KEPT=3 signalled "SIGINT mid-run with --overwrite over a finished run (its 2 parts and manifest must stay)" \
  INT 0.5 "$work/over" "$bin" -e 20 -n 2000000000 -q --overwrite -o "$work/over"
[ "$(cd "$work/over" && cksum ./*)" = "$earlier" ] \
  || violations+="SIGINT with --overwrite: the earlier run's files changed"$'\n'

echo "== SIGKILL at random points" >&2
for ((i = 0; i < KILLS; i++)); do
  delay="$(( RANDOM % 2 )).$(( RANDOM % 10 ))"
  dir="$work/kill-$i"
  signalled "SIGKILL after ${delay} s" KILL "$delay" "$dir" "$bin" -e 20 -n 30000000 -q -o "$dir"
  run "then the same run with --overwrite" "$dir" "$bin" -e 20 -n 200000 -q --overwrite -o "$dir"
done

echo "== injected faults" >&2
run "panicking producer" "$work/panic" "$faults" producer-panic "$work/panic"
run "writer failing after 1 MiB" "$work/wfail" "$faults" writer-fails "$work/wfail"
signalled "stalled writer, channel full, SIGTERM" TERM 0.5 "$work/stall" "$faults" stalled-writer "$work/stall"

mkdir -p "$root/results/$HOST"
printf '%s\n' "$table" | tee "$root/results/$HOST/faults.md"
if [ -n "$violations" ]; then
  printf 'FAULT HANDLING FAILED:\n%s' "$violations" >&2
  exit 1
fi
