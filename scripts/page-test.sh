#!/usr/bin/env bash
# Opens results/<host>/index.html in headless Chromium and checks that it renders: a screenshot
# is made, the page's own count of images that did not load is 0, and the browser logged no
# console message (the page logs one for each image that fails) and no uncaught error.
# Installs Debian's chromium when it is missing and the machine allows it (root with apt-get);
# otherwise says why and skips.
# Usage: scripts/page-test.sh [HOST_DIR]   (default results/$HOST)
set -euo pipefail
source "$(dirname "$0")/common.sh"
host_dir="$(cd "${1:-$root/results/$HOST}" && pwd)"
[ -s "$host_dir/index.html" ] || { echo "error: $host_dir/index.html is missing: run make index" >&2; exit 2; }
find_chromium() { command -v chromium || command -v chromium-browser || true; }
chromium="$(find_chromium)"
if [ -z "$chromium" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's chromium for the page test (one-time)" >&2
  { apt-get install -y -q --no-install-recommends chromium >&2 \
    || { apt-get update -q >&2 && apt-get install -y -q --no-install-recommends chromium >&2; }; } \
    || echo "apt-get could not install chromium" >&2
  chromium="$(find_chromium)"
fi
if [ -z "$chromium" ]; then
  echo "page test skipped: no Chromium on this machine and none could be installed (as root: apt-get install chromium)" >&2
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A closed network: no background connections, a fresh profile.
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync
       --user-data-dir="$work/profile" --enable-logging=stderr --v=0)
url="file://$host_dir/index.html"
"$chromium" "${flags[@]}" --window-size=1280,3000 --screenshot="$work/index.png" "$url" 2> "$work/screenshot.log" > /dev/null
"$chromium" "${flags[@]}" --dump-dom "$url" 2> "$work/dom.log" > "$work/dom.html"
test -s "$work/index.png" || { echo "page test FAILED: no screenshot" >&2; cat "$work/screenshot.log" >&2; exit 1; }
if ! grep -q 'data-broken-images="0"' "$work/dom.html"; then
  echo "page test FAILED: images did not load ($(grep -o 'data-broken-images="[^"]*"' "$work/dom.html"))" >&2
  grep -h "CONSOLE" "$work"/*.log >&2 || true
  exit 1
fi
if grep -h -E "CONSOLE|Uncaught" "$work"/*.log >&2; then
  echo "page test FAILED: the page logged the console messages above" >&2
  exit 1
fi
echo "page test passed: $url renders, every image loads, no console message"
