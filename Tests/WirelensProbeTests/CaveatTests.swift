import XCTest
import WirelensCore
import WirelensCurl
@testable import WirelensProbe

final class CaveatTests: XCTestCase {
    /// A libcurl of this version with HTTP/2, as the caveats see it.
    private static func libcurl(_ version: String) -> LibcurlDescription {
        LibcurlDescription(version: version, sslBackend: "OpenSSL/3.0.13", http2: true, http3: false, asyncDNS: true,
                           ipv6: true, nghttp2: "1.59.0")
    }

    private func ids(_ version: String, hasUploads: Bool, configure: (inout ProbeOptions) -> Void = { _ in }) -> [String] {
        var options = ProbeOptions()
        configure(&options)
        return Self.libcurl(version).caveats(options: options, hasUploads: hasUploads).map(\.id)
    }

    private let versionCaveats = ["queue-time", "starttransfer-upload", "request-end", "connection-id"]

    func testLibcurl7881WithUploads() {
        let list = ids("7.88.1", hasUploads: true)
        for id in versionCaveats {
            XCTAssertTrue(list.contains(id), id)
        }
    }

    func testLibcurl7881WithoutUploadsHasNoStartTransferCaveat() {
        let list = ids("7.88.1", hasUploads: false)
        XCTAssertFalse(list.contains("starttransfer-upload"))
        XCTAssertTrue(list.contains("queue-time"))
        XCTAssertTrue(list.contains("request-end"))
        XCTAssertTrue(list.contains("connection-id"))
    }

    func testUploadsOnAnyLibcurlCarryTheSendBufferCaveat() {
        XCTAssertTrue(ids("8.11.0", hasUploads: true).contains("send-buffer"))
        XCTAssertTrue(ids("7.88.1", hasUploads: true).contains("send-buffer"))
        XCTAssertFalse(ids("7.88.1", hasUploads: false).contains("send-buffer"))
    }

    func testRecentLibcurlHasNoneOfTheVersionCaveats() {
        let list = ids("8.11.0", hasUploads: true)
        for id in versionCaveats {
            XCTAssertFalse(list.contains(id), id)
        }
    }

    func testVersionThresholds() {
        // CONN_ID arrived in 8.2, the STARTTRANSFER fix in 8.3, QUEUE_TIME in 8.6, POSTTRANSFER in 8.10.
        XCTAssertTrue(ids("8.1.2", hasUploads: true).contains("connection-id"))
        XCTAssertFalse(ids("8.2.0", hasUploads: true).contains("connection-id"))
        XCTAssertTrue(ids("8.2.1", hasUploads: true).contains("starttransfer-upload"))
        XCTAssertFalse(ids("8.3.0", hasUploads: true).contains("starttransfer-upload"))
        XCTAssertTrue(ids("8.5.0", hasUploads: false).contains("queue-time"))
        XCTAssertFalse(ids("8.6.0", hasUploads: false).contains("queue-time"))
        XCTAssertTrue(ids("8.9.1", hasUploads: false).contains("request-end"))
        XCTAssertFalse(ids("8.10.0", hasUploads: false).contains("request-end"))
    }

    func testUsedProxyOnlyWithAProxyOnOldLibcurl() {
        XCTAssertFalse(ids("7.88.1", hasUploads: false).contains("used-proxy"))
        XCTAssertTrue(ids("7.88.1", hasUploads: false) { $0.proxy = "http://proxy.example:3128" }.contains("used-proxy"))
        XCTAssertFalse(ids("8.11.0", hasUploads: false) { $0.proxy = "http://proxy.example:3128" }.contains("used-proxy"))
    }

    func testHTTP2PhasesCaveatFollowsOptions() {
        XCTAssertTrue(ids("8.11.0", hasUploads: false) { $0.httpVersion = .http2 }.contains("h2-phases"))
        XCTAssertFalse(ids("8.11.0", hasUploads: false) { $0.httpVersion = .http1_1 }.contains("h2-phases"))
        XCTAssertFalse(ids("8.11.0", hasUploads: false) { $0.httpVersion = .http2; $0.multiplex = false }
            .contains("h2-phases"))
    }

    func testPriorKnowledgeCaveatSaysHowTheConnectionIsShared() {
        XCTAssertTrue(ids("7.88.1", hasUploads: false) { $0.httpVersion = .http2PriorKnowledge }.contains("h2c-joins"))
        XCTAssertFalse(ids("8.0.0", hasUploads: false) { $0.httpVersion = .http2PriorKnowledge }.contains("h2c-joins"))
        // Without reuse no transfer joins another's connection, and no streams share one.
        let fresh = ids("7.88.1", hasUploads: false) { $0.httpVersion = .http2PriorKnowledge; $0.reuseConnections = false }
        XCTAssertFalse(fresh.contains("h2c-joins"))
        XCTAssertFalse(fresh.contains("h2-phases"))
        XCTAssertFalse(ids("7.88.1", hasUploads: false) { $0.httpVersion = .http2PriorKnowledge }.contains("h2c-no-reuse"))
    }

    func testBodylessRunsSayTheirSendIsLibcurlsWork() {
        XCTAssertTrue(ids("7.88.1", hasUploads: false).contains("send-overhead"))
        XCTAssertTrue(ids("8.11.0", hasUploads: false).contains("send-overhead"))
        XCTAssertFalse(ids("7.88.1", hasUploads: true).contains("send-overhead"))
        let noTransfer = Self.libcurl("7.88.1").caveats(options: ProbeOptions(), hasUploads: false, protocolsUsed: [])
        XCTAssertFalse(noTransfer.map(\.id).contains("send-overhead"), "no request went out")
    }

    func testCaveatTextNamesTheLibcurlVersion() throws {
        let caveats = Self.libcurl("7.88.1").caveats(options: ProbeOptions(), hasUploads: true)
        let queue = try XCTUnwrap(caveats.first { $0.id == "queue-time" })
        XCTAssertTrue(queue.text.contains("7.88.1"))
        XCTAssertEqual(Set(caveats.map(\.id)).count, caveats.count, "no caveat twice")
    }

    func testVersionTriple() {
        XCTAssertTrue(Self.libcurl("7.88.1").versionTriple! == (7, 88, 1))
        XCTAssertTrue(Self.libcurl("8.11.0-DEV").versionTriple! == (8, 11, 0))
        XCTAssertTrue(Self.libcurl("8.4").versionTriple! == (8, 4, 0))
        XCTAssertNil(Self.libcurl("unknown").versionTriple)
    }
}
