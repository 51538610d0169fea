#!/usr/bin/env bash
# Creates make history's Python environment, .tools/otava-venv, with the pinned Apache Otava of
# scripts/history/requirements.txt, once (and again when that file changes); prints its python.
# Its own environment: Otava pins numpy 2.2, the peers' environment numpy 2.4.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.tools/otava-venv"
requirements="$root/scripts/history/requirements.txt"
stamp="$venv/.requirements"
if [ -x "$venv/bin/python" ] && cmp -s "$stamp" "$requirements"; then
  echo "$venv/bin/python"
  exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "python3 not found: install Python 3.10 to 3.14 with its venv module (Debian/Ubuntu: apt install python3 python3-venv) for make history" >&2
  exit 3
fi
echo "creating .tools/otava-venv for make history (one-time, pinned versions of scripts/history/requirements.txt)" >&2
rm -rf "$venv"
if ! python3 -m venv "$venv" >&2; then
  rm -rf "$venv"
  echo "python3 cannot create a virtual environment: install its venv module (Debian/Ubuntu: apt install python3-venv)" >&2
  exit 3
fi
if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements" >&2; then
  rm -rf "$venv"
  echo "installing Apache Otava failed (see pip's message above): make history needs it" >&2
  exit 1
fi
cp "$requirements" "$stamp"
echo "$venv/bin/python"
