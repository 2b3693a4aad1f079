import Foundation
import WirelensTestSupport
import XCTest
@testable import wirelens

/// Wirelens and curl 7.88 on the same requests to a server nobody here wrote: httpbin under gunicorn
/// (`HttpbinServer`). The oracles are what httpbin saw, as it echoes it (method, arguments, headers, body, form,
/// files), and what curl reports of the same request with `-w` (code, sizes, redirects, effective URL, content
/// type, method). Where Wirelens differs on purpose, the assertion says so beside it.
final class HttpbinConformanceTests: XCTestCase {
    private static let writeOut = ["http_code", "size_download", "size_upload", "num_redirects", "url_effective",
                                   "content_type", "method"]
    /// Every file of the test (bodies written, bodies sent), removed with it.
    private let directory = CLIHarness.temporaryPath("httpbin")

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func temporaryPath(_ name: String) -> String { "\(directory)/\(UUID().uuidString)-\(name)" }

    /// What one client got: its exit code, its `-w` values by name, and the body as it wrote it.
    private struct Answer {
        var status: Int32
        var values: [String: String]
        var body: Data
    }

    private func answer(_ outcome: ProcessRunner.Outcome, body path: String) -> Answer {
        let lines = outcome.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let values = Dictionary(uniqueKeysWithValues: zip(Self.writeOut, lines + Array(repeating: "", count: Self.writeOut.count)))
        return Answer(status: outcome.status, values: values,
                      body: (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data())
    }

    /// Runs curl -L and `wirelens probe` (which follows redirects without -L) with the same arguments and the same
    /// User-Agent (httpbin echoes it, so the answers' sizes would differ by its length).
    private func both(_ url: String, _ given: [String] = []) throws -> (curl: Answer, ours: Answer) {
        let arguments = ["-A", "conformance/1"] + given
        let format = Self.writeOut.map { "%{\($0)}" }.joined(separator: "\n")
        let theirBody = temporaryPath("curl.body")
        let byCurl = try ProcessRunner.run("/usr/bin/curl", ["-sS", "-L", "--max-time", "20", "-o", theirBody, "-w", format]
                                           + arguments + [url], timeout: 30)
        let ourBody = temporaryPath("wl.body")
        let byUs = try CLIHarness.run(["probe", "-q", "--report", "/dev/null", "-m", "20", "-o", ourBody, "-w", format]
                                      + arguments + [url], timeout: 30)
        XCTAssertFalse(byUs.stderr.contains("Fatal error"), byUs.stderr)
        return (answer(byCurl, body: theirBody), answer(byUs, body: ourBody))
    }

    /// httpbin's echo of a request, made comparable: the User-Agent (each client's default when not given) and a form's
    /// boundary-bearing Content-Type and Content-Length left out; JSON lines (/stream) each so; other bodies as bytes.
    private func normalized(_ body: Data) -> String {
        func clean(_ value: Any) -> Any {
            guard var object = value as? [String: Any] else { return value }
            if var headers = object["headers"] as? [String: Any] {
                headers["User-Agent"] = nil
                if (headers["Content-Type"] as? String)?.hasPrefix("multipart/form-data") == true {
                    headers["Content-Type"] = nil
                    headers["Content-Length"] = nil
                }
                object["headers"] = headers
            }
            return object
        }
        func text(_ value: Any) -> String? {
            (try? JSONSerialization.data(withJSONObject: clean(value), options: [.sortedKeys]))
                .map { String(decoding: $0, as: UTF8.self) }
        }
        if let value = try? JSONSerialization.jsonObject(with: body), let json = text(value) { return json }
        let lines = body.split(separator: UInt8(ascii: "\n"))
        let parsed = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0)) }.compactMap(text)
        if !lines.isEmpty, parsed.count == lines.count { return parsed.joined(separator: "\n") }
        var bytes = [UInt8](body)
        // A gzip stream's MTIME (bytes 4-7) is the second httpbin made the answer in: the one field two answers differ by.
        if bytes.count > 10, bytes[0] == 0x1f, bytes[1] == 0x8b { bytes.replaceSubrange(4..<8, with: [0, 0, 0, 0]) }
        return Data(bytes).base64EncodedString()
    }

    /// Asserts the two answers agree: exit code (unless told), every `-w` value but those `except`, and the body.
    private func assertSame(_ pair: (curl: Answer, ours: Answer), _ tag: String, except: Set<String> = [],
                            sameExit: Bool = true, bodiless: Bool = false, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(pair.curl.status, 0, "curl \(tag)", file: file, line: line)
        if sameExit { XCTAssertEqual(pair.ours.status, 0, "wirelens \(tag)", file: file, line: line) }
        for name in Self.writeOut where !except.contains(name) {
            XCTAssertEqual(pair.ours.values[name], pair.curl.values[name], "\(tag): -w %{\(name)}", file: file, line: line)
        }
        XCTAssertEqual(pair.curl.body.isEmpty, bodiless, "\(tag): httpbin's answer to curl", file: file, line: line)
        XCTAssertEqual(normalized(pair.ours.body), normalized(pair.curl.body), "\(tag): the body", file: file, line: line)
    }

    func testConformsToCurlOnHttpbin() throws {
        let bin = try HttpbinServer()
        let small = temporaryPath("small.txt")
        try "hello httpbin\n".write(toFile: small, atomically: true, encoding: .utf8)
        let blob = temporaryPath("blob.bin")
        try Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: URL(fileURLWithPath: blob))

        // What the server saw: method, arguments, headers, body, form and files.
        let echoes: [(String, String, [String])] = [
            ("get", "/anything?q=1&r=two", []),
            ("data", "/anything", ["-d", "a=1", "-d", "b=2"]),
            ("binary", "/post", ["--data-binary", "@" + blob]),
            ("putdata", "/put", ["-X", "PUT", "-d", "x=y"]),
            ("form", "/post", ["-F", "a=1", "-F", "f=@" + small]),
            ("upload", "/put", ["-T", blob]),
            ("header", "/anything", ["-H", "X-Custom: one two"]),
        ]
        for (tag, path, arguments) in echoes {
            // A form's sizes count its boundary (httpbin echoes it in Content-Type), which each client draws at
            // random, curl's longer.
            assertSame(try both(bin.url(path), arguments), tag, except: tag == "form" ? ["size_upload", "size_download"] : [])
        }

        // Redirects: each status with a -d body, relative and absolute chains, an absolute Location.
        for status in [301, 302, 303, 307, 308] {
            assertSame(try both(bin.url("/redirect-to?url=/anything&status_code=\(status)"), ["-d", "a=1"]), "redirect \(status)")
        }
        assertSame(try both(bin.url("/relative-redirect/3")), "relative")
        assertSame(try both(bin.url("/absolute-redirect/3")), "absolute")
        let absolute = bin.url("/get?via=redirect-to").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        assertSame(try both(bin.url("/redirect-to?url=\(absolute)")), "redirect-to absolute")

        // Auth.
        assertSame(try both(bin.url("/basic-auth/user/pw"), ["-u", "user:pw"]), "basic")
        assertSame(try both(bin.url("/bearer"), ["-H", "Authorization: Bearer tok-1"]), "bearer")
        for (tag, url, arguments) in [("basic refused", bin.url("/basic-auth/user/pw"), ["-u", "user:wrong"]),
                                      ("bearer missing", bin.url("/bearer"), [])] {
            let pair = try both(url, arguments)
            assertSame(pair, tag, sameExit: false, bodiless: true)
            XCTAssertEqual(pair.curl.values["http_code"], "401", tag)
            // On purpose: curl exits 0 on a 401 (without -f); Wirelens' exit code 4 says a task ended at 400 or more.
            XCTAssertEqual(pair.ours.status, ExitStatus.httpError.rawValue, tag)
        }
        // On purpose: URL user info is masked in every Wirelens output, -w's url_effective too.
        let userInfo = "http://user:pw@127.0.0.1:\(bin.port)/basic-auth/user/pw"
        let masked = try both(userInfo)
        assertSame(masked, "user info", except: ["url_effective"])
        XCTAssertFalse(masked.ours.values["url_effective", default: "pw"].contains(":pw@"), "masked")
        XCTAssertEqual(masked.curl.values["url_effective"], userInfo, "curl prints it as given")

        // Cookies: no cookie engine in either, so /cookies/set's redirect arrives without one; a -H Cookie goes.
        assertSame(try both(bin.url("/cookies/set?a=1")), "cookies/set")
        assertSame(try both(bin.url("/cookies"), ["-H", "Cookie: c=3"]), "cookie header")

        // Encodings, decoded with --compressed and as sent without it.
        for path in ["/gzip", "/deflate", "/brotli"] {
            assertSame(try both(bin.url(path), ["--compressed"]), "\(path) --compressed")
            assertSame(try both(bin.url(path)), "\(path) raw")
        }

        // Chunked answers, a range, large response headers, slow and dripping answers.
        assertSame(try both(bin.url("/stream/3")), "stream")
        assertSame(try both(bin.url("/stream-bytes/3000?seed=7&chunk_size=100")), "stream-bytes")
        let range = try both(bin.url("/range/100"), ["-H", "Range: bytes=10-19"])
        assertSame(range, "range")
        XCTAssertEqual(range.curl.values["http_code"], "206")
        XCTAssertEqual(range.curl.body.count, 10)
        let big = String(repeating: "v", count: 1500)
        let headers = try both(bin.url("/response-headers?X-Big-A=\(big)&X-Big-B=\(big)"))
        assertSame(headers, "response-headers")
        XCTAssertGreaterThan(normalized(headers.curl.body).count, 3000)
        assertSame(try both(bin.url("/delay/1")), "delay")
        let drip = try both(bin.url("/drip?duration=0.5&numbytes=5&code=200&delay=0"))
        assertSame(drip, "drip", except: ["url_effective"])
        // On purpose: a query parameter named like an OAuth secret (code) is masked, here /drip's status code.
        XCTAssertEqual(drip.ours.values["url_effective"],
                       drip.curl.values["url_effective"]?.replacingOccurrences(of: "code=200", with: "code=[REDACTED]"))
        XCTAssertEqual(drip.curl.body, Data("*****".utf8))
    }
}
