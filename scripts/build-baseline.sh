#!/usr/bin/env bash
# Build a git ref's release binary in a worktree of its own and print the binary's path.
#
#   scripts/build-baseline.sh [REF]        (default: origin/main if it exists, else main)
#
# The worktree is .build-baseline/REF-SHA (gitignored); a second call for the same commit reuses it.
# Used to compare a change against the previous main: scripts/bench-baseline.py and scripts/output-diff.py
# take two binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
REF=${1:-$(git rev-parse --verify -q origin/main >/dev/null && echo origin/main || echo main)}
SHA=$(git rev-parse --short "$REF^{commit}") || { echo "build-baseline: no such ref: $REF" >&2; exit 2; }
DIR=.build-baseline/$SHA
if [ ! -d "$DIR" ]; then
    mkdir -p .build-baseline
    git worktree add -q --detach "$DIR" "$SHA" >&2
fi
(cd "$DIR" && swift build -c release --product wirelens --static-swift-stdlib >&2)
echo "$(cd "$DIR" && swift build -c release --product wirelens --static-swift-stdlib --show-bin-path)/wirelens"
