#!/usr/bin/env bash
# Wirelens demo against a local nginx (scripts/nginx-up.sh); writes reports/demo/.
#
#   WIRELENS=path/to/wirelens bash scripts/demo.sh     (default .build/debug/wirelens)
#
# (a) waterfall of one HTTPS (h2) download       -> reports/demo/waterfall.txt
# (b) the same probe as JSON                      -> reports/demo/one.json
# (c) 1000 GETs, concurrency 8, 4 per host        -> reports/demo/probe-1000.json
#     and its text summary (a second run in text)  -> reports/demo/probe-1000.txt
# (d) the built-in target shaped like a phone uplink (720 KB/s per connection,
#     50 ms latency): an 8 MiB segmented upload with 1 segment in flight and
#     with 4                                        -> reports/demo/upload-serial.{json,txt}
#                                                      reports/demo/upload-parallel.{json,txt}
# (e) a download cut by a fault (reset after 1 MB), then resumed
#                                                   -> reports/demo/download-cut.json
#                                                      reports/demo/download-resumed.json
# (f) the comparison of (d)                         -> reports/demo/upload-comparison.txt
#     and the verdicts that explain it (each connection capped by the server's window)
#                                                   -> reports/demo/seed-verdicts.txt
# (g) wirelens compare: a 3 MiB segmented upload at 1, 2, 4, 6 and 8 segments in
#     flight on the shaped target (per-connection cap: near-linear gain)
#                                                   -> reports/demo/compare-shaped.{txt,json,html,png}
# (h) the same on an unshaped target (64 MiB: loopback, the server and the CPU are
#     the bottleneck: no gain; where both ends saturate the machine's CPUs the verdict
#     is client-cpu and the recommendation says the result is bounded by this machine)                      -> reports/demo/compare-unshaped.{txt,json,html}
# (j) the counter-case: the same 8 MiB over a shared 8 Mbit/s link (scripts/netpath.sh: network namespaces, a
#     tbf with a 100 ms queue; root needed) to an unshaped target, 1 segment in flight and 4: no gain, and the
#     verdicts say network                          -> reports/demo/shared-link-serial.{json,txt}
#                                                      reports/demo/shared-link-parallel.{json,txt}
#                                                      reports/demo/seed-verdicts.txt (appended)
# (k) a download pair over a 40 ms path (scripts/netpath.sh --delay 20ms; root needed): 2 MB from a target that
#     sends at most 400 KB/s a connection (server-send), then the same 2 MB from an unshaped target through a
#     32 KiB client receive buffer (--rcvbuf: client-window), each with its verdict (-w '%{verdict}')
#                                                   -> reports/demo/download-verdicts.txt
#                                                      reports/demo/download-server-send.json
#                                                      reports/demo/download-client-window.json
# Reports are written to a scratch directory and moved into reports/demo/ only
# when every step succeeded, so a failed run leaves the previous reports alone.
# nginx is stopped on every exit path; any failing step makes the script fail.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
WIRELENS=${WIRELENS:-.build/debug/wirelens}
FINAL=reports/demo

[ -x "$WIRELENS" ] || { echo "demo: $WIRELENS not found or not executable (run make build)" >&2; exit 1; }
command -v chromium >/dev/null || { echo "demo: chromium not found (make deps installs it)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "demo: the shared-link case makes network namespaces: run make demo as root" >&2; exit 1; }
WIRELENS=$(cd "$(dirname "$WIRELENS")" && pwd)/$(basename "$WIRELENS")

RUN=$(mktemp -d "${TMPDIR:-/tmp}/wirelens-demo.XXXXXX")
OUT=$RUN/out
mkdir -p "$OUT"
TARGET_PID=
PLAIN_PID=
SHARED_PID=
SLOW_PID=
FAST_PID=
NETPATH=
DLPATH=
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    for pid in $TARGET_PID $PLAIN_PID $SHARED_PID $SLOW_PID $FAST_PID; do
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    [ -z "$NETPATH" ] || bash scripts/netpath.sh down "$NETPATH" || true
    [ -z "$DLPATH" ] || bash scripts/netpath.sh down "$DLPATH" || true
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

step "(d) the target server shaped like a phone uplink: 720 KB/s per connection, 50 ms latency"
"$WIRELENS" target --listen 127.0.0.1:0 --rate 720KB/s --latency 50ms --data-dir "$RUN/target-data" \
    >"$RUN/target.out" 2>"$RUN/target.err" &
TARGET_PID=$!
# The first line is "listening on http://HOST:PORT"; wait for it at most 10 s. Prints the URL.
target_url() {
    local listen=
    for _ in $(seq 100); do
        listen=$(head -n 1 "$1")
        [ -z "$listen" ] || break
        sleep 0.1
    done
    case "$listen" in
        "listening on "*) echo "${listen#listening on }" ;;
        *) echo "demo: the target did not start: $(cat "$2")" >&2; return 1 ;;
    esac
}
TARGET=$(target_url "$RUN/target.out" "$RUN/target.err")
echo "target: $TARGET"
python3 - "$RUN/upload-8m.bin" <<'PY'
import random, sys
random.seed(8)   # the same 8 MiB every run
with open(sys.argv[1], "wb") as f:
    f.write(random.randbytes(8 * 1024 * 1024))
PY
run "$WIRELENS" upload "$RUN/upload-8m.bin" "$TARGET/upload/demo-serial" --parallel 1 --segment-size 512KiB \
    --format json --report "$OUT/upload-serial.json" --quiet
run "$WIRELENS" upload "$RUN/upload-8m.bin" "$TARGET/upload/demo-parallel" --parallel 4 --segment-size 512KiB \
    --format json --report "$OUT/upload-parallel.json" --quiet
for f in upload-serial upload-parallel; do
    "$WIRELENS" render "$OUT/$f.json" --no-color >"$OUT/$f.txt"
done

step "(e) a download cut by a fault after 1 MB, then resumed with Range"
URL_E="$TARGET/bytes/2500000?reset_after=1000000"
set +e
run "$WIRELENS" download "$URL_E" -o "$RUN/download.bin" --format json --report "$OUT/download-cut.json" --quiet
CUT=$?
set -e
[ "$CUT" -ne 0 ] || { echo "demo: the faulty download did not fail" >&2; exit 1; }
echo "cut: exit $CUT with $(stat -c %s "$RUN/download.bin") bytes on disk"
run "$WIRELENS" download "$URL_E" -o "$RUN/download.bin" --resume --format json \
    --report "$OUT/download-resumed.json" --quiet
WHOLE=$(curl -sS "$TARGET/bytes/2500000" | sha256sum | cut -d' ' -f1)
GOT=$(sha256sum <"$RUN/download.bin" | cut -d' ' -f1)
[ "$WHOLE" = "$GOT" ] || { echo "demo: the resumed download differs from the resource" >&2; exit 1; }
echo "resumed: $(stat -c %s "$RUN/download.bin") bytes, SHA-256 equal to the resource's"

step "(f) 1 segment in flight vs 4, on a 720 KB/s-per-connection uplink"
python3 - "$OUT/upload-serial.json" "$OUT/upload-parallel.json" <<'PY' | tee "$OUT/upload-comparison.txt"
import json, sys
rows = []
for path in sys.argv[1:]:
    up = json.load(open(path))["upload"]
    rows.append((up["parallel"], up["effectiveBytesPerSecond"] / 1000, up["wallMs"] / 1000,
                 up["segmentsTotal"], up["segmentsRetried"], up.get("verified")))
print(f"{'in flight':>9}  {'KB/s':>8}  {'seconds':>8}  {'segments':>8}  {'retried':>7}  SHA-256 verified")
for p, kbs, secs, n, retried, ok in rows:
    print(f"{p:>9}  {kbs:>8.0f}  {secs:>8.1f}  {n:>8}  {retried:>7}  {ok}")
print(f"speed-up with 4 in flight: {rows[1][1] / rows[0][1]:.2f}x "
      "(each connection is capped, so parallel segments add up until the link or the server is the limit)")
PY

step "(f') why: the verdicts of the segments, 1 in flight and 4"
python3 scripts/seed-verdicts.py "Seed case: the target caps each connection (720 KB/s, 50 ms)" \
    "$OUT/upload-serial.json" "$OUT/upload-parallel.json" | tee "$OUT/seed-verdicts.txt"

step "(g) wirelens compare on the shaped target: 3 MiB in segments, 1 to 8 in flight"
run "$WIRELENS" compare "$TARGET/upload/demo-compare" --limits 1,2,4,6,8 --workload segmented:3MiB --repeat 2 \
    --format json --report "$OUT/compare-shaped.json" --quiet
"$WIRELENS" render "$OUT/compare-shaped.json" --format html >"$OUT/compare-shaped.html"
"$WIRELENS" render "$OUT/compare-shaped.json" --no-color | tee "$OUT/compare-shaped.txt"

step "(h) wirelens compare on the unshaped target: 64 MiB in segments, 1 to 8 in flight"
"$WIRELENS" target --listen 127.0.0.1:0 --data-dir "$RUN/plain-data" >"$RUN/plain.out" 2>"$RUN/plain.err" &
PLAIN_PID=$!
PLAIN=$(target_url "$RUN/plain.out" "$RUN/plain.err")
run "$WIRELENS" compare "$PLAIN/upload/demo-compare" --limits 1,2,4,6,8 --workload segmented:64MiB --repeat 3 \
    --format json --report "$OUT/compare-unshaped.json" --quiet
"$WIRELENS" render "$OUT/compare-unshaped.json" --format html >"$OUT/compare-unshaped.html"
"$WIRELENS" render "$OUT/compare-unshaped.json" --no-color | tee "$OUT/compare-unshaped.txt"

step "(i) a screenshot of the shaped comparison's HTML in headless Chromium"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --screenshot="$OUT/compare-shaped.png" \
    --window-size=1280,1500 "file://$OUT/compare-shaped.html" >/dev/null 2>&1
python3 scripts/png-check.py "$OUT/compare-shaped.png" 3b82f6 | tee "$RUN/png.txt"
read -r W H COLOURS _ <"$RUN/png.txt"
[ "$W" = 1280 ] && [ "$H" = 1500 ] && [ "$COLOURS" -gt 20 ] ||
    { echo "demo: the screenshot is not a 1280x1500 page with content" >&2; exit 1; }

step "(j) the counter-case: a shared 8 Mbit/s link, 1 segment in flight and 4"
NETPATH="wldemo$$"
bash scripts/netpath.sh up "$NETPATH" --rate 8mbit --queue 100ms >"$RUN/netpath.env"
# shellcheck disable=SC1091
. "$RUN/netpath.env"    # CLIENT_NS ROUTER_NS SERVER_NS CLIENT_IP SERVER_IP
ip netns exec "$SERVER_NS" "$WIRELENS" target --listen "$SERVER_IP:0" --data-dir "$RUN/shared-data" \
    >"$RUN/shared.out" 2>"$RUN/shared.err" &
SHARED_PID=$!
SHARED=$(target_url "$RUN/shared.out" "$RUN/shared.err")
echo "target: $SHARED in namespace $SERVER_NS, the client in $CLIENT_NS"
run ip netns exec "$CLIENT_NS" "$WIRELENS" upload "$RUN/upload-8m.bin" "$SHARED/upload/shared-serial" --parallel 1 \
    --segment-size 512KiB --format json --report "$OUT/shared-link-serial.json" --quiet
run ip netns exec "$CLIENT_NS" "$WIRELENS" upload "$RUN/upload-8m.bin" "$SHARED/upload/shared-parallel" --parallel 4 \
    --segment-size 512KiB --format json --report "$OUT/shared-link-parallel.json" --quiet
for f in shared-link-serial shared-link-parallel; do
    "$WIRELENS" render "$OUT/$f.json" --no-color >"$OUT/$f.txt"
done
echo "router: $(bash scripts/netpath.sh counters "$NETPATH" | tr '\n' ' ')"
{ echo; python3 scripts/seed-verdicts.py "Counter-case: one shared 8 Mbit/s link (tbf, 100 ms queue), unshaped target" \
    "$OUT/shared-link-serial.json" "$OUT/shared-link-parallel.json"; } | tee -a "$OUT/seed-verdicts.txt"

step "(k) why a download is slow: a server that sends slowly, then a small client window, over a 40 ms path"
DLPATH="wldl$$"
bash scripts/netpath.sh up "$DLPATH" --delay 20ms >"$RUN/dlpath.env"
# shellcheck disable=SC1091
. "$RUN/dlpath.env"     # CLIENT_NS ROUTER_NS SERVER_NS CLIENT_IP SERVER_IP
ip netns exec "$SERVER_NS" "$WIRELENS" target --listen "$SERVER_IP:0" --data-dir "$RUN/slow-data" --rate 400KB/s \
    >"$RUN/slow.out" 2>"$RUN/slow.err" &
SLOW_PID=$!
SLOW=$(target_url "$RUN/slow.out" "$RUN/slow.err")
ip netns exec "$SERVER_NS" "$WIRELENS" target --listen "$SERVER_IP:0" --data-dir "$RUN/fast-data" \
    >"$RUN/fast.out" 2>"$RUN/fast.err" &
FAST_PID=$!
FAST=$(target_url "$RUN/fast.out" "$RUN/fast.err")
{
    printf 'server sends at most 400 KB/s:   '
    run ip netns exec "$CLIENT_NS" "$WIRELENS" probe "$SLOW/bytes/2000000" --format json \
        --report "$OUT/download-server-send.json" -w '%{verdict}\n'
    printf 'unshaped, --rcvbuf 32KiB:        '
    run ip netns exec "$CLIENT_NS" "$WIRELENS" probe "$FAST/bytes/2000000" --rcvbuf 32KiB --format json \
        --report "$OUT/download-client-window.json" -w '%{verdict}\n'
} | tee "$OUT/download-verdicts.txt"
python3 - "$OUT/download-server-send.json" "$OUT/download-client-window.json" <<'PY' | tee -a "$OUT/download-verdicts.txt"
import json, sys
for path in sys.argv[1:]:
    d = json.load(open(path))["tasks"][0]["transactions"][0]["diagnosis"]
    print(f"\n{d['verdict']}: {d['explanation']}\n  basis: {d['basis']}")
PY
grep -q 'server-send$' "$OUT/download-verdicts.txt" && grep -q 'client-window$' "$OUT/download-verdicts.txt" ||
    { echo "demo: the download pair's verdicts are not server-send and client-window" >&2; exit 1; }

step "reports"
mkdir -p "$FINAL"
for f in waterfall.txt one.json probe-1000.json probe-1000.txt upload-serial.json upload-serial.txt \
         upload-parallel.json upload-parallel.txt download-cut.json download-resumed.json upload-comparison.txt \
         compare-shaped.json compare-shaped.html compare-shaped.txt compare-shaped.png \
         compare-unshaped.json compare-unshaped.html compare-unshaped.txt seed-verdicts.txt \
         shared-link-serial.json shared-link-serial.txt shared-link-parallel.json shared-link-parallel.txt \
         download-verdicts.txt download-server-send.json download-client-window.json; do
    mv -f "$OUT/$f" "$FINAL/$f"
    printf '  %s/%s\n' "$FINAL" "$f"
done
