import Dispatch
import Foundation
import Synchronization

/// Turns SIGINT and SIGTERM into one call of a handler, so that a run ends cleanly and its report is written.
final class SignalTrap: @unchecked Sendable {
    private let lock = NSLock()
    private var didFire = false
    private var sources: [DispatchSourceSignal] = []

    /// The first signal any trap of this process caught (0: none), for the exit code: SIGINT 130, SIGTERM 143.
    static let caught = Atomic<Int32>(0)

    /// Installs the trap; `handler` runs once, on the first signal.
    init(handler: @escaping @Sendable () -> Void) {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self else { return }
                self.lock.lock()
                let first = !self.didFire
                self.didFire = true
                self.lock.unlock()
                if first {
                    _ = Self.caught.compareExchange(expected: 0, desired: number, ordering: .relaxed)
                    handler()
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// True once a signal arrived.
    var fired: Bool {
        lock.lock()
        defer { lock.unlock() }
        return didFire
    }
}
