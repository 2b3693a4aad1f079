#!/usr/bin/env bash
# `make deb`: a Debian package of the staged release (scripts/stage.sh) with dpkg-deb.
#
#   scripts/deb.sh STAGEDIR DEBDIR      writes DEBDIR/wirelens_VERSION_ARCH.deb and prints its path
#
# Files as Debian lays them out: /usr/bin/wirelens (stripped), /usr/share/man/man1/wirelens*.1.gz,
# /usr/share/bash-completion/completions/wirelens, /usr/share/zsh/vendor-completions/_wirelens,
# /usr/share/fish/vendor_completions.d/wirelens.fish. Depends: is what dpkg-shlibdeps derives from the libraries
# the binary links (runtime packages, never -dev); Installed-Size: the files' size in KiB (each rounded up, as
# dpkg-gencontrol counts). VERSION is the binary's own (`wirelens --version`). DEB_MAINTAINER sets Maintainer:.
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 STAGEDIR DEBDIR" >&2; exit 2; }
stage=$(realpath "$1")
mkdir -p "$2"
debdir=$(realpath "$2")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for tool in dpkg-deb dpkg-shlibdeps readelf; do
    command -v "$tool" >/dev/null || { echo "deb: $tool is missing (make deps installs dpkg-dev and binutils)" >&2; exit 1; }
done

# The files' and archive's times (dpkg-deb clamps to it): the last commit's, so one commit packs the same bytes.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/wirelens
mkdir -p "$root"
STAGE=$stage DESTDIR=$root BINDIR=/usr/bin MANDIR=/usr/share/man \
    BASH_COMPLETION_DIR=/usr/share/bash-completion/completions \
    ZSH_COMPLETION_DIR=/usr/share/zsh/vendor-completions \
    FISH_COMPLETION_DIR=/usr/share/fish/vendor_completions.d \
    MANIFEST='' MAN_GZIP=1 bash "$here/install.sh" install

version=$("$root/usr/bin/wirelens" --version | awk 'NR == 1 { print $2 }')
[[ $version =~ ^[0-9][0-9A-Za-z.+~-]*$ ]] || { echo "deb: '$version' from wirelens --version is no Debian version" >&2; exit 1; }
arch=$(dpkg --print-architecture)

# dpkg-shlibdeps reads the package's name from debian/control and resolves each NEEDED library to the package that
# ships it (dpkg -S) and that package's shlibs/symbols minimum version.
mkdir -p "$root/DEBIAN" "$work/src/debian"
printf 'Source: wirelens\n\nPackage: wirelens\nArchitecture: any\n' >"$work/src/debian/control"
depends=$(cd "$work/src" && dpkg-shlibdeps -O "-e$root/usr/bin/wirelens" 2>"$work/shlibdeps.err" |
    sed -n 's/^shlibs:Depends=//p') || { cat "$work/shlibdeps.err" >&2; exit 1; }
[ -n "$depends" ] || { cat "$work/shlibdeps.err" >&2; echo "deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
if grep -Eq -- '-dev( |,|$)' <<<"$depends"; then echo "deb: a -dev package in Depends: $depends" >&2; exit 1; fi
# A binary linked with RELR relocations (-z pack-relative-relocs, RELEASE_FLAGS) needs the version
# GLIBC_ABI_DT_RELR, which glibc has since 2.36; dpkg-shlibdeps maps no symbol to it, so it asks for less.
if readelf -V -W "$root/usr/bin/wirelens" | grep -q 'GLIBC_ABI_DT_RELR'; then
    depends=$(sed -E 's/libc6 \(>= [0-9.]+\)/libc6 (>= 2.36)/' <<<"$depends")
fi

# libpcap is loaded when a capture is first read or taken (dlopen of libpcap.so.0.8, Sources/CPcapShim), not
# linked, so dpkg-shlibdeps cannot see it: its package is named here, at the version this build was made against.
pcap_library=$(ldconfig -p | awk '$1 == "libpcap.so.0.8" && !found { print $NF; found = 1 }')
pcap_package=$(dpkg -S "$(readlink -f "$pcap_library")" 2>/dev/null | awk -F: 'NR == 1 { print $1 }')
[ -n "$pcap_package" ] || { echo "deb: no package ships libpcap.so.0.8 (install libpcap0.8)" >&2; exit 1; }
pcap_version=$(dpkg-query -W -f='${Version}' "$pcap_package" | sed 's/-[^-]*$//')
depends="$depends, $pcap_package (>= $pcap_version)"

installed_size=$(find "$root" -path "$root/DEBIAN" -prune -o -type f -printf '%s\n' |
    awk '{ total += int(($1 + 1023) / 1024) } END { print total }')

cat >"$root/DEBIAN/control" <<CONTROL
Package: wirelens
Version: $version
Architecture: $arch
Maintainer: ${DEB_MAINTAINER:-Wirelens maintainers <wirelens@localhost>}
Installed-Size: $installed_size
Depends: $depends
Section: net
Priority: optional
Description: where the time of HTTP(S) uploads and downloads goes
 Wirelens runs HTTP(S) probes, downloads and segmented uploads through libcurl
 and reports every transaction's phases (queue, DNS, connect, TLS, send, wait,
 receive) with a verdict on why it is slow. It also serves a test target,
 compares configurations, analyses libpcap captures and runs health checks
 with Prometheus exposition.
CONTROL
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum >DEBIAN/md5sums)

deb=$debdir/wirelens_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "deb: $deb ($(stat -c %s "$deb") bytes, Installed-Size $installed_size KiB)"
echo "deb: Depends: $depends"
