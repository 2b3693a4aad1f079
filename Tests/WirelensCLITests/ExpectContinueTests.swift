import Foundation
import WirelensTestSupport
import XCTest
@testable import wirelens

/// `Expect: 100-continue` as curl 7.88 decides it: always for `-T`, above 1 MiB for `-d`, `--data-binary` and `-F`
/// (whatever `-X` says), never with `--no-expect-100`; `--expect100-timeout` as curl's.
///
/// The oracle is curl on the same loopback server (scripts/redirect-peer.py records the headers each request
/// brought, and answers an Expect with `100 Continue`, as Python's http.server does); scripts/slowpeer.py's
/// /ignore-expect never answers one, so a client waits out its own timeout.
final class ExpectContinueTests: XCTestCase {
    private var paths: [String] = []

    override func tearDown() {
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }

    /// A file of `size` bytes with no CR or LF (so that `-d @FILE` sends it whole).
    private func file(size: Int) throws -> String {
        let path = CLIHarness.temporaryPath("body-\(size).txt")
        paths.append(path)
        try Data((0..<size).map { UInt8(ascii: "a") + UInt8($0 % 26) }).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func curl(_ arguments: [String]) throws {
        let outcome = try ProcessRunner.run("/usr/bin/curl", ["-sS", "-o", "/dev/null", "--max-time", "20"] + arguments,
                                            timeout: 30)
        XCTAssertEqual(outcome.status, 0, "curl \(arguments): \(outcome.stderr)")
    }

    /// Runs a probe with a JSON report; returns the report's first transaction.
    private func probe(_ arguments: [String]) throws -> [String: Any] {
        let report = CLIHarness.temporaryPath("expect.json")
        paths.append(report)
        let outcome = try CLIHarness.run(["probe", "-q", "--format", "json", "--report", report] + arguments)
        XCTAssertEqual(outcome.status, 0, "wirelens \(arguments): \(outcome.stderr)")
        return try CLIHarness.firstTransaction(ofReport: report).transaction
    }

    /// The Expect values of the one request recorded for `tag`.
    private func expect(_ peer: RedirectPeer, _ tag: String, file: StaticString = #filePath,
                        line: UInt = #line) throws -> [String] {
        let found = try peer.records(tag: tag)
        XCTAssertEqual(found.count, 1, "one request for \(tag): \(found)", file: file, line: line)
        return found.first?.values("Expect") ?? []
    }

    /// Every body flag at 3 B, 1 KiB, 100 KiB and 1 MiB + 1, with and without `-X PUT`: the server sees an Expect
    /// from Wirelens exactly when it sees one from curl, and the report measures a wait exactly then.
    func testExpectAsCurlForEveryBodyFlagAndSize() throws {
        let peer = try RedirectPeer(listen: ["127.0.0.1"])
        var curlExpects: [String: Bool] = [:]
        for size in [3, 1024, 100 * 1024, 1 << 20 + 1] {
            let path = try file(size: size)
            let flags: [(String, [String])] = [
                ("d", ["-d", size == 3 ? "x=y" : "@" + path]), ("binary", ["--data-binary", "@" + path]),
                ("form", ["-F", "f=@" + path]), ("upload", ["-T", path]),
                ("putdata", ["-X", "PUT", "-d", size == 3 ? "x=y" : "@" + path]),
            ]
            for (name, arguments) in flags {
                let tag = "\(name)-\(size)"
                try curl(arguments + [peer.url("/record/\(tag)-curl")])
                let transaction = try probe(arguments + [peer.url("/record/\(tag)-wl")])
                let theirs = try expect(peer, "\(tag)-curl")
                let ours = try expect(peer, "\(tag)-wl")
                XCTAssertEqual(ours, theirs, "\(tag): Expect as curl's")
                curlExpects[tag] = !theirs.isEmpty
                // The wait is measured when the request asked for one, and only then.
                XCTAssertEqual(transaction["expectContinueWaitMs"] is Double, !ours.isEmpty, "\(tag): \(transaction)")
            }
        }
        // The oracle itself, so that the comparison above cannot pass by two clients doing the same wrong thing:
        // curl asks for -T of any size and for the other flags above 1 MiB only (the issue's `-X PUT -d x=y`: none).
        for (tag, sent) in curlExpects {
            let expected = tag.hasPrefix("upload-") || tag.hasSuffix("-\(1 << 20 + 1)")
            XCTAssertEqual(sent, expected, "curl 7.88 for \(tag)")
        }
        XCTAssertEqual(curlExpects.count, 20)
    }

    /// --no-expect-100 sends none, even where curl would (an upload, a body above 1 MiB).
    func testNoExpect100SendsNone() throws {
        let peer = try RedirectPeer(listen: ["127.0.0.1"])
        let big = try file(size: 1 << 20 + 1)
        for (tag, arguments) in [("upload", ["-T", big]), ("binary", ["--data-binary", "@" + big])] {
            let transaction = try probe(["--no-expect-100"] + arguments + [peer.url("/record/no-\(tag)")])
            XCTAssertEqual(try expect(peer, "no-\(tag)"), [], tag)
            XCTAssertFalse(transaction["expectContinueWaitMs"] is Double, "\(tag): no wait without an Expect")
        }
    }

    /// --expect100-timeout 2: against a server that never sends `100 Continue`, both clients hold the body back at
    /// least 2 s (libcurl's default would send it after 1 s); the test's own clock and curl's time_total witness it.
    func testExpect100TimeoutAsCurl() throws {
        let servers = try TestServers.get()
        let body = try file(size: 1000)
        let url = servers.peer("/ignore-expect/0")
        let timed = try ProcessRunner.run("/usr/bin/curl", ["-sS", "-o", "/dev/null", "--max-time", "20", "-w",
                                                            "%{time_total}", "--expect100-timeout", "2", "-T", body, url],
                                          timeout: 30)
        XCTAssertEqual(timed.status, 0, timed.stderr)
        XCTAssertGreaterThanOrEqual(Double(timed.stdout) ?? 0, 1.9, "curl waited its --expect100-timeout")
        let started = Date()
        let transaction = try probe(["--expect100-timeout", "2", "-T", body, url])
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1.9, "wirelens waited as long")
        XCTAssertGreaterThanOrEqual(transaction["expectContinueWaitMs"] as? Double ?? 0, 1900, "and reported the wait")
        try CLIHarness.assertFails(["probe", "--expect100-timeout", "soon", url], code: .usage, mention: "--expect100-timeout")
    }
}
