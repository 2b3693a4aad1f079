import Foundation
import WirelensTestSupport
import XCTest

/// What 301, 302, 303, 307 and 308 do to a request with a body, as `curl -L` 7.88 does it: the method of the next
/// hop, whether the body goes again, and that a hop without a body sends none of the body's headers (Content-Type,
/// Content-Length, Transfer-Encoding); `--post301`, `--post302` and `--post303` as curl's.
///
/// The oracle is curl on the same listener: scripts/redirect-peer.py records what each hop brought.
final class RedirectMethodTests: XCTestCase {
    private var paths: [String] = []

    override func tearDown() {
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }

    /// What a hop brought, as comparable between two clients (a form's boundary differs, so Content-Type is cut at
    /// its first `;` and a form's length is not compared, only that it came).
    private struct Seen: Equatable, CustomStringConvertible {
        var method: String?
        var hasBody: Bool
        var bodyLength: Int?
        var contentType: [String]
        var hasContentLength: Bool
        var hasTransferEncoding: Bool
        var expect: [String]

        init(_ record: RedirectPeer.Record) {
            method = record.method
            hasBody = (record.bodyLength ?? 0) > 0
            let form = record.values("Content-Type").contains { $0.hasPrefix("multipart/") }
            bodyLength = form ? nil : record.bodyLength
            contentType = record.values("Content-Type").map { String($0.prefix { $0 != ";" }) }
            hasContentLength = !record.values("Content-Length").isEmpty
            hasTransferEncoding = !record.values("Transfer-Encoding").isEmpty
            expect = record.values("Expect")
        }

        var description: String {
            "\(method ?? "-") body \(hasBody) \(bodyLength ?? -1) type \(contentType) length \(hasContentLength) "
                + "chunked \(hasTransferEncoding) expect \(expect)"
        }
    }

    /// The one hop recorded for `tag`.
    private func seen(_ peer: RedirectPeer, _ tag: String, file: StaticString = #filePath,
                      line: UInt = #line) throws -> Seen {
        let found = try peer.records(tag: tag)
        XCTAssertEqual(found.count, 1, "one request for \(tag): \(found)", file: file, line: line)
        return Seen(try XCTUnwrap(found.first, file: file, line: line))
    }

    /// Runs curl -L and wirelens with `arguments` through a `status` redirect; returns what the hop brought of each.
    private func both(_ peer: RedirectPeer, _ tag: String, status: Int, _ arguments: [String]) throws -> (curl: Seen, ours: Seen) {
        let byCurl = try ProcessRunner.run("/usr/bin/curl", ["-sS", "-L", "-o", "/dev/null", "--max-time", "20"] + arguments
                                           + [peer.redirect(to: peer.url("/record/\(tag)-curl"), status: status)], timeout: 30)
        XCTAssertEqual(byCurl.status, 0, "curl \(tag): \(byCurl.stderr)")
        let byUs = try CLIHarness.run(["probe", "-q", "-o", "/dev/null", "--report", "/dev/null"] + arguments
                                      + [peer.redirect(to: peer.url("/record/\(tag)-wl"), status: status)])
        XCTAssertEqual(byUs.status, 0, "wirelens \(tag): \(byUs.stderr)")
        return (try seen(peer, "\(tag)-curl"), try seen(peer, "\(tag)-wl"))
    }

    func testBodiesThroughEveryRedirectStatusAsCurl() throws {
        let peer = try RedirectPeer(listen: ["127.0.0.1"])
        let upload = CLIHarness.temporaryPath("up.txt")
        paths.append(upload)
        try "hello\n".write(toFile: upload, atomically: true, encoding: .utf8)
        let bodies: [(String, [String])] = [
            ("data", ["-d", "a=1"]), ("form", ["-F", "a=1"]), ("upload", ["-T", upload]),
            ("putdata", ["-X", "PUT", "-d", "a=1"]), ("postupload", ["-X", "POST", "-T", upload]),
            ("usertype", ["-d", "a=1", "-H", "Content-Type: text/plain"]),
        ]
        var dropped = 0
        for status in [301, 302, 303, 307, 308] {
            for (name, arguments) in bodies {
                let tag = "\(name)-\(status)"
                let (theirs, ours) = try both(peer, tag, status: status, arguments)
                XCTAssertEqual(ours, theirs, "\(tag): the hop as curl's")
                if !theirs.hasBody { dropped += 1 }
            }
        }
        // The oracle as the issue reads curl: -L -d a=1 through a 303 is a GET with no Content-Type.
        let (curl303, _) = try both(peer, "issue-303", status: 303, ["-d", "a=1"])
        XCTAssertEqual(curl303.method, "GET")
        XCTAssertEqual(curl303.contentType, [])
        XCTAssertEqual(dropped, 14, "curl drops the body on 301/302 for -d, -F, -X PUT -d and a user's type, on every 303")
    }

    func testPostFlagsAsCurl() throws {
        let peer = try RedirectPeer(listen: ["127.0.0.1"])
        for status in [301, 302, 303] {
            for (name, body) in [("data", ["-d", "a=1"]), ("form", ["-F", "a=1"])] {
                // Every flag with -d; with -F, the status's own flag.
                for flag in ["--post301", "--post302", "--post303"] where name == "data" || flag == "--post\(status)" {
                    let tag = "\(name)\(flag)-\(status)"
                    let (theirs, ours) = try both(peer, tag, status: status, [flag] + body)
                    XCTAssertEqual(ours, theirs, "\(tag): as curl's")
                    XCTAssertEqual(theirs.method, flag == "--post\(status)" ? "POST" : "GET", "curl for \(tag)")
                }
            }
        }
    }
}
