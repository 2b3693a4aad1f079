#if canImport(Glibc)
import Glibc
#endif
import WirelensCore

/// Reads what the measuring host gives the engine's loop thread (`HostSnapshot`), for the `client-cpu` verdict: the
/// thread's scheduler statistics, the CPU cgroup's throttling counters, and once, the affinity and the quota.
///
/// Owned by the loop and used on the loop thread only: `/proc/thread-self` names the thread that opens it, so the
/// statistics file is opened on first use, from the loop. A snapshot younger than `reuseAge` is handed out again, so
/// many short transfers cost a few reads a second, not several each; the facts are made over the snapshots' own
/// instants, so a reused one shifts the measured span without skewing its shares.
final class HostSampler {
    /// The CPUs and quota the process may use.
    let limits: HostLimits
    /// Where the CPU cgroup's counters are, nil without a CPU cgroup.
    private let statPath: String?
    private var schedFD: Int32 = -1
    private var statFD: Int32 = -1
    private var procStatFD: Int32 = -1
    private var opened = false
    private var last: HostSnapshot?

    /// A snapshot this young (ns) is reused.
    static let reuseAge: Int64 = 2_000_000

    init() {
        #if os(Linux)
        let cgroup = (Self.readText("/proc/self/cgroup")).flatMap { text in
            Self.readText("/proc/self/mountinfo").flatMap { CgroupCPU.locate(cgroup: text, mountInfo: $0) }
        }
        limits = HostLimits(cpusAllowed: Self.affinityCount(), cgroup: cgroup?.path, cpuQuota: cgroup.flatMap(Self.quota))
        statPath = cgroup.map { $0.directory + "/cpu.stat" }
        #else
        limits = HostLimits(cpusAllowed: nil, cgroup: nil, cpuQuota: nil)
        statPath = nil
        #endif
    }

    deinit {
        if schedFD >= 0 { close(schedFD) }
        if statFD >= 0 { close(statFD) }
        if procStatFD >= 0 { close(procStatFD) }
    }

    /// The loop thread's snapshot now (monotonic ns `now`), or the last one when it is younger than `reuseAge`; nil
    /// when not even the thread's CPU clock can be read.
    func snapshot(now: Int64) -> HostSnapshot? {
        if let last, now - last.at * 1000 < Self.reuseAge { return last }
        #if os(Linux)
        if !opened {
            opened = true
            schedFD = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)
            if let statPath { statFD = open(statPath, O_RDONLY | O_CLOEXEC) }
            procStatFD = open("/proc/stat", O_RDONLY | O_CLOEXEC)
        }
        var cpu: Int64
        var wait: Int64?
        if let sched = Self.reread(schedFD).flatMap(CgroupCPU.schedstat) {
            cpu = sched.cpuTime
            wait = sched.runQueueWait
        } else {
            var ts = timespec()
            guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 else { return nil }
            cpu = Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
        }
        let snapshot = HostSnapshot(at: now / 1000, cpuTime: cpu, runQueueWait: wait,
                                    throttling: Self.reread(statFD).flatMap(CgroupCPU.throttling),
                                    machine: Self.reread(procStatFD, upTo: 4096).flatMap(CgroupCPU.machineTicks))
        last = snapshot
        return snapshot
        #else
        return nil
        #endif
    }

    #if os(Linux)
    /// The smallest quota over the cgroup and its ancestors, in CPUs; nil when none is set.
    private static func quota(_ cgroup: CgroupCPU) -> Double? {
        let quotas = cgroup.lineage.compactMap { dir -> Double? in
            switch cgroup.version {
            case .v1:
                guard let q = readText(dir + "/cpu.cfs_quota_us"), let p = readText(dir + "/cpu.cfs_period_us") else {
                    return nil
                }
                return CgroupCPU.quota(v1Quota: q, period: p)
            case .v2:
                return readText(dir + "/cpu.max").flatMap { CgroupCPU.quota(cpuMax: $0) }
            }
        }
        return quotas.min()
    }

    /// The CPUs in the process's affinity mask (`Cpus_allowed_list` of /proc/self/status: what sched_getaffinity
    /// returns, which Swift's Glibc module leaves out), nil when it cannot be read.
    private static func affinityCount() -> Int? {
        readText("/proc/self/status").flatMap(HostLimits.allowedCPUs(status:))
    }

    /// A whole small file's text (a /proc or cgroup file), nil when it cannot be read.
    private static func readText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return readAll(fd)
    }

    /// The text of an open /proc or cgroup file, read again from its start (such files are made anew on each read);
    /// its first `limit` bytes at most (/proc/stat's first line is all that is wanted of its several KiB).
    private static func reread(_ fd: Int32, upTo limit: Int = .max) -> String? {
        guard fd >= 0, lseek(fd, 0, SEEK_SET) == 0 else { return nil }
        return readAll(fd, upTo: limit)
    }

    /// What `fd` holds from where it stands, up to `limit` bytes, as text; nil on a read error.
    private static func readAll(_ fd: Int32, upTo limit: Int = .max) -> String? {
        // An uninitialised buffer (the heap's at this size), not an array zeroed for each read: a snapshot reads
        // three files every few milliseconds.
        withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 1) { chunk -> String? in
            var bytes: [UInt8] = []
            // Bounded: /proc/self/mountinfo is the largest file read, a few KiB; 64 reads are 256 KiB.
            for _ in 0..<64 where bytes.count < limit {
                let n = Glibc.read(fd, chunk.baseAddress, min(chunk.count, limit - bytes.count))
                if n < 0, errno == EINTR { continue }
                guard n >= 0 else { return nil }
                if n == 0 { break }
                bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
    #endif
}
