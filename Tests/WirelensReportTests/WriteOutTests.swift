import Foundation
import WirelensCore
import WirelensReport
import XCTest

/// The `-w` formatter: parsing (curl's escapes, `%%`, unknown variables, streams, bad input) and the values of a
/// hand-built task, each expected figure worked out by hand from the instants below.
final class WriteOutTests: XCTestCase {
    private func render(_ format: String, _ values: WriteOutValues) throws -> String {
        try WriteOut(parsing: format).render(values).map(\.text).joined()
    }

    private var empty: WriteOutValues {
        WriteOutValues(task: TaskRecord(index: 0, url: "http://127.0.0.1/", method: "GET", startedAt: 0, endedAt: 0,
                                        redirectCount: 0, retries: 0, statusCode: nil, error: nil, transactions: []),
                       exitCode: 0)
    }

    func testEscapesAndPercent() throws {
        XCTAssertEqual(try render(#"a\tb\nc\\d\re\q 100%% 5%x%"#, empty), "a\tb\nc\\d\re\\q 100% 5%x%")
        XCTAssertEqual(try render(#"end\"#, empty), #"end\"#)
    }

    func testUnknownVariablesPrintNothingAndAreNamedOnce() throws {
        let format = try WriteOut(parsing: "[%{nope}]%{nope}%{time_totl}")
        XCTAssertEqual(format.unknownVariables, ["nope", "time_totl"])
        XCTAssertEqual(format.render(empty).map(\.text).joined(), "[]")
        let warning = try XCTUnwrap(format.unknownWarning)
        XCTAssertFalse(warning.contains("\n"))
        XCTAssertTrue(warning.contains("'nope'") && warning.contains("'time_totl'"), warning)
        XCTAssertNil(try WriteOut(parsing: "%{http_code}").unknownWarning)
    }

    func testUnclosedVariableIsAnError() {
        XCTAssertThrowsError(try WriteOut(parsing: "code %{http_code\n")) { error in
            let message = (error as? WriteOut.ParseError)?.message ?? ""
            XCTAssertTrue(message.contains("no closing '}'"), message)
            XCTAssertFalse(message.contains("\n"), message)
        }
    }

    func testStreamsSwitch() throws {
        let parts = try WriteOut(parsing: "a%{stderr}b%{stderr}c%{stdout}d").render(empty)
        XCTAssertEqual(parts.map(\.stream), [.stdout, .stderr, .stdout])
        XCTAssertEqual(parts.map(\.text), ["a", "bc", "d"])
    }

    /// A redirect then a final TLS transaction on a new connection: times from the first transaction's start.
    private func redirectedTask() -> TaskRecord {
        let s: Int64 = 1_700_000_000_000_000
        var hop = TransactionMetrics(kind: .initial, url: "https://user:pw@127.0.0.1:8443/start?token=abc&x=1",
                                     method: "GET", timeline: Timeline(fetchStart: s),
                                     phases: Phases(total: 10_000), reusedConnection: false, proxyConnection: false,
                                     curlTimers: CurlTimers())
        hop.timeline.connectEnd = s + 1_000
        hop.timeline.responseEnd = s + 10_000
        hop.statusCode = 302
        hop.responseHeaderBytes = 100
        var last = TransactionMetrics(kind: .redirect, url: "https://127.0.0.1:8443/end?signature=zzz",
                                      method: "GET", timeline: Timeline(fetchStart: s + 12_000),
                                      phases: Phases(queue: 500, send: 1_000, wait: 2_500, total: 60_000),
                                      reusedConnection: false, proxyConnection: false, curlTimers: CurlTimers())
        last.timeline.domainLookupEnd = s + 13_000
        last.timeline.connectEnd = s + 14_000
        last.timeline.secureConnectionEnd = s + 20_000
        last.timeline.requestStart = s + 20_100
        last.timeline.responseStart = s + 30_000
        last.timeline.responseEnd = s + 72_000
        last.statusCode = 200
        last.networkProtocolName = "h2"
        last.remoteAddress = "127.0.0.1"; last.remotePort = 8443
        last.localAddress = "127.0.0.1"; last.localPort = 40_000
        last.responseBodyBytes = 36_000
        last.responseHeaderBytes = 200
        last.diagnosis = Diagnosis(verdict: .roundTrips, evidence: .init(direction: "download"))
        return TaskRecord(index: 0, url: "https://user:pw@127.0.0.1:8443/start?token=abc&x=1", method: "GET",
                          startedAt: s, endedAt: s + 72_000, redirectCount: 1, retries: 0, statusCode: 200,
                          error: nil, transactions: [hop, last])
    }

    func testValuesOfARedirectedTask() throws {
        let values = WriteOutValues(task: redirectedTask(), exitCode: 0)
        let expected: [String: String] = [
            "time_namelookup": "0.013000", "time_connect": "0.014000", "time_appconnect": "0.020000",
            "time_pretransfer": "0.020100", "time_starttransfer": "0.030000", "time_redirect": "0.012000",
            "time_total": "0.072000", "http_code": "200", "http_version": "2", "num_connects": "2",
            "num_redirects": "1", "remote_ip": "127.0.0.1", "remote_port": "8443", "local_port": "40000",
            "size_download": "36000", "size_upload": "0", "size_header": "300",
            "speed_download": "500000", // 36000 B over 0.072 s
            "speed_upload": "0", "exitcode": "0", "errormsg": "", "time_queue": "0.000500", "time_send": "0.001000",
            "time_wait": "0.002500", "reused": "0", "verdict": "round-trips",
        ]
        for (name, value) in expected { XCTAssertEqual(values.text(of: name), value, name) }
        let effective = try XCTUnwrap(values.text(of: "url_effective"))
        XCTAssertTrue(effective.hasPrefix("https://127.0.0.1:8443/end?signature="), effective)
        XCTAssertNil(values.text(of: "no_such"))
    }

    func testSecretsNeverAppear() throws {
        let out = try render("%{url} %{url_effective} %{json}", WriteOutValues(task: redirectedTask(), exitCode: 0))
        for secret in ["abc", "zzz", "user:pw", "pw@"] { XCTAssertFalse(out.contains(secret), "\(secret) in \(out)") }
    }

    func testJSONIsOneObjectOfEveryVariable() throws {
        let text = try render("%{json}", WriteOutValues(task: redirectedTask(), exitCode: 4))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), Set(WriteOut.variables))
        XCTAssertEqual(object["http_code"] as? Int, 200)
        XCTAssertEqual(object["exitcode"] as? Int, 4)
        XCTAssertEqual(object["http_version"] as? String, "2")
        XCTAssertEqual(try XCTUnwrap(object["time_total"] as? Double), 0.072, accuracy: 1e-9)
    }

    func testATaskWithoutAResponse() throws {
        let task = TaskRecord(index: 0, url: "http://nosuch.invalid/", method: "GET", startedAt: 5, endedAt: 9,
                              redirectCount: 0, retries: 0, statusCode: nil,
                              error: TransferError(errorClass: .dns, curlCode: 6, message: "Could not resolve host"),
                              transactions: [])
        let out = try render("%{http_code} %{http_version} %{time_total} %{exitcode} %{errormsg}|%{json}",
                             WriteOutValues(task: task, exitCode: 5))
        XCTAssertTrue(out.hasPrefix("000 0 0.000000 5 Could not resolve host|{"), out)
        let json = String(out.split(separator: "|")[1])
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(json.utf8)))
    }
}
