#!/usr/bin/env bash
# K processes at once, each pinned to its own CPUs and generating its own shard, for each K in
# PROCS: per-process times and counters, system memory bandwidth where the platform exposes it,
# a STREAM ceiling, then the report, charts and model (results scaling).
# Usage: scripts/scaling.sh   (N, PROCS, CORES_PER_PROC, ROWS_PER_PROC, SCALING_RUNS, SCALING_OUTPUT,
# CACHEGRIND_ROWS; scripts/settings.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
n="${N:-$(last_experiment)}"
# Output on tmpfs by default, so storage does not confound a study of memory bandwidth;
# SCALING_OUTPUT=out includes storage.
if [ -z "$SCALING_OUTPUT" ]; then
  if [ -d /dev/shm ] && [ -w /dev/shm ]; then SCALING_OUTPUT=/dev/shm/shredlab-scaling; else SCALING_OUTPUT="$root/out"; fi
fi
cpus="$(nproc)"
dir="$root/results/$HOST/scaling"
rm -rf "$dir"; mkdir -p "$dir"
use_allocator_of "$n"

# Memory-controller events, if this kernel exposes any (Intel IMC CAS counts, AMD UMC).
memory_events="$(memory_events)"
if [ -n "$memory_events" ]; then
  echo "memory bandwidth: perf stat -a -e $memory_events" >&2
elif command -v AMDuProfPcm >/dev/null 2>&1 || command -v pcm-memory >/dev/null 2>&1 || command -v likwid-perfctr >/dev/null 2>&1; then
  echo "memory bandwidth: a uProf/PCM/likwid tool is installed; its CSV is kept beside each step" >&2
else
  echo "no memory-controller counters and no uProf/PCM/likwid here: bandwidth will be an estimate (labelled)" >&2
fi

events=task-clock,context-switches,page-faults,cycles,instructions
# Starts the k processes of one step and waits for them.
launch() {
  for ((i = 0; i < k; i++)); do
    first=$((i * CORES_PER_PROC)); last=$((first + CORES_PER_PROC - 1))
    taskset -c "$first-$last" perf stat -x, -o "$step/p$i.perf.csv" -e "$events" -- \
      "$bin" --experiment "$n" --rows $((k * ROWS_PER_PROC)) --part "$i" --parts "$k" \
      --producers "$CORES_PER_PROC" --writers 1 --output-dir "$SCALING_OUTPUT/scaling-$i" \
      --overwrite --quiet --json > "$step/p$i.json" &
  done
  wait
}
# Repetitions interleave the process counts, so a slow spell of the shared host hits them all.
for ((rep = 0; rep < SCALING_RUNS; rep++)); do
for k in $PROCS; do
  if [ $((k * CORES_PER_PROC)) -gt "$cpus" ]; then
    echo "skipping $k processes: $((k * CORES_PER_PROC)) CPUs needed, $cpus available" >&2
    continue
  fi
  step="$dir/K$k/r$rep"; mkdir -p "$step"
  echo "== run $rep: $k process(es) x $CORES_PER_PROC CPU(s), $ROWS_PER_PROC rows each, experiment $n" >&2
  # launch as a bash command of its own, for a tool that measures the processes it starts.
  launcher="$(declare -f launch); $(declare -p k step n bin SCALING_OUTPUT CORES_PER_PROC ROWS_PER_PROC events); launch"
  if [ -n "$memory_events" ]; then
    perf stat -a -x, -o "$step/memory.csv" -e "$memory_events" -- bash -c "$launcher"
  elif command -v AMDuProfPcm >/dev/null 2>&1; then
    AMDuProfPcm -m memory -a -o "$step/uprof-pcm.csv" -- bash -c "$launcher"
  else
    launch
  fi
  for ((i = 0; i < k; i++)); do rm -rf "$SCALING_OUTPUT/scaling-$i"; done
done
done

if command -v valgrind >/dev/null 2>&1; then
  echo "== cachegrind cross-check of the bytes each row moves ($CACHEGRIND_ROWS rows, one process)" >&2
  valgrind --tool=cachegrind --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=33554432,16,64 \
    --cachegrind-out-file=/dev/null "$bin" --experiment "$n" --rows "$CACHEGRIND_ROWS" --producers "$CORES_PER_PROC" \
    --writers 1 --output-dir "$root/out/scaling-cg" --overwrite --quiet 2> "$dir/cachegrind.txt" > /dev/null
  echo "$CACHEGRIND_ROWS" > "$dir/cachegrind-rows.txt"
  rm -rf "$root/out/scaling-cg"
fi

echo "== STREAM probe" >&2
"$stream" > "$dir/stream.json"
# Where and from which build, before the report, so a report that fails still leaves it; the
# build stamp is the first measured process's own.
write_metadata "$dir" "$dir/K1/r0/p0.json" "
  \"command\": \"$(json_escape "make scaling N=$n PROCS=\"$PROCS\" CORES_PER_PROC=$CORES_PER_PROC ROWS_PER_PROC=$ROWS_PER_PROC SCALING_RUNS=$SCALING_RUNS SCALING_OUTPUT=$SCALING_OUTPUT CACHEGRIND_ROWS=$CACHEGRIND_ROWS")\","
"$results" scaling "$dir"
