import Synchronization

/// The HTTP answers being computed or written right now, so that `serve` lets them finish before it shuts its event
/// loop down (an answer is then whole or absent, never half-written).
final class AnswerCount: Sendable {
    private let count = Mutex(0)

    /// An answer started.
    func begin() { count.withLock { $0 += 1 } }

    /// An answer was written (or its connection went away).
    func end() { count.withLock { $0 -= 1 } }

    /// True when no answer is under way.
    var idle: Bool { count.withLock { $0 == 0 } }
}
