import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import WirelensCore
import WirelensReport
import XCTest

/// The HTML report parses as XML, draws one lane per distinct connection and a bar per transaction, escapes
/// what came from servers, and fetches nothing.
final class HTMLRendererTests: XCTestCase {
    /// Element counts of an XML document, by name and by `class` attribute.
    private final class Counter: NSObject, XMLParserDelegate {
        var elements: [String: Int] = [:]
        var classes: [String: Int] = [:]
        var sources: [String] = []

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            elements[name, default: 0] += 1
            if let cls = attributes["class"] { classes[cls, default: 0] += 1 }
            sources += ["src", "href", "xlink:href"].compactMap { attributes[$0] }
        }
    }

    /// Parses `html` as XML; fails the test with the parser's error when it is not well-formed.
    private func parse(_ html: String, file: StaticString = #filePath, line: UInt = #line) -> Counter {
        let parser = XMLParser(data: Data(html.utf8))
        let counter = Counter()
        parser.delegate = counter
        let ok = parser.parse()
        XCTAssertTrue(ok, "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "?") at line \(parser.lineNumber)",
                      file: file, line: line)
        return counter
    }

    /// Tasks on three connections: two sequential on #0, one on #1, one on #2 overlapping #1, one with no connection.
    private func tasks() -> [TaskRecord] {
        var tasks = Fixtures.manyTasks().prefix(4).map { $0 }
        for i in 1..<3 {
            tasks[i].transactions[0].connectionId = i
            tasks[i].transactions[0].localPort = 50_000 + i
            tasks[i].transactions[0].reusedConnection = false
        }
        tasks[3].transactions[0].url = "http://localhost:8080/<script>&\"x\""
        tasks.append(Fixtures.dnsFailureTask())
        return tasks
    }

    func testProbeReportIsXMLWithOneLanePerConnection() {
        let report = Fixtures.report(tasks: tasks())
        let html = HTMLRenderer.render(report)
        let counts = parse(html)
        XCTAssertEqual(counts.classes["lane"], report.summary.connections.distinct)
        XCTAssertEqual(report.summary.connections.distinct, 3)
        XCTAssertEqual(counts.classes["lane-none"], 1, "the DNS failure has no connection")
        let transactions = report.tasks.reduce(0) { $0 + $1.transactions.count }
        let bars = (counts.classes["tx"] ?? 0) + (counts.classes["tx failed"] ?? 0)
        XCTAssertEqual(bars, transactions - 1, "every transaction with a phase other than queue has a bar")
        XCTAssertGreaterThanOrEqual(counts.elements["title"] ?? 0, bars)
        XCTAssertEqual(counts.elements["script"], nil)
        XCTAssertTrue(counts.sources.isEmpty, "the page fetches nothing: \(counts.sources)")
        XCTAssertFalse(html.contains("<script>&"), "server text is escaped")
        XCTAssertTrue(html.contains("Content download"), "the legend names the phases")
    }

    /// Kernel facts on two of the connections: the verdict table counts every diagnosed transaction and each such
    /// connection gets its three charts (delivery rate, congestion window, RTT) with a line through its samples.
    func testDiagnosedConnectionsGetTheirVerdictsAndKernelCharts() throws {
        var tasks = tasks()
        let samples = (0..<5).map { i in
            TCPSample(at: Int64(i) * 100_000, rtt: 20_000 + UInt32(i) * 1000, congestionWindow: 10 + UInt32(i),
                      acked: UInt64(i) * 72_000)
        }
        var facts = TCPFacts(span: 400_000, bytesSent: 288_000, bytesAcked: 288_000, bytesReceived: 100,
                             bytesRetransmitted: 0, segmentsRetransmitted: 0, outOfOrderPacketsIn: 0, minRTT: 100,
                             smoothedRTT: 24_000, maxRTT: 24_000, receiveRTT: 0, congestionWindowMin: 10,
                             congestionWindowMax: 14, sendMSS: 1448, pathMTU: 1500, peerWindowMin: 16_000,
                             deliveryRateMax: 720_000, deliveryRateMedian: 720_000, busy: 400_000,
                             receiveWindowLimited: 380_000, sendBufferLimited: 0, samples: samples)
        facts.shared = false
        for i in [0, 1] {
            tasks[i].transactions[0].tcp = facts
            var evidence = Diagnosis.Evidence(direction: "upload")
            evidence.receiveWindowLimitedShare = 0.95
            tasks[i].transactions[0].diagnosis = Diagnosis(verdict: .serverWindow, evidence: evidence)
        }
        var unknown = Diagnosis.Evidence(direction: "none")
        unknown.reason = "a <held> reason"
        tasks[2].transactions[0].diagnosis = Diagnosis(verdict: .unknown, evidence: unknown)
        let html = HTMLRenderer.render(Fixtures.report(tasks: tasks))
        let counts = parse(html)
        // Tasks 0 and 1 ran on connections #0 and #1: three charts each.
        XCTAssertEqual(counts.classes["chart tcp"], 6)
        XCTAssertTrue(html.contains("<td>server-window</td><td class=\"num\">2</td>"), "two server-window transactions")
        XCTAssertTrue(html.contains("<td>unknown</td><td class=\"num\">1</td>"))
        XCTAssertTrue(html.contains("&lt;held&gt;"), "explanations are escaped")
        XCTAssertGreaterThanOrEqual(counts.elements["polyline"] ?? 0, 6, "a line in every chart")
        // The same report read back from its `standard` document: no samples, so each connection keeps its verdicts
        // and says why nothing is drawn.
        let lean = try JSONRenderer.decode(Data(try JSONRenderer.render(Fixtures.report(tasks: tasks, detail: .standard)).utf8))
        let leanHTML = HTMLRenderer.render(lean)
        XCTAssertNil(parse(leanHTML).classes["chart tcp"])
        XCTAssertEqual(leanHTML.components(separatedBy: "server-window (1)</h3><p class=\"note\">No kernel samples").count, 3,
                       "both connections' verdicts, each with the note")
    }

    func testEmptyReportStillRenders() {
        let counts = parse(HTMLRenderer.render(Fixtures.report(tasks: [])))
        XCTAssertNil(counts.classes["lane"])
    }

    func testCompareReportHasChartsTablesAndWaterfalls() {
        let doc = Fixtures.compareDocument()
        let html = HTMLRenderer.render(doc)
        let counts = parse(html)
        XCTAssertEqual(counts.classes["chart"], 2, "throughput and p90 latency")
        XCTAssertEqual(counts.elements["polyline"], 4, "one line per mode in each chart")
        XCTAssertEqual(counts.classes["waterfall"], doc.results.count)
        XCTAssertEqual(counts.elements["table"], 2)
        XCTAssertEqual(counts.elements["tr"], 2 * (doc.results.count + 1))
        XCTAssertTrue(html.contains("Throughput (KB/s)"), "the axis names its unit")
        XCTAssertTrue(html.contains("Connection limit"))
        XCTAssertTrue(counts.sources.isEmpty)
    }

    func testCompareTextNamesTheRecommendation() {
        let doc = Fixtures.compareDocument()
        XCTAssertEqual(doc.recommendations.map(\.limit?.label), ["ios", "ios"])
        let text = CompareTextRenderer(color: false).render(doc)
        XCTAssertTrue(text.contains("h1: limit ios (4)"), text)
        XCTAssertTrue(text.contains("4.00x"), text)
        XCTAssertTrue(text.contains("per-connection bandwidth bound"), text)
        XCTAssertFalse(text.contains("\u{1B}"))
        XCTAssertTrue(CompareTextRenderer(color: true).render(doc).contains("\u{1B}["))
    }

    /// Issue 15 item 6: h1 at ios had two failed tasks of ten per run (fixture): its row is marked in text and
    /// HTML with its first failure, and h1's recommendation is the clean limit 1, naming what it left out.
    func testCompareMarksAConfigurationWithFailedTasks() throws {
        let doc = Fixtures.compareDocument(failing: true)
        XCTAssertEqual(doc.recommendations.map(\.limit?.label), ["1", "ios"])
        let line = "✗ h1 @ ios (4): 4/20 tasks failed: http: HTTP 503"
        let text = CompareTextRenderer(color: false).render(doc)
        XCTAssertTrue(text.contains(line), text)
        XCTAssertTrue(text.contains("✗ 4/20 failed"), text)
        XCTAssertTrue(text.contains("left out for failed tasks: 4 (4/20 tasks failed: http: HTTP 503)"), text)
        let html = HTMLRenderer.render(doc)
        XCTAssertTrue(html.contains("<p class=\"warn\">\(line)</p>"), html)
        XCTAssertTrue(html.contains("✗ 4/20 failed"), html)
        // A clean document has no mark.
        XCTAssertFalse(CompareTextRenderer(color: false).render(Fixtures.compareDocument()).contains("✗"))
    }
}
