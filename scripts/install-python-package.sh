#!/usr/bin/env bash
# Builds the shredlab Python package (python/, a PyO3 extension built by maturin) and installs it
# into the project's venv, .tools/venv; prints the venv's python. The build shares cargo's target
# directory and release profile with the workspace (a user's `pip install ./python` builds the
# `wheel` profile, made for a cold build), so after `make build` only the extension compiles.
# Equivalent to `pip install ./python`, with the venv's pinned maturin instead of a fresh one.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python="$("$root/scripts/ensure-venv.sh")"
venv_bin="$(dirname "$python")"
if [ ! -x "$venv_bin/maturin" ]; then
  echo "maturin is missing from .tools/venv (pinned in scripts/peers/requirements.txt): the Python package cannot be built" >&2
  exit 3
fi
echo "building the shredlab Python package (maturin, release) into .tools/venv" >&2
PATH="$venv_bin:$PATH" MATURIN_PEP517_ARGS="--profile release" "$python" -m pip install --quiet --disable-pip-version-check \
  --no-build-isolation --no-deps --force-reinstall "$root/python" >&2
echo "$python"
