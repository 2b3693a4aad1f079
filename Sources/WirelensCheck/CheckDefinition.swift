import WirelensCore

/// One configured check: what to request, with which options, how often, and what must hold.
package struct CheckDefinition: Sendable, Equatable {
    /// The check's unique name (a Prometheus label value and the history key).
    package var name: String
    package var url: String
    package var method: String
    package var body: BodySource
    /// The engine options: headers (with environment secrets substituted), timeouts, TLS, HTTP version, retries.
    package var options: ProbeOptions
    /// How often `serve` runs it, in µs (`every:`); nil for the default.
    package var every: Int64?
    /// Keep the connection pool between rounds (`keep_alive: true`); by default every round opens fresh
    /// connections, so connect and TLS are measured each time.
    package var keepAlive: Bool
    /// The assertions, in configuration order.
    package var expectations: [Expectation]
    /// The configuration line the check starts on.
    package var line: Int
    /// Follow redirects into link-local addresses (`allow_link_local_redirects: true`); by default a check refuses
    /// them, and the refusal is its failure (see `engineOptions`).
    package var allowsLinkLocalRedirects: Bool
    /// The bounds of its histograms' buckets under `serve`, µs (`buckets:`).
    package var buckets: [Int64]

    /// The interval of a check without `every:`.
    package static let defaultInterval: Int64 = 60_000_000

    package init(name: String, url: String, method: String, body: BodySource, options: ProbeOptions, every: Int64?,
                keepAlive: Bool, expectations: [Expectation], line: Int, allowsLinkLocalRedirects: Bool = false,
                buckets: [Int64] = Histogram.defaultBounds) {
        self.name = name
        self.url = url
        self.method = method
        self.body = body
        self.options = options
        self.every = every
        self.keepAlive = keepAlive
        self.expectations = expectations
        self.line = line
        self.allowsLinkLocalRedirects = allowsLinkLocalRedirects
        self.buckets = buckets
    }

    /// How often `serve` runs it, µs: `every:`, else the default or its timeout, whichever is longer (a run never
    /// outlasts its interval for want of one).
    package var interval: Int64 { every ?? max(Self.defaultInterval, options.totalTimeout ?? 0) }

    /// The options the check's task runs with: its own, with redirects into link-local addresses refused unless
    /// the check allows them (an exporter that follows a server's redirect to 169.254.169.254 reads cloud metadata),
    /// and connections reused only with `keep_alive: true` (else each run opens a fresh one and closes it after).
    package var engineOptions: ProbeOptions {
        var options = self.options
        options.allowsLinkLocalRedirects = allowsLinkLocalRedirects
        options.reuseConnections = keepAlive
        return options
    }

    /// The probe task the check runs: the response body is kept in memory, its first `bodyLimit` bytes, when an
    /// assertion reads it, and discarded otherwise.
    package func taskSpec(bodyLimit: Int) -> TaskSpec {
        TaskSpec(url: url, method: method, body: body, response: readsBody ? .memory(limit: bodyLimit) : .discard)
    }

    /// True when an assertion needs the response body.
    package var readsBody: Bool {
        expectations.contains { if case .bodyContains = $0 { true } else { false } }
    }

    /// The days the certificate must stay valid, when asserted.
    package var certificateDays: Int? {
        for case .certificateDays(let days) in expectations { return days }
        return nil
    }
}
