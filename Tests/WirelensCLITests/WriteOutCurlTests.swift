import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens

/// `-w/--write-out` against `curl -w` on the same loopback transfers (nginx from the test support): the values
/// that mean the same agree exactly, times within `timeTolerance`, and the CLI's bad input is a one-line usage error.
final class WriteOutCurlTests: XCTestCase {
    /// Two runs of one transfer on loopback: their times differ by scheduling only. 0.3 s catches a unit error
    /// (ms for s) or a time from the wrong origin on the 2 s slow download, and not a busy machine's jitter.
    private let timeTolerance = 0.3

    private static let exact = ["http_code", "http_version", "num_connects", "num_redirects", "remote_ip",
                                "remote_port", "local_ip", "size_download", "size_upload", "url_effective"]
    private static let times = ["time_namelookup", "time_connect", "time_appconnect", "time_pretransfer",
                                "time_starttransfer", "time_redirect", "time_total"]
    private static let format = (exact + times + ["local_port", "speed_download"]).map { "\($0)=%{\($0)}" }.joined(separator: "\\n") + "\\n"

    private func parse(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        return values
    }

    /// Runs the transfer with curl and with `wirelens probe`, and compares.
    private func compare(_ url: String, curl curlArgs: [String] = [], wirelens wlArgs: [String] = [],
                         skipTimes: Set<String> = [], file: StaticString = #filePath, line: UInt = #line) throws {
        let curl = try ProcessRunner.run("/usr/bin/curl", ["-s", "-L", "-o", "/dev/null", "-w", Self.format] + curlArgs + [url],
                                         timeout: 30)
        XCTAssertEqual(curl.status, 0, curl.stderr, file: file, line: line)
        let ours = try CLIHarness.run(["probe", "-q", "-w", Self.format] + wlArgs + [url], timeout: 30)
        let theirs = parse(curl.stdout), mine = parse(ours.stdout)
        XCTAssertEqual(Set(mine.keys), Set(Self.exact + Self.times + ["local_port", "speed_download"]), "stdout: \(ours.stdout) stderr: \(ours.stderr)",
                       file: file, line: line)
        for name in Self.exact {
            XCTAssertEqual(mine[name], theirs[name], "\(name) for \(url)", file: file, line: line)
        }
        // A local port is the kernel's choice each run: the form agrees (a port number).
        for values in [mine, theirs] {
            let port = Int(values["local_port"] ?? "") ?? 0
            XCTAssertTrue((1...65535).contains(port), "local_port \(values["local_port"] ?? "nil")", file: file, line: line)
        }
        for name in Self.times where !skipTimes.contains(name) {
            guard let a = mine[name].flatMap(Double.init), let b = theirs[name].flatMap(Double.init) else {
                XCTFail("\(name): \(mine[name] ?? "nil") vs curl's \(theirs[name] ?? "nil")", file: file, line: line)
                continue
            }
            XCTAssertEqual(mine[name]?.split(separator: ".").last?.count, 6, "\(name) has 6 decimals", file: file, line: line)
            XCTAssertEqual(a, b, accuracy: timeTolerance, "\(name) for \(url): \(a) vs curl's \(b)", file: file, line: line)
            // No TLS: time_appconnect is 0 in both; no redirect: time_redirect is 0 in both.
            if name == "time_appconnect" || name == "time_redirect" {
                XCTAssertEqual(a == 0, b == 0, "\(name) zero in one only: \(a) vs curl's \(b)", file: file, line: line)
            }
        }
        // Speeds are bytes over time_total in both: within 20 % on a body long enough to take a while (1 MiB at 512 KiB/s).
        if let size = mine["size_download"].flatMap(Double.init), size >= 1_000_000,
           let a = mine["speed_download"].flatMap(Double.init), let b = theirs["speed_download"].flatMap(Double.init) {
            XCTAssertEqual(a, b, accuracy: b * 0.2, "speed_download \(a) vs curl's \(b)", file: file, line: line)
        }
        let order = ["time_namelookup", "time_connect", "time_pretransfer", "time_starttransfer", "time_total"]
            .compactMap { mine[$0].flatMap(Double.init) }
        XCTAssertEqual(order, order.sorted(), "cumulative times grow", file: file, line: line)
    }

    func testPlainGetAgreesWithCurl() throws {
        try compare(try TestServers.get().http("/small.txt"))
    }

    func testTLSGetAgreesWithCurl() throws {
        let servers = try TestServers.get()
        let url = "https://127.0.0.1:\(servers.httpsPort)/bytes/1k.bin"
        try compare(url, curl: ["--cacert", servers.certPath, "-k"], wirelens: ["-k"])
    }

    func testRedirectsAgreeWithCurl() throws {
        try compare(try TestServers.get().http("/hops/3"))
    }

    func testNotFoundAgreesWithCurl() throws {
        try compare(try TestServers.get().http("/status/404"))
    }

    func testSlowDownloadTimesAgreeWithCurl() throws {
        try compare(try TestServers.get().http("/slow/1m.bin"))
    }

    /// An upload: sizes and codes agree; time_starttransfer does not (curl 7.88 stamps the first upload byte,
    /// Wirelens the first response byte: the README's table), and no other time is held to curl's here.
    func testUploadAgreesWithCurl() throws {
        let servers = try TestServers.get()
        let body = CLIHarness.temporaryPath("body.bin")
        try Data(repeating: 0x61, count: 300_000).write(to: URL(fileURLWithPath: body))
        defer { try? FileManager.default.removeItem(atPath: body) }
        let name = UUID().uuidString
        let curl = try ProcessRunner.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", Self.format, "-T", body,
                                                           servers.http("/upload/curl-\(name)")], timeout: 30)
        let ours = try CLIHarness.run(["probe", "-q", "-w", Self.format, "--upload", body,
                                       servers.http("/upload/wl-\(name)")], timeout: 30)
        let theirs = parse(curl.stdout), mine = parse(ours.stdout)
        for name in ["http_code", "http_version", "num_connects", "num_redirects", "remote_ip", "remote_port",
                     "size_upload", "size_download"] {
            XCTAssertEqual(mine[name], theirs[name], name)
        }
        XCTAssertEqual(mine["size_upload"], "300000")
        XCTAssertEqual(mine["url_effective"], servers.http("/upload/wl-\(name)"))
    }

    /// An upload answered 500 ms after its body: time_starttransfer is the first response byte, so it is at least the
    /// server's delay and, as the answer is a few bytes, about curl's time_total for the same upload.
    func testUploadStartTransferIsTheFirstResponseByte() throws {
        let servers = try TestServers.get()
        let body = CLIHarness.temporaryPath("delayed.bin")
        try Data(repeating: 0x63, count: 2_000_000).write(to: URL(fileURLWithPath: body))
        defer { try? FileManager.default.removeItem(atPath: body) }
        let format = "%{time_pretransfer} %{time_starttransfer} %{time_total} %{http_code}"
        let curl = try ProcessRunner.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", format, "-T", body,
                                                           servers.target("/delay/500")], timeout: 30)
        let ours = try CLIHarness.run(["probe", "-q", "-w", format, "--upload", body, servers.target("/delay/500")],
                                      timeout: 30)
        let theirs = curl.stdout.split(separator: " ").compactMap { Double($0) }
        let mine = ours.stdout.split(separator: " ").compactMap { Double($0) }
        XCTAssertEqual(mine.count, 4, ours.stdout + ours.stderr)
        XCTAssertEqual(theirs.count, 4, curl.stdout + curl.stderr)
        guard mine.count == 4, theirs.count == 4 else { return }
        XCTAssertEqual(mine[3], theirs[3], "http_code")
        XCTAssertGreaterThanOrEqual(mine[1], 0.5, "the answer came after the server's 500 ms")
        XCTAssertEqual(mine[1], theirs[2], accuracy: timeTolerance, "first response byte ~ curl's total")
    }

    func testPerTaskLinesAndStreams() throws {
        let url = try TestServers.get().http("/small.txt")
        let out = try CLIHarness.run(["probe", "-w", "%{http_code}%{stderr}E%{stdout}\\n", "--repeat", "3", url])
        XCTAssertEqual(out.status, 0, out.stderr)
        XCTAssertEqual(out.stdout, "200\n200\n200\n", "one line per task, and no report on stdout")
        XCTAssertTrue(out.stderr.hasPrefix("EEE") || out.stderr.contains("EEE"), out.stderr)
    }

    func testUnknownVariableWarnsOnceInOneLine() throws {
        let url = try TestServers.get().http("/small.txt")
        let out = try CLIHarness.run(["probe", "-w", "%{http_code}%{bogus}%{bogus}\\n", "--repeat", "2", url])
        XCTAssertEqual(out.status, 0, out.stderr)
        XCTAssertEqual(out.stdout, "200\n200\n")
        let lines = out.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, out.stderr)
        XCTAssertTrue(out.stderr.contains("'bogus'"), out.stderr)
    }

    func testFormatFromFileAndStdin() throws {
        let url = try TestServers.get().http("/small.txt")
        let path = CLIHarness.temporaryPath("format.txt")
        try "code=%{http_code} size=%{size_download}\\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fromFile = try CLIHarness.run(["probe", "-w", "@\(path)", url])
        XCTAssertEqual(fromFile.stdout, "code=200 size=14\n", fromFile.stderr)
        let fromStdin = try ProcessRunner.run("/bin/sh", ["-c", "printf '%s' \"$1\" | \"$2\" probe -w @- \"$3\"", "sh",
                                                          "%{http_code}|%{num_connects}", CLIHarness.binary, url])
        XCTAssertEqual(fromStdin.stdout, "200|1", fromStdin.stderr)
    }

    func testBadFormatsAreUsageErrors() throws {
        let url = try TestServers.get().http("/small.txt")
        try CLIHarness.assertFails(["probe", "-w", "@/nonexistent/format", url], code: .usage, mention: "-w @/nonexistent/format")
        try CLIHarness.assertFails(["probe", "-w", "%{http_code", url], code: .usage, mention: "no closing '}'")
        try CLIHarness.assertFails(["download", "-w", "%{time_total", url, "-o", "/dev/null"], code: .usage,
                                   mention: "no closing '}'")
        // stdout carries the write-out: a JSON report needs a file to go to.
        try CLIHarness.assertFails(["probe", "-w", "%{http_code}", "--format", "json", url], code: .usage,
                                   mention: "--report FILE")
    }

    /// With --report FILE the report is written there, and stdout still carries only the write-out.
    func testReportGoesToItsFile() throws {
        let url = try TestServers.get().http("/small.txt")
        let path = CLIHarness.temporaryPath("report.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let out = try CLIHarness.run(["probe", "-q", "-w", "%{size_download}\\n", "--format", "json", "--report", path, url])
        XCTAssertEqual(out.status, 0, out.stderr)
        XCTAssertEqual(out.stdout, "14\n")
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        XCTAssertEqual((report["tasks"] as? [Any])?.count, 1)
    }

    func testDownloadAndUploadPrintPerTask() throws {
        let servers = try TestServers.get()
        let file = CLIHarness.temporaryPath("dl.bin")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let download = try CLIHarness.run(["download", "-q", "-w", "%{http_code} %{size_download} %{exitcode}\\n",
                                           servers.http("/bytes/1k.bin"), "-o", file])
        XCTAssertEqual(download.status, 0, download.stderr)
        XCTAssertEqual(download.stdout, "200 1024 0\n")

        // An upload of 3 segments of 100 KiB and the complete call: one line per request, in task order.
        let body = CLIHarness.temporaryPath("up.bin")
        try Data(repeating: 0x62, count: 300 * 1024).write(to: URL(fileURLWithPath: body))
        defer { try? FileManager.default.removeItem(atPath: body) }
        let upload = try CLIHarness.run(["upload", "-q", "--no-journal", "--segment-size", "100KiB", "-w",
                                         "%{method} %{size_upload}\n", body,
                                         servers.target("/upload/wo-\(UUID().uuidString)")])
        XCTAssertEqual(upload.status, 0, upload.stderr)
        let lines = upload.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0 == "PUT 102400" }.count, 3, upload.stdout)
        XCTAssertEqual(lines.count, 4, upload.stdout)
        XCTAssertTrue(lines.last?.hasPrefix("POST ") == true, upload.stdout)
    }
}
