#!/usr/bin/env bash
# Where one experiment's time goes: perf record with frame-pointer call graphs rendered as a
# flamegraph (inferno) and sorted into the pipeline's parts (README.md, `results profile`), and an
# AMD uProf session when uProf is installed.
# Usage: scripts/profile.sh [N]   (ROWS; scripts/settings.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
# Without N, the catalog's newest entry.
n="${1:-}"
[ -n "$n" ] || n="$(last_experiment)"
dir="$root/results/$HOST/profile/$(experiment_name "$n")"; mkdir -p "$dir"
use_allocator_of "$n"
cmd=("$bin" --experiment "$n" --rows "$ROWS" --output-dir "$root/out/profile" --overwrite --quiet)

# inferno's collapse and flamegraph commands, from .tools/ or PATH (the same crate installs both).
"$root/scripts/ensure-cargo-tool.sh" inferno-flamegraph inferno 0.12.3 > /dev/null
export PATH="$root/.tools/bin:$PATH"

if command -v perf >/dev/null 2>&1; then
  event=cycles
  if ! perf stat -e cycles true 2>&1 | grep -q '[0-9],*[0-9]* *cycles'; then
    event=cpu-clock
    echo "hardware cycles are not supported here: sampling the cpu-clock software event" >&2
  fi
  perf record -e "$event" -F 999 --call-graph fp -o "$dir/perf.data" -- "${cmd[@]}"
  perf script -i "$dir/perf.data" | inferno-collapse-perf > "$dir/stacks.folded"
  title="experiment ${dir##*/}, $ROWS rows, event $event"
  inferno-flamegraph --title "$title" < "$dir/stacks.folded" > "$dir/flamegraph.svg"
  rm -f "$dir/perf.data"
  "$results" profile "$dir" --header "# Where the CPU goes: $title

Command: \`perf record -e $event -F 999 --call-graph fp -- pipeline --experiment $n --rows $ROWS\` (output on disk, allocator $SHREDLAB_ALLOCATOR), build \`$(git -C "$root" rev-parse --short=12 HEAD)\`$(git -C "$root" diff --quiet -- . ':!results' || echo ' (dirty tree)')."
  echo "flamegraph: $dir/flamegraph.svg, shares: $dir/README.md" >&2
else
  echo "perf is not installed: no flamegraph (apt-get install linux-perf)" >&2
fi

if command -v AMDuProfCLI >/dev/null 2>&1; then
  AMDuProfCLI collect --config tbp --output-dir "$dir/uprof" "${cmd[@]}"
  AMDuProfCLI report --input-dir "$dir/uprof" --output-dir "$dir/uprof"
else
  echo "AMD uProf not found (AMDuProfCLI not on PATH): skipping the uProf session" >&2
fi
if command -v AMDuProfPcm >/dev/null 2>&1; then
  AMDuProfPcm -m memory -a -o "$dir/uprof-pcm.csv" -- "${cmd[@]}"
else
  echo "AMDuProfPcm not found: no memory-bandwidth session (see 'make scaling' for estimates)" >&2
fi
rm -rf "$root/out/profile"
