import XCTest
import WirelensCore
import WirelensCurl
@testable import WirelensProbe

/// The probe's rules as libcurl options: curl's own choices (curl 7.88's `--http2` is CURL_HTTP_VERSION_2TLS, its
/// `--no-keepalive`-style fresh connections set FRESH_CONNECT and FORBID_REUSE) and the h2c workaround of curl PR #10643.
final class CurlPolicyTests: XCTestCase {
    private func transfer(_ configure: (inout ProbeOptions) -> Void, scheme: String = "https",
                          role: PriorKnowledgeRole? = nil, broken: Bool = true) -> TransferSettings {
        var options = ProbeOptions()
        configure(&options)
        var settings = TransferSettings(url: scheme + "://127.0.0.1/", method: "GET", body: .none, bodyKind: nil,
                                        uploadBufferSize: 0, keepsCredentials: true, refusesLinkLocal: false,
                                        headers: [], remainingMicros: nil, sendBuffer: nil, receiveBuffer: nil,
                                        reportsIncomingTraffic: false)
        CurlPolicy.connection(options, scheme: scheme, role: role, brokenH2CReuse: broken, into: &settings)
        return settings
    }

    func testVersionsAreCurlsAndPipewaitOnlyWhereHTTP2IsPossible() {
        XCTAssertEqual(transfer({ $0.httpVersion = .http2 }).httpVersion, .http2TLS)
        XCTAssertEqual(transfer({ $0.httpVersion = .auto }).httpVersion, .libcurlDefault)
        XCTAssertTrue(transfer({ $0.httpVersion = .auto }).pipeWait)
        XCTAssertFalse(transfer({ $0.httpVersion = .auto }, scheme: "http").pipeWait,
                       "PIPEWAIT on HTTP/1.1 would hold transfers back until the first connection is free")
        XCTAssertFalse(transfer({ $0.httpVersion = .http1_1 }).pipeWait)
        XCTAssertFalse(transfer({ $0.multiplex = false }).pipeWait)
    }

    func testPriorKnowledgeRolesOnALibcurlThatCannotReuseH2C() {
        let opens = transfer({ $0.httpVersion = .http2PriorKnowledge }, scheme: "http", role: .opens)
        XCTAssertEqual(opens.httpVersion, .http2PriorKnowledge)
        XCTAssertEqual([opens.freshConnect, opens.forbidReuse, opens.refusesNewConnection], [true, false, false])
        let joins = transfer({ $0.httpVersion = .http2PriorKnowledge }, scheme: "http", role: .joins)
        XCTAssertEqual(joins.httpVersion, .http2, "a joiner asks for plain HTTP/2, as curl's --next --http2 does")
        XCTAssertEqual([joins.freshConnect, joins.forbidReuse, joins.refusesNewConnection], [false, false, true])
        let alone = transfer({ $0.httpVersion = .http2PriorKnowledge }, scheme: "http", role: nil)
        XCTAssertEqual([alone.freshConnect, alone.forbidReuse], [true, true], "without a role, a connection of its own")
        let fixed = transfer({ $0.httpVersion = .http2PriorKnowledge }, scheme: "http", role: nil, broken: false)
        XCTAssertEqual([fixed.freshConnect, fixed.forbidReuse, fixed.refusesNewConnection], [false, false, false])
    }

    func testNoReuseIsAFreshConnectionClosedAfterward() {
        let settings = transfer({ $0.reuseConnections = false })
        XCTAssertEqual([settings.freshConnect, settings.forbidReuse], [true, true])
    }

    func testUploadBufferIsLibcurlsDefaultWhereTheBodyMayGoOverHTTP2() {
        XCTAssertEqual(CurlPolicy.uploadBuffer(.auto, scheme: "https"), 64 * 1024, "curl #10591 before 8.2.0")
        XCTAssertEqual(CurlPolicy.uploadBuffer(.auto, scheme: "http"), 512 * 1024)
        XCTAssertEqual(CurlPolicy.uploadBuffer(.http2PriorKnowledge, scheme: "http"), 64 * 1024)
    }

    func testSettingsCarryTheRunsOptionsInLibcurlsUnits() {
        var options = ProbeOptions()
        options.connectTimeout = 2_500_000
        options.expectContinueTimeout = 400
        options.addressFamily = .ipv6
        options.insecure = true
        let settings = CurlPolicy.settings(options)
        XCTAssertEqual(settings.connectTimeoutMillis, 2500)
        XCTAssertEqual(settings.expectContinueTimeoutMillis, 1, "under a millisecond rounds up, never to 0 (no wait)")
        XCTAssertEqual(settings.ipFamily, 6)
        XCTAssertFalse(settings.verifiesPeer)
        XCTAssertTrue(CurlPolicy.settings(ProbeOptions()).verifiesPeer, "TLS verification is on unless asked off")
        XCTAssertNil(settings.dohURL)
        XCTAssertTrue(settings.dohVerifiesPeer, "-k is the target's: the DoH server is still checked")
        options.dohURL = "https://127.0.0.1:8443/dns-query"
        options.dohInsecure = true
        let doh = CurlPolicy.settings(options)
        XCTAssertEqual(doh.dohURL, "https://127.0.0.1:8443/dns-query")
        XCTAssertFalse(doh.dohVerifiesPeer)
    }
}
