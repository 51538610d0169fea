#!/usr/bin/env bash
# make s3-smoke: starts a local S3-compatible server (scripts/s3-server.sh), writes a small run
# into it with --verify (the pipeline's own gate reads the objects back from the store), reads
# the objects again with an independent reader (pyarrow's S3 client), checks that both digests
# and the manifest agree, and stops the server, whatever happens.
# Usage: scripts/s3-smoke.sh   (N, SMOKE_ROWS, SMOKE_WRITERS; scripts/settings.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
n="${N:-$(last_experiment)}"
server="$(mktemp -d "${TMPDIR:-/tmp}/shredlab-s3.XXXXXX")"
trap '"$root/scripts/s3-server.sh" stop "$server"; rm -rf "$server"' EXIT
# An assignment, so that a failed start stops this script with the server's own error.
env_file="$("$root/scripts/s3-server.sh" start "$server" shredlab)"
# shellcheck source=/dev/null
source "$env_file"
echo "server: Garage at $AWS_ENDPOINT (data in $server)" >&2
url="s3://shredlab/smoke"
report="$server/report.json"
"$bin" --experiment "$n" --rows "$SMOKE_ROWS" --writers "$SMOKE_WRITERS" --output "$url" --verify --quiet --json > "$report"
python="$("$root/scripts/ensure-venv.sh")"
independent="$(PYTHONPATH="$root/scripts/peers" "$python" -m shredlab_peers.s3 "$url")"
PYTHONPATH="$root/scripts/peers" "$python" - "$report" "$independent" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
independent = json.loads(sys.argv[2])
ours = f"{report['digest']['rows']}:{report['digest']['sum']}"
print(f"pipeline: {report['rows']} rows in {report['elapsed_s']:.2f} s into {len(report['files'])} object(s); its gate read them back from the store: {ours}")
print(f"pyarrow.fs.S3FileSystem read {len(independent['files'])} object(s) listed by the manifest: {independent['digest']}")
manifest = independent["manifest_digest"]
agree = independent["digest"] == ours == f"{manifest['rows']}:{manifest['sum']}"
print("s3-smoke: " + ("pass: both readers and the manifest agree" if agree else "FAIL: the digests differ"))
sys.exit(0 if agree else 1)
PY
