#!/usr/bin/env bash
# `make install` / `make uninstall` (and the file tree of `make deb`): puts the staged binary, man pages and
# completions (scripts/stage.sh) under DESTDIR+PREFIX, or removes exactly what an install put there.
#
#   scripts/install.sh install      copies STAGE's files; records them, and every directory it had to create, in
#                                   the manifest DESTDIR$MANIFEST (one "f PATH" or "d PATH" per line)
#   scripts/install.sh uninstall    removes the files the manifest names, then the directories it created if they are
#                                   empty, then the manifest
#
# Environment (the Makefile sets them): STAGE, DESTDIR, BINDIR, MANDIR, BASH_COMPLETION_DIR, ZSH_COMPLETION_DIR,
# FISH_COMPLETION_DIR, MANIFEST (empty: none, as for the package, where dpkg keeps the list), MAN_GZIP=1 (pages
# compressed with gzip -9n, as Debian wants them).
set -euo pipefail

action=${1:-}
: "${DESTDIR:=}" "${MANIFEST:=}" "${MAN_GZIP:=}"
manifest=${MANIFEST:+$DESTDIR$MANIFEST}

install_all() {
    : "${STAGE:?}" "${BINDIR:?}" "${MANDIR:?}" "${BASH_COMPLETION_DIR:?}" "${ZSH_COMPLETION_DIR:?}" "${FISH_COMPLETION_DIR:?}"
    [ -x "$STAGE/bin/wirelens" ] || { echo "install: nothing staged in $STAGE (run make install, which stages it)" >&2; exit 1; }
    local -a records=()
    if [ -n "$manifest" ] && [ -f "$manifest" ]; then
        # A second install over the first: keep what the first created, so uninstall still removes it.
        mapfile -t records <"$manifest"
    fi
    # place SOURCE DEST MODE [gzip]: creates DEST's missing directories (recorded), then the file (recorded).
    place() {
        local source=$1 dest=$2 mode=$3 dir missing=()
        dir=$(dirname "$dest")
        while [ ! -d "$DESTDIR$dir" ]; do missing=("$dir" "${missing[@]}"); dir=$(dirname "$dir"); done
        for dir in "${missing[@]}"; do
            mkdir "$DESTDIR$dir"
            records+=("d $dir")
        done
        if [ "${4:-}" = gzip ]; then
            gzip -9n -c "$source" >"$DESTDIR$dest"
            chmod "$mode" "$DESTDIR$dest"
        else
            install -m "$mode" "$source" "$DESTDIR$dest"
        fi
        records+=("f $dest")
    }
    place "$STAGE/bin/wirelens" "$BINDIR/wirelens" 755
    local page
    for page in "$STAGE"/man/*.1; do
        if [ "$MAN_GZIP" = 1 ]; then
            place "$page" "$MANDIR/man1/$(basename "$page").gz" 644 gzip
        else
            place "$page" "$MANDIR/man1/$(basename "$page")" 644
        fi
    done
    place "$STAGE/completions/wirelens.bash" "$BASH_COMPLETION_DIR/wirelens" 644
    place "$STAGE/completions/_wirelens" "$ZSH_COMPLETION_DIR/_wirelens" 644
    place "$STAGE/completions/wirelens.fish" "$FISH_COMPLETION_DIR/wirelens.fish" 644
    if [ -n "$manifest" ]; then
        local dir missing=()
        dir=$(dirname "$MANIFEST")
        while [ ! -d "$DESTDIR$dir" ]; do missing=("$dir" "${missing[@]}"); dir=$(dirname "$dir"); done
        for dir in "${missing[@]}"; do mkdir "$DESTDIR$dir"; records+=("d $dir"); done
        printf '%s\n' "${records[@]}" | awk '!seen[$0]++' >"$manifest"
        echo "install: $(grep -c '^f ' "$manifest") files under ${DESTDIR:-/}, listed in $manifest"
    fi
}

uninstall_all() {
    [ -n "$manifest" ] || { echo "uninstall: no MANIFEST named" >&2; exit 2; }
    [ -f "$manifest" ] || {
        echo "uninstall: $manifest does not exist: nothing installed with this PREFIX and DESTDIR" >&2
        exit 1
    }
    local -a records=()
    local record count=0 i
    mapfile -t records <"$manifest"
    for record in "${records[@]}"; do
        if [ "${record%% *}" = f ]; then rm -f "$DESTDIR${record#f }"; count=$((count + 1)); fi
    done
    rm -f "$manifest"
    # The directories the installs created (recorded parents first), deepest first, if nothing else lives in them.
    for ((i = ${#records[@]} - 1; i >= 0; i--)); do
        record=${records[i]}
        if [ "${record%% *}" = d ]; then rmdir --ignore-fail-on-non-empty "$DESTDIR${record#d }"; fi
    done
    echo "uninstall: removed $count files"
}

case "$action" in
    install) install_all ;;
    uninstall) uninstall_all ;;
    *) echo "usage: $0 install|uninstall (see the Makefile's install target)" >&2; exit 2 ;;
esac
