#!/usr/bin/env bash
# Measures one experiment the way `make experiment N=...` documents: data gate, peak memory,
# hyperfine timings, the floor (generation alone and encoding alone), heap counts, CPU by role
# and phase (`--counters`, with memory-controller counts where exposed, and `--timeline`), perf
# stat counters (with a labelled cachegrind simulation where the hardware counters read <not
# supported>), metadata;
# then summarizes and redraws the host's charts.
# Usage: scripts/experiment.sh [N]   (settings from the environment; scripts/settings.sh lists them)
# With TIMING=later the hyperfine step, the floor, the summary and the charts are left to the
# caller, which times many experiments in interleaved rounds (scripts/experiments.sh): the
# command to time is left in the folder's timed-command file, and the floor's two commands, for
# the caller to run once in each of its rounds (add_round_floors, time_rounds), in its
# floor-commands file.
# With a folder and arguments after N (scripts/designs.sh), the results go to that folder instead
# of the catalog's, and the arguments are added to every pipeline command line.
set -euo pipefail
source "$(dirname "$0")/common.sh"
# Without N, the catalog's newest entry.
n="${1:-}"
[ -n "$n" ] || n="$(last_experiment)"

name="$(experiment_name "$n")"
dir="${2:-$catalog_dir/$name}"
[ -n "${2:-}" ] && name="$(basename "$dir")"
extra=("${@:3}")
scratch="$root/out/experiment-$n"
mkdir -p "$dir"
rm -f "$dir/cachegrind.txt" "$dir/perf-stat.csv"

args=(--experiment "$n" --output-dir "$scratch" --overwrite --quiet
      --compression "$COMPRESSION" --sync "$SYNC" ${spec_args[@]+"${spec_args[@]}"})
[ -n "$PRODUCERS" ] && args+=(--producers "$PRODUCERS")
[ -n "$WRITERS" ] && args+=(--writers "$WRITERS")
[ -n "$BATCH" ] && args+=(--batch-size "$BATCH")
args+=(${extra[@]+"${extra[@]}"})

say() { echo "== $name: $*" >&2; }

say "data gate ($ROWS rows)"
"$bin" "${args[@]}" --rows "$ROWS" --verify --json > "$dir/gate.json"
# Run every later command on the experiment's allocator directly, so no run pays for (or,
# under valgrind, escapes through) the binary's re-exec.
SHREDLAB_ALLOCATOR="$("$results" json-get "$dir/gate.json" /allocator)"
export SHREDLAB_ALLOCATOR

peak_kb=null
if [ -x /usr/bin/time ]; then
  say "peak memory"
  /usr/bin/time -f '%M' -o "$scratch.maxrss" "$bin" "${args[@]}" --rows "$ROWS" > /dev/null
  peak_kb="$(tail -n 1 "$scratch.maxrss")"
  rm -f "$scratch.maxrss"
fi

# The allocator goes on the command line, so the command runs alike under any caller.
timed="SHREDLAB_ALLOCATOR=$SHREDLAB_ALLOCATOR $bin ${args[*]} --rows $ROWS"
printf '%s\n' "$timed" > "$dir/timed-command"
hyperfine="$("$root/scripts/ensure-hyperfine.sh")"
timing="${TIMING:-hyperfine}"
if [ "$timing" = later ]; then
  timing=rotated
else
  say "hyperfine, $WARMUP warm-up + $RUNS runs"
  rm -f "$dir/hyperfine.json"
  "$hyperfine" --warmup "$WARMUP" --runs "$RUNS" --style basic \
    --prepare "rm -rf '$scratch'" --export-json "$dir/hyperfine.json" \
    --command-name "$name" "$timed" >&2
  timing=sequential
fi

: > "$dir/floor-generation.jsonl"
: > "$dir/floor-encoding.jsonl"
# The floor's two runs, each appending its report, every word quoted for the shell that runs
# the lines (here, or the caller's time_rounds).
printf -v run 'SHREDLAB_ALLOCATOR=%q ' "$SHREDLAB_ALLOCATOR"
printf -v words '%q ' "$bin" "${args[@]}" --rows "$ROWS"
printf -v generation_log '%q' "$dir/floor-generation.jsonl"
printf -v encoding_log '%q' "$dir/floor-encoding.jsonl"
printf '%s\n' \
  "$run$words--sink null --json >> $generation_log" \
  "$run$words--prebuilt --sink count --json >> $encoding_log" > "$dir/floor-commands"
if [ "$timing" = rotated ]; then
  # The caller runs them once in each of its timed rounds (time_rounds), so that every run of
  # the floor shares a round, and the host's spell, with one timed run.
  say "floor: generation alone (--sink null) and encoding alone (--prebuilt --sink count), once in each of the $RUNS timed rounds"
  floor_runs="$RUNS" floor_timing=rounds
else
  say "floor: generation alone (--sink null) and encoding alone (--prebuilt --sink count), $FLOOR_RUNS runs each, interleaved"
  floor_runs="$FLOOR_RUNS" floor_timing=apart
  for _ in $(seq "$FLOOR_RUNS"); do
    bash -ec "$(cat "$dir/floor-commands")"
  done
fi

say "heap: one untimed run with --count-allocations"
"$bin" "${args[@]}" --rows "$ROWS" --count-allocations --json > "$dir/heap.json"

say "counters: one untimed run with --counters (CPU by role and phase) and --timeline, memory-controller counts around it where exposed"
memory="$(memory_events)"
counted=("$bin" "${args[@]}" --rows "$ROWS" --counters --timeline "$dir/timeline.csv" --json)
rm -f "$dir/counters.json" "$dir/memory.csv" "$dir/uprof-pcm.csv" "$dir/stream.json" \
  "$dir/timeline.csv" "$dir/timeline.png" "$dir/timeline.svg"
# As before each timed run: replacing an earlier run's files would add their removal to the
# commit, which the timeline shows as the main thread's tail.
rm -rf "$scratch"
memory_note=""
if [ -n "$memory" ]; then
  perf stat -a -x, -o "$dir/memory.csv" -e "$memory" -- "${counted[@]}" > "$dir/counters.json"
  "$stream" > "$dir/stream.json"
elif command -v AMDuProfPcm >/dev/null 2>&1; then
  AMDuProfPcm -m memory -a -o "$dir/uprof-pcm.csv" -- "${counted[@]}" > "$dir/counters.json"
  memory_note="AMDuProfPcm's memory report is in uprof-pcm.csv (not parsed into the tables)"
  "$stream" > "$dir/stream.json"
else
  "${counted[@]}" > "$dir/counters.json" || {
    echo "pipeline --counters failed here (see its error above): no CPU by role" >&2
    rm -f "$dir/counters.json"
  }
  memory_note="$(memory_missing_reason)"
fi

hardware=no
if command -v perf >/dev/null 2>&1; then
  say "perf stat"
  events=cycles,instructions,cache-references,cache-misses,branch-instructions,branch-misses,task-clock,context-switches,page-faults
  if perf stat -x, -o "$dir/perf-stat.csv" -e "$events" -- "$bin" "${args[@]}" --rows "$ROWS" > /dev/null; then
    grep -q '^[0-9.]*,[^,]*,instructions' "$dir/perf-stat.csv" && hardware=yes
  else
    echo "perf stat failed (see kernel.perf_event_paranoid); continuing without it" >&2
    rm -f "$dir/perf-stat.csv"
  fi
else
  echo "perf is not installed: no counters from perf (apt-get install linux-perf)" >&2
fi

cachegrind=null
if [ "$hardware" = no ] && [ "$CACHEGRIND_ROWS" -gt 0 ]; then
  if command -v valgrind >/dev/null 2>&1; then
    say "hardware counters not supported here: cachegrind simulation of $CACHEGRIND_ROWS rows"
    # Zen 4: 32 KiB 8-way L1s, 32 MiB 16-way L3, 64-byte lines (the VM reports a bogus L3).
    valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes \
      --I1=32768,8,64 --D1=32768,8,64 --LL=33554432,16,64 --cachegrind-out-file=/dev/null \
      "$bin" "${args[@]}" --rows "$CACHEGRIND_ROWS" 2> "$dir/cachegrind.txt" > /dev/null
    cachegrind="$CACHEGRIND_ROWS"
  else
    echo "no hardware counters and no valgrind: counters limited to perf's software events" >&2
  fi
fi
rm -rf "$scratch"

workload=contacts
[ -n "$SPEC" ] && workload="${SPEC#"$root"/}"
write_metadata "$dir" "$dir/gate.json" "
  \"command\": \"$(json_escape "$timed")\",
  \"rows\": $ROWS,
  \"floor_runs\": $floor_runs,
  \"floor_timing\": \"$floor_timing\",
  \"runs\": $RUNS,
  \"warmup\": $WARMUP,
  \"hyperfine\": \"$(json_escape "$("$hyperfine" --version)")\",
  \"peak_rss_kb\": $peak_kb,
  \"cachegrind_rows\": $cachegrind,
  \"sync\": \"$(json_escape "$SYNC")\",
  \"workload\": \"$(json_escape "$workload")\",
  \"timing\": \"$timing\",
  \"memory_counters\": \"$(json_escape "${memory_note:-perf stat -a -e $memory}")\","
if [ "$timing" = sequential ]; then
  "$results" summarize "$dir"
  record_history "$dir"
  "$results" render "$catalog_dir"
fi
