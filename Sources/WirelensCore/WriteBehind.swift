/// Hands values to a consumer that runs on a thread of its own, so that writing a report (encoding and I/O)
/// overlaps the work that produces its parts.
///
/// Values are consumed in the order they were added. They cross to the consuming thread in batches of about
/// `batchWeight` (each value weighs what `weight` says): one hand-off, and at most one wake-up of the other
/// thread, per batch rather than per value. The first error the consumer throws stops the consuming (later
/// values are dropped) and is thrown by `finish`, which waits until everything added before it has been
/// consumed. `add` and `finish` are for one producing thread.
public final class WriteBehind<Element>: @unchecked Sendable {
    private let queue: HandOffQueue<[Element]>
    private var thread: BackgroundThread?
    private let outcome = Outcome()
    private let weight: (Element) -> Int
    private let batchWeight: Int
    /// The batch being gathered (producer side only).
    private var pending: [Element] = []
    private var pendingWeight = 0

    /// Starts the consuming thread. At most `capacity` batches wait for it (the producer then waits), so what
    /// is held stays near `(capacity + 2) × batchWeight`.
    public init(name: String, capacity: Int = 4, batchWeight: Int = 1, weight: @escaping (Element) -> Int = { _ in 1 },
                consume: @escaping (Element) throws -> Void) {
        let queue = HandOffQueue<[Element]>(capacity: capacity)
        self.queue = queue
        self.weight = weight
        self.batchWeight = max(1, batchWeight)
        let unchecked = UncheckedConsumer(consume)
        let outcome = self.outcome
        thread = BackgroundThread(name: name) {
            while let batch = queue.take() {
                for value in batch {
                    guard outcome.failure == nil else { break }
                    do { try unchecked.consume(value) } catch { outcome.failure = error }
                }
            }
        }
    }

    /// Adds `value` to the batch being gathered, handing the batch over once it weighs `batchWeight` (waiting
    /// while `capacity` batches already wait).
    public func add(_ value: Element) {
        pending.append(value)
        pendingWeight += weight(value)
        if pendingWeight >= batchWeight { handOver() }
    }

    /// Waits until every value added has been consumed; throws the consumer's first error.
    public func finish() throws {
        handOver()
        queue.close()
        thread?.join()
        thread = nil
        if let failure = outcome.failure { throw failure }
    }

    private func handOver() {
        guard !pending.isEmpty else { return }
        queue.put(pending)
        pending = []
        pendingWeight = 0
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
