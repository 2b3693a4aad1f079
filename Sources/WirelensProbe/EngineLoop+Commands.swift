import WirelensCore

extension EngineLoop {
    /// What other threads ask of the loop (through `CurlLoop`'s inbox).
    enum Command: Sendable {
        case submit(Order)
        /// Ends what runs and waits; `final`: and every task submitted later (`Engine.cancel()`).
        case cancel(final: Bool)
        case inspect(@Sendable (TableCounts) -> Void)
    }

    /// Tasks submitted together: `count` of them, task i running `specs[i % specs.count]`.
    struct Order: Sendable {
        let specs: [TaskSpec]
        /// The tasks' own options; nil: the engine's.
        let taskOptions: TaskOptions?
        let count: Int
        let keepsRecords: Bool
        let onTaskFinished: (@Sendable (TaskRecord) -> Void)?
        let completion: @Sendable ([TaskRecord]) -> Void
    }

    /// The sizes of the per-connection tables and of the transfers in flight.
    struct TableCounts: Sendable, Equatable {
        var sockets: Int
        var ports: Int
        var connections: Int
        var tls: Int
        var active: Int
    }
}
