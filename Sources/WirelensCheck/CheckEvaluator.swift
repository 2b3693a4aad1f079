import WirelensCore

/// Holds a task's record against a check's assertions: a pure function, one result per assertion.
package enum CheckEvaluator {
    /// What the evaluation needs beyond the record: the response body (when asserted) and the certificate's expiry.
    package struct Extras: Sendable, Equatable {
        /// The start of the response body, when an assertion reads it.
        package var body: String?
        /// When the server's certificate expires (µs since the epoch), when known.
        package var certificateExpiry: Int64?
        /// Why the certificate's expiry is unknown, when it is.
        package var certificateProblem: String?
        /// Now, in µs since the epoch (for the certificate's days left).
        package var now: Int64

        package init(body: String? = nil, certificateExpiry: Int64? = nil, certificateProblem: String? = nil, now: Int64) {
            self.body = body
            self.certificateExpiry = certificateExpiry
            self.certificateProblem = certificateProblem
            self.now = now
        }
    }

    /// One result per expectation, in order.
    package static func evaluate(_ expectations: [Expectation], record: TaskRecord, extras: Extras) -> [AssertionResult] {
        expectations.map { evaluate($0, record: record, extras: extras) }
    }

    /// The result of one expectation.
    package static func evaluate(_ expectation: Expectation, record: TaskRecord, extras: Extras) -> AssertionResult {
        let name = expectation.name
        let last = record.transactions.last
        func result(_ passed: Bool, _ measured: String, _ limit: String) -> AssertionResult {
            AssertionResult(name: name, passed: passed, measured: measured, limit: limit)
        }
        switch expectation {
        case .succeeded:
            if let error = record.error {
                return result(false, "\(error.errorClass.rawValue): \(error.message)", "no error, status below 400")
            }
            return result(true, record.statusCode.map(String.init) ?? "ok", "no error, status below 400")
        case .status(let codes):
            let limit = codes.count == 1 ? "\(codes[0])" : "one of \(codes.map(String.init).joined(separator: ", "))"
            guard let status = record.statusCode else {
                return result(false, record.error.map { "no response (\($0.errorClass.rawValue): \($0.message))" }
                    ?? "no response", limit)
            }
            if (300..<400).contains(status), let error = record.error {
                // The task ended on a redirect it could not follow (refused, or too many): that is why it failed.
                return result(false, "\(status), not followed: \(error.errorClass.rawValue): \(error.message)", limit)
            }
            return result(codes.contains(status), "\(status)", limit)
        case .maxPhase(let phase, let max):
            let limit = "max \(DurationText.format(micros: max))"
            guard let value = phase.measure(record) else {
                // A connection phase that did not happen (reuse, an IP literal, http://) took no time; without a
                // response the task failed before or during it.
                let passed = phase != .ttfb && record.statusCode != nil
                return result(passed, passed ? "did not happen" : "no response", limit)
            }
            return result(value <= max, DurationText.format(micros: value), limit)
        case .minUploadThroughput(let min):
            let limit = "min \(ByteSize.formatRate(min))"
            guard let speed = last?.uploadSpeed else { return result(false, "no upload measured", limit) }
            return result(speed >= min, ByteSize.formatRate(speed), limit)
        case .minDownloadThroughput(let min):
            let limit = "min \(ByteSize.formatRate(min))"
            guard let speed = last?.downloadSpeed else { return result(false, "no download measured", limit) }
            return result(speed >= min, ByteSize.formatRate(speed), limit)
        case .reuseRequired:
            guard let last else { return result(false, "no transaction", "reused connection") }
            return result(last.reusedConnection, last.reusedConnection ? "reused" : "new connection", "reused connection")
        case .maxRetries(let max):
            return result(record.retries <= max, "\(record.retries)", "max \(max)")
        case .certificateDays(let days):
            let limit = "valid for at least \(days) days"
            guard let expiry = extras.certificateExpiry else {
                return result(false, extras.certificateProblem ?? "no certificate", limit)
            }
            let left = Double(expiry - extras.now) / 86_400e6
            return result(left >= Double(days), "\(Format.fixed(left, digits: 1)) days left", limit)
        case .bodyContains(let text):
            let limit = "contains '\(text)'"
            guard let body = extras.body else { return result(false, "no body", limit) }
            return result(body.contains(text), body.contains(text) ? "found" : "not found", limit)
        }
    }
}
