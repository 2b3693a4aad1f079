/// One reading of what the measuring host gave the engine's loop thread: its CPU time, its time waiting for a CPU
/// and its CPU cgroup's throttling counters, at one instant.
///
/// Two snapshots bracket the phase that moved a body; `HostFacts(from:to:limits:)` turns them into the evidence of
/// the `client-cpu` verdict. A counter the running kernel or machine lacks is nil, never 0.
public struct HostSnapshot: Sendable {
    /// When it was read (monotonic µs).
    public var at: Int64
    /// The loop thread's CPU time so far (µs).
    public var cpuTime: Int64
    /// The loop thread's time runnable but waiting for a CPU so far (µs; `/proc/thread-self/schedstat`, which counts a
    /// cgroup's throttled time too), nil when the kernel keeps no scheduler statistics.
    public var runQueueWait: Int64?
    /// The CPU cgroup's throttling counters, nil without a CPU cgroup's `cpu.stat`.
    public var throttling: Throttling?
    /// The machine's CPU time so far, busy and in all (clock ticks over every CPU: `/proc/stat`'s first line), nil
    /// when it cannot be read.
    public var machine: (busy: Int64, total: Int64)?

    /// A CPU cgroup's quota enforcement counters (`cpu.stat`: v1 `nr_periods`, `nr_throttled`, `throttled_time` in
    /// ns; v2 the same with `throttled_usec`).
    public struct Throttling: Sendable, Equatable {
        /// Enforcement periods elapsed with the cgroup runnable.
        public var periods: Int64
        /// Periods in which the cgroup ran out of quota.
        public var throttledPeriods: Int64
        /// Time the cgroup's tasks were held off the CPU for it (µs).
        public var throttledTime: Int64

        public init(periods: Int64, throttledPeriods: Int64, throttledTime: Int64) {
            self.periods = periods
            self.throttledPeriods = throttledPeriods
            self.throttledTime = throttledTime
        }
    }

    public init(at: Int64, cpuTime: Int64, runQueueWait: Int64?, throttling: Throttling?,
                machine: (busy: Int64, total: Int64)? = nil) {
        self.at = at
        self.cpuTime = cpuTime
        self.runQueueWait = runQueueWait
        self.throttling = throttling
        self.machine = machine
    }
}
