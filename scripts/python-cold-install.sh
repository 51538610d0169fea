#!/usr/bin/env bash
# `make python-cold-install`: times what a new user does, `pip install ./python` from a fresh
# clone of this commit into a fresh venv, with nothing built yet: an empty cargo target directory
# and pip's build isolation, so maturin and pyarrow come from PyPI as they would for anyone.
# Crate sources already in ~/.cargo/registry are reused (their download is not timed); run with
# CARGO_HOME pointing at an empty directory to time that too. Then imports the package and checks
# one digest against the pipeline's. Writes results/$HOST/python/cold-install.json.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=settings.sh
source "$root/scripts/settings.sh"
if [ -n "$(git -C "$root" status --porcelain)" ]; then
  dirty=true
else
  dirty=false
fi
commit="$(git -C "$root" rev-parse --short=12 HEAD)"
work="$(mktemp -d "${TMPDIR:-/tmp}/shredlab-cold-install.XXXXXX")"
trap 'rm -rf "$work"' EXIT
git clone --quiet "$root" "$work/checkout"
python3 -m venv "$work/venv"
echo "cold install of the shredlab Python package from a fresh clone of $commit (dirty working tree not included: $dirty)" >&2
start="$(date +%s.%N)"
CARGO_TARGET_DIR="$work/target" "$work/venv/bin/pip" install --quiet --disable-pip-version-check \
  "$work/checkout/python" >&2
seconds="$(echo "$(date +%s.%N) - $start" | bc)"
check="$("$work/venv/bin/python" -c 'import shredlab; print(shredlab.digest(shredlab.contacts(100000)))')"
cargo build --release --locked --quiet --manifest-path "$root/Cargo.toml"
expected="$("$("$root/scripts/bin-dir.sh")/pipeline" -n 100000 -o "$work/cli" --verify --json -q |
  python3 -c 'import json, sys; d = json.load(sys.stdin)["digest"]; print("%s:%s" % (d["rows"], d["sum"]))')"
if [ "$check" != "$expected" ]; then
  echo "error: the installed package's digest $check differs from the pipeline's $expected" >&2
  exit 1
fi
out="$root/results/$HOST/python"
mkdir -p "$out"
python3 - "$out/cold-install.json" "$seconds" "$commit" "$dirty" "$(nproc)" \
  "$("$work/venv/bin/pip" --version | cut -d' ' -f2)" "$(python3 --version | cut -d' ' -f2)" <<'EOF'
import json, sys
path, seconds, commit, dirty, cpus, pip, python = sys.argv[1:]
record = {
    "command": "make python-cold-install",
    "what": "pip install ./python from a fresh clone into a fresh venv, empty cargo target directory",
    "seconds": round(float(seconds), 1),
    "target_seconds": 300,
    "commit": commit,
    "dirty": dirty == "true",
    "cpus": int(cpus),
    "pip": pip,
    "python": python,
}
open(path, "w").write(json.dumps(record, indent=2) + "\n")
print(json.dumps(record))
EOF
