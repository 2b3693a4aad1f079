import Foundation

/// A thread running one closure, which the starting thread can wait for (`join`).
///
/// For pipeline stages that must run beside a synchronous loop (the capture's read-ahead, the report's
/// write-behind); the closure's captured state is the caller's to protect, typically through `HandOffQueue`s.
public final class BackgroundThread: @unchecked Sendable {
    private let finished = HandOffQueue<Bool>(capacity: 1)
    private var joined = false

    /// Starts `body` on a new thread named `name`.
    public init(name: String, _ body: @escaping @Sendable () -> Void) {
        let finished = self.finished
        let thread = Thread {
            body()
            finished.put(true)
            finished.close()
        }
        thread.name = name
        thread.start()
    }

    /// Waits until the closure has returned (at once if it already has). Call from one thread only.
    public func join() {
        guard !joined else { return }
        joined = true
        _ = finished.take()
    }
}
