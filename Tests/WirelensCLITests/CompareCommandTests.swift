import Foundation
import WirelensCompare
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens

/// `wirelens compare` end to end: against the target capped per connection, parallelism multiplies
/// throughput; against nginx's HTTP/2, one connection carries every limit; the HTML report renders in
/// headless Chromium with its waterfall.
final class CompareCommandTests: XCTestCase {
    /// Runs compare with JSON to a file and decodes the document.
    private func compare(_ arguments: [String], timeout: TimeInterval = 90) throws -> CompareDocument {
        let path = CLIHarness.temporaryPath("compare.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let outcome = try CLIHarness.run(["compare"] + arguments + ["--format", "json", "--report", path, "-q"],
                                         timeout: timeout)
        XCTAssertEqual(outcome.status, 0, "stderr: \(outcome.stderr)")
        return try JSONDecoder().decode(CompareDocument.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func testFourConnectionsTripleThroughputOnATargetCappedPerConnection() throws {
        let peer = try SegmentPeer.start(rate: 1_000_000)
        defer { peer.stop() }
        let doc = try compare([peer.uploadURL("compare"), "--limits", "1,4", "--workload", "upload:256KiBx8",
                               "--repeat", "1"])
        XCTAssertEqual(doc.results.map(\.limit.value), [1, 4])
        let (one, four) = (doc.results[0], doc.results[1])
        XCTAssertEqual(one.errors + four.errors, 0)
        XCTAssertGreaterThanOrEqual(four.throughput, 3 * one.throughput,
                                    "limit 4: \(four.throughput) B/s, limit 1: \(one.throughput) B/s")
        XCTAssertGreaterThanOrEqual(four.speedup?.median ?? 0, 3)
        XCTAssertEqual(one.connectionsOpened, 1)
        XCTAssertEqual(four.connectionsOpened, 4)
        XCTAssertEqual(doc.recommendations.first?.limit?.value, 4)
        XCTAssertEqual(doc.recommendations.first?.regime, "bandwidth-bound")
        // Each run's report holds its 8 uploads of 256 KiB.
        XCTAssertEqual(doc.runs.map { $0.report.summary.requestBodyBytes }, [8 << 18, 8 << 18])
    }

    func testHTTP2KeepsOneConnectionWhateverTheLimit() throws {
        let servers = try TestServers.get()
        let doc = try compare([servers.https("/small.txt"), "--cacert", servers.certPath, "--modes", "h2,h1-fresh",
                               "--limits", "1,4,8", "--workload", "requests:16", "--repeat", "2"])
        // Interleaved: every configuration once before any runs twice.
        XCTAssertEqual(doc.runs.prefix(6).map(\.repetition), Array(repeating: 0, count: 6))
        XCTAssertEqual(doc.runs.count, 12)
        for result in doc.results {
            XCTAssertEqual(result.errors, 0, "\(result.mode) @ \(result.limit.label)")
            switch result.mode {
            case .h2: XCTAssertEqual(result.connectionsOpenedRuns, [1, 1], "h2 @ \(result.limit.label)")
            default: XCTAssertEqual(result.connectionsOpenedRuns, [16, 16], "a fresh connection per request")
            }
        }
        for run in doc.runs where run.mode == .h2 {
            XCTAssertEqual(run.report.summary.protocols["h2"], 16)
        }
        // probe --format html: multiplexed streams share one lane, stacked in rows.
        let html = try CLIHarness.run(["probe", servers.https("/small.txt"), "--cacert", servers.certPath, "--http2",
                                       "--repeat", "8", "--concurrency", "4", "--format", "html", "-q"])
        XCTAssertEqual(html.status, 0, html.stderr)
        XCTAssertTrue(html.stdout.hasPrefix("<!DOCTYPE html>"))
        XCTAssertEqual(html.stdout.components(separatedBy: "<g class=\"lane\">").count - 1, 1)
        XCTAssertEqual(html.stdout.components(separatedBy: "<g class=\"tx\">").count - 1, 8)
    }

    func testHTMLReportScreenshotShowsTheWaterfall() throws {
        guard let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        }) else {
            throw XCTSkip("Debian's chromium is not installed (make deps)")
        }
        let servers = try TestServers.get()
        let json = CLIHarness.temporaryPath("probe.json")
        let html = CLIHarness.temporaryPath("probe.html")
        let png = CLIHarness.temporaryPath("probe.png")
        defer {
            for path in [json, html, png] { try? FileManager.default.removeItem(atPath: path) }
        }
        let probe = try CLIHarness.run(["probe", servers.http("/small.txt"), "--repeat", "30", "--concurrency", "3",
                                        "--format", "json", "--report", json, "-q"])
        XCTAssertEqual(probe.status, 0, probe.stderr)
        let report = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        let render = try CLIHarness.run(["render", json, "--format", "html"])
        XCTAssertEqual(render.status, 0, render.stderr)
        try Data(render.stdout.utf8).write(to: URL(fileURLWithPath: html))
        // Python's XML parser reads the page; one lane per distinct connection of the report.
        let lanes = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", """
            import sys, xml.etree.ElementTree as E
            root = E.parse(sys.argv[1]).getroot()
            print(sum(1 for g in root.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "lane"))
            """, html], timeout: 30)
        XCTAssertEqual(lanes.status, 0, lanes.stderr)
        XCTAssertGreaterThan(report.summary.connections.distinct, 1)
        XCTAssertEqual(Int(lanes.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), report.summary.connections.distinct)
        let shot = try ProcessRunner.run(chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                                    "--screenshot=\(png)", "--window-size=1280,900",
                                                    "file://\(html)"], timeout: 90)
        XCTAssertEqual(shot.status, 0, shot.stderr)
        // Width, height, distinct colours, then pixels of the TCP connect and content download colours.
        let check = try ProcessRunner.run("/usr/bin/env", [
            "python3", TestServers.repositoryRoot.appendingPathComponent("scripts/png-check.py").path, png,
            "22c55e", "ec4899"], timeout: 60)
        XCTAssertEqual(check.status, 0, check.stderr)
        let fields = check.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "=" })
        XCTAssertEqual(fields.count, 7, check.stdout)
        guard fields.count == 7 else { return }
        XCTAssertEqual(fields[0], "1280")
        XCTAssertEqual(fields[1], "900")
        XCTAssertGreaterThan(Int(fields[2]) ?? 0, 20, "a page of a few colours is blank")
        XCTAssertGreaterThan(Int(fields[4]) ?? 0, 100, "connect bars drawn")
        XCTAssertGreaterThan(Int(fields[6]) ?? 0, 100, "download bars drawn")
    }

    /// The machine's busy and total CPU ticks (/proc/stat's first line: all but idle and iowait), read by the test.
    private func machineTicks() throws -> (busy: Int64, total: Int64) {
        let stat = try String(contentsOfFile: "/proc/stat", encoding: .utf8)
        // "cpu  user nice system idle iowait irq softirq steal guest guest_nice"
        let ticks = try XCTUnwrap(stat.split(separator: "\n").first).split(separator: " ").compactMap { Int64($0) }
        let all = ticks[0..<8].reduce(0, +)
        return (all - (ticks[3] + ticks[4]), all)
    }

    /// Issue 27's unshaped loopback comparison on a small machine: with a busy loop on every CPU besides both ends,
    /// the machine's CPUs are saturated (the test's own /proc/stat over the command says so) while no transfer's
    /// thread is CPU-bound; each run's `machineBusyShare` agrees with the test's reading, the server is on this
    /// machine, and the recommendation says the result is bounded by this machine.
    func testASaturatedMachineWithBothEndsOnItBoundsTheComparison() throws {
        let peer = try SegmentPeer.start()
        defer { peer.stop() }
        let loops = try (0..<ProcessInfo.processInfo.activeProcessorCount).map { _ in
            try ServerProcess("/bin/sh", ["-c", "while :; do :; done"])
        }
        defer { for loop in loops { loop.kill(); _ = loop.waitForExit(seconds: 5) } }
        let before = try machineTicks()
        // 32 MiB a run: a few hundred ms, enough ticks of /proc/stat (100 a second a CPU) to read a share from.
        let doc = try compare([peer.uploadURL("busy"), "--limits", "1,2", "--workload", "upload:2MiBx16",
                               "--repeat", "1"])
        let after = try machineTicks()
        let busy = Double(after.busy - before.busy) / Double(max(after.total - before.total, 1))
        XCTAssertGreaterThanOrEqual(busy, 0.9, "the busy loops saturated the machine (/proc/stat)")
        for run in doc.runs {
            let share = try XCTUnwrap(run.machineBusyShare, "run \(run.limit)")
            XCTAssertEqual(share, busy, accuracy: 0.1, "run \(run.limit) against the test's /proc/stat")
        }
        XCTAssertEqual(doc.results.map(\.peerOnThisMachine), [true, true])
        let reason = try XCTUnwrap(doc.recommendations.first?.reason)
        XCTAssertTrue(reason.contains("this machine was the limit at 1 and 2 ("), reason)
        XCTAssertTrue(reason.contains("busy, the server on it too"), reason)

        // The same busy machine, a target that waits 200 ms before each answer: the client mostly waited, so the
        // server, not the machine, bounded it (a CI run, its release build beside the tests, said host-bound).
        let thinker = try SegmentPeer.start(partDelayMs: 200)
        defer { thinker.stop() }
        let waiting = try compare([thinker.uploadURL("think"), "--limits", "1", "--workload", "upload:64KiBx3",
                                   "--repeat", "1", "--tcp-sample", "off"])
        let rec = try XCTUnwrap(waiting.recommendations.first)
        XCTAssertEqual(rec.regime, "server-bound", rec.reason)
        XCTAssertFalse(rec.reason.contains("this machine"), rec.reason)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(waiting.results.first?.machineBusyShare), 0.9, "the loops still ran")
    }

    func testSegmentedWorkloadUploadsAGeneratedFileAtEachLimit() throws {
        let peer = try SegmentPeer.start()
        defer { peer.stop() }
        let doc = try compare([peer.uploadURL("seg"), "--limits", "1,3", "--workload", "segmented:640KiB", "--repeat", "1"])
        XCTAssertEqual(doc.workload, "segmented:640KiB")
        for run in doc.runs {
            let upload = try XCTUnwrap(run.report.upload)
            XCTAssertTrue(upload.verified, "the target's SHA-256 equals the generated file's")
            XCTAssertEqual(upload.fileBytes, 640 << 10)
            XCTAssertEqual(upload.parallel, run.limit == "1" ? 1 : 3)
            // 640 KiB over a largest limit of 3: 128 KiB segments, two rounds or more at every limit.
            XCTAssertEqual(upload.segmentsTotal, 5)
        }
        // The text of the same document, through render.
        let path = CLIHarness.temporaryPath("seg.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try JSONEncoder().encode(doc).write(to: URL(fileURLWithPath: path))
        let text = try CLIHarness.run(["render", path, "--no-color"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("Recommendation"), text.stdout)
    }

    /// Segmented uploads to a target reading 720 KB/s per connection through a 16 KiB receive buffer: every
    /// configuration's leading verdict is the server's window (the condition made on purpose), and the
    /// recommendation, the table and each run's upload section say so.
    func testSegmentedUploadsToASmallServerWindowNameTheVerdict() throws {
        let peer = try SegmentPeer.start(rate: 720_000, receiveBuffer: 16 * 1024)
        defer { peer.stop() }
        let doc = try compare([peer.uploadURL("why"), "--limits", "1,4", "--workload", "segmented:1MiB", "--repeat", "1"],
                              timeout: 120)
        XCTAssertEqual(doc.results.map { $0.leadingVerdict?.verdict }, [.serverWindow, .serverWindow])
        XCTAssertGreaterThan(doc.results[0].leadingVerdict?.share ?? 0, 0.5)
        let rec = try XCTUnwrap(doc.recommendations.first)
        XCTAssertTrue(rec.reason.contains("each connection was held back by the server's receive window (server-window, "),
                      rec.reason)
        XCTAssertNotEqual(rec.regime, "network-bound")
        for run in doc.runs {
            XCTAssertEqual(run.report.upload?.verdict?.verdict, .serverWindow)
            XCTAssertTrue(run.report.upload?.why?.hasSuffix("more segments in flight help") ?? false,
                          run.report.upload?.why ?? "no why")
        }
        let path = CLIHarness.temporaryPath("why.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try JSONEncoder().encode(doc).write(to: URL(fileURLWithPath: path))
        try CLIHarness.assertValid(path, schema: "compare.schema.json")
        let text = try CLIHarness.run(["render", path, "--no-color"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("server-window"), text.stdout)
    }

    /// A loopback port nothing listens on: the kernel hands out a free port to a bound socket (python's), which
    /// is then closed, so connections to it are refused.
    private func closedPort() throws -> Int {
        let out = try ProcessRunner.run("/usr/bin/python3", ["-c", "import socket; s = socket.socket(); "
                                        + "s.bind(('127.0.0.1', 0)); print(s.getsockname()[1]); s.close()"], timeout: 20)
        return try XCTUnwrap(Int(out.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), out.stderr)
    }

    /// Issue 15 item 6: against a port that refuses connections every task fails. No configuration has
    /// throughput, each carries its failure (JSON) and a mark (text, HTML), and the recommendation names no
    /// limit but says what failed.
    /// Issue 15 item 7's counter-case: without kernel facts, a target that waits 200 ms before each answer is the
    /// server, not the path: the time is in wait, and the regime says server-bound.
    func testATargetThatWaitsWithoutKernelFactsIsServerBound() throws {
        let peer = try SegmentPeer.start(partDelayMs: 200)
        defer { peer.stop() }
        let doc = try compare([peer.uploadURL("think"), "--limits", "1", "--workload", "upload:64KiBx3", "--repeat", "1",
                               "--tcp-sample", "off"])
        let result = try XCTUnwrap(doc.results.first)
        // The target's 200 ms (the send/wait boundary is an estimate: wait may read a little short of it).
        let wait = try XCTUnwrap(result.phaseMediansMs["wait"])
        XCTAssertGreaterThanOrEqual(wait, 180, "the target's --latency")
        XCTAssertGreaterThan(wait, result.phaseMediansMs["send"] ?? 0)
        let rec = try XCTUnwrap(doc.recommendations.first)
        XCTAssertEqual(rec.regime, "server-bound", rec.reason)
        XCTAssertTrue(rec.reason.hasPrefix("server- or CPU-bound: "), rec.reason)
    }

    func testRefusedConnectionsAreNoThroughputAndNoRecommendation() throws {
        let port = try closedPort()
        let url = "http://127.0.0.1:\(port)/x"
        let path = CLIHarness.temporaryPath("refused.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let outcome = try CLIHarness.run(["compare", url, "--limits", "1,2", "--repeat", "1", "--workload", "requests:4",
                                          "--format", "json", "--report", path, "-q"])
        XCTAssertEqual(outcome.status, ExitStatus.connect.rawValue, outcome.stderr)
        try CLIHarness.assertValid(path, schema: "compare.schema.json")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
            as? [String: Any])
        let results = try XCTUnwrap(object["results"] as? [[String: Any]])
        XCTAssertEqual(results.count, 2)
        for result in results {
            XCTAssertEqual(result["throughput"] as? Double, 0, "\(result)")
            let failure = try XCTUnwrap(result["failure"] as? [String: Any], "\(result)")
            XCTAssertEqual(failure["failedTasks"] as? Int, 4)
            XCTAssertEqual(failure["tasks"] as? Int, 4)
            XCTAssertEqual((failure["error"] as? [String: Any])?["class"] as? String, "connect")
        }
        let recs = try XCTUnwrap(object["recommendations"] as? [[String: Any]])
        XCTAssertEqual(recs.count, 1)
        XCTAssertNil(recs.first?["limit"], "a failed configuration was recommended: \(recs)")
        let reason = try XCTUnwrap(recs.first?["reason"] as? String)
        XCTAssertTrue(reason.contains("every configuration failed") && reason.contains("4/4 tasks failed: connect: "),
                      reason)

        let text = try CLIHarness.run(["render", path, "--no-color"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("✗ 4/4 failed"), text.stdout)
        XCTAssertTrue(text.stdout.contains("✗ h1 @ 1: 4/4 tasks failed: connect: "), text.stdout)
        XCTAssertTrue(text.stdout.contains("h1: no limit recommended: every configuration failed"), text.stdout)
        let html = try CLIHarness.run(["render", path, "--format", "html"])
        XCTAssertEqual(html.status, 0, html.stderr)
        XCTAssertTrue(html.stdout.contains("✗ h1 @ 2: 4/4 tasks failed: connect: "), html.stdout)
        XCTAssertTrue(html.stdout.contains("h1: no limit</b>"), html.stdout)
    }

    func testBadInputIsAOneLineUsageError() throws {
        try CLIHarness.assertFails(["compare", "http://127.0.0.1:9/", "--workload", "upload:256KiB"], code: .usage,
                                   mention: "upload:256KiB")
        try CLIHarness.assertFails(["compare", "http://127.0.0.1:9/", "--limits", "1,android"], code: .usage,
                                   mention: "android")
        try CLIHarness.assertFails(["compare", "http://127.0.0.1:9/", "--modes", "h3"], code: .usage, mention: "h3")
        try CLIHarness.assertFails(["compare", "http://127.0.0.1:9/", "--format", "har"], code: .usage, mention: "har")
        try CLIHarness.assertFails(["compare", "http://127.0.0.1:9/", "--http2"], code: .usage, mention: "--modes")
        try CLIHarness.assertFails(["compare", "http://127.0.0.1:9/", "--max-host-connections", "2"], code: .usage,
                                   mention: "--limits")
        // Nothing listens on port 9: every run fails to connect, the report is still written, one line names it.
        try CLIHarness.assertFails(["compare", "http://127.0.0.1:9/", "--limits", "1,2", "--repeat", "1",
                                    "--workload", "requests:2", "-q"], code: .connect, mention: "h1 @ 1")
    }
}
