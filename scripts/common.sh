# Shared helpers of the measurement scripts (sourced, not run).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Build first, so a script never runs a binary older than the sources it is about to record.
cargo build --release --locked --quiet --manifest-path "$root/Cargo.toml"
bin_dir="$("$root/scripts/bin-dir.sh")"
bin="$bin_dir/pipeline"
results="$bin_dir/results"
stream="$bin_dir/stream"
host="${HOST:-$(hostname -s)}"

# The highest experiment number in the catalog: the best configuration by default.
last_experiment() { "$bin" --list | awk 'NR > 1 { n = $1 + 0 } END { print n }'; }

# The allocator experiment N runs on, so measured runs skip the binary's re-exec.
allocator_of() {
  "$bin" --experiment "$1" --rows 1 --output-dir "$root/out/probe-$1" --overwrite --quiet --json \
    | sed -n 's/.*"allocator":"\([a-z]*\)".*/\1/p'
  rm -rf "$root/out/probe-$1"
}
