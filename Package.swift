// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Wirelens",
    products: [
        .executable(name: "wirelens", targets: ["wirelens"]),
        // The schema models, for a program reading Wirelens' reports: probe and upload reports (Core),
        // compare documents, capture reports. The rest is the tool's own.
        .library(name: "WirelensCore", targets: ["WirelensCore"]),
        .library(name: "WirelensCompare", targets: ["WirelensCompare"]),
        .library(name: "WirelensCaptureModel", targets: ["WirelensCaptureModel"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        // libpcap's header only: the library is loaded when a capture is first read or taken (CPcapShim).
        .systemLibrary(
            name: "CPcap",
            providers: [.apt(["libpcap-dev"])]
        ),
        .target(name: "CPcapShim", dependencies: ["CPcap"]),
        // HPACK header decoding for HTTP/2 captures (nghttp2's inflater).
        .systemLibrary(
            name: "CNghttp2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // glibc's mallopt, which Swift's Glibc module leaves out (AllocatorPolicy in the executable).
        .systemLibrary(name: "CMalloc"),
        .target(name: "WirelensCore"),
        // The JSON the target server answers and the uploader reads: Codable wire types, one definition of each.
        .target(name: "WirelensWire", dependencies: ["WirelensCore"]),
        // `wirelens compare`'s pure parts: workloads, limits, modes, the interleaved schedule, results, the recommendation.
        .target(name: "WirelensCompare", dependencies: ["WirelensCore"]),
        // The thread primitives of the pipelines (read-ahead, write-behind): checked Sendable, values handed over.
        .target(name: "WirelensConcurrency"),
        // What a capture analysis produces (CaptureReport and its values, their JSON): rendered without the reader.
        .target(name: "WirelensCaptureModel", dependencies: ["WirelensCore"]),
        // SHA-256 of bytes and files through libcrypto, for the target server and the uploader.
        .target(name: "WirelensDigest", dependencies: ["COpenSSL"]),
        // On-disk state through SQLite (GRDB): the resumable upload journal, check history.
        .target(
            name: "WirelensStore",
            dependencies: ["WirelensCore", "WirelensDigest", "WirelensConcurrency", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(
            name: "WirelensCapture",
            dependencies: ["WirelensCore", "WirelensCaptureModel", "WirelensConcurrency", "CPcap", "CPcapShim", "CNghttp2", "COpenSSL"]
        ),
        .target(
            name: "WirelensTarget",
            dependencies: [
                "WirelensCore", "WirelensDigest", "WirelensWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "MultipartKit", package: "multipart-kit"),
            ]
        ),
        // The libcurl layer: the only module that imports libcurl's C API (handles, callbacks, the loop thread).
        .target(name: "WirelensCurl", dependencies: ["WirelensCore", "CCurl", "CCurlShim"]),
        .target(name: "WirelensProbe", dependencies: ["WirelensCore", "WirelensConcurrency", "WirelensDigest", "WirelensCurl"]),
        .target(
            name: "WirelensReport", dependencies: ["WirelensCore", "WirelensCompare", "WirelensCaptureModel"]
        ),
        // Segmented uploads on the engine: the segment queue and sizing, verdicts, the journal's use, the report section.
        .target(name: "WirelensUpload", dependencies: ["WirelensCore", "WirelensProbe", "WirelensDigest", "WirelensWire"]),
        // Health checks: YAML config, assertions over a task's record, schedules, history, Prometheus exposition
        // and the /metrics server.
        .target(
            name: "WirelensCheck",
            dependencies: [
                "WirelensCore", "WirelensProbe", "WirelensStore",
                .product(name: "Yams", package: "Yams"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "wirelens",
            dependencies: [
                "WirelensCore", "WirelensCompare", "WirelensProbe", "WirelensCurl", "WirelensReport", "WirelensTarget",
                "WirelensStore", "WirelensCapture", "WirelensConcurrency", "WirelensDigest", "WirelensCheck",
                "WirelensUpload", "CMalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "WirelensTestSupport", dependencies: ["WirelensCore"], path: "Tests/WirelensTestSupport"),
        // Core's value types and pure logic, and compare's (their tests share Core's fixtures).
        .testTarget(
            name: "WirelensCoreTests", dependencies: ["WirelensCore", "WirelensCurl", "WirelensProbe", "WirelensTestSupport"]
        ),
        .testTarget(
            name: "WirelensReportTests",
            dependencies: ["WirelensCore", "WirelensCompare", "WirelensCurl", "WirelensProbe", "WirelensReport", "WirelensTestSupport"]
        ),
        .testTarget(name: "WirelensConcurrencyTests", dependencies: ["WirelensConcurrency"]),
        .testTarget(name: "WirelensCompareTests", dependencies: ["WirelensCore", "WirelensCompare", "WirelensTestSupport"]),
        .testTarget(name: "WirelensDigestTests", dependencies: ["WirelensDigest"]),
        .testTarget(name: "WirelensWireTests", dependencies: ["WirelensWire", "WirelensTestSupport"]),
        .testTarget(name: "WirelensCaptureModelTests", dependencies: ["WirelensCaptureModel", "WirelensCore"]),
        .testTarget(name: "WirelensCurlTests", dependencies: ["WirelensCore", "WirelensCurl", "CCurl", "WirelensTestSupport"]),
        .testTarget(name: "WirelensProbeTests", dependencies: ["WirelensCore", "WirelensProbe", "WirelensCurl", "WirelensDigest", "WirelensTestSupport"]),
        .testTarget(
            name: "WirelensCLITests", dependencies: ["WirelensCore", "WirelensCompare", "WirelensUpload", "WirelensTestSupport", "wirelens"]
        ),
        .testTarget(
            name: "WirelensTargetTests",
            dependencies: ["WirelensCore", "WirelensTarget", "WirelensWire", "WirelensDigest", "WirelensProbe", "WirelensTestSupport"]
        ),
        .testTarget(
            name: "WirelensUploadTests",
            dependencies: ["WirelensCore", "WirelensUpload", "WirelensProbe", "WirelensWire", "WirelensStore", "WirelensTestSupport"]
        ),
        .testTarget(name: "WirelensStoreTests", dependencies: ["WirelensCore", "WirelensStore", "WirelensTestSupport"]),
        .testTarget(
            name: "WirelensCheckTests",
            dependencies: ["WirelensCore", "WirelensCheck", "WirelensStore", "WirelensTestSupport", "wirelens"]
        ),
        .testTarget(
            name: "WirelensCaptureTests",
            dependencies: ["WirelensCore", "WirelensCapture", "WirelensReport", "WirelensTestSupport", "wirelens"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
