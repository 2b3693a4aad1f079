import WirelensCore

/// The run-wide rules every task's lifecycle follows: redirects, retries and timeouts, taken from the run's options.
///
/// Trivial fields only, so that each task's `TaskLifecycle` holds its own copy for nothing.
struct LifecycleRules: Sendable, Equatable {
    /// Redirects followed, one transaction each; 0 follows none.
    var maxRedirects: Int
    /// Every hop gets the credentials (`--location-trusted`), not only those to the task's first origin.
    var trustedRedirects: Bool
    /// Hops to link-local addresses are followed.
    var allowsLinkLocalRedirects: Bool
    /// The statuses of 301, 302 and 303 after which a POST body stays a POST (`ProbeOptions.keepsPostAfter`).
    var keepsPostAfter: Set<Int> = []
    var retry: RetryPolicy
    /// µs without a moved byte, once a connection is ready, after which a transfer fails; nil: no limit.
    var idleTimeout: Int64?
    /// µs a whole task may take, retries and their waits included; nil: no limit.
    var totalTimeout: Int64?
    /// True when transfers go through a proxy (recorded on every transaction).
    var throughProxy: Bool
    /// Turns the monotonic instants events carry into wall-clock time (records, Retry-After dates).
    var anchor: ClockAnchor

    init(maxRedirects: Int = 10, trustedRedirects: Bool = false, allowsLinkLocalRedirects: Bool = true,
         retry: RetryPolicy = RetryPolicy(), idleTimeout: Int64? = nil, totalTimeout: Int64? = nil,
         throughProxy: Bool = false, anchor: ClockAnchor) {
        self.maxRedirects = maxRedirects
        self.trustedRedirects = trustedRedirects
        self.allowsLinkLocalRedirects = allowsLinkLocalRedirects
        self.retry = retry
        self.idleTimeout = idleTimeout
        self.totalTimeout = totalTimeout
        self.throughProxy = throughProxy
        self.anchor = anchor
    }

    /// The rules of a run with these options.
    init(options: ProbeOptions, anchor: ClockAnchor) {
        self.init(maxRedirects: options.maxRedirects, trustedRedirects: options.trustedRedirects,
                  allowsLinkLocalRedirects: options.allowsLinkLocalRedirects, retry: options.retry,
                  idleTimeout: options.idleTimeout, totalTimeout: options.totalTimeout,
                  throughProxy: options.proxy != nil, anchor: anchor)
        keepsPostAfter = options.keepsPostAfter
    }

    /// True when transfers must be watched for a timeout at all.
    var hasTimeouts: Bool { idleTimeout != nil || totalTimeout != nil }

    /// The failure of a transfer the engine aborted (`TaskLifecycle.Action.abort`), naming the limit it passed.
    func abortError(_ reason: ErrorClass) -> TransferError {
        let message: String
        switch reason {
        case .idleTimeout:
            message = "no byte moved for \(DurationText.format(micros: idleTimeout ?? 0)) (idle timeout)"
        case .totalTimeout:
            message = "the task took longer than \(DurationText.format(micros: totalTimeout ?? 0)) (total timeout)"
        default:
            message = "cancelled"
        }
        return TransferError(errorClass: reason, message: message)
    }
}
