#!/usr/bin/env bash
# Installs Debian's firefox-esr for the Firefox end-to-end test (npm run test:e2e:firefox).
# Idempotent: does nothing when /usr/bin/firefox-esr is already there. Never downloads a browser
# from anywhere but the Debian archive (puppeteer-core is used with executablePath only).
set -euo pipefail

FIREFOX=/usr/bin/firefox-esr

if [ -x "$FIREFOX" ]; then
  echo "firefox-esr already installed: $("$FIREFOX" --version 2>/dev/null || echo "$FIREFOX")"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-firefox.sh: need root (or sudo) to apt-get install firefox-esr" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y firefox-esr

"$FIREFOX" --version
