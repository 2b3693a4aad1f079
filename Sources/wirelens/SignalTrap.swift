import Dispatch
import Foundation

/// Turns SIGINT and SIGTERM into one call of a handler, so that a run ends cleanly and its report is written.
final class SignalTrap: @unchecked Sendable {
    private let lock = NSLock()
    private var didFire = false
    private var sources: [DispatchSourceSignal] = []

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
                if first { handler() }
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
