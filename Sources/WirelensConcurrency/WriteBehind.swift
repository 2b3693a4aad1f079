import Synchronization

/// Hands values to a consumer that runs on a thread of its own, so that writing a report (encoding and I/O)
/// overlaps the work that produces its parts.
///
/// Values are consumed in the order they were added. They cross to the consuming thread in batches of about
/// `batchWeight` (each value weighs what `weight` says): one hand-off, and at most one wake-up of the other
/// thread, per batch rather than per value. The first error the consumer throws stops the consuming (later
/// values are dropped) and is thrown by `finish`, which waits until everything added before it has been
/// consumed. `add` may be called from any thread, one at a time (a producing loop).
///
/// The consumer closure runs only on the consuming thread, between `init` and the return of `finish` (or of
/// `deinit`): what it captures belongs to that thread meanwhile, and to the caller again once `finish` returned.
package final class WriteBehind<Element: Sendable>: Sendable {
    /// The batch being gathered.
    @usableFromInline
    struct Pending {
        @usableFromInline var values: [Element] = []
        @usableFromInline var weight = 0

        @usableFromInline init() {}

        /// A batch with room for `count` values: as many as the last one held, so that gathering the next one does
        /// not grow its array step by step (each step a copy of the values so far).
        @usableFromInline init(reserving count: Int) {
            values.reserveCapacity(count)
        }
    }

    // `add` is inlinable, so that the producer's module specialises it for its element type (called once per
    // value, it would otherwise go through the generic value witnesses and metadata on every call).
    @usableFromInline let queue: HandOffQueue<[Element]>
    private let thread: BackgroundThread<(any Error)?>
    @usableFromInline let pending = Mutex(Pending())
    @usableFromInline let weight: @Sendable (Element) -> Int
    @usableFromInline let batchWeight: Int

    /// Starts the consuming thread. At most `capacity` batches wait for it (the producer then waits), so what
    /// is held stays near `(capacity + 2) × batchWeight`.
    package init(name: String, capacity: Int = 4, batchWeight: Int = 1,
                weight: @escaping @Sendable (Element) -> Int = { _ in 1 },
                consume: @escaping (Element) throws -> Void) {
        let queue = HandOffQueue<[Element]>(capacity: capacity)
        self.queue = queue
        self.weight = weight
        self.batchWeight = max(1, batchWeight)
        let consumer = Consumer(consume)
        thread = BackgroundThread(name: name) {
            var failure: (any Error)?
            while let batch = queue.take() {
                guard failure == nil else { continue }  // keep taking, so that the producer never waits for ever
                for value in batch {
                    do { try consumer.consume(value) } catch {
                        failure = error
                        break
                    }
                }
            }
            return failure
        }
    }

    /// Adds `value` to the batch being gathered, handing the batch over once it weighs `batchWeight` (waiting
    /// while `capacity` batches already wait).
    @inlinable
    package func add(_ value: Element) {
        let weight = weight(value)
        let full = pending.withLock { pending -> [Element]? in
            pending.values.append(value)
            pending.weight += weight
            guard pending.weight >= batchWeight else { return nil }
            defer { pending = Pending(reserving: pending.values.count) }
            return pending.values
        }
        if let full { queue.put(full) }
    }

    /// Waits until every value added has been consumed; throws the consumer's first error.
    package func finish() throws {
        let rest = pending.withLock { pending -> [Element] in
            defer { pending = Pending() }
            return pending.values
        }
        if !rest.isEmpty { queue.put(rest) }
        queue.close()
        if let failure = thread.join() ?? nil { throw failure }
    }

    deinit {
        queue.close()
        thread.join()
    }

    /// The consumer closure on its way to the consuming thread.
    ///
    /// `@unchecked Sendable` (the one in the tree's concurrency primitives) because the closure may capture state
    /// that is not `Sendable` (a JSON stream, the probe's task order). It is safe because the closure is called
    /// only by the consuming thread: that thread starts after `init` stored it (`Thread.start` orders the store
    /// before the thread's first read), and `finish` and `deinit` return only after `BackgroundThread.join`
    /// has waited on the semaphore the thread signals after its last call, so the caller's later uses of the
    /// captured state are ordered after the consumer's. The caller's side of the contract, stated on the type:
    /// leave what the closure captures alone from `init` until `finish` returns.
    private struct Consumer: @unchecked Sendable {
        let consume: (Element) throws -> Void
        init(_ consume: @escaping (Element) throws -> Void) { self.consume = consume }
    }
}
