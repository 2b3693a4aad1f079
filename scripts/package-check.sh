#!/usr/bin/env bash
# The package's test (`make package-check`, run by `make test`): builds the .deb from the staged release
# (scripts/stage.sh), unpacks it into a scratch root (dpkg-deb -x) and checks it against independent sources:
#   - Depends: names no -dev package; every package in it is installed here at the version asked; each names the
#     package (dpkg -S) that owns a library the binary needs (readelf NEEDED, resolved by ldd), and each such
#     package is named; ldd resolves every library of the unpacked binary;
#   - the binary is stripped (no .symtab); Installed-Size matches the files' sizes (stat);
#   - the unpacked `wirelens --version` names the libraries; `wirelens probe` fetches a file from a loopback python
#     server (status, body size and the server's own log line agree); `man -l` renders every command's page,
#     which names every option that command's --help lists; the completion scripts load (bash) or declare
#     themselves (zsh, fish);
#   - `make install DESTDIR=...` then `make uninstall DESTDIR=...` leaves the tree as it was (a file that was
#     already there stays).
# Usage: scripts/package-check.sh STAGEDIR   (the Makefile stages first; nothing here builds Swift)
# WIRELENS_APT_INSTALL=1 (root): also `apt-get install ./wirelens_*.deb` on this machine, the same checks on
# /usr/bin/wirelens, then `apt-get purge wirelens`.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 STAGEDIR" >&2; exit 2; }
stage=$(realpath "$1")
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work=$(mktemp -d)
server=
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
failures=0
fail() { echo "package-check: FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "package-check: ok: $*"; }

# --- build the package -------------------------------------------------------------------------------------
start=$(date +%s%N)
bash scripts/deb.sh "$stage" "$work/out" >"$work/deb.log" || { cat "$work/deb.log" >&2; exit 1; }
echo "package-check: $(head -1 "$work/deb.log") in $(( ($(date +%s%N) - start) / 1000000 )) ms"
deb=$(ls "$work"/out/wirelens_*.deb)

# --- Depends ------------------------------------------------------------------------------------------------
depends=$(dpkg-deb -f "$deb" Depends)
grep -Eq -- '-dev( |,|$)' <<<"$depends" && fail "a -dev package in Depends: $depends"
declare -A named=()
IFS=',' read -ra items <<<"$depends"
for item in "${items[@]}"; do
    satisfied=
    IFS='|' read -ra alternatives <<<"$item"
    for alternative in "${alternatives[@]}"; do
        read -r pkg op ver <<<"$(sed -E 's/^ *([^ (]+) *(\(([<>=]+) *([^)]+)\))?.*/\1 \3 \4/' <<<"$alternative")"
        named[$pkg]=1
        [ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)" = "install ok installed" ] || continue
        have=$(dpkg-query -W -f='${Version}' "$pkg")
        if [ -z "$op" ]; then satisfied=1; break; fi
        case "$op" in '>=') rel=ge ;; '<=') rel=le ;; '>>') rel=gt ;; '<<') rel=lt ;; '=') rel=eq ;; *) rel=ge ;; esac
        if dpkg --compare-versions "$have" "$rel" "$ver"; then satisfied=1; break; fi
    done
    [ -n "$satisfied" ] || fail "Depends item '$item' is not installed here at that version"
done
ok "Depends: $depends"

mkdir -p "$work/root"
dpkg-deb -x "$deb" "$work/root"
bin=$work/root/usr/bin/wirelens
[ -x "$bin" ] || { fail "no /usr/bin/wirelens in the package"; exit 1; }
if ldd "$bin" | grep -q 'not found'; then fail "unresolved libraries: $(ldd "$bin" | grep 'not found')"; fi
declare -A owners=()
libraries=$(ldd "$bin")
for needed in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    # "libx.so.1 => /path (addr)", or for the loader "/lib64/ld-linux-x86-64.so.2 (addr)".
    path=$(awk -v lib="$needed" '($1 == lib && $2 == "=>") { print $3 }
        (substr($1, 1, 1) == "/" && substr($1, length($1) - length(lib)) == "/" lib) { print $1 }' <<<"$libraries" | head -1) || true
    [ -n "$path" ] || { fail "ldd does not resolve $needed"; continue; }
    owner=
    for candidate in "$path" "$(realpath "$path")"; do
        owner=$(dpkg -S "$candidate" 2>/dev/null | head -1 | cut -d: -f1) || true
        [ -n "$owner" ] && break
    done
    [ -n "$owner" ] || { fail "no package owns $needed ($path)"; continue; }
    owners[$owner]=1
    [ -n "${named[$owner]:-}" ] || fail "$needed comes from $owner, which Depends does not name"
done
# Loaded with dlopen when a capture is first read or taken (Sources/CPcapShim), so not NEEDED: its package must be
# in Depends all the same.
for loaded in libpcap.so.0.8; do
    path=$(ldconfig -p | awk -v lib="$loaded" '$1 == lib && !found { print $NF; found = 1 }')
    [ -n "$path" ] || { fail "the loader finds no $loaded"; continue; }
    owner=$(dpkg -S "$(realpath "$path")" 2>/dev/null | head -1 | cut -d: -f1) || true
    [ -n "$owner" ] || { fail "no package owns $loaded ($path)"; continue; }
    owners[$owner]=1
    [ -n "${named[$owner]:-}" ] || fail "$loaded (loaded on first capture) comes from $owner, which Depends does not name"
done
for pkg in "${!named[@]}"; do
    [ -n "${owners[$pkg]:-}" ] || fail "Depends names $pkg, which owns no library the binary needs"
done
ok "every library the binary needs resolves and its package is in Depends (${!owners[*]})"

# --- the files ----------------------------------------------------------------------------------------------
if readelf -S --wide "$bin" | grep -q '\.symtab'; then fail "the binary is not stripped"; else ok "stripped"; fi
installed=$(dpkg-deb -f "$deb" Installed-Size)
read -r bytes files <<<"$(find "$work/root" -type f -printf '%s\n' | awk '{ b += $1; n++ } END { print b, n }')"
if [ "$installed" -lt $((bytes / 1024)) ] || [ "$installed" -gt $((bytes / 1024 + files)) ]; then
    fail "Installed-Size $installed KiB for $bytes bytes in $files files"
else
    ok "Installed-Size $installed KiB ($bytes bytes in $files files); package $(stat -c %s "$deb") bytes"
fi

# --- run it -------------------------------------------------------------------------------------------------
run_checks() { # BINARY MANDIR COMPLETIONS_ROOT(usr/share)
    local bin=$1 mandir=$2 share=$3 version
    version=$("$bin" --version)
    if [[ $version =~ ^wirelens\ [0-9][^\ ]*\ \(libcurl\ [0-9.]+,\ OpenSSL\ [0-9][^,]*,\ nghttp2\ [0-9.]+,\ libpcap\ [0-9][^\)]*\)$ ]]; then
        ok "$version"
    else
        fail "--version said: $version"
    fi

    mkdir -p "$work/www"
    head -c 4321 /dev/urandom >"$work/www/payload.bin"
    (cd "$work/www" && exec python3 -c '
import http.server, sys
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
print(s.server_address[1], flush=True)
s.serve_forever()' >"$work/port" 2>"$work/server.log") &
    server=$!
    for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
    local port url
    port=$(cat "$work/port")
    url="http://127.0.0.1:$port/payload.bin"
    if timeout 60 "$bin" probe --format json --report "$work/probe.json" "$url"; then
        local seen
        seen=$(python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["tasks"][0]["transactions"][-1]
print(t["statusCode"], t["responseBodyBytes"])' "$work/probe.json")
        [ "$seen" = "200 4321" ] || fail "probe reported status and body '$seen', the server sent 200 4321"
        grep -q '"GET /payload.bin HTTP/1.1" 200' "$work/server.log" || fail "the server logged no GET: $(cat "$work/server.log")"
        [ "$seen" = "200 4321" ] && ok "probe $url: 200, 4321 bytes, in the server's log"
    else
        fail "probe $url exited $?"
    fi
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    server=

    # A page per command, and each page names every option its command's --help lists.
    local -a queue=("")
    local command sub page text option missing pages=0
    while [ ${#queue[@]} -gt 0 ] && [ $pages -lt 100 ]; do
        command=${queue[0]}
        queue=("${queue[@]:1}")
        # shellcheck disable=SC2086 # command is words ("capture analyze")
        for sub in $("$bin" $command --help | awk '/^SUBCOMMANDS:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }'); do
            queue+=("${command:+$command }$sub")
        done
        page=$mandir/wirelens${command:+.${command// /.}}.1.gz
        [ -f "$page" ] || page=${page%.gz}
        [ -f "$page" ] || { fail "no man page for 'wirelens $command' ($page)"; continue; }
        text=$(MANWIDTH=120 man -l "$page" 2>/dev/null | col -b) || { fail "man -l $page failed"; continue; }
        [ -n "$text" ] || { fail "man -l $page rendered nothing"; continue; }
        missing=()
        # shellcheck disable=SC2086
        for option in $("$bin" $command --help | grep -oE '(^|[ ,])--[a-z0-9][a-z0-9.-]*' | tr -d ' ,' | sort -u); do
            [ "$option" = --help ] || [ "$option" = --version ] && continue
            grep -qF -- "$option" <<<"$text" || missing+=("$option")
        done
        [ ${#missing[@]} -eq 0 ] || fail "man page of 'wirelens $command' lacks ${missing[*]}"
        pages=$((pages + 1))
    done
    ok "man -l: $pages pages, each with every option of its command's --help"

    if bash -c 'source "$1" && complete -p wirelens' _ "$share/bash-completion/completions/wirelens" >/dev/null; then
        ok "bash completion loads"
    else
        fail "bash completion does not load"
    fi
    local zshdir=$share/zsh/vendor-completions
    [ -f "$zshdir/_wirelens" ] || zshdir=$share/zsh/site-functions
    if [ "$(timeout 20 zsh -fc 'fpath=("$1" $fpath); autoload -Uz compinit && compinit -u -D && print -r -- ${_comps[wirelens]}' _ "$zshdir")" = _wirelens ]; then
        ok "zsh completion loads (compinit finds _wirelens)"
    else
        fail "zsh's compinit does not find _wirelens in $zshdir"
    fi
    # Each line a user might complete ends (bounded) with the options that fit: probe's repeating URLs once made
    # swift-argument-parser's fish script loop forever (scripts/stage.sh).
    local line expected completions
    for line in "wirelens probe --max-r:--max-redirs" "wirelens probe http://x/ --http2-p:--http2-prior-knowledge" \
        "wirelens download --connect-ti:--connect-timeout" "wirelens capture analyze --fil:--filter" "wirelens pro:probe"; do
        expected=${line##*:}
        completions=$(timeout 20 fish --no-config -c 'source $argv[1]; complete -C $argv[2]' \
            "$share/fish/vendor_completions.d/wirelens.fish" "${line%:*}" | cut -f1) || true
        [ "$completions" = "$expected" ] || fail "fish completes '${line%:*}' to '$completions', not '$expected'"
    done
    ok "fish completion completes probe, download and capture analyze options"
}
run_checks "$bin" "$work/root/usr/share/man/man1" "$work/root/usr/share"

# --- make install / make uninstall --------------------------------------------------------------------------
dest=$work/dest
mkdir -p "$dest/usr/local/share/man/man1"
echo "someone else's page" >"$dest/usr/local/share/man/man1/other.1"
before=$(cd "$dest" && find . | sort)
make --no-print-directory install-staged DESTDIR="$dest" STAGE="$stage" >"$work/install.log"
installed_files=$(cd "$dest" && find . -type f | sort)
for expected in ./usr/local/bin/wirelens ./usr/local/share/man/man1/wirelens.1 ./usr/local/share/man/man1/wirelens.probe.1 \
    ./usr/local/share/bash-completion/completions/wirelens ./usr/local/share/zsh/site-functions/_wirelens \
    ./usr/local/share/fish/vendor_completions.d/wirelens.fish; do
    grep -qxF "$expected" <<<"$installed_files" || fail "make install did not put $expected"
done
cmp -s "$stage/bin/wirelens" "$dest/usr/local/bin/wirelens" || fail "make install's binary is not the staged one"
make --no-print-directory install-staged DESTDIR="$dest" STAGE="$stage" >>"$work/install.log"  # twice, as users do
make --no-print-directory uninstall DESTDIR="$dest" >>"$work/install.log"
after=$(cd "$dest" && find . | sort)
if [ "$before" = "$after" ]; then
    ok "make install put $(wc -l <<<"$installed_files") files; make uninstall left the tree as it was"
else
    fail "after make uninstall: $(diff <(echo "$before") <(echo "$after") | tr '\n' ' ')"
fi

# --- optionally, the real thing -----------------------------------------------------------------------------
if [ "${WIRELENS_APT_INSTALL:-}" = 1 ]; then
    [ ! -e /usr/bin/wirelens ] || { fail "/usr/bin/wirelens exists already: not installing over it"; exit 1; }
    cp "$deb" "$work/wirelens.deb"
    DEBIAN_FRONTEND=noninteractive apt-get install -y "$work/wirelens.deb" >"$work/apt.log" 2>&1 ||
        { cat "$work/apt.log" >&2; fail "apt-get install ./$(basename "$deb")"; exit 1; }
    ok "apt-get install ./$(basename "$deb")"
    run_checks /usr/bin/wirelens /usr/share/man/man1 /usr/share
    man -w wirelens.probe >/dev/null 2>&1 && ok "man finds wirelens.probe" || fail "man -w wirelens.probe"
    DEBIAN_FRONTEND=noninteractive apt-get purge -y wirelens >>"$work/apt.log" 2>&1 || fail "apt-get purge wirelens"
    [ ! -e /usr/bin/wirelens ] && ok "apt-get purge wirelens" || fail "/usr/bin/wirelens left after purge"
fi

if [ "$failures" -gt 0 ]; then
    echo "package-check: $failures failure(s)" >&2
    exit 1
fi
echo "package-check: all passed"
