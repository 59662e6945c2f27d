#!/usr/bin/env bash
# `scripts/scan-path-figures.sh DATA_DIR [SIZES] [JOBS] [MEMORY_FLAG]`: the figures of docs/scan.md's
# "In memory or on disk" section. DATA_DIR holds bench:scan-scale's documents as JSONL and as a
# folder (written by `npm run bench:scan-scale -- --documents 100000 --jsonl|--as-folder --write-only
# --keep --dir D`): jsonl-N.jsonl (the first N lines) and folder-N/ (symlinks to the first N/1000
# folders of a thousand files). For each size, format and job count, runs `scan --json` in memory
# (MEMORY_FLAG: '' before --in-memory existed, else --in-memory) and with --on-disk, each under
# /usr/bin/time, and prints one tab-separated row: wall s, CPU s (user + system), peak resident
# memory (MiB), --timings' VmHWM line, and whether the two paths printed the same bytes.
set -euo pipefail
data=$1
sizes=${2:-1000 10000 50000 100000}
jobs_list=${3:-2}
memory_flag=${4:-}
root=$(cd "$(dirname "$0")/.." && pwd)
tsx="$root/node_modules/tsx/dist/cli.mjs"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf 'documents\tformat\tjobs\tpath\twall s\tCPU s\tpeak MiB\tload\tsame output\n'
for n in $sizes; do
  for format in jsonl folder; do
    input="$data/jsonl-$n.jsonl"
    [ "$format" = folder ] && input="$data/folder-$n"
    for jobs in $jobs_list; do
      for path in memory disk; do
        flag=$memory_flag
        [ "$path" = disk ] && flag=--on-disk
        load=$(cut -d' ' -f1 /proc/loadavg)
        /usr/bin/time -o "$out/time" -f '%e %U %S %M' node "$tsx" "$root/bin/scan.ts" "$input" --json --jobs "$jobs" --timings $flag >"$out/$path.json" 2>"$out/$path.err"
        read -r wall user sys kib <"$out/time"
        same=-
        [ "$path" = disk ] && { cmp -s "$out/memory.json" "$out/disk.json" && same=yes || same=NO; }
        printf '%s\t%s\t%s\t%s\t%s\t%.1f\t%d\t%s\t%s\n' "$n" "$format" "$jobs" "$path" "$wall" "$(echo "$user + $sys" | bc)" "$((kib / 1024))" "$load" "$same"
        grep -E 'peak memory' "$out/$path.err" | sed 's/^/#   /' || true
      done
    done
  done
done
