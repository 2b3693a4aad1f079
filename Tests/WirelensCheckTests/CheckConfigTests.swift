import WirelensCheck
import WirelensCore
import XCTest

/// Configuration parsing: the issue's example works, and every mistake names the file, line and key.
final class CheckConfigTests: XCTestCase {
    /// The example from the issue, verbatim.
    static let issueExample = """
        checks:
          - name: upload-cn
            url: https://uploads.example.com/put
            method: PUT
            upload: { size: 1MiB }
            headers: { x-oss-security-token: "${OSS_TOKEN}" }
            every: 60s
            expect:
              status: [200, 201]
              connect: { max: 300ms }
              ttfb: { max: 800ms }
              total: { max: 2s }
              upload_throughput: { min: 1MB/s }
        """

    func testIssueExampleParses() throws {
        let config = try CheckConfig.parse(Self.issueExample, file: "checks.yaml", environment: ["OSS_TOKEN": "s3cr3t"])
        XCTAssertEqual(config.checks.count, 1)
        let check = config.checks[0]
        XCTAssertEqual(check.name, "upload-cn")
        XCTAssertEqual(check.url, "https://uploads.example.com/put")
        XCTAssertEqual(check.method, "PUT")
        XCTAssertEqual(check.body, .generated(size: 1_048_576))
        XCTAssertEqual(check.options.headers, [HeaderField(name: "x-oss-security-token", value: "s3cr3t")])
        XCTAssertEqual(check.every, 60_000_000)
        XCTAssertEqual(check.line, 2)
        XCTAssertEqual(check.expectations, [
            .status([200, 201]), .maxPhase(.connect, 300_000), .maxPhase(.ttfb, 800_000), .maxPhase(.total, 2_000_000),
            .minUploadThroughput(1_000_000),
        ])
    }

    func testEveryAssertionAndOption() throws {
        let text = """
            checks:
              - name: all
                url: http://127.0.0.1:8080/x?token=${T}
                http_version: h2
                timeout: 5s
                connect_timeout: 1s
                idle_timeout: 2s
                retries: 2
                max_redirects: 0
                insecure: true
                keep_alive: yes
                expect_100: false
                expect:
                  status: 204
                  dns: { max: 10ms }
                  tls: { max: 50ms }
                  download_throughput: { min: 512KiB/s }
                  reuse: true
                  retries: { max: 1 }
                  certificate: { min_days: 14 }
                  body_contains: "ok"
            """
        let check = try CheckConfig.parse(text, file: "c.yaml", environment: ["T": "abc"]).checks[0]
        XCTAssertEqual(check.url, "http://127.0.0.1:8080/x?token=abc")
        XCTAssertEqual(check.method, "GET")
        XCTAssertEqual(check.options.httpVersion, .http2)
        XCTAssertEqual(check.options.totalTimeout, 5_000_000)
        XCTAssertEqual(check.options.connectTimeout, 1_000_000)
        XCTAssertEqual(check.options.idleTimeout, 2_000_000)
        XCTAssertEqual(check.options.retry.maxRetries, 2)
        XCTAssertEqual(check.options.maxRedirects, 0)
        XCTAssertTrue(check.options.insecure)
        XCTAssertTrue(check.keepAlive)
        XCTAssertFalse(check.options.expectContinue)
        XCTAssertEqual(check.expectations, [
            .status([204]), .maxPhase(.dns, 10_000), .maxPhase(.tls, 50_000), .minDownloadThroughput(524_288),
            .reuseRequired, .maxRetries(1), .certificateDays(14), .bodyContains("ok"),
        ])
        XCTAssertTrue(check.readsBody)
        XCTAssertEqual(check.certificateDays, 14)
    }

    /// `cookies: true` turns the cookie engine on for each run of the check, starting empty every run; without it a
    /// check has none.
    func testCookiesKey() throws {
        let login = try CheckConfig.parse("checks: [{name: login, url: \"http://h/login\", cookies: true}]",
                                          file: "c.yaml", environment: [:]).checks[0]
        XCTAssertTrue(login.options.cookies.engine)
        XCTAssertTrue(login.options.cookies.clearedPerRun)
        XCTAssertNil(login.options.cookies.jar)
        XCTAssertFalse(ProbeOptions().cookies.engine, "no engine without the key")
        XCTAssertThrowsError(try CheckConfig.parse("checks: [{name: a, url: \"http://h/\", cookies: maybe}]",
                                                   file: "c.yaml", environment: [:]))
    }

    /// `trusted_redirects` sends credentials to every hop; link-local redirects are refused unless
    /// `allow_link_local_redirects: true`, and the runner's engine options say so.
    func testRedirectKeys() throws {
        let text = """
            checks:
              - name: plain
                url: http://h/
              - name: open
                url: http://h/
                trusted_redirects: true
                allow_link_local_redirects: yes
            """
        let checks = try CheckConfig.parse(text, file: "c.yaml", environment: [:]).checks
        XCTAssertFalse(checks[0].options.trustedRedirects)
        XCTAssertFalse(checks[0].allowsLinkLocalRedirects)
        XCTAssertFalse(checks[0].engineOptions.allowsLinkLocalRedirects, "a check refuses link-local redirects")
        XCTAssertTrue(checks[1].options.trustedRedirects)
        XCTAssertTrue(checks[1].engineOptions.trustedRedirects)
        XCTAssertTrue(checks[1].engineOptions.allowsLinkLocalRedirects)
        let built = CheckDefinition(name: "x", url: "http://h/", method: "GET", body: .none, options: ProbeOptions(),
                                    every: nil, keepAlive: false, expectations: [], line: 1)
        XCTAssertFalse(built.engineOptions.allowsLinkLocalRedirects, "refused by default, however the check was made")
    }

    /// CR, LF or NUL in a header (name or value, `${NAME}` substituted first) or in user_agent: one line naming the
    /// file, line, key and header, never the value.
    func testLineBreaksInHeadersAreRefused() throws {
        let cases: [(String, [String: String], Int, String, String)] = [
            ("    headers: { X-A: \"v\\r\\nInjected: 1\" }\n", [:], 4, "checks[0].headers.X-A", "a carriage return (CR)"),
            ("    headers:\n      X-B: \"v\\n\"\n", [:], 5, "checks[0].headers.X-B", "a line feed (LF)"),
            ("    headers: { X-C: \"a\\0b\" }\n", [:], 4, "checks[0].headers.X-C", "a NUL byte"),
            ("    headers: { X-D: \"${SECRET}\" }\n", ["SECRET": "s3cr3t\r\nX: y"], 4, "checks[0].headers.X-D", "(CR)"),
            ("    headers: { \"X\\nE\": v }\n", [:], 4, "checks[0].headers.X\\nE", "the header name 'X\\nE'"),
            ("    user_agent: \"ua\\r\\n\"\n", [:], 4, "checks[0].user_agent", "header 'User-Agent'"),
        ]
        for (yaml, environment, line, key, mention) in cases {
            let text = "checks:\n  - name: a\n    url: http://h/\n" + yaml
            XCTAssertThrowsError(try CheckConfig.parse(text, file: "c.yaml", environment: environment), yaml) { error in
                guard let error = error as? CheckConfigError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.line, line, "\(yaml) → \(error)")
                XCTAssertEqual(error.key, key, "\(yaml) → \(error)")
                XCTAssertTrue(error.message.contains(mention), "\(yaml) → \(error)")
                XCTAssertFalse(error.description.contains("s3cr3t"), "the value stays out: \(error)")
                XCTAssertEqual(error.description.split(separator: "\n").count, 1, "\(error)")
            }
        }
    }

    /// `mptcp` as `--mptcp`: a boolean, off by default; anything else is refused on its line.
    func testMPTCPKey() throws {
        let text = "checks:\n  - name: a\n    url: http://h/\n    mptcp: true\n  - name: b\n    url: http://h/\n"
        let checks = try CheckConfig.parse(text, file: "c.yaml", environment: [:]).checks
        XCTAssertTrue(checks[0].options.multipath)
        XCTAssertFalse(checks[1].options.multipath)
        let wrong = "checks:\n  - name: a\n    url: http://h/\n    mptcp: often\n"
        XCTAssertThrowsError(try CheckConfig.parse(wrong, file: "c.yaml", environment: [:])) { error in
            guard let error = error as? CheckConfigError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.line, 4, "\(error)")
        }
    }

    /// `doh_url` and `doh_insecure` as `--doh-url` and `--doh-insecure`: an https URL only, refused on its line.
    func testDoHKeys() throws {
        let text = """
            checks:
              - name: doh
                url: http://wirelens.test/
                doh_url: https://127.0.0.1:8443/dns-query
                doh_insecure: true
              - name: plain
                url: http://h/
            """
        let checks = try CheckConfig.parse(text, file: "c.yaml", environment: [:]).checks
        XCTAssertEqual(checks[0].options.dohURL, "https://127.0.0.1:8443/dns-query")
        XCTAssertTrue(checks[0].options.dohInsecure)
        XCTAssertNil(checks[1].options.dohURL)
        XCTAssertFalse(checks[1].options.dohInsecure)
        for bad in ["http://127.0.0.1/dns-query", "ftp://x/", "nothing"] {
            let wrong = "checks:\n  - name: a\n    url: http://h/\n    doh_url: \(bad)\n"
            XCTAssertThrowsError(try CheckConfig.parse(wrong, file: "c.yaml", environment: [:]), bad) { error in
                guard let error = error as? CheckConfigError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.line, 4, "\(error)")
                XCTAssertEqual(error.key, "checks[0].doh_url", "\(error)")
                XCTAssertEqual(error.description.split(separator: "\n").count, 1, "\(error)")
            }
        }
    }

    func testWithoutStatusTheTaskMustSucceed() throws {
        let text = "checks:\n  - name: a\n    url: http://127.0.0.1/\n"
        XCTAssertEqual(try CheckConfig.parse(text, file: "c.yaml", environment: [:]).checks[0].expectations, [.succeeded])
    }

    /// A check without `timeout:` is bounded by the default (10 s, as blackbox_exporter's module default), or by
    /// `defaults: { timeout: … }`; a check's own `timeout:` wins.
    func testDefaultTimeout() throws {
        let bare = "checks:\n  - name: a\n    url: http://127.0.0.1/\n  - name: b\n    url: http://127.0.0.1/\n    timeout: 30s\n"
        let plain = try CheckConfig.parse(bare, file: "c.yaml", environment: [:]).checks
        XCTAssertEqual(plain.map(\.options.totalTimeout), [10_000_000, 30_000_000])
        let defaulted = try CheckConfig.parse("defaults:\n  timeout: 2500ms\n" + bare, file: "c.yaml", environment: [:]).checks
        XCTAssertEqual(defaulted.map(\.options.totalTimeout), [2_500_000, 30_000_000])
        let error = try XCTUnwrap(failure("defaults: { timeout: never }\n" + bare))
        XCTAssertEqual(error.line, 1)
        XCTAssertEqual(error.key, "defaults.timeout")
        let unknown = try XCTUnwrap(failure("defaults: { every: 5s }\n" + bare))
        XCTAssertEqual(unknown.key, "defaults.every")
    }

    /// A check without `timeout:` is bounded by min(default, every), as Prometheus clamps an unset scrape timeout
    /// to the scrape interval; the `defaults:` timeout is clamped the same way; an explicit timeout above `every`
    /// is refused at the `every:` line.
    func testUnsetTimeoutIsClampedToEvery() throws {
        let text = """
            checks:
              - name: fast
                url: http://127.0.0.1/
                every: 1s
              - name: slow
                url: http://127.0.0.1/
                every: 30s
            """
        let checks = try CheckConfig.parse(text, file: "c.yaml", environment: [:]).checks
        XCTAssertEqual(checks.map(\.options.totalTimeout), [1_000_000, 10_000_000])
        XCTAssertEqual(checks.map(\.interval), [1_000_000, 30_000_000])
        let defaulted = try CheckConfig.parse("defaults: { timeout: 5s }\n" + text, file: "c.yaml", environment: [:])
        XCTAssertEqual(defaulted.checks.map(\.options.totalTimeout), [1_000_000, 5_000_000])

        let explicit = try XCTUnwrap(failure("checks:\n  - name: a\n    url: http://h/\n    timeout: 2s\n    every: 1s\n"))
        XCTAssertEqual(explicit.line, 5)
        XCTAssertEqual(explicit.key, "checks[0].every")
        XCTAssertTrue(explicit.message.contains("timeout 2.00s"), explicit.message)
        let equal = try CheckConfig.parse("checks:\n  - name: a\n    url: http://h/\n    timeout: 1s\n    every: 1s\n",
                                          file: "c.yaml", environment: [:])
        XCTAssertEqual(equal.checks[0].options.totalTimeout, 1_000_000)
    }

    /// A key given twice in one mapping is `FILE:LINE: KEY: given twice`, at the second one's line with the key's
    /// path, wherever the mapping is (top level, a check, `expect:`, a flow mapping).
    func testDuplicateKeyNamesFileLineAndKey() throws {
        let cases: [(String, Int, String)] = [
            ("checks:\n  - name: a\n    url: http://h/\n    every: 5s\n    every: 6s\n", 5, "checks[0].every"),
            ("checks:\n  - name: a\n    url: http://h/\n  - name: b\n    url: http://h/\n    expect:\n      status: 200\n"
                + "      ttfb: { max: 1s }\n      status: 201\n", 9, "checks[1].expect.status"),
            ("checks:\n  - name: a\n    url: http://h/\n    expect: { ttfb: { max: 1s, max: 2s } }\n", 4,
             "checks[0].expect.ttfb.max"),
            ("defaults: { timeout: 1s }\nchecks:\n  - name: a\n    url: http://h/\ndefaults: { timeout: 2s }\n", 5,
             "defaults"),
            ("checks:\n  - name: a\n    \"url\": http://h/\n    url: http://h/\n", 4, "checks[0].url"),
        ]
        for (text, line, key) in cases {
            let error = try XCTUnwrap(failure(text), text)
            XCTAssertEqual(error.line, line, "\(text) → \(error)")
            XCTAssertEqual(error.key, key, "\(text) → \(error)")
            XCTAssertTrue(error.message.contains("given twice"), error.message)
            XCTAssertFalse(error.description.contains("\n"), error.description)
        }
    }

    /// Parses `text` expecting an error; returns it.
    private func failure(_ text: String, environment: [String: String] = [:],
                         file: StaticString = #filePath, line: UInt = #line) -> CheckConfigError? {
        do {
            _ = try CheckConfig.parse(text, file: "conf/checks.yaml", environment: environment)
            XCTFail("parsed without error", file: file, line: line)
            return nil
        } catch {
            XCTAssertEqual(error.file, "conf/checks.yaml", file: file, line: line)
            XCTAssertTrue(error.description.hasPrefix("conf/checks.yaml:\(error.line): "), error.description,
                          file: file, line: line)
            return error
        }
    }

    func testUnknownKeyNamesFileLineAndKey() throws {
        let text = """
            checks:
              - name: a
                url: http://127.0.0.1/
                expect:
                  status: 200
                  latency: { max: 1s }
            """
        let error = try XCTUnwrap(failure(text))
        XCTAssertEqual(error.line, 6)
        XCTAssertEqual(error.key, "checks[0].expect.latency")
        XCTAssertTrue(error.message.contains("unknown"), error.message)

        let top = try XCTUnwrap(failure("checks:\n  - name: a\n    url: http://h/\n    colour: red\n"))
        XCTAssertEqual(top.line, 4)
        XCTAssertEqual(top.key, "checks[0].colour")
    }

    func testBadDurationNamesFileLineAndKey() throws {
        let text = """
            checks:
              - name: a
                url: http://127.0.0.1/
              - name: b
                url: http://127.0.0.1/
                expect:
                  ttfb: { max: soon }
            """
        let error = try XCTUnwrap(failure(text))
        XCTAssertEqual(error.line, 7)
        XCTAssertEqual(error.key, "checks[1].expect.ttfb.max")
        XCTAssertTrue(error.message.contains("'soon'"), error.message)
    }

    func testMissingURLNamesFileLineAndKey() throws {
        let text = """
            checks:
              - name: a
                url: http://127.0.0.1/

              - name: no-url
                method: GET
            """
        let error = try XCTUnwrap(failure(text))
        XCTAssertEqual(error.line, 5, "the line where the check starts")
        XCTAssertEqual(error.key, "checks[1].url")
        XCTAssertTrue(error.message.contains("no-url"), error.message)
    }

    func testUnsetEnvironmentVariableNamesFileLineAndKey() throws {
        let error = try XCTUnwrap(failure(Self.issueExample, environment: ["OTHER": "x"]))
        XCTAssertEqual(error.line, 6)
        XCTAssertEqual(error.key, "checks[0].headers.x-oss-security-token")
        XCTAssertTrue(error.message.contains("OSS_TOKEN"), error.message)
    }

    func testOtherMistakes() throws {
        let cases: [(String, Int, String)] = [
            ("checks:\n  - name: a\n    url: ftp://h/\n", 3, "checks[0].url"),
            ("checks:\n  - name: a\n    url: http://h/\n    upload: { size: lots }\n", 4, "checks[0].upload.size"),
            ("checks:\n  - name: a\n    url: http://h/\n    expect:\n      status: [200, abc]\n", 5, "checks[0].expect.status[1]"),
            ("checks:\n  - name: a\n    url: http://h/\n    expect:\n      upload_throughput: { min: fast }\n", 5,
             "checks[0].expect.upload_throughput.min"),
            ("checks:\n  - name: a\n    url: http://h/\n  - name: a\n    url: http://h/\n", 4, "checks[1].name"),
            ("checks:\n  - url: http://h/\n", 2, "checks[0].name"),
            ("checks: []\n", 1, "checks"),
            ("check:\n  - name: a\n", 1, "check"),
            ("checks:\n  - name: a\n    url: http://h/\n    every: -5s\n", 4, "checks[0].every"),
            ("checks:\n  - name: a\n    url: [http://h/\n", 4, ""),
        ]
        for (text, line, key) in cases {
            let error = try XCTUnwrap(failure(text), text)
            XCTAssertEqual(error.line, line, "\(text) → \(error)")
            XCTAssertEqual(error.key, key, "\(text) → \(error)")
        }
    }

    func testUnreadableFile() {
        XCTAssertThrowsError(try CheckConfig.load(path: "/nonexistent/checks.yaml", environment: [:])) { error in
            let description = "\(error)"
            XCTAssertTrue(description.hasPrefix("/nonexistent/checks.yaml: "), description)
        }
    }
}
