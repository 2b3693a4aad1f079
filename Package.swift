// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Wirelens",
    products: [
        .executable(name: "wirelens", targets: ["wirelens"]),
        .library(name: "WirelensCore", targets: ["WirelensCore"]),
        .library(name: "WirelensProbe", targets: ["WirelensProbe"]),
        .library(name: "WirelensReport", targets: ["WirelensReport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        .systemLibrary(
            name: "CPcap",
            pkgConfig: "libpcap",
            providers: [.apt(["libpcap-dev"])]
        ),
        .target(name: "WirelensCore"),
        .target(
            name: "WirelensProbe", dependencies: ["WirelensCore", "CCurl", "CCurlShim"],
            // libcurl's callbacks write into class-held transfer state many times per request; run-time
            // exclusivity checks on each access showed in the GET benchmark's profile. Compile-time checks still apply.
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"])]
        ),
        .target(
            name: "WirelensReport", dependencies: ["WirelensCore"],
            // The streaming JSON writer appends to a class-held buffer per value; run-time exclusivity checks on
            // each append cost more than the writing (see reports/bench). Compile-time checks still apply.
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"])]
        ),
        .executableTarget(
            name: "wirelens",
            dependencies: [
                "WirelensCore", "WirelensProbe", "WirelensReport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "WirelensTestSupport", dependencies: ["WirelensCore"], path: "Tests/WirelensTestSupport"),
        .testTarget(name: "WirelensCoreTests", dependencies: ["WirelensCore"]),
        .testTarget(name: "WirelensReportTests", dependencies: ["WirelensCore", "WirelensReport"]),
        .testTarget(name: "WirelensProbeTests", dependencies: ["WirelensCore", "WirelensProbe", "WirelensTestSupport"]),
        .testTarget(name: "WirelensCLITests", dependencies: ["WirelensCore", "WirelensTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
