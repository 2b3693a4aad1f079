#!/usr/bin/env bash
# Depend on Wirelens by version from a throwaway package, and build it: the library products must resolve
# and build for a package that uses Wirelens as a versioned dependency (SwiftPM refuses unsafe flags there).
#
#   scripts/consumer-check.sh [WORKDIR]     (default: a temporary directory, removed afterwards)
#
# Clones this repository's HEAD into WORKDIR/wirelens, tags it with the version the binary reports
# (WirelensVersion.current), writes WORKDIR/consumer (Package.swift with `from:` that version, a main.swift
# using every library product) and runs `swift build` there. Exit 0 when it builds.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$(mktemp -d)}
[ $# -ge 1 ] || trap 'rm -rf "$WORK"' EXIT
VERSION=$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' "$ROOT/Sources/WirelensCore/Report/WirelensVersion.swift" 2>/dev/null || true)
VERSION=${VERSION:-0.1.0}
rm -rf "$WORK/wirelens" "$WORK/consumer"
git clone -q "$ROOT" "$WORK/wirelens"
git -C "$WORK/wirelens" tag -f "$VERSION" >/dev/null
mkdir -p "$WORK/consumer/Sources/Consumer"
PRODUCTS=$(sed -n 's/.*\.library(name: "\([A-Za-z]*\)".*/\1/p' "$ROOT/Package.swift")
{
    echo '// swift-tools-version:6.0'
    echo 'import PackageDescription'
    echo 'let package = Package('
    echo '    name: "Consumer",'
    echo "    dependencies: [.package(url: \"file://$WORK/wirelens\", from: \"$VERSION\")],"
    echo '    targets: [.executableTarget(name: "Consumer", dependencies: ['
    for p in $PRODUCTS; do echo "        .product(name: \"$p\", package: \"wirelens\"),"; done
    echo '    ])]'
    echo ')'
} > "$WORK/consumer/Package.swift"
{
    for p in $PRODUCTS; do echo "import $p"; done
    echo 'print("wirelens \(WirelensVersion.current) as a dependency")'
} > "$WORK/consumer/Sources/Consumer/main.swift"
echo "consumer-check: $WORK/consumer depends on wirelens from: \"$VERSION\" ($(echo $PRODUCTS | tr ' ' ','))" >&2
(cd "$WORK/consumer" && swift build 2>&1 | tail -5 && swift run -q Consumer)
