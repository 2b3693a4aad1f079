import XCTest
@testable import WirelensCore

final class RedactorTests: XCTestCase {
    private let mask = Redactor.mask

    // MARK: - Headers

    func testSecretHeadersAreMasked() {
        let secrets = [
            HeaderField(name: "Authorization", value: "Bearer eyJhbGciOi.payload.sig"),
            HeaderField(name: "Proxy-Authorization", value: "Basic dXNlcjpwYXNz"),
            HeaderField(name: "Cookie", value: "session=abc123"),
            HeaderField(name: "Set-Cookie", value: "id=a3fWa; Secure; HttpOnly"),
            HeaderField(name: "x-oss-security-token", value: "CAISgwJ1q6Ft5B2yfSjIr5"),
            HeaderField(name: "X-Api-Key", value: "k-123456"),
            HeaderField(name: "x-amz-signature", value: "fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024"),
            HeaderField(name: "authorization", value: "lower-case name"),
            HeaderField(name: "AUTHORIZATION", value: "upper-case name"),
        ]
        for field in secrets {
            let redacted = Redactor.header(field)
            XCTAssertEqual(redacted.name, field.name, "the name is kept as written")
            XCTAssertEqual(redacted.value, mask, field.name)
            XCTAssertTrue(Redactor.isSensitive(name: field.name), field.name)
        }
    }

    /// The byte-level check of ASCII names decides as the Unicode one does, on names built to hit each rule's
    /// edges (fragments at either end, "sig" inside or at a word's end, separators, digits, case).
    func testASCIIFastPathAgreesWithUnicodePath() {
        let parts = ["", "x", "X-", "api_", "Amz-", "sig", "SIG", "sign", "signed", "hmacsig", "token", "Tok", "en",
                     "key", "KEY", "monkey", "auth", "author", "cookie", "set-cookie", "Set-Cookie", "session",
                     "password", "passwd", "credential", "secret", "2", "_", ".", "-", "=", "authorization",
                     "proxy-authorization", "page", "i", "j", "SignedHeaders"]
        var checked = 0
        for a in parts {
            for b in parts {
                var name = a + b
                let fast = name.withUTF8 { Redactor.isSensitive(asciiName: $0) }
                XCTAssertEqual(fast, Redactor.isSensitive(lowercased: name.lowercased()), "'\(name)'")
                checked += 1
            }
        }
        XCTAssertEqual(checked, parts.count * parts.count)
        var unicode = "\u{212A}ey"  // KELVIN SIGN lowercases to an ASCII "k": left to the Unicode path
        XCTAssertNil(unicode.withUTF8 { Redactor.isSensitive(asciiName: $0) })
        XCTAssertTrue(Redactor.isSensitive(name: unicode))
    }

    func testOrdinaryHeadersAreUntouched() {
        let plain = [
            HeaderField(name: "Content-Type", value: "application/json; charset=utf-8"),
            HeaderField(name: "Accept", value: "*/*"),
            HeaderField(name: "Content-Length", value: "1048576"),
            HeaderField(name: "Host", value: "bucket.oss-cn-hangzhou.aliyuncs.com"),
            HeaderField(name: "User-Agent", value: "wirelens/0.1.0"),
            HeaderField(name: "Range", value: "bytes=500-"),
        ]
        for field in plain {
            XCTAssertEqual(Redactor.header(field), field, field.name)
            XCTAssertFalse(Redactor.isSensitive(name: field.name), field.name)
        }
    }

    func testHeadersKeepOrderAndMaskOnlySecrets() {
        let fields = [
            HeaderField(name: "Accept", value: "*/*"),
            HeaderField(name: "Authorization", value: "Bearer t"),
            HeaderField(name: "Content-Type", value: "text/plain"),
        ]
        XCTAssertEqual(Redactor.headers(fields), [
            HeaderField(name: "Accept", value: "*/*"),
            HeaderField(name: "Authorization", value: mask),
            HeaderField(name: "Content-Type", value: "text/plain"),
        ])
    }

    // MARK: - URLs

    func testSensitiveQueryParametersAreMaskedOthersKept() {
        let url = "https://api.example.com/v1/items?page=2&access_token=ya29.a0Af&size=50&api_key=AIzaSyD&sig=Zm9v"
        XCTAssertEqual(Redactor.url(url),
                       "https://api.example.com/v1/items?page=2&access_token=\(mask)&size=50&api_key=\(mask)&sig=\(mask)")
    }

    func testPresignedS3URL() {
        let url = "https://bucket.s3.amazonaws.com/photo.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256"
            + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20240101%2Fus-east-1%2Fs3%2Faws4_request"
            + "&X-Amz-Date=20240101T000000Z&X-Amz-Expires=900"
            + "&X-Amz-Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024"
        let redacted = Redactor.url(url)
        XCTAssertEqual(redacted, "https://bucket.s3.amazonaws.com/photo.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256"
            + "&X-Amz-Credential=\(mask)&X-Amz-Date=20240101T000000Z&X-Amz-Expires=900&X-Amz-Signature=\(mask)")
        XCTAssertFalse(redacted.contains("AKIAIOSFODNN7EXAMPLE"))
        XCTAssertFalse(redacted.contains("fe5f80f77d"))
    }

    func testPercentEncodedParameterNamesAreRecognised() {
        // The secret word itself is encoded, so only the decoded name reveals it; the name is kept as written.
        XCTAssertEqual(Redactor.url("https://h/p?access_t%6Fken=abc&q=1"), "https://h/p?access_t%6Fken=\(mask)&q=1")
        XCTAssertEqual(Redactor.url("https://h/p?api_ke%79=abc"), "https://h/p?api_ke%79=\(mask)")
        XCTAssertEqual(Redactor.url("https://h/p?%73ig=abc&page=%73ig"), "https://h/p?%73ig=\(mask)&page=%73ig")
        XCTAssertEqual(Redactor.url("https://h/p?X-Amz-Si%67nature=abc"), "https://h/p?X-Amz-Si%67nature=\(mask)")
        XCTAssertEqual(Redactor.url("https://h/p?X-Amz-SignedHeaders=host&api_sig=abc&x-hmacsig=def&signal=on"),
                       "https://h/p?X-Amz-SignedHeaders=host&api_sig=\(mask)&x-hmacsig=\(mask)&signal=on")
    }

    func testParametersWithoutValueAndEmptyPartsAreKept() {
        XCTAssertEqual(Redactor.url("https://h/p?token&a=1&&b="), "https://h/p?token&a=1&&b=")
        XCTAssertEqual(Redactor.url("https://h/p?"), "https://h/p?")
    }

    /// The whole user info goes: the password, and the user name too (a token often stands there:
    /// `https://TOKEN@host`, `https://TOKEN:x-oauth-basic@host`).
    func testUserInfoIsMasked() {
        XCTAssertEqual(Redactor.url("https://alice:s3cret@example.com:8443/path?q=1"),
                       "https://\(mask)@example.com:8443/path?q=1")
        XCTAssertEqual(Redactor.url("http://alice:s3cret@proxy.example:3128"), "http://\(mask)@proxy.example:3128")
        // An unescaped "@" inside the password: the host starts after the last one.
        XCTAssertEqual(Redactor.url("https://alice:p@ss@example.com/"), "https://\(mask)@example.com/")
        XCTAssertEqual(Redactor.url("https://ghp_16C7e42F292c6912E7710c838347Ae178B4a@github.com/o/r.git"),
                       "https://\(mask)@github.com/o/r.git")
        // Protocol-relative references have user info too; an "@" in the path is not user info.
        XCTAssertEqual(Redactor.url("//u:p@cdn.example/a"), "//\(mask)@cdn.example/a")
        XCTAssertEqual(Redactor.url("https://example.com/users/@bob"), "https://example.com/users/@bob")
        XCTAssertEqual(Redactor.url("/users/@bob?page=2"), "/users/@bob?page=2")
    }

    func testUserInfoAndQueryTogether() {
        XCTAssertEqual(Redactor.url("https://u:pw@h/x?token=t#top"), "https://\(mask)@h/x?token=\(mask)#top")
    }

    /// The names issue 13 lists, in any case; `code` only as a whole name.
    func testPresignedAndOAuthParameterNames() {
        for name in ["X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "Signature", "sig", "token",
                     "access_token", "code", "pwd", "password", "CODE", "Pwd", "PASSWORD", "x-amz-signature",
                     "OSSAccessKeyId", "refresh_token", "client_secret", "userpwd"] {
            XCTAssertEqual(Redactor.url("https://h/o?\(name)=v4lue&n=1"), "https://h/o?\(name)=\(mask)&n=1", name)
        }
        for name in ["X-Amz-Algorithm", "X-Amz-Date", "X-Amz-Expires", "X-Amz-SignedHeaders", "zipcode", "encode",
                     "status_code", "Expires", "page"] {
            XCTAssertEqual(Redactor.url("https://h/o?\(name)=v4lue"), "https://h/o?\(name)=v4lue", name)
        }
    }

    /// A URL inside a harmless parameter's value (a redirect target, say) is redacted too.
    func testURLInsideAParameterValue() {
        XCTAssertEqual(Redactor.url("https://h/login?next=https://u:p@i/x&page=2"),
                       "https://h/login?next=https://\(mask)@i/x&page=2")
    }

    /// Redacting twice gives what redacting once gives (records are redacted when built and when read back).
    func testRedactionIsIdempotent() {
        for url in ["https://u:p@h/x?token=t&a=1#access_token=z", "//u@h/?sig=1", "proxy:pw@h:3128", "/a?code=c"] {
            let once = Redactor.url(url)
            XCTAssertEqual(Redactor.url(once), once, url)
        }
        let text = "see <https://u:p@h/x?token=t>; 'ftp://a:b@c/?pwd=1' and Authorization: Bearer x"
        XCTAssertEqual(Redactor.message(Redactor.message(text)), Redactor.message(text))
    }

    // MARK: - URL-bearing headers

    /// Location, Content-Location, Link, Refresh and Referer values are URLs (absolute or relative): they are
    /// redacted as URLs; any other header's absolute URLs too.
    func testHeadersCarryingURLsAreRedacted() {
        let cases: [(HeaderField, String)] = [
            (HeaderField(name: "Location", value: "https://AKID:pw@b.s3.example/o?X-Amz-Signature=abc&X-Amz-Date=1"),
             "https://\(mask)@b.s3.example/o?X-Amz-Signature=\(mask)&X-Amz-Date=1"),
            (HeaderField(name: "location", value: "/next?code=oauth-code&state=s"), "/next?code=\(mask)&state=s"),
            (HeaderField(name: "Content-Location", value: "/o.bin?Signature=abc&Expires=9"), "/o.bin?Signature=\(mask)&Expires=9"),
            (HeaderField(name: "Referer", value: "https://h/p?access_token=t"), "https://h/p?access_token=\(mask)"),
            (HeaderField(name: "Link", value: "<https://u:p@h/a?token=t&n=1>; rel=\"next\", </b?sig=s>; rel=\"prev\""),
             "<https://\(mask)@h/a?token=\(mask)&n=1>; rel=\"next\", </b?sig=\(mask)>; rel=\"prev\""),
            (HeaderField(name: "Refresh", value: "0; url=/c?pwd=p&n=1"), "0; url=/c?pwd=\(mask)&n=1"),
            (HeaderField(name: "Refresh", value: "5;URL='https://u:p@h/?token=t'"), "5;URL='https://\(mask)@h/?token=\(mask)'"),
            (HeaderField(name: "X-Upload-Target", value: "use https://h/u?X-Amz-Credential=c now"),
             "use https://h/u?X-Amz-Credential=\(mask) now"),
        ]
        for (field, expected) in cases {
            XCTAssertEqual(Redactor.header(field), HeaderField(name: field.name, value: expected), field.value)
        }
        let plain = HeaderField(name: "Location", value: "https://h/plain/path")
        XCTAssertEqual(Redactor.header(plain), plain)
    }

    /// A record's headers and an error's message are redacted when they are set, whoever sets them, and when
    /// a saved report is read back.
    func testRecordsRedactWhatTheyAreGiven() throws {
        var m = TransactionMetrics(kind: .initial, url: "http://u:p@h/?sig=s", method: "GET", timeline: Timeline(fetchStart: 1),
                                   phases: Phases(total: 0), reusedConnection: false, proxyConnection: false,
                                   curlTimers: CurlTimers())
        XCTAssertEqual(m.url, "http://\(mask)@h/?sig=\(mask)")
        m.url = "http://h/next?token=t"
        XCTAssertEqual(m.url, "http://h/next?token=\(mask)")
        var task = TaskRecord(index: 0, url: "https://h/?X-Amz-Signature=s", method: "GET", startedAt: 0, endedAt: 0,
                              redirectCount: 0, retries: 0, statusCode: nil, error: nil, transactions: [m])
        XCTAssertEqual(task.url, "https://h/?X-Amz-Signature=\(mask)")
        task.url = "//u@h/"
        XCTAssertEqual(task.url, "//\(mask)@h/")
        m.responseHeaders = [HeaderField(name: "Location", value: "http://u:p@h/?token=t")]
        XCTAssertEqual(m.responseHeaders?.first?.value, "http://\(mask)@h/?token=\(mask)")
        var error = TransferError(errorClass: .protocol, message: "unsupported scheme in 'ftp://u:p@h/?sig=s'")
        XCTAssertEqual(error.message, "unsupported scheme in 'ftp://\(mask)@h/?sig=\(mask)'")
        error.message = "HTTP status 404 from https://h/?access_token=t"
        XCTAssertEqual(error.message, "HTTP status 404 from https://h/?access_token=\(mask)")
        let saved = #"{"class":"other","message":"see http://u:p@h/?pwd=1"}"#
        let decoded = try JSONDecoder().decode(TransferError.self, from: Data(saved.utf8))
        XCTAssertEqual(decoded.message, "see http://\(mask)@h/?pwd=\(mask)")
    }

    func testFragmentIsKept() {
        XCTAssertEqual(Redactor.url("https://h/doc?token=abc#section-2"), "https://h/doc?token=\(mask)#section-2")
        XCTAssertEqual(Redactor.url("https://h/doc#a?b=c"), "https://h/doc#a?b=c")
    }

    func testURLWithoutSecretsIsUnchanged() {
        for url in ["https://example.com/", "http://[2001:db8::1]:8080/a/b?x=1&y=2", "https://h/p?page=3#f",
                    "not a url at all"] {
            XCTAssertEqual(Redactor.url(url), url)
        }
    }

    // MARK: - Messages

    /// A URL in quotes or angle brackets is redacted up to its closing quote or bracket, which stays.
    func testMessageMasksQuotedAndBracketedURLs() {
        XCTAssertEqual(Redactor.message("unsupported scheme 'ftp' in 'ftp://u:p@h/x?token=t&n=1'"),
                       "unsupported scheme 'ftp' in 'ftp://\(mask)@h/x?token=\(mask)&n=1'")
        XCTAssertEqual(Redactor.message("next: <https://h/a?sig=s>, \"http://u:p@h/\""),
                       "next: <https://h/a?sig=\(mask)>, \"http://\(mask)@h/\"")
    }

    func testMessageMasksURLInsideASentence() {
        let text = "Failed to connect to https://alice:pw@uploads.example.com/part?access_token=abc&part=3 "
            + "after 3001 ms: Connection refused"
        XCTAssertEqual(Redactor.message(text),
                       "Failed to connect to https://\(mask)@uploads.example.com/part?access_token=\(mask)&part=3 "
                       + "after 3001 ms: Connection refused")
    }

    func testMessageWithoutSecretsIsUnchanged() {
        let text = "Could not resolve host: uploads.example.com  (double space kept)"
        XCTAssertEqual(Redactor.message(text), text)
    }

    /// The documented contract: `Name: value` secrets inside free text are masked too.
    func testMessageMasksNameValueSecrets() {
        let text = "request rejected; sent Authorization: Bearer abc.def.ghi"
        let redacted = Redactor.message(text)
        XCTAssertFalse(redacted.contains("abc.def.ghi"), redacted)
        XCTAssertEqual(redacted, "request rejected; sent Authorization: \(mask)")
        XCTAssertEqual(Redactor.message("X-Api-Key: k-123\nContent-Type: text/plain"),
                       "X-Api-Key: \(mask)\nContent-Type: text/plain")
        XCTAssertEqual(Redactor.message("Cookie: a=b; c=d\r\nAccept: */*"), "Cookie: \(mask)\r\nAccept: */*")
        XCTAssertEqual(Redactor.message("Content-Type: text/plain"), "Content-Type: text/plain")
        XCTAssertEqual(Redactor.message("SSL certificate problem: self-signed certificate"),
                       "SSL certificate problem: self-signed certificate")
    }

    // MARK: - Options

    func testRedactedProbeOptionsMaskHeadersAndProxyPassword() {
        var options = ProbeOptions()
        options.headers = [HeaderField(name: "Authorization", value: "Bearer t"),
                           HeaderField(name: "Accept", value: "*/*")]
        options.proxy = "http://bob:hunter2@proxy.example:3128"
        let redacted = options.redacted
        XCTAssertEqual(redacted.headers, [HeaderField(name: "Authorization", value: mask),
                                          HeaderField(name: "Accept", value: "*/*")])
        XCTAssertEqual(redacted.proxy, "http://\(mask)@proxy.example:3128")
        XCTAssertEqual(options.headers[0].value, "Bearer t", "the original is left alone")
    }
}

final class RedactorEdgeTests: XCTestCase {
    func testProxyWithoutSchemeHidesPassword() {
        XCTAssertEqual(Redactor.url("alice:pw123@proxy.local:3128"), "[REDACTED]@proxy.local:3128")
        XCTAssertEqual(Redactor.url("proxy.local:3128"), "proxy.local:3128")
    }

    func testFragmentTokensAreMasked() {
        XCTAssertEqual(Redactor.url("https://app.example/cb#access_token=abc&state=x"),
                       "https://app.example/cb#access_token=[REDACTED]&state=x")
        XCTAssertEqual(Redactor.url("https://app.example/page#section-2"), "https://app.example/page#section-2")
    }
}
