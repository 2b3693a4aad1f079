/// The CPUs the measuring process may use: its affinity and its CPU cgroup's quota, read once when the engine starts.
public struct HostLimits: Sendable, Equatable {
    /// The CPUs in the process's affinity mask (`sched_getaffinity`), nil when it could not be read.
    public var cpusAllowed: Int?
    /// The CPU cgroup as `/proc/self/cgroup` names it (e.g. "/probe"), nil when no CPU controller was found.
    public var cgroup: String?
    /// The quota in CPUs (quota over period; the smallest of the cgroup's and its ancestors'), nil when unlimited or
    /// unknown (`cgroup` nil tells which).
    public var cpuQuota: Double?

    public init(cpusAllowed: Int?, cgroup: String?, cpuQuota: Double?) {
        self.cpusAllowed = cpusAllowed
        self.cgroup = cgroup
        self.cpuQuota = cpuQuota
    }

    /// The CPUs of the `Cpus_allowed_list` line of a /proc/PID/status text ("0-3,6,8-9": 7), nil without one.
    public static func allowedCPUs(status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }) else {
            return nil
        }
        var count = 0
        for range in line.dropFirst("Cpus_allowed_list:".count).split(separator: ",") {
            let ends = range.split(separator: "-").map { Int($0.filter { $0 != " " && $0 != "\t" }) }
            guard let first = ends.first ?? nil, let last = ends.last ?? nil, ends.count <= 2, last >= first else { return nil }
            count += last - first + 1
        }
        return count > 0 ? count : nil
    }

    /// The share of one CPU the loop thread (one thread) could have had: at most 1, less under a quota below a CPU.
    public var threadCPU: Double {
        min(1, Double(cpusAllowed ?? 1), cpuQuota ?? 1)
    }
}
