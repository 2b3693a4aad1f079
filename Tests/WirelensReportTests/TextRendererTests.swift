import Foundation
import WirelensCore
@testable import WirelensReport
import XCTest

final class TextRendererTests: XCTestCase {
    private let labels = ["Queue wait", "DNS lookup", "TCP connect", "TLS handshake", "Request sent (upload)",
                          "Server wait", "Content download"]

    /// The lines of `text` that start with `needle` after two spaces of indent, or contain it when `anywhere`.
    private func lines(_ text: String, containing needle: String, anywhere: Bool = false) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter {
            anywhere ? $0.contains(needle) : $0.hasPrefix("  " + needle)
        }
    }

    // MARK: one task

    func testSingleTaskShowsOneWaterfallPerTransactionWithEveryPhaseLabel() {
        let text = TextRenderer(color: false).render(Fixtures.report(tasks: [Fixtures.redirectTask()]))
        for label in labels {
            XCTAssertEqual(lines(text, containing: label).count, 3, "\(label) in each of the 3 transactions:\n\(text)")
        }
        XCTAssertEqual(lines(text, containing: "Total ").count, 3)
        XCTAssertTrue(text.contains("1/3 initial  POST https://localhost:8443/upload?token=[REDACTED]"), text)
        XCTAssertTrue(text.contains("2/3 redirect  POST https://localhost:8443/store"), text)
        XCTAssertTrue(text.contains("3/3 retry  POST https://localhost:8443/store"), text)
        XCTAssertFalse(text.contains("token=abc"))
        // Only the first transaction resolved a name (by DoH); the others ran on the kept connection.
        XCTAssertEqual(lines(text, containing: "Resolved").map { $0.trimmingCharacters(in: .whitespaces) },
                       ["Resolved      DNS over https (DoH answers after 1.1ms)"], text)
    }

    func testHeaderShowsStatusProtocolTLSAndConnection() {
        let text = TextRenderer(color: false).render(Fixtures.report(tasks: [Fixtures.redirectTask()]))
        XCTAssertTrue(text.contains("  307  http/1.1  TLSv1.3  new connection #0 127.0.0.1:54321 → 127.0.0.1:8443"), text)
        XCTAssertTrue(text.contains("  no response  TLSv1.3  reused connection #0 127.0.0.1:54321 → 127.0.0.1:8443"), text)
        XCTAssertTrue(text.contains("  200  http/1.1  TLSv1.3  new connection #1 127.0.0.1:54322 → 127.0.0.1:8443"), text)
        XCTAssertTrue(text.contains("Result        200 in "), text)
        XCTAssertTrue(text.contains("3 transactions (1 redirect, 1 retry)"), text)
    }

    func testPhasesThatDidNotHappenShowADashAndNoBar() throws {
        let text = TextRenderer(color: false).render(Fixtures.report(tasks: [Fixtures.redirectTask()]))
        // The second block is the reused connection: no DNS, TCP or TLS.
        for label in ["DNS lookup", "TCP connect", "TLS handshake"] {
            let row = lines(text, containing: label)[1]
            XCTAssertTrue(row.contains("—"), row)
            XCTAssertFalse(row.contains("█") || row.contains("▏"), row)
            XCTAssertFalse(row.contains("0µs"), row)
        }
        // Its server wait never ended: a dash, and a note instead of a bar.
        let wait = lines(text, containing: "Server wait")[1]
        XCTAssertTrue(wait.contains("—") && wait.contains("did not finish"), wait)
        XCTAssertFalse(wait.contains("█"), wait)
        // In the first block every phase happened, with its duration and a bar.
        let dns = lines(text, containing: "DNS lookup")[0]
        XCTAssertTrue(dns.contains("1.2ms"), dns)
        XCTAssertTrue(dns.contains("█") || dns.contains("▏"), dns)
        let send = lines(text, containing: "Request sent (upload)")[0]
        XCTAssertTrue(send.contains("2.00s"), send)
        XCTAssertTrue(send.contains("███████████"), send)
    }

    func testShowsBytesSpeedsExpectContinueErrorsAndCaveats() {
        let text = TextRenderer(color: false).render(Fixtures.report(tasks: [Fixtures.redirectTask()]))
        XCTAssertTrue(text.contains("Sent          2.86 MiB body + 180 B headers at 1.50 MB/s"), text)
        XCTAssertTrue(text.contains("Received      1.50 KiB body + 120 B headers at 1.02 MB/s"), text)
        XCTAssertTrue(text.contains("100-continue  waited 1.00s"), text)
        XCTAssertTrue(text.contains("Error         timeout.idle (curl 28): Operation too slow."), text)
        let report = Fixtures.report(tasks: [Fixtures.redirectTask()])
        let full = TextRenderer(color: false, allCaveats: true).render(report)
        XCTAssertTrue(full.contains("Caveats\n  • libcurl 7.88.1 has no CURLINFO_QUEUE_TIME_T"), full)
        XCTAssertTrue(full.contains("  • On a multiplexed HTTP/2 connection"), full)
        XCTAssertTrue(full.contains("CURLINFO_CONN_ID"), full)
    }

    /// Without `--caveats` a text report keeps only the caveats that change how a number on the screen reads, one
    /// line each: the send phase's end for an upload, the HTTP/2 overlap; not the libcurl timers Wirelens replaced.
    func testBriefCaveatsAreOneLineEachAndOnlyThoseThatApply() {
        let report = Fixtures.report(tasks: [Fixtures.redirectTask()])
        let text = TextRenderer(color: false).render(report)
        let section = text.components(separatedBy: "Caveats (all of them: --caveats)\n").last ?? ""
        XCTAssertTrue(text.contains("Caveats (all of them: --caveats)"), text)
        let bullets = section.split(separator: "\n").filter { $0.hasPrefix("  • ") }
        XCTAssertEqual(bullets.count, section.split(separator: "\n").count, "one line each: \(section)")
        XCTAssertTrue(section.contains("Request sent ends when the last body byte reached the server"), section)
        XCTAssertTrue(section.contains("HTTP/2 streams shared a connection"), section)
        for gone in ["CURLINFO_CONN_ID", "POSTTRANSFER", "STARTTRANSFER"] {
            XCTAssertFalse(text.contains(gone), gone)
        }
        for line in bullets { XCTAssertLessThanOrEqual(line.count, 80, String(line)) }
    }

    func testFailedLookupShowsUnfinishedDNSAndTheTaskError() {
        let text = TextRenderer(color: false).render(Fixtures.report(tasks: [Fixtures.dnsFailureTask()]))
        XCTAssertTrue(text.contains("Result        failed (no response) in 3.0ms"), text)
        XCTAssertTrue(text.contains("Error         dns (curl 6): Could not resolve host: nowhere.invalid"), text)
        XCTAssertTrue(lines(text, containing: "DNS lookup")[0].contains("did not finish"), text)
        XCTAssertTrue(text.contains("no response  no connection"), text)
    }

    func testColourOnlyWhenAsked() {
        for report in [Fixtures.report(tasks: [Fixtures.redirectTask()]), Fixtures.report(tasks: Fixtures.manyTasks())] {
            let plain = TextRenderer(color: false).render(report)
            XCTAssertFalse(plain.contains("\u{1B}"))
            XCTAssertFalse(plain.utf8.contains(0x1B))
            let coloured = TextRenderer(color: true).render(report)
            XCTAssertTrue(coloured.contains("\u{1B}["))
            XCTAssertTrue(coloured.contains("\u{1B}[31m"), "errors in red")
            // Without the escapes, the coloured text is the plain text.
            XCTAssertEqual(Self.strippingSGR(coloured), plain)
        }
    }

    func testEscapeBytesFromTheServerOrLibcurlNeverReachTheTerminal() {
        var task = Fixtures.dnsFailureTask()
        task.error?.message = "bad \u{1B}[2J host\u{07}"
        task.url = "https://x.test/\u{1B}]0;title\u{07}"
        let text = TextRenderer(color: false).render(Fixtures.report(tasks: [task]))
        XCTAssertFalse(text.utf8.contains(0x1B), text)
        XCTAssertFalse(text.utf8.contains(0x07), text)
        XCTAssertTrue(text.contains("bad ?[2J host?"), text)
    }

    func testFitsEightyColumns() {
        for report in [Fixtures.report(tasks: [Fixtures.redirectTask()]), Fixtures.report(tasks: [Fixtures.dnsFailureTask()]),
                       Fixtures.report(tasks: Fixtures.manyTasks(), interrupted: true)] {
            let text = TextRenderer(color: false).render(report)
            for line in text.split(separator: "\n") {
                XCTAssertLessThanOrEqual(line.count, 80, String(line))
            }
        }
    }

    // MARK: many tasks

    func testManyTasksShowsPercentilesFromTheSummary() throws {
        let report = Fixtures.report(tasks: Fixtures.manyTasks())
        let wait = try XCTUnwrap(report.summary.phases["wait"])
        // Waits of 1…10 ms: numpy's linear percentiles.
        XCTAssertEqual(wait.count, 10)
        XCTAssertEqual(wait.p50, 5.5, accuracy: 1e-9)
        XCTAssertEqual(wait.p90, 9.1, accuracy: 1e-9)
        XCTAssertEqual(wait.p99, 9.91, accuracy: 1e-9)
        XCTAssertEqual(wait.max, 10, accuracy: 1e-9)

        let text = TextRenderer(color: false).render(report)
        let header = try XCTUnwrap(lines(text, containing: "Phase (ms)").first)
        XCTAssertEqual(header.split(separator: " ").suffix(5), ["count", "p50", "p90", "p99", "max"])
        let row = try XCTUnwrap(lines(text, containing: "Server wait").first)
        XCTAssertEqual(row.split(separator: " ").suffix(5), ["10", "5.500", "9.100", "9.910", "10.00"], row)
        // Columns line up under their headers.
        XCTAssertEqual(row.count, header.count)
        let dns = try XCTUnwrap(lines(text, containing: "DNS lookup").first)
        XCTAssertEqual(dns.split(separator: " ").suffix(5), ["1", "0.900", "0.900", "0.900", "0.900"], dns)
        for label in labels + ["Total"] {
            XCTAssertEqual(lines(text, containing: label).count, 1, label)
        }
    }

    func testManyTasksShowsDashForPhasesWithoutValues() throws {
        let text = TextRenderer(color: false).render(Fixtures.report(tasks: Fixtures.manyTasks()))
        let tls = try XCTUnwrap(lines(text, containing: "TLS handshake").first)
        XCTAssertEqual(tls.split(separator: " ").suffix(5), ["0", "—", "—", "—", "—"], tls)
    }

    func testManyTasksShowsOutcomeConnectionsStatusesErrorsAndProtocols() {
        let text = TextRenderer(color: false).render(Fixtures.report(tasks: Fixtures.manyTasks()))
        XCTAssertTrue(text.contains("Tasks         8 ok, 2 failed of 10 (10 transactions)"), text)
        XCTAssertTrue(text.contains("tasks/s)"), text)
        XCTAssertTrue(text.contains("Download      37.0 KiB at "), text)
        XCTAssertTrue(text.contains("Connections   1 opened, 9 reused, 1 distinct, at most 1 open at once"), text)
        XCTAssertTrue(text.contains("Status codes  200 (9), 503 (1)"), text)
        XCTAssertTrue(text.contains("Errors        http (1), timeout.idle (1)"), text)
        XCTAssertTrue(text.contains("Protocols     http/1.1 (10)"), text)
        XCTAssertFalse(text.contains("Interrupted"))
    }

    func testInterruptedRunSaysSoOnTop() {
        let text = TextRenderer(color: false).render(Fixtures.report(tasks: Fixtures.manyTasks(), interrupted: true))
        XCTAssertTrue(text.hasPrefix("Interrupted: the run was stopped by a signal"), text)
        XCTAssertTrue(text.contains("covers the 10 tasks that ended"), text)
        let single = TextRenderer(color: false).render(Fixtures.report(tasks: [Fixtures.redirectTask()], interrupted: true))
        XCTAssertTrue(single.hasPrefix("Interrupted:"), single)
        let empty = TextRenderer(color: false).render(Fixtures.report(tasks: [], interrupted: true))
        XCTAssertTrue(empty.hasPrefix("Interrupted:"), empty)
        XCTAssertTrue(empty.contains("0 ok, 0 failed of 0"), empty)
    }

    /// The text without ANSI SGR sequences.
    static func strippingSGR(_ text: String) -> String {
        var out = ""
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            if scalar == "\u{1B}" {
                while let next = scalars.next(), next != "m" {}
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    // MARK: upload

    func testUploadSectionShowsOutcomeSegmentsRetriesAndSizes() {
        let text = TextRenderer(color: false).render(Fixtures.uploadReport(tasks: Fixtures.manyTasks()))
        XCTAssertEqual(lines(text, containing: "Upload", anywhere: true).filter { $0 == "Upload" }.count, 1, text)
        XCTAssertEqual(lines(text, containing: "Outcome").first, "  Outcome       complete, SHA-256 verified")
        XCTAssertEqual(lines(text, containing: "Segments").first, "  Segments      3 sent of 3, 2 in flight at most")
        XCTAssertEqual(lines(text, containing: "Sizes (auto)").first, "  Sizes (auto)  1.00 MiB from #0")
        XCTAssertTrue(lines(text, containing: "Retries").first?.contains("1 segments retried, 1 failed attempts, 1.00 MiB sent twice") ?? false, text)
        XCTAssertTrue(lines(text, containing: "Throughput").first?.contains("3.50 MB/s effective") ?? false, text)
        var failed = Fixtures.uploadReport(tasks: [])
        failed.upload?.failure = "segment 1 failed 4 times"
        failed.upload?.verified = false
        let failedText = TextRenderer(color: false).render(failed)
        XCTAssertEqual(lines(failedText, containing: "Outcome").first, "  Outcome       failed: segment 1 failed 4 times")
        XCTAssertFalse(TextRenderer(color: false).render(Fixtures.report(tasks: [])).contains("Outcome"))
        var auto = Fixtures.uploadReport(tasks: [])
        auto.upload?.segmentSizes = (0..<9).map { .init(fromSegment: $0 + 1, bytes: Int64($0 + 1) << 20, atMs: Double($0)) }
        let autoText = TextRenderer(color: false).render(auto)
        XCTAssertTrue(autoText.contains("1.00 MiB from #1, 2.00 MiB from #2"), autoText)
        XCTAssertTrue(autoText.contains("6.00 MiB from #6,"), autoText)
        XCTAssertTrue(autoText.contains("3 more changes (in the JSON report)"), autoText)
        XCTAssertFalse(autoText.contains("7.00 MiB"), autoText)
    }
}
