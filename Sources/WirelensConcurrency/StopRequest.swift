import Synchronization

/// A request to stop a long loop early, made from any thread (a signal handler's) and polled by the loop.
public final class StopRequest: Sendable {
    private let requested = Atomic<Bool>(false)

    public init() {}

    /// Asks the loop to stop; it notices at its next check.
    public func request() {
        requested.store(true, ordering: .releasing)
    }

    /// True once `request` was called.
    public var isRequested: Bool {
        requested.load(ordering: .acquiring)
    }
}
