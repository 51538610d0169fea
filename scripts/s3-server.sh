#!/usr/bin/env bash
# A local S3-compatible server for tests, benchmarks and `make s3-smoke`: Garage (built into
# .tools/ on first use), one node, on 127.0.0.1 at free ports, its data and metadata in DIR.
#
#   scripts/s3-server.sh start DIR [BUCKET...]  start it (again, on DIR's data, if DIR holds a
#                                               server already); creates the buckets (default:
#                                               shredlab) and writes DIR/env, the AWS_* variables
#                                               that reach it; prints DIR/env's path
#   scripts/s3-server.sh stop DIR               stop it: SIGTERM, SIGKILL after 10 s
#   scripts/s3-server.sh uploads DIR BUCKET     unfinished multipart uploads in BUCKET, as the
#                                               server counts them
#
# Garage is found, or installed, once in the foreground before the server starts, so that a
# first use's multi-minute build is never inside the start's wait (S3_SERVER_WAIT_S, default 30).
#
# Compression of stored blocks is off: the server shares this machine's cores with the
# pipeline, and what it costs is the server's overhead, measured, not hidden.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
command="${1:?usage: s3-server.sh start|stop|uploads DIR [BUCKET...]}"
dir="${2:?usage: s3-server.sh start|stop|uploads DIR [BUCKET...]}"
shift 2
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
config="$dir/garage.toml"

wait_s="${S3_SERVER_WAIT_S:-30}"
case "$wait_s" in
  '' | *[!0-9]*) echo "s3-server: S3_SERVER_WAIT_S=$wait_s is not a whole number of seconds" >&2; exit 2 ;;
esac

# The Garage binary's path: on PATH, in .tools/, or built into .tools/ now (one-time, minutes).
garage_bin=""
find_garage() {
  [ -z "$garage_bin" ] || return 0
  if ! garage_bin="$("$root/scripts/ensure-garage.sh")"; then
    echo "s3-server: installing Garage failed (scripts/ensure-garage.sh, see above); no server was started" >&2
    exit 1
  fi
}

garage() { find_garage; "$garage_bin" -c "$config" "$@"; }

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

hex() { od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'; }

# Waits up to $wait_s seconds for `$@` to succeed.
wait_for() {
  local deadline=$((SECONDS + wait_s))
  until "$@" >/dev/null 2>&1; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "s3-server: the server in $dir did not come up in $wait_s s; its log: $dir/server.log" >&2
      tail -20 "$dir/server.log" >&2 || true
      return 1
    fi
    sleep 0.2
  done
}

stop() {
  [ -f "$dir/pid" ] || return 0
  local pid; pid="$(cat "$dir/pid")"
  if kill -TERM "$pid" 2>/dev/null; then
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$dir/pid"
}

start() {
  local first=false
  if [ ! -f "$config" ]; then
    first=true
    local s3_port rpc_port
    s3_port="$(free_port)"; rpc_port="$(free_port)"
    while [ "$rpc_port" = "$s3_port" ]; do rpc_port="$(free_port)"; done
    cat > "$config" <<EOF
metadata_dir = "$dir/meta"
data_dir = "$dir/data"
db_engine = "lmdb"
replication_factor = 1
compression_level = "none"
rpc_bind_addr = "127.0.0.1:$rpc_port"
rpc_public_addr = "127.0.0.1:$rpc_port"
rpc_secret = "$(hex 32)"

[s3_api]
s3_region = "us-east-1"
api_bind_addr = "127.0.0.1:$s3_port"
EOF
    cat > "$dir/env" <<EOF
export AWS_ENDPOINT=http://127.0.0.1:$s3_port
export AWS_ALLOW_HTTP=true
export AWS_REGION=us-east-1
export AWS_ACCESS_KEY_ID=GK$(hex 12)
export AWS_SECRET_ACCESS_KEY=$(hex 32)
export AWS_EC2_METADATA_DISABLED=true
EOF
  fi
  find_garage
  stop
  # Its own session, so a terminal's Ctrl-C reaches the caller, which stops it in order.
  setsid "$garage_bin" -c "$config" server >> "$dir/server.log" 2>&1 < /dev/null &
  echo $! > "$dir/pid"
  wait_for garage status
  # shellcheck source=/dev/null
  source "$dir/env"
  if $first; then
    local node
    node="$(garage node id -q | cut -d@ -f1)"
    garage layout assign -z local -c 1T "$node" >/dev/null
    garage layout apply --version 1 >/dev/null
    garage key import --yes -n shredlab "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" >/dev/null
    local buckets=("$@")
    [ ${#buckets[@]} -gt 0 ] || buckets=(shredlab)
    for bucket in "${buckets[@]}"; do
      wait_for garage bucket create "$bucket"
      garage bucket allow --read --write --owner "$bucket" --key shredlab >/dev/null
    done
  fi
  # The S3 API answers (403 without a signature) once the layout is in place.
  wait_for curl -s -o /dev/null "$AWS_ENDPOINT/"
  echo "$dir/env"
}

uploads() {
  local bucket="${1:?usage: s3-server.sh uploads DIR BUCKET}"
  # Garage prints the line only when there are some.
  garage bucket info "$bucket" | awk '/Unfinished uploads:/ { n = $3 } END { print n + 0 }'
}

case "$command" in
  start) start "$@" ;;
  stop) stop ;;
  uploads) uploads "$@" ;;
  *) echo "s3-server: unknown command $command (start, stop or uploads)" >&2; exit 2 ;;
esac
