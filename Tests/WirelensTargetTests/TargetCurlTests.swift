import Foundation
import WirelensDigest
import WirelensTestSupport
import XCTest
@testable import WirelensTarget

/// Every endpoint of the target through the curl binary, checked against sha256sum and Python.
final class TargetCurlTests: XCTestCase {
    private var target: TargetHarness!

    override func setUp() async throws {
        target = try await TargetHarness.start()
    }

    override func tearDown() async throws {
        try await target?.stop()
    }

    /// The response headers of a request, lowercased names (from curl -D).
    private func headers(_ arguments: [String], output: String? = nil) throws -> (status: Int, headers: [String: String]) {
        let dump = target.path("headers-\(UUID().uuidString)")
        let (status, _, _) = try target.fetch(["-D", dump] + arguments, output: output)
        var fields: [String: String] = [:]
        for line in try String(contentsOfFile: dump, encoding: .utf8).split(separator: "\r\n") {
            guard let field = line.split(separator: ":", maxSplits: 1).first.map(String.init), line.contains(":") else { continue }
            fields[field.lowercased()] = String(line.dropFirst(field.count + 1)).trimmingCharacters(in: .whitespaces)
        }
        return (status, fields)
    }

    func testBytesWholeRangesAndHeadAgreeWithIndependentOracles() throws {
        let n = 100_003
        let whole = target.path("whole.bin")
        let (status, _, _) = try target.fetch([target.url("/bytes/\(n)")], output: whole)
        XCTAssertEqual(status, 200)
        let wholeSHA = try TargetHarness.sha256sum(whole)
        XCTAssertEqual(wholeSHA, try SHA256Digest.hex(ofFile: whole))
        XCTAssertEqual(try PatternOracle.sha256(count: n), wholeSHA)

        // Ranges equal the slices of the whole, by Python's hashlib.
        for (range, first, last) in [("100-199", 100, 199), ("99000-", 99000, n - 1), ("-500", n - 500, n - 1),
                                     ("0-0", 0, 0), ("100000-200000", 100_000, n - 1)] {
            let part = target.path("range-\(first)")
            let (code, headers) = try headers(["-r", range, target.url("/bytes/\(n)")], output: part)
            XCTAssertEqual(code, 206, range)
            XCTAssertEqual(headers["content-range"], "bytes \(first)-\(last)/\(n)")
            XCTAssertEqual(headers["content-length"], String(last - first + 1))
            let slice = try TargetHarness.python(
                "import hashlib,sys; d=open(sys.argv[1],'rb').read(); print(hashlib.sha256(d[\(first):\(last + 1)]).hexdigest())",
                [whole])
            XCTAssertEqual(try TargetHarness.sha256sum(part), slice, range)
        }
        let (code416, headers416) = try headers(["-r", "\(n)-", target.url("/bytes/\(n)")])
        XCTAssertEqual(code416, 416)
        XCTAssertEqual(headers416["content-range"], "bytes */\(n)")
        let (headCode, head) = try headers(["-I", target.url("/bytes/\(n)")])
        XCTAssertEqual(headCode, 200)
        XCTAssertEqual(head["content-length"], String(n))
        XCTAssertEqual(head["accept-ranges"], "bytes")
        let (rangedHeadCode, rangedHead) = try headers(["-I", "-r", "10-19", target.url("/bytes/\(n)")])
        XCTAssertEqual(rangedHeadCode, 206)
        XCTAssertEqual(rangedHead["content-length"], "10")
        XCTAssertEqual(try target.fetch([target.url("/bytes/0")]).body.count, 0)
    }

    func testDelayStatusAndRedirects() throws {
        let started = Date()
        let delayed = try target.json([target.url("/delay/300")])
        XCTAssertEqual(delayed.status, 200)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.3)

        for code in [200, 201, 404, 418, 500, 503, 599] {
            XCTAssertEqual(try target.fetch([target.url("/status/\(code)")]).status, code)
        }
        let noContent = try target.fetch([target.url("/status/204")])
        XCTAssertEqual(noContent.status, 204)
        XCTAssertTrue(noContent.body.isEmpty)
        // An informational status comes as an interim response before a final 200.
        let early = try target.json([target.url("/status/103")])
        XCTAssertEqual(early.status, 200)
        XCTAssertEqual(early.object["informational"] as? Int, 103)
        XCTAssertEqual(try target.fetch([target.url("/status/101")]).status, 400)
        XCTAssertEqual(try target.fetch(["-X", "PUT", "-d", "x", target.url("/status/409")]).status, 409)

        let followed = try target.curl(["-L", "-o", "/dev/null", "-w", "%{http_code} %{num_redirects}", target.url("/redirect/4")])
        XCTAssertEqual(followed.stdout, "200 4")
        let (first, headers) = try headers([target.url("/redirect/2")])
        XCTAssertEqual(first, 302)
        XCTAssertEqual(headers["location"], "/redirect/1")
    }

    func testUnknownPathsAndMethodsAnswerJSONErrors() throws {
        let missing = try target.json([target.url("/no/such/thing")])
        XCTAssertEqual(missing.status, 404)
        XCTAssertNotNil(missing.object["error"] as? String)
        let (status, headers) = try headers(["-X", "DELETE", target.url("/bytes/10")])
        XCTAssertEqual(status, 405)
        XCTAssertEqual(headers["allow"], "GET, HEAD")
        XCTAssertEqual(try target.json(["-X", "DELETE", target.url("/bytes/10")]).object["allow"] as? String, "GET, HEAD")
        XCTAssertEqual(try target.fetch([target.url("/bytes/abc")]).status, 400)
        XCTAssertEqual(try target.fetch(["-T", "/dev/null", target.url("/upload/bad%20id")]).status, 400)
    }

    func testUploadAnswersSizeAndSHA256() throws {
        let file = try target.randomFile("upload.bin", count: 1_234_567)
        let expected = try TargetHarness.sha256sum(file)
        for arguments in [["-T", file], ["--data-binary", "@" + file], ["-T", file, "-H", "Transfer-Encoding: chunked"]] {
            let answer = try target.json(arguments + [target.url("/upload/u1")])
            XCTAssertEqual(answer.status, 200, "\(arguments)")
            XCTAssertEqual(answer.object["id"] as? String, "u1")
            XCTAssertEqual(answer.object["bytes"] as? Int, 1_234_567)
            XCTAssertEqual(answer.object["sha256"] as? String, expected, "\(arguments)")
            XCTAssertNil(answer.object["parts"])
        }
        let empty = try target.json(["-X", "POST", target.url("/upload/e")])
        XCTAssertEqual(empty.object["bytes"] as? Int, 0)
        XCTAssertEqual(empty.object["sha256"] as? String, SHA256Digest.hex(of: [UInt8]()))
    }

    func testMultipartFromCurlFormIsParsed() throws {
        let photo = try target.randomFile("photo.jpg", count: 300_001)
        let notes = target.path("notes.txt")
        try "first line\r\nsecond line\n".write(toFile: notes, atomically: true, encoding: .utf8)
        let answer = try target.json([
            "-F", "title=hello world", "-F", "photo=@\(photo);type=image/jpeg", "-F", "notes=@\(notes);filename=n.txt",
            target.url("/upload/form1"),
        ])
        XCTAssertEqual(answer.status, 200)
        let parts = try XCTUnwrap(answer.object["parts"] as? [[String: Any]])
        XCTAssertEqual(parts.map { $0["name"] as? String }, ["title", "photo", "notes"])
        XCTAssertEqual(parts.map { $0["filename"] as? String }, [nil, "photo.jpg", "n.txt"])
        XCTAssertTrue(parts[0]["filename"] is NSNull, "a field without filename has filename null")
        XCTAssertEqual(parts.map { $0["contentType"] as? String }, [nil, "image/jpeg", "text/plain"])
        XCTAssertEqual(parts.map { $0["size"] as? Int }, [11, 300_001, 24])
        XCTAssertEqual(parts[0]["sha256"] as? String, SHA256Digest.hex(of: Array("hello world".utf8)))
        XCTAssertEqual(parts[1]["sha256"] as? String, try TargetHarness.sha256sum(photo))
        XCTAssertEqual(parts[2]["sha256"] as? String, try TargetHarness.sha256sum(notes))
        // The whole body's digest is the request's: compare with the size curl says it sent.
        let sent = try target.curl(["-o", "/dev/null", "-w", "%{size_upload}", "-F", "title=hello world",
                                    "-F", "photo=@\(photo);type=image/jpeg", "-F", "notes=@\(notes);filename=n.txt",
                                    target.url("/upload/form1")])
        XCTAssertEqual(Int(sent.stdout), answer.object["bytes"] as? Int)
    }

    func testMalformedMultipartIsA400WithJSON() throws {
        let body = "--xyz\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nabc"
        let answer = try target.json(["-H", "Content-Type: multipart/form-data; boundary=xyz", "--data-binary", body,
                                      target.url("/upload/m")])
        XCTAssertEqual(answer.status, 400)
        XCTAssertTrue((answer.object["error"] as? String)?.contains("multipart") ?? false)
        let noBoundary = try target.json(["-H", "Content-Type: multipart/form-data", "--data-binary", "x", target.url("/upload/m")])
        XCTAssertEqual(noBoundary.status, 400)
    }

    /// Uploads `file`'s bytes `first...last` as part `index` of `id` with curl.
    private func putPart(_ file: String, id: String, index: Int, first: Int, last: Int, total: Int,
                         query: String = "") throws -> (status: Int, object: [String: Any]) {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        let slice = target.path("slice-\(id)-\(index)-\(UUID().uuidString)")
        try data.subdata(in: first..<last + 1).write(to: URL(fileURLWithPath: slice))
        return try target.json(["-T", slice, "-H", "Content-Range: bytes \(first)-\(last)/\(total)",
                                target.url("/upload/\(id)/part/\(index)\(query)")])
    }

    func testSegmentsCompleteListingAndErrors() async throws {
        try await target.stop()
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("wl-data-\(UUID().uuidString)").path
        target = try await TargetHarness.start { $0.dataDirectory = dataDir }
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let total = 250_000
        let file = try target.randomFile("seg.bin", count: total)
        let expected = try TargetHarness.sha256sum(file)
        let ranges = [(0, 99_999), (100_000, 199_999), (200_000, total - 1)]

        XCTAssertEqual(try target.json(["-X", "POST", target.url("/upload/s/complete")]).status, 404)
        XCTAssertEqual(try target.json([target.url("/upload/s")]).status, 404)

        let third = try putPart(file, id: "s", index: 2, first: ranges[2].0, last: ranges[2].1, total: total)
        XCTAssertEqual(third.status, 200)
        XCTAssertEqual(third.object["offset"] as? Int, 200_000)
        XCTAssertEqual(third.object["length"] as? Int, 50_000)
        XCTAssertEqual(third.object["index"] as? Int, 2)
        let thirdSHA = try TargetHarness.python(
            "import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],'rb').read()[200000:]).hexdigest())", [file])
        XCTAssertEqual(third.object["sha256"] as? String, thirdSHA)
        // A wrong part 0 first; it is replaced below.
        let junk = try target.randomFile("junk.bin", count: 100_000)
        XCTAssertEqual(try putPart(junk, id: "s", index: 0, first: 0, last: 99_999, total: total).status, 200)

        let conflict = try target.json(["-X", "POST", target.url("/upload/s/complete")])
        XCTAssertEqual(conflict.status, 409)
        XCTAssertEqual(conflict.object["error"] as? String, "missing ranges")
        XCTAssertEqual(conflict.object["missing"] as? [[Int]], [[100_000, 199_999]])

        let listing = try target.json([target.url("/upload/s")])
        XCTAssertEqual(listing.status, 200)
        XCTAssertEqual(listing.object["total"] as? Int, total)
        XCTAssertEqual(listing.object["ranges"] as? [[Int]], [[0, 99_999], [200_000, total - 1]])
        let listed = try XCTUnwrap(listing.object["parts"] as? [[String: Int]])
        XCTAssertEqual(listed, [["index": 0, "offset": 0, "length": 100_000], ["index": 2, "offset": 200_000, "length": 50_000]])

        // Bad parts: no Content-Range, a malformed one, a total that disagrees, a body shorter than announced.
        let slice = target.path("plain")
        try Data(count: 10).write(to: URL(fileURLWithPath: slice))
        XCTAssertEqual(try target.json(["-T", slice, target.url("/upload/s/part/1")]).status, 400)
        XCTAssertEqual(try target.json(["-T", slice, "-H", "Content-Range: 0-9/10", target.url("/upload/s/part/1")]).status, 400)
        let otherTotal = try target.json(["-T", slice, "-H", "Content-Range: bytes 0-9/999", target.url("/upload/s/part/1")])
        XCTAssertEqual(otherTotal.status, 400)
        XCTAssertTrue((otherTotal.object["error"] as? String)?.contains("total") ?? false)
        let short = try target.json(["-T", slice, "-H", "Transfer-Encoding: chunked", "-H", "Content-Range: bytes 100000-100019/\(total)",
                                     target.url("/upload/s/part/1")])
        XCTAssertEqual(short.status, 400)
        XCTAssertEqual(try target.json(["-T", slice, "-H", "Content-Range: bytes 100000-100019/\(total)",
                                        target.url("/upload/s/part/1")]).status, 400, "Content-Length disagrees")

        XCTAssertEqual(try putPart(file, id: "s", index: 1, first: ranges[1].0, last: ranges[1].1, total: total).status, 200)
        let withJunk = try target.json(["-X", "POST", target.url("/upload/s/complete")])
        XCTAssertEqual(withJunk.status, 200)
        XCTAssertNotEqual(withJunk.object["sha256"] as? String, expected, "part 0 still holds the junk")
        XCTAssertEqual(try putPart(file, id: "s", index: 0, first: ranges[0].0, last: ranges[0].1, total: total).status, 200)
        for _ in 0..<2 {
            let done = try target.json(["-X", "POST", target.url("/upload/s/complete")])
            XCTAssertEqual(done.status, 200)
            XCTAssertEqual(done.object["sha256"] as? String, expected)
            XCTAssertEqual(done.object["size"] as? Int, total)
            XCTAssertEqual(done.object["parts"] as? Int, 3)
            XCTAssertEqual(done.object["id"] as? String, "s")
        }
        // On disk: exactly the three parts, no temporary files left.
        let stored = try FileManager.default.contentsOfDirectory(atPath: dataDir + "/s").sorted()
        XCTAssertEqual(stored, ["part-0-0-250000", "part-1-100000-250000", "part-2-200000-250000"])

        // A server started again on the same data directory knows the parts it had.
        let listingBefore = try target.curl([target.url("/upload/s")]).stdout
        try await target.stop()
        target = try await TargetHarness.start { $0.dataDirectory = dataDir }
        XCTAssertEqual(try target.curl([target.url("/upload/s")]).stdout, listingBefore)
        let again = try target.json(["-X", "POST", target.url("/upload/s/complete")])
        XCTAssertEqual(again.object["sha256"] as? String, expected)
    }

    func testResetAfterInterruptsADownloadThatResumesToTheSameBytes() throws {
        let n = 1_000_000
        let whole = target.path("whole")
        _ = try target.fetch([target.url("/bytes/\(n)")], output: whole)
        let partial = target.path("partial")
        let interrupted = try target.curl(["-o", partial, target.url("/bytes/\(n)?reset_after=300000")])
        XCTAssertNotEqual(interrupted.status, 0, "curl must see the reset")
        XCTAssertTrue([18, 56].contains(interrupted.status), "curl exit \(interrupted.status): \(interrupted.stderr)")
        let got = try FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int
        XCTAssertEqual(got, 300_000, "every byte before the reset point arrives")
        // Resuming from byte 300000 starts at the reset point, so it is served whole.
        let resumed = try target.curl(["-C", "-", "-o", partial, "-w", "%{http_code}", target.url("/bytes/\(n)?reset_after=300000")])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertEqual(resumed.stdout, "206")
        XCTAssertEqual(try TargetHarness.sha256sum(partial), try TargetHarness.sha256sum(whole))
        // A range that starts before the reset point is cut at it.
        let cut = try target.curl(["-r", "200000-", "-o", target.path("cut"), target.url("/bytes/\(n)?reset_after=300000")])
        XCTAssertNotEqual(cut.status, 0)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: target.path("cut"))[.size] as? Int, 100_000)
    }

    func testResetAfterOnAnUploadAndInjectedStatuses() throws {
        let file = try target.randomFile("up.bin", count: 500_000)
        let reset = try target.curl(["-T", file, "-o", "/dev/null", "-w", "%{http_code}", target.url("/upload/r?reset_after=100000")])
        XCTAssertTrue([55, 56].contains(reset.status), "curl exit \(reset.status): \(reset.stderr)")
        XCTAssertFalse(reset.stdout.hasPrefix("2"), "no final answer after a reset: \(reset.stdout)")

        let (status, headers) = try headers(["-T", file, target.url("/upload/r?status=429&retry_after=2")])
        XCTAssertEqual(status, 429)
        XCTAssertEqual(headers["retry-after"], "2")
        // The body was consumed before the answer: curl sent all of it.
        let sent = try target.curl(["-T", file, "-o", "/dev/null", "-w", "%{http_code} %{size_upload}",
                                    target.url("/upload/r?status=503")])
        XCTAssertEqual(sent.stdout, "503 500000")
        XCTAssertEqual(try target.fetch([target.url("/bytes/10?status=500")]).status, 500)

        let started = Date()
        XCTAssertEqual(try target.fetch([target.url("/bytes/10?stall=0.4")]).status, 200)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.4)
        XCTAssertEqual(try target.fetch([target.url("/bytes/10?stall=soon")]).status, 400)
    }

    func testFailFirstAnswers503UntilTheTargetRecovers() throws {
        let flaky = try (1...4).map { _ in try target.fetch([target.url("/bytes/10?fail_first=2&retry_after=0")]).status }
        XCTAssertEqual(flaky, [503, 503, 200, 200])
        // curl --retry (the oracle of retryable statuses) sees such a target recover.
        let out = target.path("flaky")
        let retried = try target.curl(["-o", out, "-w", "%{http_code}", "--retry", "3", "--retry-delay", "0",
                                       target.url("/bytes/10?fail_first=2&retry_after=0&key=curl")])
        XCTAssertEqual(retried.stdout, "200", retried.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out)).count, 10)
        let (status, headers) = try headers([target.url("/bytes/10?fail_first=1&retry_after=3")])
        XCTAssertEqual(status, 503)
        XCTAssertEqual(headers["retry-after"], "3")
        XCTAssertEqual(try target.fetch([target.url("/bytes/10?fail_first=1&retry_after=3")]).status, 200, "counted per target")
        XCTAssertEqual(try target.fetch([target.url("/bytes/10?fail_first=x")]).status, 400)
    }

    func testPauseAfterStallsTheBodyMidWay() throws {
        // curl gives up during the pause, holding exactly the bytes before it.
        let cut = try target.curl(["-o", "/dev/null", "-m", "1", "-w", "%{http_code} %{size_download}",
                                   target.url("/bytes/1000?pause_after=100&pause=5")])
        XCTAssertEqual(cut.status, 28, "curl timed out: \(cut.stderr)")
        XCTAssertEqual(cut.stdout, "200 100")
        // A short pause: the whole body, the same bytes as without it (sha256sum of both).
        let paused = target.path("paused"), plain = target.path("plain")
        XCTAssertEqual(try target.fetch([target.url("/bytes/1000?pause_after=100&pause=0.1")], output: paused).status, 200)
        XCTAssertEqual(try target.fetch([target.url("/bytes/1000")], output: plain).status, 200)
        XCTAssertEqual(try TargetHarness.sha256sum(paused), try TargetHarness.sha256sum(plain))
        XCTAssertEqual(try target.fetch([target.url("/bytes/10?pause=soon")]).status, 400)
    }

    func testPipelinedRequestsAreAnsweredInOrder() throws {
        // Two requests in one write; the second asks to close. Python reads until the server closes.
        let script = """
            import re, socket, sys
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
            s.sendall(b"GET /bytes/3 HTTP/1.1\\r\\nHost: t\\r\\n\\r\\n"
                      b"GET /status/201 HTTP/1.1\\r\\nHost: t\\r\\nConnection: close\\r\\n\\r\\n")
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            print(" ".join(code.decode() for code in re.findall(rb"HTTP/1\\.1 ([0-9]{3}) ", data)))
            """
        XCTAssertEqual(try TargetHarness.python(script, [String(target.server.port)]), "200 201")
    }
}
