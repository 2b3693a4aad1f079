/// What a run's failed tasks tell, gathered task by task in any order: the first transport failure, whether an HTTP
/// error status happened, and the failure to name (the CLI turns the first two into its exit code).
///
/// "First" means the lowest task index, so tasks handed over in the order they ended give the same answers as
/// tasks in task order.
package struct TaskFailures: Sendable {
    /// The first task that failed otherwise than by its HTTP status: its index and class.
    private var firstTransport: (index: Int, errorClass: ErrorClass)?
    /// Whether a task ended with an HTTP status of 400 or more (error class `.http`).
    package private(set) var sawHTTPError = false
    /// The first failed task that was not cancelled: its index, URL and error.
    package private(set) var first: (index: Int, url: String, error: TransferError)?
    /// Failed tasks, cancelled ones left out.
    package private(set) var count = 0

    package init() {}

    /// The failures of `tasks`.
    package init(_ tasks: [TaskRecord]) {
        // Indices, not elements: iterating the records would copy (and retain) each one.
        for i in tasks.indices { add(tasks[i]) }
    }

    /// Takes one task into account.
    package mutating func add(_ task: TaskRecord) {
        guard let error = task.error else { return }
        if error.errorClass == .http {
            sawHTTPError = true
        } else if firstTransport.map({ task.index < $0.index }) ?? true {
            firstTransport = (task.index, error.errorClass)
        }
        guard error.errorClass != .cancelled else { return }
        count += 1
        if first.map({ task.index < $0.index }) ?? true { first = (task.index, task.url, error) }
    }

    /// The class of the first task (in task order) that failed otherwise than by its HTTP status, cancelled ones
    /// included; nil when none did.
    package var firstTransportError: ErrorClass? { firstTransport?.errorClass }
}
