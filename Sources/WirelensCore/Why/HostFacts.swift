/// What the measuring host gave the engine's loop thread over the phase that moved a body: the evidence of the
/// `client-cpu` verdict.
///
/// The loop thread runs every transfer's libcurl work (TLS, copying, callbacks), so its figures are the engine's, shared
/// by every transfer in flight at the time. A figure the kernel or the machine lacks is nil, never 0.
public struct HostFacts: Sendable, Equatable, Codable {
    /// Microseconds between the two snapshots (about the moving phase).
    public var span: Int64
    /// The loop thread's CPU time over the span (µs) and its share of the span.
    public var cpuTime: Int64
    public var cpuShare: Double
    /// The loop thread's time runnable but waiting for a CPU (µs; a cgroup's throttled time included) and its share.
    @NullWhenAbsent public var runQueueWait: Int64?
    @NullWhenAbsent public var runQueueShare: Double?
    /// The CPUs the process may use (affinity), and its CPU cgroup with its quota in CPUs (nil: unlimited or no
    /// cgroup files).
    @NullWhenAbsent public var cpusAllowed: Int?
    @NullWhenAbsent public var cgroup: String?
    @NullWhenAbsent public var cpuQuota: Double?
    /// The cgroup's enforcement periods over the span, those it was throttled in, and the time throttled (µs).
    @NullWhenAbsent public var periods: Int64?
    @NullWhenAbsent public var throttledPeriods: Int64?
    @NullWhenAbsent public var throttledTime: Int64?
    /// The share of the machine's CPU time (every CPU) that was busy over the span, nil when /proc/stat is unreadable.
    @NullWhenAbsent public var machineBusyShare: Double?
    /// True when the peer is on this machine (a loopback address): both ends shared its CPUs.
    public var peerOnThisMachine = false

    /// True when `address` (a report's `remoteAddress`) is a loopback one: the peer shares this machine.
    public static func isOnThisMachine(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1"
    }

    public init(span: Int64, cpuTime: Int64, cpuShare: Double) {
        self.span = span
        self.cpuTime = cpuTime
        self.cpuShare = cpuShare
    }

    /// The facts between two snapshots taken on the loop thread, nil when they span no time.
    public init?(from start: HostSnapshot, to end: HostSnapshot, limits: HostLimits) {
        let span = end.at - start.at
        guard span > 0 else { return nil }
        let cpu = max(0, end.cpuTime - start.cpuTime)
        self.init(span: span, cpuTime: cpu, cpuShare: Double(cpu) / Double(span))
        if let a = start.runQueueWait, let b = end.runQueueWait {
            runQueueWait = max(0, b - a)
            runQueueShare = Double(max(0, b - a)) / Double(span)
        }
        cpusAllowed = limits.cpusAllowed
        cgroup = limits.cgroup
        cpuQuota = limits.cpuQuota
        if let a = start.throttling, let b = end.throttling {
            periods = max(0, b.periods - a.periods)
            throttledPeriods = max(0, b.throttledPeriods - a.throttledPeriods)
            throttledTime = max(0, b.throttledTime - a.throttledTime)
        }
        if let a = start.machine, let b = end.machine { machineBusyShare = CgroupCPU.busyShare(from: a, to: b) }
    }

    /// The shortest span (µs) judged: several of the scheduler's slices (about 3 ms each), and four times the age at
    /// which the engine reuses a snapshot (`HostSampler.reuseAge`, 2 ms) at each end.
    public static let floor: Int64 = 20_000
    /// The share of the span the loop thread must have been on a CPU or waiting for one to be CPU-bound.
    public static let boundShare = 0.8

    /// The share of the span the loop thread wanted a CPU: running, or runnable and waiting (throttled included);
    /// without scheduler statistics, its CPU share against the CPU it could have had (`HostLimits.threadCPU`),
    /// counting the cgroup's throttled time as wanted.
    public var demandShare: Double {
        if let runQueueShare { return cpuShare + runQueueShare }
        let limit = min(1, Double(cpusAllowed ?? 1), cpuQuota ?? 1)
        let throttled = throttledTime.map { Double($0) / Double(max(span, 1)) } ?? 0
        return min(1, cpuShare / max(limit, 0.001) + throttled)
    }

    /// With the peer on this machine: the machine's busy share over which it was saturated, and the shares of the span
    /// the loop thread must then have run and wanted a CPU (both ends competed for the same CPUs). Running matters: on
    /// a loaded machine a thread that needs 4% of a CPU still waits for one at each wake-up (44% of a window-bound
    /// upload's send phase at load 7 on 2 CPUs).
    public static let saturatedShare = 0.9
    public static let sharedRunShare = 0.25
    public static let sharedDemandShare = 0.5

    /// Contention on the loop thread's own CPUs: it wanted a CPU most of the span and was kept waiting for one a
    /// quarter of it or more. That wait is time no transfer moved (a busy neighbour on its only CPU), whatever the
    /// rest of the machine did; a thread that wanted little waits at wake-ups without being held back.
    public static let contendedDemandShare = 0.6
    public static let contendedWaitShare = 0.25

    /// True when, over a span long enough to tell, the loop thread was CPU-bound, or was kept waiting for its CPUs
    /// while it wanted them most of the time, or the peer shared this machine, the machine's CPUs were saturated and
    /// the loop thread wanted one a good part of the time: the host, not the path or the server, set the pace.
    public var bound: Bool {
        guard span >= Self.floor else { return false }
        if demandShare >= Self.boundShare { return true }
        if let wait = runQueueShare, wait >= Self.contendedWaitShare, demandShare >= Self.contendedDemandShare {
            return true
        }
        guard peerOnThisMachine, let busy = machineBusyShare else { return false }
        return busy >= Self.saturatedShare && cpuShare >= Self.sharedRunShare && demandShare >= Self.sharedDemandShare
    }
}
