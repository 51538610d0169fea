# shellcheck shell=bash
# Shared helpers of the measurement scripts (sourced, not run).
# shellcheck disable=SC2034 # the variables set here are read by the scripts that source this file
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=settings.sh
source "$root/scripts/settings.sh"
# Build first, so a script never runs a binary older than the sources it is about to record.
cargo build --release --locked --quiet --manifest-path "$root/Cargo.toml"
bin_dir="$("$root/scripts/bin-dir.sh")"
bin="$bin_dir/pipeline"
results="$bin_dir/results"
stream="$bin_dir/stream"

# With SPEC=FILE the experiments generate that spec workload instead of the contacts: their
# results go to a folder of their own, results/<host>/spec-<name>, rendered like a host's.
spec_args=()
catalog_dir="$root/results/$HOST"
if [ -n "$SPEC" ]; then
  if [ ! -f "$SPEC" ]; then
    echo "error: SPEC=$SPEC is not a file: give a spec such as specs/lineitem.json (see SPEC.md)" >&2
    exit 2
  fi
  SPEC="$(cd "$(dirname "$SPEC")" && pwd)/$(basename "$SPEC")"
  spec_args=(--spec "$SPEC")
  catalog_dir="$root/results/$HOST/spec-$(basename "$SPEC" .json)"
fi

# The highest experiment number in the catalog: the best configuration by default.
last_experiment() { "${1:-$bin}" --list | awk 'NR > 1 { n = $1 + 0 } END { print n }'; }

# The results folder name of experiment N, `NN-slug`; exits with a clear error for an unknown N.
experiment_name() {
  local slug
  slug="$("$bin" --list | awk -v n="$(printf '%02d' "$1")" '$1 == n { print $2 }')"
  if [ -z "$slug" ]; then
    echo "error: unknown experiment $1: run 'make list' to see the catalog" >&2
    exit 2
  fi
  printf '%02d-%s\n' "$1" "$slug"
}

# The allocator experiment N runs on, from a one-row run's report (of binary $2, the
# pipeline by default).
allocator_of() {
  local probe="$root/out/probe-$1" report
  report="$("${2:-$bin}" --experiment "$1" --rows 1 --output-dir "$probe" --overwrite --quiet --json)" || return
  rm -rf "$probe"
  "$results" json-get - /allocator <<< "$report"
}

# The short name of commit $2 (a commit, tag or branch), which setting $1 gave; exits with a
# clear error for anything else.
commit_name() {
  local sha
  sha="$(git -C "$root" rev-parse --verify --quiet "$2^{commit}")" || {
    echo "error: $1=$2 is not a commit of this repository: give a commit, tag or branch (git log --oneline)" >&2
    exit 2
  }
  git -C "$root" rev-parse --short=12 "$sha"
}

# The pipeline binary of the commit named $1 (as commit_name names it), built once in a git
# worktree of it, .compare/trees/$1, whose files (its specs) stay there; one target directory
# serves every such commit and is kept for the next. Prints the binary's path.
base_pipeline() {
  local name="$1" work="$root/.compare" tree binary
  tree="$work/trees/$name"
  binary="$work/bin/pipeline-$name"
  if [ ! -x "$binary" ]; then
    if [ ! -d "$tree" ]; then
      echo "== a worktree of $name in $tree" >&2
      mkdir -p "$work/trees"
      git -C "$root" worktree add --detach "$tree" "$name" >&2
    fi
    echo "== building $name's pipeline (target directory $work/target, kept for the next commit)" >&2
    # A profile the commit may not have is not asked for: its own release profile.
    CARGO_TARGET_DIR="$work/target" cargo build --release --locked \
      --manifest-path "$tree/Cargo.toml" -p shredlab-experiments --bin pipeline >&2
    mkdir -p "$work/bin"
    cp "$work/target/release/pipeline" "$binary.tmp"
    mv "$binary.tmp" "$binary"
  fi
  echo "$binary"
}

# Runs every later command on experiment N's allocator directly (SHREDLAB_ALLOCATOR), so measured
# runs skip the binary's re-exec.
use_allocator_of() {
  SHREDLAB_ALLOCATOR="$(allocator_of "$1")"
  export SHREDLAB_ALLOCATOR
}

# The memory-controller events perf can count system-wide here (Intel IMC CAS counts, AMD
# UMC data transfers), comma-separated; empty where the platform exposes none (a VM).
memory_events() {
  perf list 2>/dev/null \
    | grep -oE 'uncore_imc[_0-9]*/cas_count_(read|write)/|amd_umc[_0-9]*/umc_data_slot_clks[^ ]*/' \
    | sort -u | paste -sd, - || true
}

# Why no memory-controller counters are read here, for the results to say.
memory_missing_reason() {
  if ! command -v perf >/dev/null 2>&1; then
    echo "perf is not installed (apt-get install linux-perf)"
  else
    echo "perf list shows no uncore_imc or amd_umc memory-controller events on this machine (a VM exposes none; on bare metal they need perf_event_paranoid <= 0 or root for perf stat -a), and AMDuProfPcm is not installed"
  fi
}

# $1 as the inside of a JSON string: backslash, quote and every control character escaped.
json_escape() {
  local text="$1" code hex char
  text="${text//"\\"/"\\\\"}"
  text="${text//"\""/"\\\""}"
  text="${text//$'\n'/'\n'}"
  text="${text//$'\t'/'\t'}"
  text="${text//$'\r'/'\r'}"
  for code in {1..31}; do
    printf -v hex '%02x' "$code"
    printf -v char '%b' "\\x$hex"
    text="${text//"$char"/"\\u00$hex"}"
  done
  printf '%s' "$text"
}

# Writes metadata.json for a run whose --json report is $2 into folder $1: the machine, and the
# commit and dirty flag the measured binary was built from (its build stamp, not the tree's
# state now). Extra JSON members (already formatted, with a trailing comma each) come as $3.
write_metadata() {
  local dir="$1" report="$2" extra="${3:-}" commit dirty
  commit="$("$results" json-get "$report" /build/commit)"
  dirty="$("$results" json-get "$report" /build/dirty)"
  # The build stamp's dirty flag is null where git could not tell.
  case "$dirty" in true|false) ;; *) dirty=null ;; esac
  cat > "$dir/metadata.json" <<JSON
{
  "host": "$(json_escape "$HOST")",
  "cpu": "$(json_escape "$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)")",
  "cores": $(nproc),
  "kernel": "$(json_escape "$(uname -r)")",
  "rustc": "$(json_escape "$(rustc -V 2>/dev/null || echo unknown)")",
  "commit": "$(json_escape "$commit")",
  "dirty": $dirty,
  "date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",$extra
  "allocator": "$(json_escape "${SHREDLAB_ALLOCATOR:-system}")"
}
JSON
}

# Appends the figures of the run in folder $1 to results/$HOST/history.jsonl (make history).
record_history() {
  "$results" history-append "$1" --history "$root/results/$HOST/history.jsonl"
}

# The hypervisor's steal from every CPU since boot, in /proc/stat's 10 ms ticks (0 where the
# kernel does not say, as on bare metal or another OS).
machine_steal_ticks() {
  awk '$1 == "cpu" { print ($9 == "" ? 0 : $9); found = 1; exit } END { if (!found) print 0 }' \
    /proc/stat 2> /dev/null || echo 0
}

# Times commands in interleaved rounds: WARMUP untimed rounds, then RUNS rounds exported as
# $1/round-NNNN.json. Each round is one hyperfine call that times every command once; the
# commands come after $1, five words each (--prepare P --command-name NAME COMMAND). Round r
# (of the warm-up, and of the timed rounds) starts at command r, round-robin, so going first
# costs every command alike, and the host's drift hits all of them alike instead of whichever
# ran during a slow spell.
# Each timed round appends "ROUND<TAB>SECONDS" to $1/steal.tsv: the CPU time the hypervisor took
# from this machine's CPUs during the round (bench/src/steal.rs reports it).
# The entries of the global array round_floors (add_round_floors fills it, one per experiment)
# run once after every timed round, starting one experiment further each round too: the floors
# of scripts/experiment.sh with TIMING=later, each appending its reports to its folder, so that
# run r of a floor shares round r's spell. Callers that time no floors leave it unset.
time_rounds() {
  local out="$1"; shift
  local commands=("$@") floors=(${round_floors[@]+"${round_floors[@]}"}) hyperfine round start
  local floor steal_before
  hyperfine="$("$root/scripts/ensure-hyperfine.sh")"
  mkdir -p "$out"
  for round in $(seq "$WARMUP"); do
    echo "== warm-up round $round of $WARMUP (not recorded)" >&2
    start=$(( (round - 1) % ($# / 5) * 5 ))
    "$hyperfine" --runs 1 --style basic "${commands[@]:start}" "${commands[@]:0:start}" > /dev/null
  done
  for round in $(seq "$RUNS"); do
    echo "== round $round of $RUNS: each of $(( $# / 5 )) commands once${floors[0]+, then ${#floors[@]} floors}" >&2
    start=$(( (round - 1) % ($# / 5) * 5 ))
    steal_before="$(machine_steal_ticks)"
    "$hyperfine" --runs 1 --style basic --export-json "$out/round-$(printf '%04d' "$round").json" \
      "${commands[@]:start}" "${commands[@]:0:start}" > /dev/null
    awk -v round="$round" -v before="$steal_before" -v after="$(machine_steal_ticks)" \
      'BEGIN { printf "%d\t%.2f\n", round, (after - before) / 100 }' >> "$out/steal.tsv"
    [ "${#floors[@]}" -gt 0 ] || continue
    start=$(( (round - 1) % ${#floors[@]} ))
    for floor in "${floors[@]:start}" "${floors[@]:0:start}"; do
      bash -ec "$floor"
    done
  done
}

# Adds the floor commands that scripts/experiment.sh (TIMING=later) left in folder $1 to
# round_floors as one entry (its lines run in order), for time_rounds to run in every timed round.
add_round_floors() {
  round_floors+=("$(cat "$1/floor-commands")")
}
