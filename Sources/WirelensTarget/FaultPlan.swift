/// The faults of one request: from the server's flags, overridden by the query (`reset_after`, `stall`,
/// `status`, `retry_after`, `pause_after`, `pause`, `fail_first`, `fail_complete`, `wrong_digest`).
package struct FaultPlan: Sendable, Equatable {
    /// Reset the connection (RST) once this many bytes have moved: request-body bytes read when the request has
    /// a body, otherwise response bytes sent, counted in resource offsets for `/bytes`.
    package var resetAfter: Int64?
    /// Wait this long (microseconds) after the request before answering.
    package var stallMicros: Int64 = 0
    /// Answer this status (after consuming the body) instead of the resource.
    package var status: Int?
    /// The Retry-After value (seconds) sent with `status`.
    package var retryAfter: Int?
    /// Pause the response body for `pauseMicros` once this many body bytes were sent (a server stalling mid-body).
    package var pauseAfter: Int64?
    /// How long the mid-body pause lasts, in microseconds (1 s unless `pause` says otherwise).
    package var pauseMicros: Int64 = 1_000_000
    /// Answer the first this many requests with the same request target (path and query) with 503, then as
    /// usual: a flaky server that recovers (with Retry-After when `retryAfter` is given).
    package var failFirst = 0
    /// Answer the first this many complete calls of each upload with 503 (a complete call failing in passing).
    package var failComplete = 0
    /// The complete call answers a SHA-256 that is not the assembled file's (the client's check must catch it).
    package var wrongDigest = false

    package init(resetAfter: Int64? = nil, stallMicros: Int64 = 0, status: Int? = nil, retryAfter: Int? = nil,
                failComplete: Int = 0, wrongDigest: Bool = false) {
        self.resetAfter = resetAfter
        self.stallMicros = stallMicros
        self.status = status
        self.retryAfter = retryAfter
        self.failComplete = failComplete
        self.wrongDigest = wrongDigest
    }

    /// This plan with the query's fault parameters applied; other parameters are ignored.
    package func applying(query: [(String, String)]) -> Result<FaultPlan, TargetFailure> {
        do {
            return .success(try parsing(query))
        } catch {
            return .failure(error)
        }
    }

    private func parsing(_ query: [(String, String)]) throws(TargetFailure) -> FaultPlan {
        var plan = self
        for (name, value) in query {
            switch name {
            case "reset_after": plan.resetAfter = try Self.bytes(name, value, example: 65536)
            case "pause_after": plan.pauseAfter = try Self.bytes(name, value, example: 100)
            case "stall": plan.stallMicros = try Self.micros(name, value)
            case "pause": plan.pauseMicros = try Self.micros(name, value)
            case "status":
                guard let code = Int(value), (200...599).contains(code) else {
                    throw .badRequest("status=\(value) is not a final status from 200 to 599")
                }
                plan.status = code
            case "retry_after":
                guard let seconds = Int(value), seconds >= 0 else {
                    throw .badRequest("retry_after=\(value) is not a whole number of seconds")
                }
                plan.retryAfter = seconds
            case "fail_first": plan.failFirst = try Self.count(name, value, of: "requests")
            case "fail_complete": plan.failComplete = try Self.count(name, value, of: "complete calls")
            case "wrong_digest":
                guard value == "1" || value == "0" else { throw .badRequest("wrong_digest=\(value) is not 1 or 0") }
                plan.wrongDigest = value == "1"
            default:
                continue
            }
        }
        return plan
    }

    /// A byte count.
    private static func bytes(_ name: String, _ value: String, example: Int) throws(TargetFailure) -> Int64 {
        guard let n = ByteRangeRequest.digits(value) else {
            throw .badRequest("\(name)=\(value) is not a byte count; write e.g. \(name)=\(example)")
        }
        return n
    }

    /// Seconds from 0 to 3600, in microseconds.
    private static func micros(_ name: String, _ value: String) throws(TargetFailure) -> Int64 {
        guard let seconds = Double(value), seconds >= 0, seconds <= 3600 else {
            throw .badRequest("\(name)=\(value) is not a number of seconds from 0 to 3600")
        }
        return Int64(seconds * 1e6)
    }

    /// A count from 0 to 1000.
    private static func count(_ name: String, _ value: String, of what: String) throws(TargetFailure) -> Int {
        guard let count = Int(value), (0...1000).contains(count) else {
            throw .badRequest("\(name)=\(value) is not a number of \(what) from 0 to 1000")
        }
        return count
    }
}
