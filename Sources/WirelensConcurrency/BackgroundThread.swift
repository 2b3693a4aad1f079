import Dispatch
import Foundation
import Synchronization

/// A thread running one closure, whose result the starting thread collects when it waits for it (`join`).
///
/// For pipeline stages that run beside a synchronous loop (the capture's read-ahead, the report's write-behind,
/// a live capture's read loop). The closure is `@Sendable`; what it needs and does not share (a libpcap handle,
/// buffers) goes in as its `input`, given up by the caller (`sending`), and what it hands back comes out of
/// `join` the same way, so the owning thread is the only one that can touch it meanwhile.
package final class BackgroundThread<Result>: Sendable {
    private let outcome: Mutex<Parcel<Result>?> = Mutex(nil)
    private let finished = DispatchSemaphore(value: 0)
    private let joined = Mutex(false)

    /// Starts `body` on a new thread named `name`.
    package convenience init(name: String, _ body: @escaping @Sendable () -> sending Result) {
        self.init(name: name, input: ()) { _ in body() }
    }

    /// Starts `body` on a new thread named `name`, handing it `input`.
    package init<Input>(name: String, input: sending Input,
                       _ body: @escaping @Sendable (sending Input) -> sending Result) {
        let parcel = Parcel(input)
        let thread = Thread { [self] in
            // The parcel is taken once, by this thread only.
            guard let input = parcel.take() else { return }
            let result = Parcel(body(input))
            outcome.withLock { $0 = result }
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Waits until the closure has returned (at once if it already has) and returns its result; nil when the
    /// thread was joined before.
    @discardableResult
    package func join() -> sending Result? {
        let first = joined.withLock { joined -> Bool in
            defer { joined = true }
            return !joined
        }
        guard first else { return nil }
        finished.wait()
        return outcome.withLock { $0 }?.take()
    }
}
