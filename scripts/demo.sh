#!/usr/bin/env bash
# Wirelens demo against a local nginx (scripts/nginx-up.sh); writes reports/demo/.
#
#   WIRELENS=path/to/wirelens bash scripts/demo.sh     (default .build/debug/wirelens)
#
# (a) waterfall of one HTTPS (h2) download       -> reports/demo/waterfall.txt
# (b) the same probe as JSON                      -> reports/demo/one.json
# (c) 1000 GETs, concurrency 8, 4 per host        -> reports/demo/probe-1000.json
#     and its text summary (a second run in text)  -> reports/demo/probe-1000.txt
# Reports are written to a scratch directory and moved into reports/demo/ only
# when every step succeeded, so a failed run leaves the previous reports alone.
# nginx is stopped on every exit path; any failing step makes the script fail.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
WIRELENS=${WIRELENS:-.build/debug/wirelens}
FINAL=reports/demo

[ -x "$WIRELENS" ] || { echo "demo: $WIRELENS not found or not executable (run make build)" >&2; exit 1; }

RUN=$(mktemp -d "${TMPDIR:-/tmp}/wirelens-demo.XXXXXX")
OUT=$RUN/out
mkdir -p "$OUT"
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    bash scripts/nginx-down.sh "$RUN/nginx" || true
    rm -rf "$RUN"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bash scripts/nginx-up.sh "$RUN/nginx" >"$RUN/ports.env"
# shellcheck disable=SC1091
. "$RUN/ports.env"      # DIR HTTP_PORT HTTPS_PORT H2C_PORT CERT

step() { printf '\n== %s\n' "$*"; }
run() { printf '$ %s\n' "$*" >&2; "$@"; }

step "(a) one HTTPS download, text waterfall"
run "$WIRELENS" probe "https://localhost:$HTTPS_PORT/bytes/1m.bin" --cacert "$CERT" \
    --format text --no-color | tee "$OUT/waterfall.txt"

step "(b) the same probe as JSON"
run "$WIRELENS" probe "https://localhost:$HTTPS_PORT/bytes/1m.bin" --cacert "$CERT" \
    --format json >"$OUT/one.json"
python3 -m json.tool "$OUT/one.json" >/dev/null ||
    { echo "demo: $OUT/one.json is not valid JSON" >&2; exit 1; }
echo "one.json: $(wc -c <"$OUT/one.json") bytes"

step "(c) 1000 GETs of /small.txt, concurrency 8, at most 4 connections to the host"
URL_C="http://127.0.0.1:$HTTP_PORT/small.txt"
run "$WIRELENS" probe "$URL_C" --repeat 1000 --concurrency 8 --max-host-connections 4 \
    --format json --report "$OUT/probe-1000.json" --no-color >"$RUN/c.out"
python3 -m json.tool "$OUT/probe-1000.json" >/dev/null ||
    { echo "demo: $OUT/probe-1000.json is not valid JSON" >&2; exit 1; }
step "(c') the same report as text: wirelens render"
run "$WIRELENS" render "$OUT/probe-1000.json" --no-color | tee "$OUT/probe-1000.txt"

step "reports"
mkdir -p "$FINAL"
for f in waterfall.txt one.json probe-1000.json probe-1000.txt; do
    mv -f "$OUT/$f" "$FINAL/$f"
    printf '  %s/%s\n' "$FINAL" "$f"
done
