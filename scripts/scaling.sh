#!/usr/bin/env bash
# K processes at once, each pinned to its own CPUs and generating its own shard, for each K in
# PROCS: per-process times and counters, system memory bandwidth where the platform exposes it,
# a STREAM ceiling, then the report, charts and model (results scaling).
# Usage: scripts/scaling.sh   (PROCS, CORES_PER_PROC, ROWS_PER_PROC, N from the Makefile)
set -euo pipefail
source "$(dirname "$0")/common.sh"
n="${N:-$(last_experiment)}"
procs_list="${PROCS:-1 2}"
cores_per_proc="${CORES_PER_PROC:-1}"
rows_per_proc="${ROWS_PER_PROC:-5000000}"
# Output on tmpfs by default, so storage does not confound a study of memory bandwidth (on this
# VM's disk two writers slow each other by ~35%); SCALING_OUTPUT=out includes storage.
if [ -z "${SCALING_OUTPUT:-}" ]; then
  if [ -d /dev/shm ] && [ -w /dev/shm ]; then SCALING_OUTPUT=/dev/shm/shredlab-scaling; else SCALING_OUTPUT="$root/out"; fi
fi
cpus="$(nproc)"
dir="$root/results/$host/scaling"
rm -rf "$dir"; mkdir -p "$dir"
export SHREDLAB_ALLOCATOR="$(allocator_of "$n")"

# Memory-controller events, if this kernel exposes any (Intel IMC CAS counts, AMD UMC).
memory_events="$(perf list 2>/dev/null | grep -oE 'uncore_imc[_0-9]*/cas_count_(read|write)/|amd_umc[_0-9]*/umc_data_slot_clks[^ ]*/' | sort -u | paste -sd, - || true)"
if [ -n "$memory_events" ]; then
  echo "memory bandwidth: perf stat -a -e $memory_events" >&2
elif command -v AMDuProfPcm >/dev/null 2>&1 || command -v pcm-memory >/dev/null 2>&1 || command -v likwid-perfctr >/dev/null 2>&1; then
  echo "memory bandwidth: a uProf/PCM/likwid tool is installed; its CSV is kept beside each step" >&2
else
  echo "no memory-controller counters and no uProf/PCM/likwid here: bandwidth will be an estimate (labelled)" >&2
fi

events=task-clock,context-switches,page-faults,cycles,instructions
runs="${SCALING_RUNS:-3}"
# Repetitions interleave the process counts, so a slow spell of the shared host hits them all.
for ((rep = 0; rep < runs; rep++)); do
for k in $procs_list; do
  if [ $((k * cores_per_proc)) -gt "$cpus" ]; then
    echo "skipping $k processes: $((k * cores_per_proc)) CPUs needed, $cpus available" >&2
    continue
  fi
  step="$dir/K$k/r$rep"; mkdir -p "$step"
  echo "== run $rep: $k process(es) x $cores_per_proc CPU(s), $rows_per_proc rows each, experiment $n" >&2
  launch() {
    for ((i = 0; i < k; i++)); do
      first=$((i * cores_per_proc)); last=$((first + cores_per_proc - 1))
      taskset -c "$first-$last" perf stat -x, -o "$step/p$i.perf.csv" -e "$events" -- \
        "$bin" --experiment "$n" --rows $((k * rows_per_proc)) --part "$i" --parts "$k" \
        --producers "$cores_per_proc" --writers 1 --output-dir "$SCALING_OUTPUT/scaling-$i" \
        --overwrite --quiet --json > "$step/p$i.json" &
    done
    wait
  }
  if [ -n "$memory_events" ]; then
    perf stat -a -x, -o "$step/memory.csv" -e "$memory_events" -- bash -c "$(declare -f launch); k=$k step=$step n=$n bin=$bin root=$root SCALING_OUTPUT=$SCALING_OUTPUT cores_per_proc=$cores_per_proc rows_per_proc=$rows_per_proc events=$events launch"
  elif command -v AMDuProfPcm >/dev/null 2>&1; then
    AMDuProfPcm -m memory -a -o "$step/uprof-pcm.csv" -- bash -c "$(declare -f launch); k=$k step=$step n=$n bin=$bin root=$root SCALING_OUTPUT=$SCALING_OUTPUT cores_per_proc=$cores_per_proc rows_per_proc=$rows_per_proc events=$events launch"
  else
    launch
  fi
  for ((i = 0; i < k; i++)); do rm -rf "$SCALING_OUTPUT/scaling-$i"; done
done
done

if command -v valgrind >/dev/null 2>&1; then
  rows="${CACHEGRIND_ROWS:-200000}"
  echo "== cachegrind cross-check of the bytes each row moves ($rows rows, one process)" >&2
  valgrind --tool=cachegrind --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=33554432,16,64 \
    --cachegrind-out-file=/dev/null "$bin" --experiment "$n" --rows "$rows" --producers "$cores_per_proc" \
    --writers 1 --output-dir "$root/out/scaling-cg" --overwrite --quiet 2> "$dir/cachegrind.txt" > /dev/null
  echo "$rows" > "$dir/cachegrind-rows.txt"
  rm -rf "$root/out/scaling-cg"
fi

echo "== STREAM probe" >&2
"$stream" > "$dir/stream.json"
"$results" scaling "$dir"
