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

    func testPasswordInUserInfoIsMasked() {
        XCTAssertEqual(Redactor.url("https://alice:s3cret@example.com:8443/path?q=1"),
                       "https://alice:\(mask)@example.com:8443/path?q=1")
        XCTAssertEqual(Redactor.url("http://alice:s3cret@proxy.example:3128"), "http://alice:\(mask)@proxy.example:3128")
        // An unescaped "@" inside the password: the host starts after the last one.
        XCTAssertEqual(Redactor.url("https://alice:p@ss@example.com/"), "https://alice:\(mask)@example.com/")
        // A user without password is not a secret; an "@" in the path is not user info.
        XCTAssertEqual(Redactor.url("https://alice@example.com/"), "https://alice@example.com/")
        XCTAssertEqual(Redactor.url("https://example.com/users/@bob"), "https://example.com/users/@bob")
    }

    func testUserInfoAndQueryTogether() {
        XCTAssertEqual(Redactor.url("https://u:pw@h/x?token=t#top"), "https://u:\(mask)@h/x?token=\(mask)#top")
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

    func testMessageMasksURLInsideASentence() {
        let text = "Failed to connect to https://alice:pw@uploads.example.com/part?access_token=abc&part=3 "
            + "after 3001 ms: Connection refused"
        XCTAssertEqual(Redactor.message(text),
                       "Failed to connect to https://alice:\(mask)@uploads.example.com/part?access_token=\(mask)&part=3 "
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
        XCTAssertEqual(redacted.proxy, "http://bob:\(mask)@proxy.example:3128")
        XCTAssertEqual(options.headers[0].value, "Bearer t", "the original is left alone")
    }
}

final class RedactorEdgeTests: XCTestCase {
    func testProxyWithoutSchemeHidesPassword() {
        XCTAssertEqual(Redactor.url("alice:pw123@proxy.local:3128"), "alice:[REDACTED]@proxy.local:3128")
        XCTAssertEqual(Redactor.url("proxy.local:3128"), "proxy.local:3128")
    }

    func testFragmentTokensAreMasked() {
        XCTAssertEqual(Redactor.url("https://app.example/cb#access_token=abc&state=x"),
                       "https://app.example/cb#access_token=[REDACTED]&state=x")
        XCTAssertEqual(Redactor.url("https://app.example/page#section-2"), "https://app.example/page#section-2")
    }
}
