import Synchronization

/// Tells a pipe body's reader, waiting on the engine's loop thread for its writer, that the run was cancelled: the
/// loop cannot read its inbox while it waits, so `Engine.cancel()` raises this flag as well.
final class PipeStop: Sendable {
    private let raised = Atomic<Bool>(false)

    /// Raises the flag (any thread).
    func raise() { raised.store(true, ordering: .releasing) }

    /// True once the run was cancelled.
    var isRaised: Bool { raised.load(ordering: .acquiring) }
}
