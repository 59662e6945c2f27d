#!/usr/bin/env bash
# Runs a benchmark and keeps its output in docs/bench/, under a header that names the command, the
# date, the commit and the machine (npm run figures reads the header and the figures below it).
#   bash scripts/record-bench.sh NAME SCRIPT [ARGS…]   e.g.  bash scripts/record-bench.sh quality bench:quality
# writes docs/bench/YYYY-MM-DD-NAME.txt. The tree should be committed: the header says so if not.
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1; script=$2; shift 2
out="docs/bench/$(date -u +%F)-$name.txt"
commit=$(git rev-parse --short HEAD)
if [ -n "$(git status --porcelain -- lib entrypoints bin bench)" ]; then commit="$commit (with uncommitted changes)"; fi
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
started=$(date -u '+%F %H:%M UTC')
load=$(cut -d' ' -f1 /proc/loadavg)
body=$(npm run -s "$script" -- "$@" 2>&1) || status=$?
{
  echo "# command: npm run $script${*:+ -- $*}"
  echo "# date: $started"
  echo "# commit: $commit"
  echo "# machine: $(nproc) × $cpu, $(node --version), load average $load at the start"
  if [ -n "${DOPPEL_EXTENSION_DIR:-}" ]; then echo "# extension: the build in $DOPPEL_EXTENSION_DIR (DOPPEL_EXTENSION_DIR), not this tree's .output"; fi
  echo
  echo "$body"
} > "$out"
echo "wrote $out"
exit "${status:-0}"
