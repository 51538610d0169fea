#!/usr/bin/env bash
# Creates the project's Python environment, .tools/venv, with the pinned peers of
# scripts/peers/requirements.txt, once (and again when that file changes); prints its python.
# A peer that fails to install is reported and left out: the others, and the Rust writers, still
# run. Without python3 it exits 3 with a message, and `make peers` runs the Rust side alone.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.tools/venv"
requirements="$root/scripts/peers/requirements.txt"
stamp="$venv/.requirements"
if [ -x "$venv/bin/python" ] && cmp -s "$stamp" "$requirements"; then
  echo "$venv/bin/python"
  exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "python3 not found: install Python 3.11 or newer with its venv module (Debian/Ubuntu: apt install python3 python3-venv) to run the Python peers" >&2
  exit 3
fi
if [ ! -x "$venv/bin/python" ]; then
  echo "creating the Python environment .tools/venv (one-time, pinned versions of scripts/peers/requirements.txt)" >&2
  if ! python3 -m venv "$venv" >&2; then
    rm -rf "$venv"
    echo "python3 cannot create a virtual environment: install its venv module (Debian/Ubuntu: apt install python3-venv)" >&2
    exit 3
  fi
fi
pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)
if ! "${pip[@]}" -r "$requirements" >&2; then
  # One at a time, under the pins, so that one peer that cannot install leaves the others.
  failed=()
  mapfile -t lines < "$requirements"
  for line in "${lines[@]}"; do
    line="${line%%#*}"
    [ -z "${line// /}" ] && continue
    "${pip[@]}" -c "$requirements" "$line" >&2 || failed+=("$line")
  done
  echo "could not install: ${failed[*]}; those peers are reported as missing (python3 is $(python3 -V 2>&1))" >&2
  echo "$venv/bin/python"
  exit 0
fi
cp "$requirements" "$stamp"
echo "$venv/bin/python"
