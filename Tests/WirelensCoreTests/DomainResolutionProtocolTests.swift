import WirelensCore
import XCTest

/// The rule of a transaction's `domainResolutionProtocol`, without sockets.
final class DomainResolutionProtocolTests: XCTestCase {
    private func of(_ host: String, port: Int = 80, literal: Bool = false, reused: Bool = false,
                    resolve: [String] = [], doh: Bool = false) -> DomainResolutionProtocol? {
        DomainResolutionProtocol.of(host: host, port: port, hostIsIPLiteral: literal, reusedConnection: reused,
                                    resolveEntries: resolve, usesDoH: doh, systemResolver: .udp)
    }

    func testWhichResolverRan() {
        XCTAssertEqual(of("wirelens.test"), .udp)
        XCTAssertEqual(of("wirelens.test", doh: true), .https)
        XCTAssertNil(of("wirelens.test", reused: true, doh: true))
        XCTAssertNil(of("127.0.0.1", literal: true, doh: true))
        XCTAssertNil(of("localhost", doh: true), "libcurl answers localhost itself")
        XCTAssertNil(of("api.LOCALHOST"))
        XCTAssertNil(of("wirelens.test", resolve: ["wirelens.test:80:127.0.0.1"], doh: true))
        XCTAssertNil(of("Wirelens.Test", resolve: ["+wirelens.test:80:127.0.0.1"]))
        XCTAssertNil(of("any.test", resolve: ["*:80:127.0.0.1"]))
        XCTAssertEqual(of("wirelens.test", port: 443, resolve: ["wirelens.test:80:127.0.0.1"], doh: true), .https,
                       "an entry for another port does not apply")
        XCTAssertEqual(of("wirelens.test", resolve: ["-wirelens.test:80"]), .udp)
    }

    func testSystemResolverTransport() {
        XCTAssertEqual(DomainResolutionProtocol.systemResolver(resolvConf: "nameserver 10.0.0.1\n", resOptions: nil), .udp)
        XCTAssertEqual(DomainResolutionProtocol.systemResolver(resolvConf: "nameserver 10.0.0.1\noptions ndots:2 use-vc\n",
                                                              resOptions: nil), .tcp)
        XCTAssertEqual(DomainResolutionProtocol.systemResolver(resolvConf: nil, resOptions: "use-vc"), .tcp)
        XCTAssertEqual(DomainResolutionProtocol.systemResolver(resolvConf: "# options use-vc\n", resOptions: "ndots:1"),
                       .udp)
    }
}
