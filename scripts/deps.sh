#!/usr/bin/env bash
# Install what Wirelens needs to build, test, demo and bench, and only what is
# missing. Quiet when everything is already there. Called by `make deps`.
#   scripts/deps.sh --build   only the libraries the build links (scripts/test.sh installs the rest during the build)
set -euo pipefail

BUILD_PACKAGES=(libcurl4-openssl-dev libnghttp2-dev libpcap-dev libssl-dev libsqlite3-dev)
BUILD_ONLY=false
[ "${1:-}" = --build ] && BUILD_ONLY=true

PACKAGES=("${BUILD_PACKAGES[@]}" nginx-light tshark tcpdump tcptrace nghttp2-client nghttp2-server nghttp2-proxy openssl prometheus prometheus-blackbox-exporter chromium time iproute2 iptables ethtool valgrind libndpi-bin)

# The package's test (scripts/package-check.sh): dpkg-shlibdeps, readelf/strip, man -l, and the zsh and fish completions.
PACKAGES+=(dpkg-dev binutils man-db zsh fish)

# The httpbin conformance suite (Tests/WirelensCLITests/HttpbinConformanceTests.swift): httpbin under gunicorn,
# both run by Debian's /usr/bin/python3 (scripts/httpbin-gunicorn.py).
PACKAGES+=(python3-httpbin gunicorn)

# The S3 test peer (Tests/WirelensTestSupport/MotoServer.swift): moto's server and aws-cli, pip-installed into a
# venv made by Debian's python3 (python3-venv).
PACKAGES+=(python3-venv)
if $BUILD_ONLY; then PACKAGES=("${BUILD_PACKAGES[@]}"); fi
missing=()
for p in "${PACKAGES[@]}"; do
    if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" != "install ok installed" ]; then
        missing+=("$p")
    fi
done

if [ ${#missing[@]} -gt 0 ]; then
    echo "deps: installing ${missing[*]}" >&2
    SUDO=()
    [ "$(id -u)" = 0 ] || SUDO=(sudo)
    "${SUDO[@]}" apt-get update
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
    for p in "${missing[@]}"; do
        if [ "$p" = nginx-light ]; then
            # The package starts a system nginx on port 80: stop it, tests run
            # their own (scripts/nginx-up.sh).
            "${SUDO[@]}" service nginx stop >/dev/null 2>&1 || true
        fi
        if [ "$p" = prometheus ]; then
            # Likewise a system Prometheus (and its node exporter) on 9090/9100: the tests start their own.
            "${SUDO[@]}" service prometheus stop >/dev/null 2>&1 || true
            "${SUDO[@]}" service prometheus-node-exporter stop >/dev/null 2>&1 || true
        fi
        if [ "$p" = prometheus-blackbox-exporter ]; then
            # Its service listens on 9115: the checks-at-scale bench (scripts/bench-checks.py) starts its own.
            "${SUDO[@]}" service prometheus-blackbox-exporter stop >/dev/null 2>&1 || true
        fi
    done
fi

if $BUILD_ONLY; then
    command -v swift >/dev/null 2>&1 || { echo "deps: swift is not on PATH (install a Swift 6 toolchain)" >&2; exit 1; }
    exit 0
fi

if ! python3 -c 'import jsonschema' >/dev/null 2>&1; then
    echo "deps: installing the python module jsonschema" >&2
    python3 -m pip install --quiet jsonschema ||
        python3 -m pip install --quiet --break-system-packages jsonschema
    python3 -c 'import jsonschema' || { echo "deps: jsonschema still not importable" >&2; exit 1; }
fi

# moto (an S3 look-alike in one process) and aws-cli (the oracle client), in the repository's .venv-s3/ (gitignored).
# Pinned: the tests read moto_server's startup line and aws-cli's JSON answers.
S3_VENV="$(cd "$(dirname "$0")/.." && pwd)/.venv-s3"
if ! "$S3_VENV/bin/python" -c 'import moto.server, werkzeug, awscli' >/dev/null 2>&1 ||
    [ ! -x "$S3_VENV/bin/moto_server" ] || [ ! -x "$S3_VENV/bin/aws" ]; then
    echo "deps: installing moto[server] and awscli into $S3_VENV" >&2
    /usr/bin/python3 -m venv "$S3_VENV"
    "$S3_VENV/bin/python" -m pip install --quiet 'moto[server]==5.2.1' 'awscli==1.45.11'
    "$S3_VENV/bin/python" -c 'import moto.server, awscli' || { echo "deps: moto or awscli still not importable" >&2; exit 1; }
fi

command -v swift >/dev/null 2>&1 || {
    echo "deps: swift is not on PATH (install a Swift 6 toolchain; apt does not provide one)" >&2
    exit 1
}
