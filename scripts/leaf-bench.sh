#!/usr/bin/env bash
# Each leaf kind of the writer's test matrix encoded alone on one thread by both column
# encoders (`make leaf-bench`): the criterion benches `leaf/<kind>` (data page v1) and
# `leaf-v2/<kind>` (numbers and strings, data page v2) of writer/benches/encode.rs, into
# results/<host>/leaf-bench/ (README.md, leaf-bench.json) with the build's metadata.
# Usage: scripts/leaf-bench.sh
set -euo pipefail
source "$(dirname "$0")/common.sh"
dir="$root/results/$HOST/leaf-bench"; mkdir -p "$dir"
criterion="${CARGO_TARGET_DIR:-$root/target}/criterion"
# Old estimates of a kind no longer benched must not reach the table.
rm -rf "$criterion"/leaf_* "$criterion"/leaf-v2_*
cargo bench --locked --quiet -p shredlab-writer --bench encode -- '^leaf' >&2
# The benches link the crates the pipeline links, built from the same tree: its stamp says which.
"$bin" --rows 1 --sink null --json > "$dir/build.json"
write_metadata "$dir" "$dir/build.json" "
  \"command\": \"make leaf-bench\","
rm -f "$dir/build.json"
python3 - "$criterion" "$dir" <<'PY'
import json, pathlib, sys

criterion, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
meta = json.loads((out / "metadata.json").read_text())
rows = []
for prefix, pages in (("leaf_", "v1"), ("leaf-v2_", "v2")):
    for group in sorted(criterion.glob(prefix + "*")):
        times = {}
        for encoder in ("ArrowRs", "Native"):
            estimates = json.loads((group / encoder / "new" / "estimates.json").read_text())
            times[encoder] = estimates["median"]["point_estimate"] / 1e6
        rows.append({"kind": group.name[len(prefix):], "data_pages": pages,
                     "arrow_rs_ms": times["ArrowRs"], "native_ms": times["Native"],
                     "speedup": times["ArrowRs"] / times["Native"]})
if not rows:
    sys.exit("error: criterion wrote no leaf/ estimates under %s" % criterion)
(out / "leaf-bench.json").write_text(json.dumps(rows, indent=2) + "\n")
lines = [
    "# Each leaf kind alone, one thread: arrow-rs's column encoder against shredlab's",
    "",
    "Command: `make leaf-bench` (criterion `cargo bench -p shredlab-writer --bench encode --"
    " '^leaf'`).",
    "Host `%s` (%s, %d CPUs), %s, commit %s (dirty: %s)." % (
        meta["host"], meta["cpu"], meta["cores"], meta["date"], meta["commit"],
        str(meta["dirty"]).lower()),
    "",
    "One column of the writer's test matrix (`writer/tests/common`), 24 batches of 8,192 rows,"
    " one null in ten at every nullable level (`AllNull`: nulls only), default"
    " `WriterProperties` (data pages v1; numbers, strings and fixed-size binaries again with"
    " v2, where integers, strings and fixed-length byte arrays that fall back from the"
    " dictionary are `DELTA_BINARY_PACKED` and `DELTA_BYTE_ARRAY`), encoded as one row group"
    " by an"
    " `OrderedRowGroupWriter` on the calling thread with each `ColumnEncoder`. Median of 10"
    " criterion samples. Every kind here is on the native encoder's pages; a leaf it left to"
    " arrow-rs would time the same on both sides.",
    "",
    "| leaf kind | data pages | arrow-rs ms | native ms | arrow-rs / native |",
    "|---|---|---:|---:|---:|",
]
for row in rows:
    lines.append("| %s | %s | %.3f | %.3f | %.2fx |" % (
        row["kind"], row["data_pages"], row["arrow_rs_ms"], row["native_ms"], row["speedup"]))
(out / "README.md").write_text("\n".join(lines) + "\n")
print("\n".join(lines))
PY
