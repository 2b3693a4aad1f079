import Foundation
import XCTest

/// The house rules a compiler does not hold: read off the source tree itself, so a change that breaks one fails
/// here rather than in a review (docs/architecture.md, "Rules the tests hold").
final class SourceRulesTests: XCTestCase {
    /// The repository's root, found from this file's own path.
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Every Swift file under Sources/, with its path relative to the root and its text.
    private func sources() throws -> [(path: String, text: String)] {
        let base = Self.root.appendingPathComponent("Sources")
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else {
            XCTFail("cannot list \(base.path)")
            return []
        }
        var files: [(String, String)] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            let relative = String(url.path.dropFirst(Self.root.path.count + 1))
            files.append((relative, try String(contentsOf: url, encoding: .utf8)))
        }
        XCTAssertGreaterThan(files.count, 100, "the walk found too few sources to be the tree")
        return files.sorted { $0.0 < $1.0 }
    }

    /// Lines of code (comments left out) containing `needle`, as "path:line".
    private func occurrences(of needle: String) throws -> [String] {
        try occurrences { $0.contains(needle) }
    }

    /// Lines of code (comments left out) of the files under `paths` (all of Sources/ when empty), less those under
    /// `exempt`, for which `matches` holds, as "path:line".
    private func occurrences(under paths: [String] = [], exempt: [String] = [],
                             where matches: (Substring) -> Bool) throws -> [String] {
        try sources().filter { file in
            (paths.isEmpty || paths.contains { file.path.hasPrefix($0) }) && !exempt.contains { file.path.hasPrefix($0) }
        }.flatMap { file in
            file.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
                matches(Self.code(of: line)) ? "\(file.path):\(index + 1)" : nil
            }
        }
    }

    /// A line without its comment (anything from `//` on).
    private static func code(of line: Substring) -> Substring {
        line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    }

    func testNoUnsafeFlagsInThePackage() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        XCTAssertFalse(manifest.contains("unsafeFlags"), "Package.swift: a package with unsafe flags cannot be a versioned dependency")
    }

    func testAtMostThreeUncheckedSendableEachWithItsProof() throws {
        let found = try occurrences(of: "@unchecked Sendable")
        XCTAssertLessThanOrEqual(found.count, 3, "at most three @unchecked Sendable in Sources: \(found)")
        for file in try sources() where file.text.contains("@unchecked Sendable") {
            let lines = file.text.split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() where Self.code(of: line).contains("@unchecked Sendable") {
                let above = lines[max(0, index - 12)..<index].joined(separator: "\n")
                XCTAssertTrue(above.localizedCaseInsensitiveContains("safe"),
                              "\(file.path):\(index + 1): an @unchecked Sendable needs a comment saying why it is safe")
            }
        }
    }

    func testNoEscapesFromTheChecker() throws {
        for needle in ["nonisolated(unsafe)", "_withUnsafeGuaranteedRef", "try!", "unsafeBitCast"] {
            XCTAssertEqual(try occurrences(of: needle), [], "\(needle) has no place in Sources")
        }
    }

    func testCModulesAreImportedOnlyByTheModuleThatWrapsThem() throws {
        // libcrypto is wrapped twice: digests and HMAC (WirelensDigest), TLS record decryption (WirelensCapture).
        let owners = ["CCurl": ["Sources/WirelensCurl/"], "CCurlShim": ["Sources/WirelensCurl/"],
                      "CPcap": ["Sources/WirelensCapture/"], "CNghttp2": ["Sources/WirelensCapture/"],
                      "COpenSSL": ["Sources/WirelensDigest/", "Sources/WirelensCapture/"]]
        for file in try sources() {
            for line in file.text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let importIndex = words.firstIndex(of: "import"), importIndex + 1 < words.count else { continue }
                let module = String(words[importIndex + 1])
                guard let owner = owners[module] else { continue }
                XCTAssertTrue(owner.contains { file.path.hasPrefix($0) },
                              "\(file.path) imports \(module): only \(owner.joined(separator: " and ")) may")
                XCTAssertTrue(words.contains("internal") || words.contains("private") || words.contains("fileprivate"),
                              "\(file.path): `\(line)`: a C module is imported `internal import` so no C type leaks out")
            }
        }
    }

    func testTheLibcurlAdapterNamesNoPolicyType() throws {
        // WirelensCurl sets what it is told: the run's options and the probe's rules are WirelensProbe's to turn into
        // libcurl's settings (CurlPolicy).
        let policy = ["ProbeOptions", "RedirectPolicy", "HTTPVersion", "TLSBounds", "AddressFamily", "LifecycleRules"]
        for name in policy {
            XCTAssertEqual(try occurrences(under: ["Sources/WirelensCurl/"]) {
                $0.range(of: "\\b\(name)\\b", options: .regularExpression) != nil
            }, [], "\(name) is a policy type: decide it in WirelensProbe")
        }
    }

    func testOnlyTheProductModulesDeclareAnythingPublic() throws {
        // The library products are the schema models (Package.swift); the tool's own modules share `package` API.
        let products = ["Sources/WirelensCore/", "Sources/WirelensCompare/", "Sources/WirelensCaptureModel/"]
        XCTAssertEqual(try occurrences(exempt: products) {
            $0.range(of: #"(^|[\s(@])public\s"#, options: .regularExpression) != nil && !$0.contains("\"")
        }, [], "`public` outside the products: make it `package`")
    }
}
