#!/usr/bin/env bash
# `make spec-bench`: the spec generator measured. How close the contacts preset's data is to the
# hand-written generator's; generating it (--sink null) and the whole run against the
# hand-written contacts at the same experiment (SPEC_BENCH_E, the newest by default); every
# other preset's generation alone; the lineitem preset through the pipeline beside
# tpchgen-cli's lineitem. Every cell is one process under /usr/bin/time, in interleaved rounds
# (order rotated each round). With SPEC_BENCH_BASE=<commit>, that commit's pipeline (built once,
# as `make compare` builds a base) generates its own preset files in the same rounds, at
# SPEC_BENCH_BASE_E (its newest experiment by default): each preset's generation beside the
# figure its target is set against, on one host in one run; the digests of each preset's first
# rows on both sides tell whether the two make the same data.
# Usage: scripts/spec-bench.sh   (ROWS, RUNS, WARMUP, TPCH_SF, COMPARE_ROWS, PRESET_ROWS,
#        SPEC_BENCH_E, SPEC_BENCH_BASE, SPEC_BENCH_BASE_E; scripts/settings.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
dir="$root/results/$HOST/spec"; work="$root/out/spec-bench"
mkdir -p "$dir" "$work"
if [ ! -x /usr/bin/time ]; then
  echo "error: /usr/bin/time is needed to time each process (apt-get install time)" >&2
  exit 2
fi
tpchgen="$("$root/scripts/ensure-tpchgen.sh")"
# TPC-H lineitem holds about 6,000,000 rows per unit of scale factor; tpchgen-cli reports none,
# so the pipeline writes the count read back from tpchgen-cli's file in the first round.
lineitem_rows=""

echo "== closeness of the contacts preset's data ($COMPARE_ROWS rows each)" >&2
"$bin_dir/spec-bench" compare --rows "$COMPARE_ROWS" --spec "$root/specs/contacts.json" > "$dir/closeness.json"

experiment="${SPEC_BENCH_E:-$(last_experiment)}"
allocator="$(allocator_of "$experiment")"
run="SHREDLAB_ALLOCATOR=$allocator $bin -e $experiment"
declare -A commands=(
  [contacts-generate]="$run --rows $ROWS --sink null -q"
  [spec-generate]="$run --spec $root/specs/contacts.json --rows $ROWS --sink null -q"
  [contacts-write]="$run --rows $ROWS -o $work/contacts --overwrite -q"
  [spec-write]="$run --spec $root/specs/contacts.json --rows $ROWS -o $work/spec --overwrite -q"
  [tpchgen-cli]="$tpchgen -s $TPCH_SF -T lineitem -f parquet -c SNAPPY -o $work/tpch"
)
presets=(deep lineitem otel-logs wide)
for preset in "${presets[@]}"; do
  commands[preset-$preset]="$run --spec $root/specs/$preset.json --rows $PRESET_ROWS --sink null -q"
done
cells=(contacts-generate spec-generate contacts-write spec-write tpchgen-cli lineitem-spec)
cells+=("${presets[@]/#/preset-}")
base_settings=""
base_metadata=""
same_data=""
# Rows of each preset whose digests tell whether the base makes the same data.
DIGEST_ROWS=20000
if [ -n "$SPEC_BENCH_BASE" ]; then
  base_name="$(commit_name SPEC_BENCH_BASE "$SPEC_BENCH_BASE")"
  base_bin="$(base_pipeline "$base_name")"
  base_experiment="${SPEC_BENCH_BASE_E:-$(last_experiment "$base_bin")}"
  base_run="SHREDLAB_ALLOCATOR=$(allocator_of "$base_experiment" "$base_bin") $base_bin -e $base_experiment"
  # The base's own preset files: a file it could not read then would be refused.
  base_specs="$root/.compare/trees/$base_name/specs"
  for preset in contacts "${presets[@]}"; do
    # One row first, so a base without the preset, its experiment or spec files fails here, in
    # its own words, before any round.
    if ! "$base_bin" -e "$base_experiment" --spec "$base_specs/$preset.json" --rows 1 --sink null -q > /dev/null; then
      echo "error: the pipeline of SPEC_BENCH_BASE=$SPEC_BENCH_BASE cannot generate its specs/$preset.json at experiment $base_experiment (above): give a commit from after the presets, or another SPEC_BENCH_BASE_E" >&2
      exit 2
    fi
    # The contacts at the rows of this tree's contacts cells, the others at PRESET_ROWS.
    rows="$PRESET_ROWS"
    [ "$preset" = contacts ] && rows="$ROWS"
    commands[base-$preset]="$base_run --spec $base_specs/$preset.json --rows $rows --sink null -q"
    # Whether both make the same data: a data version between them changes what a ratio
    # measures, so the README says which ratios are not the same work.
    for side in base ours; do
      if [ "$side" = base ]; then side_run=("$base_bin" -e "$base_experiment" --spec "$base_specs/$preset.json")
      else side_run=("$bin" -e "$experiment" --spec "$root/specs/$preset.json"); fi
      "${side_run[@]}" --rows "$DIGEST_ROWS" -o "$work/digest" --overwrite --verify --json -q > "$work/digest-$side.json"
    done
    same=false
    [ "$("$results" json-get "$work/digest-base.json" /digest)" = "$("$results" json-get "$work/digest-ours.json" /digest)" ] && same=true
    same_data+="\"$preset\": $same, "
  done
  rm -rf "$work/digest" "$work"/digest-*.json
  cells+=(base-contacts "${presets[@]/#/base-}")
  base_settings=" SPEC_BENCH_BASE=$SPEC_BENCH_BASE SPEC_BENCH_BASE_E=$base_experiment"
  base_metadata="\"base\": \"$base_name\", \"base_experiment\": $base_experiment, \"base_same_data\": { ${same_data%, } }, \"digest_rows\": $DIGEST_ROWS,"
fi

# Runs cell $1 once; prints its JSON record (round $2).
measure() {
  local cell="$1" round="$2" command output bytes=0 count="$ROWS"
  command="${commands[$cell]}"
  rm -rf "$work/tpch"
  # bash runs a single command by exec, so the time is the command's own.
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" bash -c "$command" > /dev/null
  read -r wall user sys rss < "$work/time"
  case "$cell" in
    contacts-write) output="$work/contacts" ;;
    spec-write) output="$work/spec" ;;
    lineitem-spec) output="$work/lineitem"; count="$lineitem_rows" ;;
    tpchgen-cli) output="$work/tpch"; count="$lineitem_rows" ;;
    base-contacts) output="" ;;
    preset-* | base-*) output=""; count="$PRESET_ROWS" ;;
    *) output="" ;;
  esac
  [ -n "$output" ] && bytes="$(find "$output" -name '*.parquet' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')"
  printf '{"cell":"%s","round":%s,"wall_s":%s,"cpu_s":%s,"max_rss_kb":%s,"rows":%s,"bytes":%s}\n' \
    "$cell" "$round" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')" "$rss" "$count" "$bytes"
}

# The lineitem row count of this scale factor, from tpchgen-cli's own file.
"$tpchgen" -s "$TPCH_SF" -T lineitem -f parquet -c SNAPPY -o "$work/tpch" > /dev/null
lineitem_rows="$("$bin_dir/peers" digest "$work"/tpch/*.parquet | sed -n 's/^\([0-9]*\):.*/\1/p')"
commands[lineitem-spec]="$run --spec $root/specs/lineitem.json --rows $lineitem_rows --compression snappy -o $work/lineitem --overwrite -q"
echo "== tpchgen-cli lineitem at scale factor $TPCH_SF: $lineitem_rows rows" >&2

: > "$dir/runs.jsonl"
for round in $(seq $((-WARMUP)) $((RUNS - 1))); do
  offset=$(( (round + WARMUP) % ${#cells[@]} ))
  for i in $(seq 0 $((${#cells[@]} - 1))); do
    cell="${cells[$(( (i + offset) % ${#cells[@]} ))]}"
    record="$(measure "$cell" "$round")"
    if [ "$round" -ge 0 ]; then echo "$record" >> "$dir/runs.jsonl"; fi
    echo "round $round $record" >&2
  done
done
rm -rf "$work"

"$bin" --rows 1 --sink null --json > "$dir/build.json"
command_list=""
for cell in "${cells[@]}"; do
  command_list+="\"$cell\": \"$(json_escape "${commands[$cell]//$root\//}")\", "
done
write_metadata "$dir" "$dir/build.json" "
  \"command\": \"$(json_escape "make spec-bench ROWS=$ROWS RUNS=$RUNS WARMUP=$WARMUP TPCH_SF=$TPCH_SF COMPARE_ROWS=$COMPARE_ROWS PRESET_ROWS=$PRESET_ROWS SPEC_BENCH_E=$experiment$base_settings")\",
  \"experiment\": $experiment, $base_metadata
  \"warmup\": $WARMUP,
  \"tpchgen\": \"$(json_escape "$("$tpchgen" --version)")\",
  \"commands\": { ${command_list%, } },"
rm -f "$dir/build.json"
"$bin_dir/spec-bench" render "$dir"
