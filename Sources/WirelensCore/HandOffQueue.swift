import Foundation

/// A bounded first-in first-out queue that hands values from one thread to another, blocking the sender while
/// it is full and the receiver while it is empty.
///
/// It is how a stage of a pipeline runs on a thread of its own (the capture reader reading ahead, the report
/// writer writing behind): the bound keeps memory flat when one side is faster. Closing it ends the stream:
/// `take` returns what is left, then nil; `put` after a close drops the value and returns false.
public final class HandOffQueue<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Element?]
    private var head = 0
    private var count = 0
    private var closed = false

    /// A queue holding at most `capacity` values (at least 1).
    public init(capacity: Int) {
        items = Array(repeating: nil, count: max(1, capacity))
    }

    /// Appends `value`, waiting while the queue is full; false (and the value dropped) once the queue is closed.
    @discardableResult
    public func put(_ value: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while count == items.count && !closed { condition.wait() }
        guard !closed else { return false }
        items[(head + count) % items.count] = value
        count += 1
        condition.broadcast()
        return true
    }

    /// Removes the oldest value, waiting while the queue is empty and open; nil once it is closed and empty.
    public func take() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while count == 0 && !closed { condition.wait() }
        guard count > 0 else { return nil }
        let value = items[head]
        items[head] = nil
        head = (head + 1) % items.count
        count -= 1
        condition.broadcast()
        return value
    }

    /// Ends the stream: waiting senders and receivers wake up; values already queued can still be taken.
    public func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
