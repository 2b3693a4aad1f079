/// Where the process's CPU cgroup keeps its quota and throttling counters, and how to read those files: pure
/// parsing of `/proc/self/cgroup`, `/proc/self/mountinfo`, `cpu.cfs_quota_us`/`cpu.cfs_period_us` (v1), `cpu.max`
/// (v2) and `cpu.stat`.
public struct CgroupCPU: Sendable, Equatable {
    /// The cgroup hierarchy holding the CPU controller.
    public enum Version: Sendable, Equatable { case v1, v2 }

    public var version: Version
    /// The cgroup as `/proc/self/cgroup` names it ("/" for the root).
    public var path: String
    /// The cgroup's directory on the mounted hierarchy.
    public var directory: String
    /// The mount point of the hierarchy: the quota is looked up from `directory` up to it.
    public var mountPoint: String

    public init(version: Version, path: String, directory: String, mountPoint: String) {
        self.version = version
        self.path = path
        self.directory = directory
        self.mountPoint = mountPoint
    }

    /// The process's CPU cgroup from the text of `/proc/self/cgroup` and `/proc/self/mountinfo`: the v1 hierarchy
    /// whose controllers include `cpu` when there is one, else the v2 (unified) one; nil when neither is mounted.
    public static func locate(cgroup: String, mountInfo: String) -> CgroupCPU? {
        var v1Path: String?
        var v2Path: String?
        for line in cgroup.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { continue }
            if parts[1].isEmpty, parts[0] == "0" {
                v2Path = String(parts[2])
            } else if parts[1].split(separator: ",").contains("cpu") {
                v1Path = String(parts[2])
            }
        }
        for line in mountInfo.split(separator: "\n") {
            let halves = line.split(separator: " - ", maxSplits: 1)
            guard halves.count == 2 else { continue }
            let fields = halves[0].split(separator: " ")
            let tail = halves[1].split(separator: " ")
            guard fields.count >= 5, tail.count >= 3 else { continue }
            let root = String(fields[3])
            let mount = String(fields[4])
            if let v1Path, tail[0] == "cgroup", tail[2].split(separator: ",").contains("cpu") {
                return CgroupCPU(version: .v1, path: v1Path, directory: join(mount, root: root, path: v1Path),
                                 mountPoint: mount)
            }
            if v1Path == nil, let v2Path, tail[0] == "cgroup2" {
                return CgroupCPU(version: .v2, path: v2Path, directory: join(mount, root: root, path: v2Path),
                                 mountPoint: mount)
            }
        }
        return nil
    }

    /// The directories from the cgroup's own up to the hierarchy's root, the cgroup's first.
    public var lineage: [String] {
        var dirs = [directory]
        var dir = directory
        while dir.count > mountPoint.count, let slash = dir.lastIndex(of: "/") {
            dir = String(dir[..<slash])
            if dir.count < mountPoint.count { break }
            dirs.append(dir)
        }
        return dirs
    }

    /// The quota in CPUs from v1's `cpu.cfs_quota_us` and `cpu.cfs_period_us`, nil when unlimited (-1) or unreadable.
    public static func quota(v1Quota: String, period: String) -> Double? {
        guard let q = Int64(trimmed(v1Quota)), let p = Int64(trimmed(period)), q > 0, p > 0 else { return nil }
        return Double(q) / Double(p)
    }

    /// The quota in CPUs from v2's `cpu.max` ("QUOTA PERIOD", or "max PERIOD"), nil when unlimited or unreadable.
    public static func quota(cpuMax: String) -> Double? {
        let parts = trimmed(cpuMax).split(separator: " ")
        guard parts.count == 2, let q = Int64(parts[0]), let p = Int64(parts[1]), q > 0, p > 0 else { return nil }
        return Double(q) / Double(p)
    }

    /// The throttling counters from `cpu.stat` (v1 `throttled_time` in ns, v2 `throttled_usec`), nil when the file
    /// lacks them (a v2 cgroup without the cpu controller enabled has only usage).
    public static func throttling(cpuStat: String) -> HostSnapshot.Throttling? {
        var periods: Int64?
        var throttled: Int64?
        var time: Int64?
        bytes(of: cpuStat) { text in
            for line in text.split(separator: UInt8(ascii: "\n")) {
                let kv = words(line)
                guard kv.count == 2, let value = decimal(kv[1]) else { continue }
                let key = kv[0]
                if key.elementsEqual("nr_periods".utf8) {
                    periods = value
                } else if key.elementsEqual("nr_throttled".utf8) {
                    throttled = value
                } else if key.elementsEqual("throttled_time".utf8) {
                    time = value / 1000
                } else if key.elementsEqual("throttled_usec".utf8) {
                    time = value
                }
            }
        }
        guard let periods, let throttled, let time else { return nil }
        return HostSnapshot.Throttling(periods: periods, throttledPeriods: throttled, throttledTime: time)
    }

    /// A thread's CPU time and run-queue wait (µs) from `/proc/thread-self/schedstat` ("RUN_NS WAIT_NS SLICES").
    public static func schedstat(_ text: String) -> (cpuTime: Int64, runQueueWait: Int64)? {
        bytes(of: text) { text in
            let parts = words(text[...])
            guard parts.count >= 2, let run = decimal(parts[0]), let wait = decimal(parts[1]) else { return nil }
            return (run / 1000, wait / 1000)
        }
    }

    /// The machine's busy and total CPU ticks from `/proc/stat`'s first line ("cpu  user nice system idle iowait irq
    /// softirq steal ..."): busy is all but idle and iowait.
    public static func machineTicks(procStat: String) -> (busy: Int64, total: Int64)? {
        bytes(of: procStat) { text in
            // The first line only: the rest (a line per CPU, the interrupt counters) is most of the file's bytes.
            let line = text.prefix { $0 != UInt8(ascii: "\n") }
            guard line.starts(with: "cpu ".utf8) else { return nil }
            let values = words(line).dropFirst().prefix(8).compactMap(decimal)
            guard values.count >= 5 else { return nil }
            let total = values.reduce(0, +)
            return (total - values[3] - values[4], total)
        }
    }

    // The readers above run every few milliseconds while transfers are in flight (`HostSampler`): they read the
    // text's bytes in place, not its Characters.

    /// Calls `body` with the UTF-8 bytes of `text`.
    private static func bytes<Result>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var text = text
        return text.withUTF8(body)
    }

    /// The words of `line`: its runs of bytes between spaces, tabs and line ends.
    private static func words(_ line: Slice<UnsafeBufferPointer<UInt8>>) -> [Slice<UnsafeBufferPointer<UInt8>>] {
        line.split { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\n") }
    }

    /// The number `word` spells in decimal digits, nil when it holds anything else or does not fit an Int64.
    private static func decimal(_ word: Slice<UnsafeBufferPointer<UInt8>>) -> Int64? {
        guard !word.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in word {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (tens, over) = value.multipliedReportingOverflow(by: 10)
            let (sum, overAgain) = tens.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !over, !overAgain else { return nil }
            value = sum
        }
        return value
    }

    /// The busy share of the machine's CPU time between two `machineTicks` readings, nil when no tick passed.
    public static func busyShare(from a: (busy: Int64, total: Int64), to b: (busy: Int64, total: Int64)) -> Double? {
        guard b.total > a.total else { return nil }
        return min(1, Double(max(0, b.busy - a.busy)) / Double(b.total - a.total))
    }

    private static func join(_ mount: String, root: String, path: String) -> String {
        // The mount shows the hierarchy from `root`: a cgroup path under it is relative to the mount.
        var relative = path
        if root != "/", relative.hasPrefix(root) { relative = String(relative.dropFirst(root.count)) }
        if relative == "/" || relative.isEmpty { return mount }
        return mount + (relative.hasPrefix("/") ? relative : "/" + relative)
    }

    private static func trimmed(_ text: String) -> Substring {
        var s = Substring(text)
        while let c = s.first, c == " " || c == "\n" || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\n" || c == "\t" { s.removeLast() }
        return s
    }
}
