#!/usr/bin/env bash
# Creates one of the project's Python environments with its pinned requirements, once (and
# again when the requirements change); prints its python. Usage: ensure-venv.sh [peers|history]
#   peers (default): .tools/venv, scripts/peers/requirements.txt. A peer that fails to install
#     is reported and left out: the others, and the Rust writers, still run.
#   history: .tools/otava-venv, scripts/history/requirements.txt (Apache Otava for make
#     history). Its own environment: Otava pins numpy 2.2, the peers numpy 2.4. All or nothing.
# Without python3 it exits 3 with a message (`make peers` then runs the Rust side alone).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
case "${1:-peers}" in
  peers)
    venv="$root/.tools/venv" requirements="$root/scripts/peers/requirements.txt"
    purpose="to run the Python peers" python_versions="3.11 or newer" partial=true ;;
  history)
    venv="$root/.tools/otava-venv" requirements="$root/scripts/history/requirements.txt"
    purpose="for make history" python_versions="3.10 to 3.14" partial=false ;;
  *)
    echo "ensure-venv.sh: unknown environment '$1' (peers or history)" >&2
    exit 2 ;;
esac
name="${venv#"$root"/}"
stamp="$venv/.requirements"
if [ -x "$venv/bin/python" ] && cmp -s "$stamp" "$requirements"; then
  echo "$venv/bin/python"
  exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "python3 not found: install Python $python_versions with its venv module (Debian/Ubuntu: apt install python3 python3-venv) $purpose" >&2
  exit 3
fi
if [ ! -x "$venv/bin/python" ]; then
  echo "creating the Python environment $name (one-time, pinned versions of ${requirements#"$root"/})" >&2
  if ! python3 -m venv "$venv" >&2; then
    rm -rf "$venv"
    echo "python3 cannot create a virtual environment: install its venv module (Debian/Ubuntu: apt install python3-venv)" >&2
    exit 3
  fi
fi
pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)
if "${pip[@]}" -r "$requirements" >&2; then
  cp "$requirements" "$stamp"
  echo "$venv/bin/python"
  exit 0
fi
if [ "$partial" = false ]; then
  rm -rf "$venv"
  echo "installing ${requirements#"$root"/} into $name failed (see pip's message above): it is needed $purpose" >&2
  exit 1
fi
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
