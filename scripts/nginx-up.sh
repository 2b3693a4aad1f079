#!/usr/bin/env bash
# Start the Wirelens test nginx in DIR (created if needed).
#
#   scripts/nginx-up.sh DIR
#
# On success prints exactly these lines on stdout and nothing else:
#   DIR=/abs/dir
#   HTTP_PORT=n       HTTP/1.1 on 127.0.0.1 (and ::1 when available)
#   HTTPS_PORT=n      TLS, h2 or http/1.1 by ALPN
#   H2C_PORT=n        cleartext HTTP/2, prior knowledge only
#   CERT=/abs/dir/cert.pem   self-signed, CN=localhost, SAN localhost/127.0.0.1/::1
# Errors go to stderr, exit 1. Idempotent: if an nginx started by this script
# is still running in DIR and answering, its lines are printed again.
# Stop it with scripts/nginx-down.sh DIR.
set -euo pipefail

die() { echo "nginx-up: $*" >&2; exit 1; }

[ $# -eq 1 ] && [ -n "$1" ] || die "usage: $0 DIR"
command -v nginx >/dev/null 2>&1 || die "nginx not found (make deps installs nginx-light)"
command -v openssl >/dev/null 2>&1 || die "openssl not found"
command -v python3 >/dev/null 2>&1 || die "python3 not found"

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CONF_IN="$SCRIPT_DIR/nginx.conf.in"
LOC_IN="$SCRIPT_DIR/nginx-locations.conf.in"
[ -r "$CONF_IN" ] && [ -r "$LOC_IN" ] || die "templates missing next to $0"

# The path is pasted into nginx.conf by sed: keep it to plain characters.
check_path() {
    case "$1" in
        *[!A-Za-z0-9._/+-]*) die "DIR may only contain letters, digits and . _ / + - : $1" ;;
    esac
}
check_path "$1"
mkdir -p "$1" || die "cannot create $1"
DIR=$(cd "$1" && pwd -P)
check_path "$DIR"

PIDFILE="$DIR/nginx.pid"
PORTSFILE="$DIR/ports.env"

port_open() { # port: true if 127.0.0.1:port accepts a TCP connection
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

running_pid() { # prints the pid of a live nginx master for DIR, if any
    local pid
    [ -s "$PIDFILE" ] || return 1
    pid=$(tr -dc '0-9' <"$PIDFILE")
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "nginx" || return 1
    echo "$pid"
}

print_ports() {
    echo "DIR=$DIR"
    echo "HTTP_PORT=$HTTP_PORT"
    echo "HTTPS_PORT=$HTTPS_PORT"
    echo "H2C_PORT=$H2C_PORT"
    echo "CERT=$DIR/cert.pem"
}

# Already running? Then this is a no-op that repeats the lines.
if running_pid >/dev/null && [ -s "$PORTSFILE" ]; then
    # shellcheck disable=SC1090
    . "$PORTSFILE"
    if port_open "$HTTP_PORT" && port_open "$HTTPS_PORT" && port_open "$H2C_PORT"; then
        print_ports
        exit 0
    fi
    die "an nginx is running for $DIR (pid $(running_pid)) but does not answer; run nginx-down.sh first"
fi
rm -f "$PIDFILE" "$PORTSFILE"

# ---- files ---------------------------------------------------------------
mkdir -p "$DIR/www/bytes" "$DIR/www/slow" "$DIR/www/upload" "$DIR/tmp"
for t in body proxy fastcgi uwsgi scgi; do mkdir -p "$DIR/tmp/$t"; done

printf 'hello wirelens' >"$DIR/www/small.txt"
make_bytes() { # path size_in_KiB
    local path=$1 kib=$2
    if [ "$(stat -c %s "$path" 2>/dev/null || echo -1)" != "$((kib * 1024))" ]; then
        head -c "$((kib * 1024))" /dev/urandom >"$path.tmp" && mv -f "$path.tmp" "$path"
    fi
}
make_bytes "$DIR/www/bytes/1k.bin" 1
make_bytes "$DIR/www/bytes/1m.bin" 1024
make_bytes "$DIR/www/bytes/16m.bin" 16384
make_bytes "$DIR/www/bytes/64m.bin" 65536
make_bytes "$DIR/www/slow/1m.bin" 1024
make_bytes "$DIR/www/slow/4m.bin" 4096

# ---- certificate (reused while valid for at least another hour) ------------
if ! { [ -s "$DIR/cert.pem" ] && [ -s "$DIR/key.pem" ] &&
       openssl x509 -in "$DIR/cert.pem" -noout -checkend 3600 >/dev/null 2>&1; }; then
    if ! openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
            -keyout "$DIR/key.pem" -out "$DIR/cert.pem" -days 2 \
            -subj "/CN=localhost" \
            -addext "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1" \
            >"$DIR/openssl.log" 2>&1; then
        cat "$DIR/openssl.log" >&2
        die "openssl could not create the certificate"
    fi
    chmod 600 "$DIR/key.pem"
fi

# ---- ports and start ------------------------------------------------------
# Prints "HTTP HTTPS H2C V6" : three distinct free ports on 127.0.0.1, all three
# also free on ::1 when V6=1 (V6=0 when ::1 cannot be bound at all).
pick_ports() {
    python3 - <<'EOF'
import socket
def try_v6(port):
    try:
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    except OSError:
        return None
    try:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        s.bind(("::1", port))
        return s
    except OSError:
        s.close()
        return None
v6_usable = try_v6(0)
if v6_usable is not None:
    v6_usable.close()
for attempt in range(20):
    socks, ports = [], []
    try:
        for _ in range(3):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            socks.append(s)
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])
        if v6_usable is not None:
            for p in ports:
                s6 = try_v6(p)
                if s6 is None:
                    raise OSError("port taken on ::1")
                socks.append(s6)
    except OSError:
        continue
    finally:
        for s in socks:
            s.close()
    print(*ports, 1 if v6_usable is not None else 0)
    break
else:
    raise SystemExit("no free ports found")
EOF
}

render() { # template output
    local -a extra=()
    [ "$V6" = 1 ] || extra+=(-e '/#ipv6$/d')
    [ "$(id -u)" = 0 ] || extra+=(-e '/^user root;/d')
    sed -e "s|@DIR@|$DIR|g" \
        -e "s|@HTTP_PORT@|$HTTP_PORT|g" \
        -e "s|@HTTPS_PORT@|$HTTPS_PORT|g" \
        -e "s|@H2C_PORT@|$H2C_PORT|g" \
        "${extra[@]}" "$1" >"$2.tmp" && mv -f "$2.tmp" "$2"
}

# nginx daemonizes and lives on after this script: it must not keep any file
# descriptor it inherited from our caller. A parent that waits for EOF on a
# pipe or socket it passed down (Foundation's Process does, for example) would
# otherwise hang until nginx stops. Run in a subshell: close every fd above 2.
start_nginx() (
    for fd in /proc/$BASHPID/fd/*; do
        fd=${fd##*/}
        [ "$fd" -gt 2 ] 2>/dev/null && { eval "exec $fd>&-"; } 2>/dev/null
    done
    exec nginx -c "$DIR/nginx.conf" -p "$DIR/" -e "$DIR/error.log" >"$DIR/nginx.out" 2>&1
)

started=0
for attempt in 1 2 3; do
    read -r HTTP_PORT HTTPS_PORT H2C_PORT V6 < <(pick_ports) || die "could not pick free ports"
    [ -n "${V6:-}" ] || die "could not pick free ports"
    render "$LOC_IN" "$DIR/locations.conf"
    render "$CONF_IN" "$DIR/nginx.conf"
    : >"$DIR/error.log"
    # -e: startup messages go to the run directory, not the packaged log path.
    if start_nginx; then
        ok=0
        for _ in $(seq 1 50); do          # at most ~5 s
            if port_open "$HTTP_PORT" && port_open "$HTTPS_PORT" && port_open "$H2C_PORT"; then
                ok=1; break
            fi
            sleep 0.1
        done
        if [ "$ok" = 1 ] && running_pid >/dev/null; then
            started=1; break
        fi
        cat "$DIR/nginx.out" "$DIR/error.log" >&2 || true
        bash "$SCRIPT_DIR/nginx-down.sh" "$DIR" >&2 || true
        die "nginx started but its ports did not all accept connections within 5 s"
    fi
    if grep -qs "Address already in use" "$DIR/nginx.out" "$DIR/error.log"; then
        [ "$attempt" -lt 3 ] &&
            echo "nginx-up: a port was taken meanwhile (attempt $attempt), retrying with new ports" >&2
        continue
    fi
    cat "$DIR/nginx.out" >&2
    die "nginx failed to start (config $DIR/nginx.conf, log $DIR/error.log)"
done
[ "$started" = 1 ] || die "nginx could not bind free ports after 3 attempts"

cat >"$PORTSFILE" <<EOF
HTTP_PORT=$HTTP_PORT
HTTPS_PORT=$HTTPS_PORT
H2C_PORT=$H2C_PORT
EOF
print_ports
