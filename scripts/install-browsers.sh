#!/usr/bin/env bash
# Installs the browser the end-to-end tests drive (test/e2e/): Debian's Chromium at
# /usr/bin/chromium. Does nothing when it is already there. Needs root or sudo (CI runs as root).
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  echo "install-browsers: chromium already installed ($("$CHROMIUM" --version 2>/dev/null || echo "version unknown"))"
  exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=(sudo -n); else
    echo "install-browsers: need root (or sudo) to apt-get install chromium" >&2
    exit 1
  fi
fi

log="$(mktemp -t install-browsers.XXXXXX.log)"
trap 'rm -f "$log"' EXIT
echo "install-browsers: installing Debian's chromium…"
if ! { "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
       "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; } >"$log" 2>&1; then
  echo "install-browsers: apt-get failed; last lines of its output:" >&2
  tail -n 30 "$log" >&2
  exit 1
fi
if [ ! -x "$CHROMIUM" ]; then
  echo "install-browsers: chromium installed but $CHROMIUM is missing" >&2
  exit 1
fi
echo "install-browsers: $("$CHROMIUM" --version 2>/dev/null || echo chromium installed)"
