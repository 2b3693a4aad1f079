#!/usr/bin/env bash
# A network path with a queue, made of three network namespaces, for verdict tests and the demo.
#
#   scripts/netpath.sh up NAME [--rate RATE] [--down-rate RATE] [--drop P] [--down-drop P] [--queue LATENCY]
#                          [--delay DURATION] [--second-path RATE]
#   scripts/netpath.sh down NAME
#   scripts/netpath.sh counters NAME
#
#   NAME-c (client) 198.18.1.1 ── c0|rc ── NAME-r (router, ip_forward) ── rs|s0 ── 198.18.2.1 NAME-s (server)
#
# Addresses come from the benchmarking range 198.18.0.0/15 (RFC 2544); the router has no other link and no
# default route, so nothing leaves the three namespaces. IPv6 is off in them. MTU 1500 and the veth offloads
# (TSO, GSO, GRO) off, so every packet the rate limit and the drop rule see is one wire-sized segment.
#
#   --rate RATE       tbf on the router's egress toward the server (the uplink), in tc's units
#                     (8mbit, 500kbit, 1gbit); default: no limit
#   --down-rate RATE  tbf on the router's egress toward the client; default: the --rate
#   --queue LATENCY   how long a packet may wait in a tbf queue before it is dropped (tc's latency: 50ms,
#                     200ms); default 50ms. The queue is what makes the round-trip time grow with load.
#   --drop P          iptables -m statistic --mode random --probability P -j DROP in the router's FORWARD
#                     chain, for the uplink only (0 < P < 1)
#   --down-drop P     the same rule for the downlink (toward the client)
#   --delay DURATION  hold every packet DURATION in the router, each way (20ms: a round trip 40 ms longer); this
#                     kernel has no netem, so a delay line does it: a TUN device dl0 in the router, policy rules
#                     (`ip rule iif rc|rs lookup 100`, table 100's default route into dl0) that send what arrives
#                     from either veth into it, and scripts/delayline.py (python3, standard library) reading each
#                     packet, holding it in an arrival-ordered queue of at most 10000 packets (drops beyond) and
#                     writing it back into dl0 when its time comes, from where the main table forwards it on.
#                     Between 100us and 5s. The drop rule then counts and drops before the delay, the tbf queues
#                     after it. Python costs some tens of microseconds a packet: a delayed path without a --rate
#                     is limited by it (a few tens of thousands of packets a second).
#   --second-path RATE  a second link straight between the client and the server, beside the router, for
#                     Multipath TCP: veth c1 (client, 198.18.3.1/24) and s1 (server, 198.18.3.2/24), offloads off,
#                     tbf RATE on both ends' egress (the --queue latency); `up` then also prints SECOND_CLIENT_IP and
#                     SECOND_SERVER_IP. Each namespace reaches the other's second address over it (its own /24).
#
# tbf counts a packet's length with its Ethernet header (14 bytes) and nothing else: a full TCP segment with
# timestamps is 1514 bytes carrying 1448 bytes of payload, so the payload rate is RATE/8 * 1448/1514.
#
# `up` prints these lines on stdout and nothing else (like scripts/nginx-up.sh):
#   CLIENT_NS=NAME-c  ROUTER_NS=NAME-r  SERVER_NS=NAME-s  CLIENT_IP=198.18.1.1  SERVER_IP=198.18.2.1
# `counters` prints, one per line:
#   UPLINK_PACKETS=n    packets the router forwarded toward the server (counted before the drop rule)
#   DROP_PACKETS=n      packets the drop rule dropped (0 without --drop)
#   DOWN_DROP_PACKETS=n packets the downlink's drop rule dropped (0 without --down-drop)
#   UP_SENT_BYTES=n UP_SENT_PACKETS=n UP_DROPPED=n UP_OVERLIMITS=n          the uplink qdisc's counters
#   DOWN_SENT_BYTES=n DOWN_SENT_PACKETS=n DOWN_DROPPED=n DOWN_OVERLIMITS=n  the downlink qdisc's counters
# `down` ends what still runs in the three namespaces (SIGTERM, then SIGKILL after 2 s) and deletes them;
# it is quiet and succeeds when they do not exist.
#
# Needs root, ip (iproute2), tc, ethtool and iptables (make deps installs them). Errors: one line on stderr,
# exit 1; a failed `up` removes what it made.
set -euo pipefail

die() { echo "netpath: $*" >&2; exit 1; }

CLIENT_IP=198.18.1.1
ROUTER_CLIENT_IP=198.18.1.254
SERVER_IP=198.18.2.1
SECOND_CLIENT_IP=198.18.3.1
SECOND_SERVER_IP=198.18.3.2
ROUTER_SERVER_IP=198.18.2.254
UPLINK_TAG=wirelens-uplink
DOWN_DROP_TAG=wirelens-down-drop
DELAY_TABLE=100
DELAY_LIMIT=10000
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

usage() { die "usage: $0 up NAME [--rate RATE] [--down-rate RATE] [--drop P] [--down-drop P] [--queue LATENCY] [--delay DURATION] [--second-path RATE] | down NAME | counters NAME"; }

[ $# -ge 2 ] || usage
COMMAND=$1
NAME=$2
shift 2
case "$NAME" in
    ''|*[!a-z0-9-]*|-*) die "NAME may only contain a-z, 0-9 and -, and not start with -: '$NAME'" ;;
esac
[ ${#NAME} -le 40 ] || die "NAME is longer than 40 characters: $NAME"
C="$NAME-c"
R="$NAME-r"
S="$NAME-s"

need_root() {
    [ "$(id -u)" = 0 ] || die "needs root (network namespaces, tc, iptables): run it as root"
    local tool
    for tool in ip tc ethtool iptables; do
        command -v "$tool" >/dev/null 2>&1 || die "$tool not found (make deps installs iproute2, ethtool and iptables)"
    done
}

exists() { [ -e "/run/netns/$1" ]; }

# tc's rate units → bits per second; fails on anything else.
rate_bits() {
    local value=$1 number unit
    [[ $value =~ ^([0-9]+(\.[0-9]+)?)([kmg]?bit)$ ]] || return 1
    number=${BASH_REMATCH[1]}
    unit=${BASH_REMATCH[3]}
    case "$unit" in
        bit) awk -v n="$number" 'BEGIN { printf "%d", n }' ;;
        kbit) awk -v n="$number" 'BEGIN { printf "%d", n * 1000 }' ;;
        mbit) awk -v n="$number" 'BEGIN { printf "%d", n * 1000000 }' ;;
        gbit) awk -v n="$number" 'BEGIN { printf "%d", n * 1000000000 }' ;;
    esac
}

teardown() {
    local ns pids pid
    for ns in "$C" "$R" "$S"; do
        exists "$ns" || continue
        pids=$(ip netns pids "$ns" 2>/dev/null || true)
        for pid in $pids; do kill -TERM "$pid" 2>/dev/null || true; done
    done
    for ns in "$C" "$R" "$S"; do
        exists "$ns" || continue
        for _ in $(seq 20); do
            [ -z "$(ip netns pids "$ns" 2>/dev/null || true)" ] && break
            sleep 0.1
        done
        for pid in $(ip netns pids "$ns" 2>/dev/null || true); do kill -KILL "$pid" 2>/dev/null || true; done
        ip netns del "$ns" 2>/dev/null || true
    done
}

# A tbf on DEV in namespace NS: RATE in tc units, its bits per second, the queue's latency.
shape() {
    local ns=$1 dev=$2 rate=$3 bits=$4 latency=$5 burst
    # One millisecond at the rate, at least two full packets: small enough that the rate holds over a round
    # trip, large enough for the kernel's timer.
    burst=$(( bits / 8 / 1000 ))
    [ "$burst" -ge 3028 ] || burst=3028
    ip netns exec "$ns" tc qdisc replace dev "$dev" root tbf rate "$rate" burst "$burst" latency "$latency"
}

up() {
    local rate= down_rate= drop= down_drop= queue=50ms delay= second=
    while [ $# -gt 0 ]; do
        case "$1" in
            --rate) [ $# -ge 2 ] || usage; rate=$2; shift 2 ;;
            --down-rate) [ $# -ge 2 ] || usage; down_rate=$2; shift 2 ;;
            --drop) [ $# -ge 2 ] || usage; drop=$2; shift 2 ;;
            --down-drop) [ $# -ge 2 ] || usage; down_drop=$2; shift 2 ;;
            --queue) [ $# -ge 2 ] || usage; queue=$2; shift 2 ;;
            --delay) [ $# -ge 2 ] || usage; delay=$2; shift 2 ;;
            --second-path) [ $# -ge 2 ] || usage; second=$2; shift 2 ;;
            *) die "unknown option '$1' (--rate, --down-rate, --drop, --down-drop, --queue, --delay, --second-path)" ;;
        esac
    done
    local up_bits= down_bits=
    if [ -n "$rate" ]; then
        up_bits=$(rate_bits "$rate") || die "--rate '$rate' is not a rate in tc's units (8mbit, 500kbit, 1gbit)"
    fi
    [ -n "$down_rate" ] || down_rate=$rate
    if [ -n "$down_rate" ]; then
        down_bits=$(rate_bits "$down_rate") || die "--down-rate '$down_rate' is not a rate in tc's units (8mbit, 500kbit)"
    fi
    [[ $queue =~ ^[0-9]+(\.[0-9]+)?(us|ms|s)$ ]] || die "--queue '$queue' is not a duration (50ms, 200ms, 1s)"
    local second_bits=
    if [ -n "$second" ]; then
        second_bits=$(rate_bits "$second") || die "--second-path '$second' is not a rate in tc's units (10mbit, 500kbit)"
    fi
    local option value
    for option in "--drop:$drop" "--down-drop:$down_drop"; do
        value=${option#*:}
        [ -n "$value" ] || continue
        awk -v p="$value" 'BEGIN { exit !(p ~ /^0?\.[0-9]+$/ && p > 0 && p < 1) }' ||
            die "${option%%:*} '$value' is not a probability between 0 and 1 (0.02 for 2%)"
    done
    local delay_us=
    if [ -n "$delay" ]; then
        delay_us=$(duration_us "$delay") && [ "$delay_us" -ge 100 ] && [ "$delay_us" -le 5000000 ] ||
            die "--delay '$delay' is not a duration between 100us and 5s (20ms, 500us, 1s)"
    fi
    need_root
    for ns in "$C" "$R" "$S"; do
        exists "$ns" && die "namespace $ns exists already: run '$0 down $NAME' first"
    done
    trap 'rc=$?; [ $rc = 0 ] || { echo "netpath: up $NAME failed, removing what it made" >&2; teardown; }' EXIT

    for ns in "$C" "$R" "$S"; do
        ip netns add "$ns"
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
        ip -n "$ns" link set lo up
    done
    # The pairs are made inside their namespaces: the same interface names serve every path at once.
    ip link add c0 netns "$C" type veth peer name rc netns "$R"
    ip link add rs netns "$R" type veth peer name s0 netns "$S"
    local pair ns dev
    for pair in "$C:c0" "$R:rc" "$R:rs" "$S:s0"; do
        ns=${pair%%:*}
        dev=${pair#*:}
        ip -n "$ns" link set "$dev" mtu 1500 up
        ip netns exec "$ns" ethtool -K "$dev" tso off gso off gro off >/dev/null 2>&1 ||
            ip netns exec "$ns" ethtool -K "$dev" tso off gso off gro off
    done
    ip -n "$C" addr add "$CLIENT_IP/24" dev c0
    ip -n "$R" addr add "$ROUTER_CLIENT_IP/24" dev rc
    ip -n "$R" addr add "$ROUTER_SERVER_IP/24" dev rs
    ip -n "$S" addr add "$SERVER_IP/24" dev s0
    ip -n "$C" route add default via "$ROUTER_CLIENT_IP"
    ip -n "$S" route add default via "$ROUTER_SERVER_IP"
    ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1

    # The uplink's packets are counted first, then the drop rule takes its share: its counter over the first
    # one is the loss the path made.
    # With a delay line the uplink's packets go rc → dl0 first (then dl0 → rs): they are counted and dropped then.
    local uplink_out=rs
    [ -z "$delay" ] || uplink_out=dl0
    ip netns exec "$R" iptables -A FORWARD -i rc -o "$uplink_out" -m comment --comment "$UPLINK_TAG"
    if [ -n "$drop" ]; then
        ip netns exec "$R" iptables -A FORWARD -i rc -o "$uplink_out" -m statistic --mode random --probability "$drop" -j DROP
    fi
    if [ -n "$down_drop" ]; then
        # With a delay line the downlink's packets go rs → dl0 first: they are dropped then.
        local downlink_out=rc
        [ -z "$delay" ] || downlink_out=dl0
        ip netns exec "$R" iptables -A FORWARD -i rs -o "$downlink_out" -m statistic --mode random --probability "$down_drop" \
            -m comment --comment "$DOWN_DROP_TAG" -j DROP
    fi
    [ -z "$delay" ] || delay_line "$delay_us"
    [ -z "$rate" ] || shape "$R" rs "$rate" "$up_bits" "$queue"
    [ -z "$down_rate" ] || shape "$R" rc "$down_rate" "$down_bits" "$queue"
    [ -z "$second" ] || second_path "$second" "$second_bits" "$queue"
    trap - EXIT
    echo "CLIENT_NS=$C"
    echo "ROUTER_NS=$R"
    echo "SERVER_NS=$S"
    echo "CLIENT_IP=$CLIENT_IP"
    echo "SERVER_IP=$SERVER_IP"
    if [ -n "$second" ]; then
        echo "SECOND_CLIENT_IP=$SECOND_CLIENT_IP"
        echo "SECOND_SERVER_IP=$SECOND_SERVER_IP"
    fi
}

# The second link (--second-path): veth c1|s1 straight between the client and the server, RATE on both egresses.
second_path() {
    local rate=$1 bits=$2 latency=$3 pair ns dev
    ip link add c1 netns "$C" type veth peer name s1 netns "$S"
    for pair in "$C:c1" "$S:s1"; do
        ns=${pair%%:*}
        dev=${pair#*:}
        ip -n "$ns" link set "$dev" mtu 1500 up
        ip netns exec "$ns" ethtool -K "$dev" tso off gso off gro off >/dev/null 2>&1 ||
            ip netns exec "$ns" ethtool -K "$dev" tso off gso off gro off
        shape "$ns" "$dev" "$rate" "$bits" "$latency"
    done
    ip -n "$C" addr add "$SECOND_CLIENT_IP/24" dev c1
    ip -n "$S" addr add "$SECOND_SERVER_IP/24" dev s1
}

# DURATION (500us, 20ms, 1.5s) in whole microseconds; fails on anything else.
duration_us() {
    local value=$1
    [[ $value =~ ^([0-9]+(\.[0-9]+)?)(us|ms|s)$ ]] || return 1
    case "${BASH_REMATCH[3]}" in
        us) awk -v n="${BASH_REMATCH[1]}" 'BEGIN { printf "%d", n }' ;;
        ms) awk -v n="${BASH_REMATCH[1]}" 'BEGIN { printf "%d", n * 1000 }' ;;
        s) awk -v n="${BASH_REMATCH[1]}" 'BEGIN { printf "%d", n * 1000000 }' ;;
    esac
}

# The delay line of the router: what arrives from either veth is routed into the TUN device dl0, where
# delayline.py holds it DELAY_US and writes it back; arriving on dl0, it is forwarded by the main table.
delay_line() {
    local delay_us=$1
    command -v python3 >/dev/null 2>&1 || die "python3 not found: --delay runs scripts/delayline.py"
    [ -c /dev/net/tun ] || die "/dev/net/tun is missing: --delay needs the tun module (modprobe tun)"
    ip -n "$R" tuntap add dev dl0 mode tun
    ip -n "$R" link set dl0 mtu 1500 up
    # A packet from the client arrives back on dl0, not on rc: reverse-path filtering would drop it.
    ip netns exec "$R" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
        net.ipv4.conf.dl0.rp_filter=0 net.ipv4.conf.all.send_redirects=0
    ip -n "$R" route add default dev dl0 table "$DELAY_TABLE"
    ip -n "$R" rule add iif rc lookup "$DELAY_TABLE" pref 100
    ip -n "$R" rule add iif rs lookup "$DELAY_TABLE" pref 101
    ip netns exec "$R" setsid python3 "$SCRIPT_DIR/delayline.py" dl0 "$delay_us" "$DELAY_LIMIT" \
        </dev/null >/dev/null 2>&1 &
    # Ready when the program holds the device: a TUN device has carrier only while a process has it open.
    local _
    for _ in $(seq 50); do
        ip -n "$R" -o link show dl0 | grep -q NO-CARRIER || return 0
        sleep 0.1
    done
    die "the delay line did not start within 5 s (python3 $SCRIPT_DIR/delayline.py in $R)"
}

# The qdisc counters of DEV in the router as PREFIX_SENT_BYTES=… lines (zeros when it has no tbf).
qdisc_counters() {
    local dev=$1 prefix=$2
    ip netns exec "$R" tc -s qdisc show dev "$dev" | awk -v p="$prefix" '
        /^qdisc tbf/ { tbf = 1 }
        tbf && /Sent/ && !done {
            for (i = 1; i <= NF; i++) {
                if ($i == "Sent") bytes = $(i + 1)
                if ($i == "pkt") packets = $(i - 1)
                if ($i == "(dropped") { dropped = $(i + 1); sub(/,/, "", dropped) }
                if ($i == "overlimits") overlimits = $(i + 1)
            }
            done = 1
        }
        END {
            printf "%s_SENT_BYTES=%d\n%s_SENT_PACKETS=%d\n%s_DROPPED=%d\n%s_OVERLIMITS=%d\n",
                p, bytes, p, packets, p, dropped, p, overlimits
        }'
}

counters() {
    need_root
    exists "$R" || die "no path named $NAME (namespace $R does not exist): run '$0 up $NAME' first"
    ip netns exec "$R" iptables -L FORWARD -v -n -x | awk -v tag="$UPLINK_TAG" -v down="$DOWN_DROP_TAG" '
        $0 ~ tag { uplink = $1 }
        / DROP / && /statistic/ && $0 ~ down { downDrop = $1; next }
        / DROP / && /statistic/ { drop = $1 }
        END { printf "UPLINK_PACKETS=%d\nDROP_PACKETS=%d\nDOWN_DROP_PACKETS=%d\n", uplink, drop, downDrop }'
    qdisc_counters rs UP
    qdisc_counters rc DOWN
}

case "$COMMAND" in
    up) up "$@" ;;
    down) [ $# -eq 0 ] || usage; need_root; teardown ;;
    counters) [ $# -eq 0 ] || usage; counters ;;
    *) usage ;;
esac
