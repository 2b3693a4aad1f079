/// Puts tasks that end out of order back in task order, holding at most `limit` of them.
///
/// A task that ends before those with lower indices waits until they have ended. When more than `limit` wait
/// (a task far behind the others: stalled, or retrying), the lowest waiting ones go on past the gap, and the
/// late task is handed over when it ends: the order then breaks rather than memory growing.
package struct TaskOrder: Sendable {
    /// The index handed over next, when it comes.
    private var next: Int
    private var held: [Int: TaskRecord] = [:]
    /// Tasks waiting at most.
    package let limit: Int

    /// Tasks waiting at most by default: 4096 (a few MB).
    package static let defaultLimit = 4096

    /// Orders tasks numbered from `first`.
    package init(first: Int = 0, limit: Int = TaskOrder.defaultLimit) {
        next = first
        self.limit = max(1, limit)
    }

    /// The tasks waiting now.
    package var waiting: Int { held.count }

    /// Takes a task that ended and hands `release` every task now in order.
    package mutating func add(_ task: TaskRecord, release: (TaskRecord) throws -> Void) rethrows {
        if task.index < next { return try release(task) }  // late: the order went on without it
        if task.index > next {
            held[task.index] = task
            guard held.count > limit, let lowest = held.keys.min() else { return }
            next = lowest
        } else {
            try release(task)
            next += 1
        }
        while let following = held.removeValue(forKey: next) {
            try release(following)
            next += 1
        }
    }

    /// Hands over the tasks still waiting (behind tasks that never ended), in task order.
    package mutating func flush(release: (TaskRecord) throws -> Void) rethrows {
        for index in held.keys.sorted() {
            if let task = held.removeValue(forKey: index) { try release(task) }
        }
    }
}
