#!/usr/bin/env bash
# Stop the Wirelens test nginx started by scripts/nginx-up.sh DIR.
#
#   scripts/nginx-down.sh DIR
#
# Sends SIGTERM (nginx fast shutdown) to the master named in DIR/nginx.pid,
# waits up to ~5 s, then SIGKILLs master and worker (bounded). Removes only the pid and
# ports files; everything else in DIR stays. Quiet and exit 0 when nothing is
# running (idempotent); errors on stderr with exit 1.
set -euo pipefail

die() { echo "nginx-down: $*" >&2; exit 1; }
[ $# -eq 1 ] && [ -n "$1" ] || die "usage: $0 DIR"
[ -d "$1" ] || exit 0
DIR=$(cd "$1" && pwd -P)
PIDFILE="$DIR/nginx.pid"

[ -s "$PIDFILE" ] || { rm -f "$DIR/ports.env"; exit 0; }
pid=$(tr -dc '0-9' <"$PIDFILE")

is_our_nginx() { # only signal a live nginx master, never a recycled pid
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null &&
        tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "nginx"
}

wait_gone() { # tenths of a second
    local i
    for ((i = 0; i < $1; i++)); do
        is_our_nginx || return 0
        sleep 0.1
    done
    ! is_our_nginx
}

if is_our_nginx; then
    # SIGTERM is nginx's fast shutdown: the master closes connections and
    # waits for its worker before it exits.
    kill -TERM "$pid" 2>/dev/null || true
    if ! wait_gone 50; then
        children=$(pgrep -P "$pid" 2>/dev/null || true)
        # shellcheck disable=SC2086
        kill -KILL "$pid" $children 2>/dev/null || true
        wait_gone 20 || die "nginx (pid $pid) did not stop"
    fi
fi
rm -f "$PIDFILE" "$DIR/ports.env"
