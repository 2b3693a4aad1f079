import Synchronization

/// A request to stop a long loop early, made from any thread (a signal handler's) and polled by the loop.
package final class StopRequest: Sendable {
    private let requested = Atomic<Bool>(false)

    package init() {}

    /// Asks the loop to stop; it notices at its next check.
    package func request() {
        requested.store(true, ordering: .releasing)
    }

    /// True once `request` was called.
    package var isRequested: Bool {
        requested.load(ordering: .acquiring)
    }
}
