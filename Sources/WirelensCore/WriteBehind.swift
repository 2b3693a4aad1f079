/// Hands values to a consumer that runs on a thread of its own, so that writing a report (encoding and I/O)
/// overlaps the work that produces its parts.
///
/// Values are consumed in the order they were added. The first error the consumer throws stops the
/// consuming (later values are dropped) and is thrown by `finish`, which waits until everything added before it
/// has been consumed.
public final class WriteBehind<Element>: @unchecked Sendable {
    private let queue: HandOffQueue<Element>
    private var thread: BackgroundThread?
    private let outcome = Outcome()

    /// Starts the consuming thread; at most `capacity` values wait for it (the producer then waits).
    public init(name: String, capacity: Int = 64, consume: @escaping (Element) throws -> Void) {
        let queue = HandOffQueue<Element>(capacity: capacity)
        self.queue = queue
        let unchecked = UncheckedConsumer(consume)
        let outcome = self.outcome
        thread = BackgroundThread(name: name) {
            while let value = queue.take() {
                guard outcome.failure == nil else { continue }
                do { try unchecked.consume(value) } catch { outcome.failure = error }
            }
        }
    }

    /// Queues `value` for the consumer (waiting while `capacity` values already wait).
    public func add(_ value: Element) {
        queue.put(value)
    }

    /// Waits until every value added has been consumed; throws the consumer's first error.
    public func finish() throws {
        queue.close()
        thread?.join()
        thread = nil
        if let failure = outcome.failure { throw failure }
    }

    deinit {
        queue.close()
        thread?.join()
    }

    /// The consumer's first error: set by the consuming thread, read after it is joined.
    private final class Outcome: @unchecked Sendable {
        var failure: Error?
    }

    /// The consumer, which only the consuming thread calls.
    private struct UncheckedConsumer: @unchecked Sendable {
        let consume: (Element) throws -> Void
        init(_ consume: @escaping (Element) throws -> Void) { self.consume = consume }
    }
}
