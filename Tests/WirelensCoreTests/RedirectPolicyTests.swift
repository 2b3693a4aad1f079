import XCTest
import WirelensCore

final class RedirectPolicyTests: XCTestCase {
    private struct Expected: Equatable {
        var method: String
        var keepsBody: Bool
    }

    /// The next hop of a request with a body sent as its method's is (`BodyKind.inferred`), as a comparable value
    /// (`Hop` has no public initializer).
    private func hop(_ status: Int, _ method: String, location: Bool = true) -> Expected? {
        let request = RedirectPolicy.Request(method: method, bodyKind: BodyKind.inferred(method: method, hasBody: true))
        return RedirectPolicy.next(status: status, request: request, hasLocation: location)
            .map { Expected(method: $0.method, keepsBody: $0.keepsBody) }
    }

    /// The next hop of `method` with a body of `kind`, the method named by the user when `named` (curl's -X).
    private func hop(_ status: Int, _ method: String, _ kind: BodyKind?, named: Bool,
                     keepsPostAfter: Set<Int> = []) -> RedirectPolicy.Hop? {
        RedirectPolicy.next(status: status, request: RedirectPolicy.Request(method: method, bodyKind: kind, keepsMethod: named),
                            keepsPostAfter: keepsPostAfter, hasLocation: true)
    }

    /// curl 7.88's answers, as scripts/redirect-peer.py recorded them for `curl -L` (the CLI test
    /// RedirectMethodTests holds Wirelens to curl itself): a method named with -X stays, and only the body goes.
    func testNamedMethodStaysAndOnlyTheBodyGoes() {
        for status in [301, 302, 303] {
            XCTAssertEqual(hop(status, "PUT", .post, named: true)?.method, "PUT", "-X PUT -d, \(status)")
            XCTAssertEqual(hop(status, "PUT", .post, named: true)?.keepsBody, false, "-X PUT -d, \(status)")
        }
        XCTAssertEqual(hop(303, "POST", .post, named: true).map { [$0.method: $0.keepsBody] }, ["POST": false])
        XCTAssertEqual(hop(301, "POST", .upload, named: true).map { [$0.method: $0.keepsBody] }, ["POST": true])
        XCTAssertEqual(hop(303, "POST", .upload, named: true).map { [$0.method: $0.keepsBody] }, ["POST": false])
        XCTAssertEqual(hop(303, "DELETE", nil, named: true)?.method, "DELETE")
        XCTAssertEqual(hop(303, "PUT", .upload, named: false).map { [$0.method: $0.keepsBody] }, ["GET": false], "-T")
        XCTAssertEqual(hop(301, "PUT", .upload, named: false).map { [$0.method: $0.keepsBody] }, ["PUT": true], "-T")
    }

    /// --post301, --post302 and --post303 each keep a POST body for their own status only, and never an upload's.
    func testPostFlagsKeepThePostForTheirStatusOnly() {
        for status in [301, 302, 303] {
            let kept = hop(status, "POST", .post, named: false, keepsPostAfter: [status])
            XCTAssertEqual(kept.map { [$0.method: $0.keepsBody] }, ["POST": true], "\(status)")
            for other in [301, 302, 303] where other != status {
                let changed = hop(status, "POST", .post, named: false, keepsPostAfter: [other])
                XCTAssertEqual(changed.map { [$0.method: $0.keepsBody] }, ["GET": false], "\(status) with --post\(other)")
            }
        }
        let upload = hop(303, "PUT", .upload, named: false, keepsPostAfter: [303])
        XCTAssertEqual(upload.map { [$0.method: $0.keepsBody] }, ["GET": false], "--post303 -T: curl's GET")
    }

    func testBodilessHopDropsTheBodysHeadersOnly() {
        let headers = [HeaderField(name: "content-TYPE", value: "a/b"), HeaderField(name: "Range", value: "bytes=0-"),
                       HeaderField(name: "Transfer-Encoding", value: "chunked"), HeaderField(name: "Content-Length", value: "3")]
        XCTAssertEqual(RedirectPolicy.bodilessHeaders(headers).map(\.name), ["Range"])
    }

    func testMovedAndFoundTurnPostIntoGet() {
        for status in [301, 302] {
            XCTAssertEqual(hop(status, "POST"), Expected(method: "GET", keepsBody: false), "\(status)")
        }
    }

    func testMovedAndFoundKeepOtherMethods() {
        for status in [301, 302] {
            XCTAssertEqual(hop(status, "PUT"), Expected(method: "PUT", keepsBody: true), "\(status)")
            XCTAssertEqual(hop(status, "GET")?.method, "GET")
            XCTAssertEqual(hop(status, "DELETE")?.method, "DELETE")
            XCTAssertEqual(hop(status, "HEAD")?.method, "HEAD")
        }
    }

    func testSeeOtherTurnsEverythingButHeadIntoGet() {
        for method in ["POST", "PUT", "PATCH", "DELETE", "GET"] {
            XCTAssertEqual(hop(303, method), Expected(method: "GET", keepsBody: false), method)
        }
        XCTAssertEqual(hop(303, "HEAD"), Expected(method: "HEAD", keepsBody: false))
    }

    func testTemporaryAndPermanentRedirectKeepMethodAndBody() {
        for status in [307, 308] {
            for method in ["POST", "PUT", "GET", "PATCH"] {
                XCTAssertEqual(hop(status, method), Expected(method: method, keepsBody: true),
                               "\(status) \(method)")
            }
        }
    }

    func testNoHopWithoutRedirectStatusOrLocation() {
        XCTAssertNil(hop(200, "GET"))
        XCTAssertNil(hop(304, "GET"), "Not Modified is not a redirect")
        XCTAssertNil(hop(300, "GET"))
        XCTAssertNil(hop(404, "GET"))
        for status in [301, 302, 303, 307, 308] {
            XCTAssertNil(hop(status, "GET", location: false), "\(status) without Location")
        }
    }

    // MARK: Origins and credentials

    private func origin(_ scheme: String, _ host: String, _ port: Int? = nil) -> Origin {
        Origin(scheme: scheme, host: host, port: port)
    }

    func testOriginNormalisesCaseBracketsAndDefaultPorts() {
        XCTAssertEqual(origin("HTTP", "Example.COM"), origin("http", "example.com", 80))
        XCTAssertEqual(origin("https", "example.com"), origin("https", "example.com", 443))
        XCTAssertEqual(origin("http", "[::1]", 8080), origin("http", "::1", 8080))
        XCTAssertEqual(origin("http", "[FE80::1]").host, "fe80::1")
        XCTAssertEqual(origin("ftp", "x").port, 21)
        XCTAssertEqual(origin("gopher", "x").port, 0, "no well-known port: 0")
        XCTAssertEqual(origin("file", "").description, "file://:0")
        XCTAssertEqual(origin("http", "::1", 80).description, "http://[::1]:80")
    }

    /// Every pair of a few origins that differ in one part: credentials go only to the same origin, or anywhere when
    /// trusted, as curl -L and curl -L --location-trusted.
    func testCredentialsOnlyToTheFirstOriginUnlessTrusted() {
        let first = origin("https", "api.example.com", 443)
        let same = [origin("HTTPS", "API.example.com"), origin("https", "api.example.com", 443),
                    origin("https", "Api.Example.Com", nil)]
        let other = [origin("http", "api.example.com", 443), origin("http", "api.example.com"),
                     origin("https", "api.example.com", 8443), origin("https", "evil.example.com"),
                     origin("https", "api.example.com.", 443), origin("https", "127.0.0.1"),
                     origin("https", "::1"), origin("ftp", "api.example.com", 443)]
        for next in same {
            XCTAssertTrue(RedirectPolicy.keepsCredentials(first: first, next: next, trusted: false), "\(next)")
            XCTAssertTrue(RedirectPolicy.keepsCredentials(first: first, next: next, trusted: true), "\(next)")
        }
        for next in other {
            XCTAssertFalse(RedirectPolicy.keepsCredentials(first: first, next: next, trusted: false), "\(next)")
            XCTAssertTrue(RedirectPolicy.keepsCredentials(first: first, next: next, trusted: true), "\(next)")
        }
    }

    func testHeadersOfAHopElsewhereLoseEverySecretTheRedactorKnows() {
        let headers = [
            HeaderField(name: "Authorization", value: "Bearer a"), HeaderField(name: "cookie", value: "s=1"),
            HeaderField(name: "Proxy-Authorization", value: "Basic b"), HeaderField(name: "X-Api-Key", value: "k"),
            HeaderField(name: "X-Amz-Security-Token", value: "t"), HeaderField(name: "X-Session-Id", value: "s"),
            HeaderField(name: "x-hmacsig", value: "h"), HeaderField(name: "Accept", value: "*/*"),
            HeaderField(name: "X-Trace", value: "1"), HeaderField(name: "User-Agent", value: "u"),
            HeaderField(name: "X-Amz-SignedHeaders", value: "host"),
        ]
        XCTAssertEqual(RedirectPolicy.headers(headers, keepsCredentials: true), headers)
        XCTAssertEqual(RedirectPolicy.headers(headers, keepsCredentials: false).map(\.name),
                       ["Accept", "X-Trace", "User-Agent", "X-Amz-SignedHeaders"])
        XCTAssertEqual(RedirectPolicy.headers([], keepsCredentials: false), [])
    }

    // MARK: Refusals

    func testOnlyHTTPAndHTTPSAreFollowed() {
        let first = origin("http", "127.0.0.1", 8080)
        for scheme in ["ftp", "file", "gopher", "dict", "ldap", "smb", "telnet", "javascript", "data"] {
            XCTAssertEqual(RedirectPolicy.refusal(next: origin(scheme, "127.0.0.1"), first: first, allowsLinkLocal: true),
                           .scheme(scheme), scheme)
        }
        XCTAssertNil(RedirectPolicy.refusal(next: origin("HTTPS", "example.com"), first: first, allowsLinkLocal: false))
        XCTAssertNil(RedirectPolicy.refusal(next: origin("http", "10.0.0.1"), first: first, allowsLinkLocal: false),
                     "private addresses are not link-local")
        XCTAssertEqual(RedirectPolicy.Refusal.scheme("ftp").description,
                       "refused to follow a redirect to a ftp: URL: only http and https redirects are followed")
    }

    func testLinkLocalRefusedUnlessAllowedOrTheTasksOwnOrigin() {
        let first = origin("http", "example.com")
        let linkLocal = ["169.254.169.254", "169.254.0.1", "169.254.255.255", "fe80::1", "[fe80::a:b]", "FEBF::1",
                         "::ffff:169.254.169.254", "[::FFFF:A9FE:A9FE]"]
        for host in linkLocal {
            let next = origin("http", host)
            XCTAssertEqual(RedirectPolicy.refusal(next: next, first: first, allowsLinkLocal: false), .linkLocal(next.host),
                           host)
            XCTAssertNil(RedirectPolicy.refusal(next: next, first: first, allowsLinkLocal: true), host)
            XCTAssertNil(RedirectPolicy.refusal(next: next, first: next, allowsLinkLocal: false),
                         "\(host): a same-origin hop on the address the user named")
        }
        for host in ["169.253.255.255", "169.255.0.1", "fec0::1", "fe7f::1", "127.0.0.1", "::1", "169.254.169.254.example",
                     "metadata.google.internal"] {
            XCTAssertNil(RedirectPolicy.refusal(next: origin("http", host), first: first, allowsLinkLocal: false), host)
        }
        XCTAssertTrue(RedirectPolicy.Refusal.linkLocal("169.254.169.254").description
            .hasPrefix("refused to follow a redirect to 169.254.169.254, a link-local address"))
    }
}
