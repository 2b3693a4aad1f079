import Dispatch
import Foundation
import Synchronization

/// Turns SIGINT and SIGTERM into one call of a handler, so that a run ends cleanly and its report is written.
///
/// The signals arrive through dispatch signal sources (not a C handler); the trap is `Sendable` because its only
/// mutable state sits behind a `Mutex`. The sources are cancelled when the trap goes away.
final class SignalTrap: Sendable {
    private let didFire = Atomic<Bool>(false)
    private let sources: Mutex<[any DispatchSourceSignal]>

    /// The first signal any trap of this process caught (0: none), for the exit code: SIGINT 130, SIGTERM 143.
    static let caught = Atomic<Int32>(0)

    /// Installs the trap; `handler` runs once, on the first signal.
    init(handler: @escaping @Sendable () -> Void) {
        sources = Mutex([])
        sources.withLock { sources in
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { [weak self] in
                    guard let self, !self.didFire.exchange(true, ordering: .acquiringAndReleasing) else { return }
                    _ = Self.caught.compareExchange(expected: 0, desired: number, ordering: .relaxed)
                    handler()
                }
                source.resume()
                sources.append(source)
            }
        }
    }

    deinit {
        sources.withLock { $0.forEach { $0.cancel() } }
    }

    /// True once a signal arrived.
    var fired: Bool { didFire.load(ordering: .acquiring) }

    /// Waits until SIGINT or SIGTERM arrives (for the servers, which run until then).
    static func wait() async {
        let stopped = AsyncStream<Void>.makeStream()
        let trap = SignalTrap { stopped.continuation.yield() }
        for await _ in stopped.stream { break }
        withExtendedLifetime(trap) {}
    }
}
