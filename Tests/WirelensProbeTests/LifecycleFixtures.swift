import WirelensCore
@testable import WirelensProbe

/// Shared pieces of the lifecycle tests: instants, rules, transactions as a transfer would record them, and a
/// random source whose draws are known.
enum LifecycleFixtures {
    /// The wall clock at monotonic instant 0: 2023-11-14T22:13:20Z.
    static let anchor = ClockAnchor(wallMicros: 1_700_000_000_000_000, monotonicNanos: 0)
    static let second: Int64 = 1_000_000_000
    static let milli: Int64 = 1_000_000

    static func rules(_ configure: (inout LifecycleRules) -> Void = { _ in }) -> LifecycleRules {
        var rules = LifecycleRules(anchor: anchor)
        configure(&rules)
        return rules
    }

    /// A transaction that ended with `status` (or with `error` and no status).
    static func transaction(_ kind: TransactionKind = .initial, url: String = "http://a.example/", method: String = "GET",
                            status: Int? = 200, error: ErrorClass? = nil, at start: Int64 = 0) -> TransactionMetrics {
        var m = TransactionMetrics(kind: kind, url: url, method: method,
                                   timeline: Timeline(fetchStart: anchor.wallMicros(ofMonotonic: start)),
                                   phases: Phases(total: 0), reusedConnection: false, proxyConnection: false,
                                   curlTimers: CurlTimers())
        m.statusCode = status
        if let error { m.error = TransferError(errorClass: error, message: "\(error)") }
        return m
    }

    static func origin(_ url: String) -> Origin {
        let parts = url.split(separator: "/", omittingEmptySubsequences: true)
        let scheme = String(parts[0].dropLast())
        var authority = Substring(parts[1])
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            return Origin(scheme: scheme, host: String(authority[..<colon]), port: Int(authority[authority.index(after: colon)...]))
        }
        return Origin(scheme: scheme, host: String(authority), port: nil)
    }
}

/// A random source that always draws the same 64 bits: `unit` 0 gives the shortest backoff (d/2).
struct FixedRandom: RandomNumberGenerator {
    var value: UInt64 = 0
    mutating func next() -> UInt64 { value }
}

extension TaskLifecycle {
    /// `ended` with a fixed random draw.
    mutating func end(_ metrics: TransactionMetrics, at end: Int64, location: String? = nil, origin: Origin? = nil,
                      retryAfter: String? = nil, runCancelled: Bool = false) -> Action {
        var random = FixedRandom()
        return ended(metrics, at: end, location: location.map { Location(url: $0, origin: origin ?? LifecycleFixtures.origin($0)) },
                     retryAfter: retryAfter, runCancelled: runCancelled, random: &random)
    }

    /// The access `resolve` grants, or nil when it answered anything else.
    mutating func access(_ url: String, user: String? = nil, at now: Int64) -> Access? {
        let info = user.map { TargetURL.UserInfo(user: $0, password: "secret") }
        if case .send(let access) = resolve(origin: LifecycleFixtures.origin(url), userInfo: info, at: now) { return access }
        return nil
    }
}
