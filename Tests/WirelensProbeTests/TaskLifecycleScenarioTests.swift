import WirelensCore
import XCTest
@testable import WirelensProbe

/// Whole task lifecycles, event by event, without a socket. The oracles are the documented rules: `curl -L`'s
/// credential rule (README, RedirectCredentialTests hold curl itself to it), RFC 9110 §15.4 for how a redirect
/// changes the method, RFC 9110 §10.2.3 for Retry-After (delay-seconds or an HTTP-date), and the README's
/// `--retries`, `--retry-max-wait`, `--timeout` and `--idle-timeout`.
final class TaskLifecycleScenarioTests: XCTestCase {
    typealias F = LifecycleFixtures
    private let s = LifecycleFixtures.second
    private let ms = LifecycleFixtures.milli

    private func attempt(_ action: TaskLifecycle.Action, file: StaticString = #filePath,
                         line: UInt = #line) throws -> TaskLifecycle.Attempt {
        guard case .transact(let attempt) = action else {
            XCTFail("expected a transaction, got \(action)", file: file, line: line)
            throw XCTSkip("no attempt")
        }
        return attempt
    }

    private func record(_ action: TaskLifecycle.Action, file: StaticString = #filePath,
                        line: UInt = #line) throws -> TaskRecord {
        guard case .finish(let record) = action else {
            XCTFail("expected the task's end, got \(action)", file: file, line: line)
            throw XCTSkip("no record")
        }
        return record
    }

    // MARK: Dead connections

    /// libcurl's resend after a dead connection: the dead attempt is recorded before the resend, the task's retries
    /// count it, and the README's `--retries` budget is left whole (a 503 after it is still retried).
    func testADeadConnectionsResendIsRecordedAndLeavesTheRetryBudget() throws {
        var life = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false,
                                 rules: F.rules { $0.retry = RetryPolicy(maxRetries: 1) })
        _ = life.start(at: 0)
        _ = try XCTUnwrap(life.access("http://a.example/", at: 0))
        var dead = F.transaction(status: nil)
        dead.error = TransferError(errorClass: .network, message: "connection died")
        XCTAssertEqual(life.resent(dead), .none)
        guard case .park = life.end(F.transaction(.retry, status: 503), at: 10 * ms) else {
            return XCTFail("the policy's one retry is still there")
        }
        let retry = try attempt(life.wake(at: 60 * s))
        XCTAssertEqual(retry.kind, .retry)
        _ = try XCTUnwrap(life.access("http://a.example/", at: 60 * s))
        let done = try record(life.end(F.transaction(.retry, status: 200), at: 61 * s))
        XCTAssertEqual(done.transactions.map(\.error?.errorClass), [.network, nil, nil])
        XCTAssertEqual(done.retries, 2, "libcurl's resend and the policy's retry")
        XCTAssertNil(done.error)
    }

    // MARK: Redirects

    /// As `curl -L`: a hop to another origin gets neither the secret headers nor the user info; a hop back to the
    /// first origin gets both again, the user info carried from the task's URL when the Location names none.
    func testRedirectChainDropsCredentialsOnTheCrossOriginHopOnly() throws {
        var life = TaskLifecycle(index: 0, url: "http://user:secret@a.example/start", method: "GET", sendsBody: false,
                                 rules: F.rules())
        XCTAssertEqual(try attempt(life.start(at: 0)).url, "http://user:secret@a.example/start")
        let first = try XCTUnwrap(life.access("http://a.example/start", user: "user", at: 0))
        XCTAssertTrue(first.keepsCredentials)
        XCTAssertEqual(first.userInfo?.user, "user")
        XCTAssertFalse(first.refusesLinkLocal)

        let hop = try attempt(life.end(F.transaction(status: 302), at: 10 * ms, location: "http://b.example:8080/x"))
        XCTAssertEqual(hop, .init(kind: .redirect, url: "http://b.example:8080/x", method: "GET", sendsBody: false))
        let elsewhere = try XCTUnwrap(life.access(hop.url, at: 10 * ms))
        XCTAssertFalse(elsewhere.keepsCredentials, "another host and port: no secret headers")
        XCTAssertNil(elsewhere.userInfo, "and no user info")

        let back = try attempt(life.end(F.transaction(.redirect, status: 301), at: 20 * ms, location: "http://a.example/y"))
        let home = try XCTUnwrap(life.access(back.url, at: 20 * ms))
        XCTAssertTrue(home.keepsCredentials, "back on the first origin")
        XCTAssertEqual(home.userInfo, TargetURL.UserInfo(user: "user", password: "secret"), "the task's user info")

        let done = try record(life.end(F.transaction(.redirect, status: 200), at: 30 * ms))
        XCTAssertEqual(done.redirectCount, 2)
        XCTAssertEqual(done.statusCode, 200)
        XCTAssertNil(done.error)
        XCTAssertEqual(done.transactions.map(\.statusCode), [302, 301, 200])
        XCTAssertEqual(done.transactions.map(\.kind), [.initial, .redirect, .redirect])
        XCTAssertEqual(done.endedAt, F.anchor.wallMicros(ofMonotonic: 30 * ms))
    }

    /// `--location-trusted`: every hop keeps the credentials; a different scheme alone is another origin.
    func testTrustedRedirectsKeepCredentialsAndSchemeChangesTheOrigin() throws {
        var trusted = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false,
                                    rules: F.rules { $0.trustedRedirects = true })
        _ = trusted.start(at: 0)
        _ = trusted.access("http://a.example/", at: 0)
        _ = trusted.end(F.transaction(status: 302), at: 1, location: "http://b.example/")
        XCTAssertEqual(trusted.access("http://b.example/", at: 1)?.keepsCredentials, true)

        var plain = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false, rules: F.rules())
        _ = plain.start(at: 0)
        _ = plain.access("http://a.example/", at: 0)
        _ = plain.end(F.transaction(status: 302), at: 1, location: "https://a.example/")
        XCTAssertEqual(plain.access("https://a.example/", at: 1)?.keepsCredentials, false, "https://a.example:443 is not http://a.example:80")
    }

    /// RFC 9110 §15.4: 303 makes a POST a GET without its body, 307 and 308 keep both, 301 and 302 turn a POST into
    /// a GET (as every browser and curl do).
    func testRedirectStatusesDecideMethodAndBody() throws {
        for (status, method, body) in [(303, "GET", false), (307, "POST", true), (308, "POST", true), (301, "GET", false),
                                       (302, "GET", false)] {
            var life = TaskLifecycle(index: 0, url: "http://a.example/form", method: "POST", sendsBody: true, rules: F.rules())
            _ = life.start(at: 0)
            _ = life.access("http://a.example/form", at: 0)
            let hop = try attempt(life.end(F.transaction(method: "POST", status: status), at: 1, location: "http://a.example/next"))
            XCTAssertEqual(hop.method, method, "\(status)")
            XCTAssertEqual(hop.sendsBody, body, "\(status)")
        }
    }

    /// `--max-redirs N`: the hop past N fails the task on the last 3xx, with the limit named; a 3xx without a
    /// Location, or with redirects off, ends the task with that answer.
    func testRedirectLimitAndUnfollowableAnswers() throws {
        var life = TaskLifecycle(index: 0, url: "http://a.example/0", method: "GET", sendsBody: false,
                                 rules: F.rules { $0.maxRedirects = 1 })
        _ = life.start(at: 0)
        XCTAssertEqual(life.access("http://a.example/0", at: 0)?.followsRedirects, true)
        _ = try attempt(life.end(F.transaction(status: 302), at: 1, location: "http://a.example/1"))
        XCTAssertEqual(life.access("http://a.example/1", at: 1)?.followsRedirects, false, "its 3xx body goes to the sink")
        let over = try record(life.end(F.transaction(.redirect, status: 302), at: 2, location: "http://a.example/2"))
        XCTAssertEqual(over.error?.errorClass, .protocol)
        XCTAssertEqual(over.error?.message, "more than 1 redirects")
        XCTAssertEqual(over.transactions.count, 2)

        var noLocation = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false, rules: F.rules())
        _ = noLocation.start(at: 0)
        _ = noLocation.access("http://a.example/", at: 0)
        let plain = try record(noLocation.end(F.transaction(status: 302), at: 1))
        XCTAssertEqual(plain.statusCode, 302)
        XCTAssertNil(plain.error)

        var off = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false,
                                rules: F.rules { $0.maxRedirects = 0 })
        _ = off.start(at: 0)
        XCTAssertEqual(off.access("http://a.example/", at: 0)?.followsRedirects, false)
        XCTAssertEqual(try record(off.end(F.transaction(status: 301), at: 1, location: "http://a.example/x")).redirectCount, 0)
    }

    /// Only http and https are followed, and a link-local Location is refused before anything connects there (unless
    /// the run allows it); a hop elsewhere in a run that refuses link-local addresses refuses them when resolved.
    func testRefusedLocations() throws {
        var ftp = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false, rules: F.rules())
        _ = ftp.start(at: 0)
        _ = ftp.access("http://a.example/", at: 0)
        let refusedScheme = try record(ftp.end(F.transaction(status: 302), at: 1, location: "ftp://a.example/f"))
        XCTAssertEqual(refusedScheme.error?.errorClass, .protocol)
        XCTAssertTrue(refusedScheme.error?.message.contains("ftp: URL") == true, refusedScheme.error?.message ?? "")
        XCTAssertTrue(refusedScheme.error?.message.hasSuffix("(Location: ftp://a.example/f)") == true)

        let strict = F.rules { $0.allowsLinkLocalRedirects = false }
        var metadata = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false, rules: strict)
        _ = metadata.start(at: 0)
        XCTAssertEqual(metadata.access("http://a.example/", at: 0)?.refusesLinkLocal, false, "the user's own origin")
        let refused = try record(metadata.end(F.transaction(status: 302), at: 1, location: "http://169.254.169.254/latest"))
        XCTAssertTrue(refused.error?.message.contains("link-local") == true)

        var named = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false, rules: strict)
        _ = named.start(at: 0)
        _ = named.access("http://a.example/", at: 0)
        _ = try attempt(named.end(F.transaction(status: 302), at: 1, location: "http://b.example/"))
        XCTAssertEqual(named.access("http://b.example/", at: 1)?.refusesLinkLocal, true, "judged by the address it resolves to")

        var allowed = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false, rules: F.rules())
        _ = allowed.start(at: 0)
        _ = allowed.access("http://a.example/", at: 0)
        _ = try attempt(allowed.end(F.transaction(status: 302), at: 1, location: "http://169.254.169.254/"))
    }

    // MARK: Retries

    /// RFC 9110 §10.2.3: `Retry-After: 2` asks for two seconds; the retry is parked until then, starts once due with
    /// the wait recorded, and its 200 ends the task with one retry and no error.
    func testServiceUnavailableWithRetryAfterThen200() throws {
        var life = TaskLifecycle(index: 3, url: "http://a.example/", method: "GET", sendsBody: false,
                                 rules: F.rules { $0.retry = RetryPolicy(maxRetries: 3) })
        _ = life.start(at: 0)
        _ = life.access("http://a.example/", at: 0)
        XCTAssertEqual(life.end(F.transaction(status: 503), at: 100 * ms, retryAfter: "2"), .park(until: 2100 * ms))
        XCTAssertEqual(life.wakeTime, 2100 * ms)
        XCTAssertEqual(life.wake(at: 2099 * ms), TaskLifecycle.Action.none, "not due yet")
        let retry = try attempt(life.wake(at: 2100 * ms))
        XCTAssertEqual(retry.kind, .retry)
        XCTAssertEqual(retry.retryWait, .init(planned: 2_000_000, requested: 2_000_000))
        XCTAssertNotNil(life.access("http://a.example/", at: 2100 * ms))
        let done = try record(life.end(F.transaction(.retry, status: 200, at: 2100 * ms), at: 2200 * ms))
        XCTAssertEqual(done.index, 3)
        XCTAssertEqual(done.retries, 1)
        XCTAssertEqual(done.statusCode, 200)
        XCTAssertNil(done.error)
        XCTAssertEqual(done.transactions.map(\.statusCode), [503, 200])
        XCTAssertEqual(done.startedAt, F.anchor.wallMicros)
    }

    /// An HTTP-date Retry-After (RFC 9110 §5.6.7, IMF-fixdate) counts from the transaction's end on the wall clock;
    /// one past `--retry-max-wait` is cut to it, and the record keeps what the server asked.
    func testRetryAfterDateAndCap() throws {
        // 2023-11-14T22:13:30Z is ten seconds after the anchor's wall clock.
        var life = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false,
                                 rules: F.rules { $0.retry = RetryPolicy(maxRetries: 2, maxDelay: 30_000_000) })
        _ = life.start(at: 0)
        _ = life.access("http://a.example/", at: 0)
        XCTAssertEqual(life.end(F.transaction(status: 429), at: 0, retryAfter: "Tue, 14 Nov 2023 22:13:30 GMT"),
                       .park(until: 10 * s))
        _ = life.wake(at: 10 * s)
        _ = life.access("http://a.example/", at: 10 * s)
        XCTAssertEqual(life.end(F.transaction(.retry, status: 503), at: 11 * s, retryAfter: "3600"), .park(until: 41 * s))
        XCTAssertEqual(try attempt(life.wake(at: 41 * s)).retryWait, .init(planned: 30_000_000, requested: 3_600_000_000))
    }

    /// `--retries 2`: three 503s end the task on the third with two retries, failed as HTTP 503; the backoff
    /// doubles from `baseDelay` (jitter drawn at its low end: d/2).
    func testRetriesExhausted() throws {
        var life = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false,
                                 rules: F.rules { $0.retry = RetryPolicy(maxRetries: 2, baseDelay: 200_000) })
        _ = life.start(at: 0)
        _ = life.access("http://a.example/", at: 0)
        XCTAssertEqual(life.end(F.transaction(status: 503), at: 0), .park(until: 100 * ms))
        _ = life.wake(at: 100 * ms)
        _ = life.access("http://a.example/", at: 100 * ms)
        XCTAssertEqual(life.end(F.transaction(.retry, status: 503), at: 100 * ms), .park(until: 300 * ms))
        _ = life.wake(at: 300 * ms)
        _ = life.access("http://a.example/", at: 300 * ms)
        let done = try record(life.end(F.transaction(.retry, status: 503), at: 300 * ms))
        XCTAssertEqual(done.retries, 2)
        XCTAssertEqual(done.transactions.map(\.kind), [.initial, .retry, .retry])
        XCTAssertEqual(done.error?.errorClass, .http)
        XCTAssertEqual(done.error?.message, "HTTP status 503 from http://a.example/")
    }

    /// `--retry 5 --retry-max-time 250ms`, as curl's: a retry starts only while less than 250 ms passed since the task
    /// began (its own attempt may run past it); the failure at 260 ms ends the task with one retry of five.
    func testRetryMaxTimeStopsRetries() throws {
        var life = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false,
                                 rules: F.rules { $0.retry = RetryPolicy(maxRetries: 5, baseDelay: 200_000, maxTime: 250_000) })
        _ = life.start(at: 0)
        _ = life.access("http://a.example/", at: 0)
        XCTAssertEqual(life.end(F.transaction(status: 503), at: 0), .park(until: 100 * ms))
        _ = life.wake(at: 100 * ms)
        _ = life.access("http://a.example/", at: 100 * ms)
        let done = try record(life.end(F.transaction(.retry, status: 503), at: 260 * ms))
        XCTAssertEqual(done.retries, 1)
        XCTAssertEqual(done.error?.errorClass, .http)
    }

    /// What is not retried: a 404, a TLS failure, a cancelled transfer; and nothing follows once the run was cancelled.
    func testOutcomesThatAreNotRetried() throws {
        for (status, error) in [(404, nil), (nil, ErrorClass.tls), (nil, .cancelled), (503, nil)] as [(Int?, ErrorClass?)] {
            var life = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false,
                                     rules: F.rules { $0.retry = RetryPolicy(maxRetries: 5) })
            _ = life.start(at: 0)
            _ = life.access("http://a.example/", at: 0)
            let action = life.end(F.transaction(status: status, error: error), at: 0, runCancelled: status == 503)
            XCTAssertEqual(try record(action).retries, 0, "\(String(describing: status)) \(String(describing: error))")
        }
    }

    // MARK: Timeouts

    /// `--idle-timeout 1s` counts only once the connection is ready, from the last byte that moved; the aborted
    /// transfer's idle-timeout failure is transient, so it is retried when retries are left.
    func testIdleTimeoutAfterConnectionReady() throws {
        var life = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false,
                                 rules: F.rules { $0.idleTimeout = 1_000_000; $0.retry = RetryPolicy(maxRetries: 1) })
        _ = life.start(at: 0)
        XCTAssertNil(life.access("http://a.example/", at: 0)?.remainingMicros, "no total timeout")
        let connecting = TaskLifecycle.Activity(connectionReady: false, lastActivity: 0)
        XCTAssertEqual(life.checkTimeouts(at: 60 * s, activity: connecting), TaskLifecycle.Action.none)
        XCTAssertEqual(life.nextTimeout(activity: connecting), .max)
        let ready = TaskLifecycle.Activity(connectionReady: true, lastActivity: 5 * s)
        XCTAssertEqual(life.nextTimeout(activity: ready), 6 * s)
        XCTAssertEqual(life.checkTimeouts(at: 6 * s - 1, activity: ready), TaskLifecycle.Action.none)
        XCTAssertEqual(life.checkTimeouts(at: 6 * s, activity: ready), .abort(.idleTimeout))
        XCTAssertEqual(life.end(F.transaction(status: nil, error: .idleTimeout), at: 6 * s), .park(until: 6 * s + 125 * ms))
    }

    /// `--timeout 10s` bounds the whole task: a transfer past it is aborted, a retry whose wait would end after it
    /// is not scheduled, and a task parked for a retry ends at the deadline with its last answer.
    func testTotalTimeoutInFlightAndWhileParked() throws {
        let rules = F.rules { $0.totalTimeout = 10_000_000; $0.retry = RetryPolicy(maxRetries: 3, baseDelay: 2_000_000) }
        var slow = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false, rules: rules)
        _ = slow.start(at: 1 * s)
        XCTAssertEqual(slow.access("http://a.example/", at: 3 * s)?.remainingMicros, 8_000_000)
        XCTAssertEqual(slow.nextTimeout(activity: .notConnected), 11 * s)
        XCTAssertEqual(slow.checkTimeouts(at: 11 * s - 1), TaskLifecycle.Action.none)
        XCTAssertEqual(slow.checkTimeouts(at: 11 * s), .abort(.totalTimeout))
        let aborted = try record(slow.end(F.transaction(status: nil, error: .totalTimeout), at: 11 * s))
        XCTAssertEqual(aborted.error?.errorClass, .totalTimeout, "no time is left for a retry")

        var life = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false, rules: rules)
        _ = life.start(at: 1 * s)
        _ = life.access("http://a.example/", at: 1 * s)
        // Parked: the wait (1 s, the backoff's low end) ends before the deadline.
        XCTAssertEqual(life.end(F.transaction(status: 503), at: 2 * s), .park(until: 3 * s))
        XCTAssertEqual(life.checkTimeouts(at: 10 * s), TaskLifecycle.Action.none)
        let late = try record(life.checkTimeouts(at: 11 * s))
        XCTAssertEqual(late.error?.errorClass, .http, "the last answer stands")
        XCTAssertEqual(late.endedAt, F.anchor.wallMicros(ofMonotonic: 2 * s), "the task ended with its last transaction")

        var short = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false, rules: rules)
        _ = short.start(at: 0)
        _ = short.access("http://a.example/", at: 0)
        XCTAssertEqual(try record(short.end(F.transaction(status: 503), at: 9500 * ms)).retries, 0,
                       "a 1 s wait would end after the deadline")
        var asked = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false, rules: rules)
        _ = asked.start(at: 0)
        _ = asked.access("http://a.example/", at: 0)
        XCTAssertEqual(try record(asked.end(F.transaction(status: 503), at: 1 * s, retryAfter: "20")).retries, 0)
    }

    /// Cancelling: a transfer in flight is aborted as cancelled, a parked task ends at once.
    func testCancel() throws {
        var life = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false,
                                 rules: F.rules { $0.retry = RetryPolicy(maxRetries: 1) })
        _ = life.start(at: 0)
        _ = life.access("http://a.example/", at: 0)
        XCTAssertEqual(life.cancel(at: 1), .abort(.cancelled))
        XCTAssertEqual(life.end(F.transaction(status: 503), at: 2), .park(until: 2 + 125 * ms))
        XCTAssertEqual(try record(life.cancel(at: 3)).retries, 1)
        XCTAssertEqual(life.state, .finished)
    }

    /// A transaction that could not start is recorded, failed, with the attempt's kind, URL and method.
    func testStartFailureIsRecorded() throws {
        var life = TaskLifecycle(index: 0, url: "http://a.example/", method: "PUT", sendsBody: true, rules: F.rules())
        _ = life.start(at: 0)
        let done = try record(life.startFailed(TransferError(errorClass: .protocol, message: "malformed URL"), at: 5 * ms))
        XCTAssertEqual(done.transactions.count, 1)
        XCTAssertEqual(done.transactions[0].kind, .initial)
        XCTAssertEqual(done.transactions[0].method, "PUT")
        XCTAssertEqual(done.error?.message, "malformed URL")
        XCTAssertEqual(done.transactions[0].timeline.fetchStart, F.anchor.wallMicros(ofMonotonic: 5 * ms))
    }
}
