#!/usr/bin/env bash
# `make test`: installs what is missing, builds, runs every XCTest case, then the package's check
# (scripts/package-check.sh on the staged release build).
#
# The slow parts overlap where they cannot disturb each other:
#   - the packages the build needs (scripts/deps.sh --build) come first; the rest of scripts/deps.sh (the test
#     peers' packages and the S3 venv) installs while the debug build runs;
#   - the release build that package-check stages runs while the tests run, in the idle scheduling class
#     (chrt --idle, nice 19): it gets only the CPU time the tests leave, and a test's thread that wakes takes its
#     CPU back at once, so the tests' CPU and timing figures stay their own;
#   - the tests run from the test bundle itself (what `swift test --skip-build` runs), which takes no SwiftPM lock,
#     so the release build can hold it.
# Logs of the background steps: .build/test-logs/. Environment: SWIFT, SWIFT_FLAGS and MAKE as the Makefile's;
# TEST_FILTER (an XCTest filter, e.g. WirelensCoreTests) runs only those cases.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SWIFT=${SWIFT:-swift}
MAKE=${MAKE:-make}
read -r -a flags <<< "${SWIFT_FLAGS:-}"
logs=.build/test-logs
mkdir -p "$logs"

pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# Waits for background step $1 (pid) named $2 with log $3; on failure prints the log's tail and fails.
await() {
    if ! wait "$1"; then
        echo "test: $2 failed; the end of $3:" >&2
        tail -n 40 "$3" >&2
        exit 1
    fi
}

bash scripts/deps.sh --build
set -m
bash scripts/deps.sh > "$logs/deps.log" 2>&1 &
deps=$!
pids+=("$deps")
set +m
"$SWIFT" build --build-tests "${flags[@]}"
await "$deps" "scripts/deps.sh" "$logs/deps.log"

bundle="$("$SWIFT" build "${flags[@]}" --show-bin-path)/WirelensPackageTests.xctest"
set -m
chrt --idle 0 nice -n 19 "$MAKE" --no-print-directory stage SWIFT_FLAGS="${SWIFT_FLAGS:-}" > "$logs/stage.log" 2>&1 &
stage=$!
pids+=("$stage")
set +m

status=0
"$bundle" ${TEST_FILTER:+"$TEST_FILTER"} || status=$?

await "$stage" "the release build (make stage)" "$logs/stage.log"
pids=()
if [ "$status" -ne 0 ]; then
    echo "test: the tests failed (exit $status); the package check was not run" >&2
    exit "$status"
fi
"$MAKE" --no-print-directory package-check SWIFT_FLAGS="${SWIFT_FLAGS:-}"
