#!/usr/bin/env bash
# Builds the extension as it was at a commit, into a folder, for bench:browser's
# DOPPEL_EXTENSION_DIR and bench:targets' --first-release:
#   bash scripts/build-at.sh COMMIT DIR      e.g.  bash scripts/build-at.sh 63168aa /tmp/ext-63168aa
# A worktree of COMMIT in a temporary folder, this tree's node_modules linked into it (the first
# release's lockfile pins the same wxt), `npm run build`, .output/chrome-mv3 copied to DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
commit=$1; dir=$2
tree=$(mktemp -d)/tree
git worktree add --detach -q "$tree" "$commit"
trap 'git worktree remove --force "$tree"' EXIT
ln -s "$PWD/node_modules" "$tree/node_modules"
(cd "$tree" && npm run -s build > /dev/null)
rm -rf "$dir"
cp -r "$tree/.output/chrome-mv3" "$dir"
echo "built $commit into $dir"
