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
# The base is linked as its own Makefile links a release (its RELEASE_FLAGS: the linker, relocations, section
# order), so that start-up and RSS compare like with like; a base without a Makefile gets the static runtime only.
FLAGS=--static-swift-stdlib
if [ -f "$DIR/Makefile" ]; then
    FLAGS=$(printf 'wl-print-release-flags:\n\t@echo $(RELEASE_FLAGS)\n' |
            make -s --no-print-directory -C "$DIR" -f Makefile -f - wl-print-release-flags)
fi
# shellcheck disable=SC2086 # FLAGS is a list of arguments
(cd "$DIR" && swift build -c release --product wirelens $FLAGS >&2)
# shellcheck disable=SC2086
echo "$(cd "$DIR" && swift build -c release --product wirelens $FLAGS --show-bin-path)/wirelens"
