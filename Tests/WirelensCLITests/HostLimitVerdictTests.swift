import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest

/// Issue 27 item 3: the measuring host as the limit. The probe's CPU is held back on purpose, by a CPU cgroup's quota
/// the test makes and by a busy process on the probe's only CPU; the oracles are how the cgroup was configured, its
/// own throttling counters, the busy process's CPU time (/proc/PID/stat) and nginx's configured rate. Needs root and a
/// CPU cgroup hierarchy (CI has both): without them each test fails with the reason.
final class HostLimitVerdictTests: XCTestCase {
    /// A CPU cgroup made for one test, under the test process's own; removed by `remove()`.
    private struct QuotaCgroup {
        /// Its directory, and its name as /proc/self/cgroup shows it to a process inside.
        let directory: String
        let name: String
        let version: CgroupCPU.Version

        /// Makes the cgroup with `quota` µs of CPU per `period` µs.
        static func make(quota: Int, period: Int) throws -> QuotaCgroup {
            let cgroupText = try String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)
            let mounts = try String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)
            guard let parent = CgroupCPU.locate(cgroup: cgroupText, mountInfo: mounts) else {
                throw Failure("no CPU cgroup hierarchy is mounted (/proc/self/mountinfo): cannot cap the probe's CPU")
            }
            let leaf = "wl-host-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let directory = parent.directory + "/" + leaf
            guard mkdir(directory, 0o755) == 0 else {
                throw Failure("cannot make the cgroup \(directory): \(String(cString: strerror(errno))) (needs root)")
            }
            let cgroup = QuotaCgroup(directory: directory, name: (parent.path == "/" ? "" : parent.path) + "/" + leaf,
                                     version: parent.version)
            do {
                switch parent.version {
                case .v1:
                    try write("\(period)", to: directory + "/cpu.cfs_period_us")
                    try write("\(quota)", to: directory + "/cpu.cfs_quota_us")
                case .v2:
                    try? write("+cpu", to: parent.directory + "/cgroup.subtree_control")
                    try write("\(quota) \(period)", to: directory + "/cpu.max")
                }
            } catch {
                cgroup.remove()
                throw error
            }
            return cgroup
        }

        /// The cgroup's `cpu.stat` counters: periods, throttled periods, throttled time (µs).
        func counters() throws -> HostSnapshot.Throttling {
            let text = try String(contentsOfFile: directory + "/cpu.stat", encoding: .utf8)
            let values = Dictionary(text.split(separator: "\n").compactMap { line -> (String, Int64)? in
                let kv = line.split(separator: " ")
                return kv.count == 2 ? (String(kv[0]), Int64(kv[1]) ?? -1) : nil
            }, uniquingKeysWith: { a, _ in a })
            guard let periods = values["nr_periods"], let throttled = values["nr_throttled"],
                  let time = values["throttled_time"].map({ $0 / 1000 }) ?? values["throttled_usec"] else {
                throw Failure("\(directory)/cpu.stat lacks the throttling counters: \(text)")
            }
            return .init(periods: periods, throttledPeriods: throttled, throttledTime: time)
        }

        /// Runs `wirelens` with `arguments` inside the cgroup (the shell joins it, then becomes wirelens).
        func run(_ arguments: [String], timeout: TimeInterval = 60) throws -> ProcessRunner.Outcome {
            try ProcessRunner.run("/bin/sh", ["-c", "echo $$ > \"$0/cgroup.procs\" && exec \"$@\"", directory,
                                              WirelensCLI.path] + arguments, timeout: timeout)
        }

        func remove() { rmdir(directory) }

        private static func write(_ text: String, to path: String) throws {
            guard let handle = FileHandle(forWritingAtPath: path) else { throw Failure("cannot open \(path) to write") }
            defer { try? handle.close() }
            do { try handle.write(contentsOf: Data(text.utf8)) } catch { throw Failure("cannot write \(text) to \(path): \(error)") }
        }
    }

    private struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The first transaction of `wirelens probe URL flags` in its JSON report, run by `runner`.
    private func probe(_ url: String, _ flags: [String] = [],
                       runner: ([String]) throws -> ProcessRunner.Outcome) throws -> [String: Any] {
        let report = CLIHarness.temporaryPath("host.json")
        defer { unlink(report) }
        let outcome = try runner(["probe", url, "--format", "json", "--report", report, "-q"] + flags)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        try CLIHarness.assertValid(report, schema: "report.schema.json")
        return try CLIHarness.firstTransaction(ofReport: report).transaction
    }

    /// The case: a download from nginx on loopback with the probe held to a tenth of a CPU (the 2%
    /// makes the executable's own start take seconds) is `client-cpu` (64 MiB: 16 MiB moved in 7.5 ms on a quiet
    /// machine, within one period's 10 ms, and was never throttled), its evidence the quota as configured and
    /// throttling within what the cgroup's own counters show; the same cgroup with a server sending at 512 KiB/s
    /// (a tenth of a CPU is plenty for that) is not.
    func testAProbeHeldToATenthOfACPUIsTheClientsCPU() throws {
        let servers = try TestServers.get()
        let cgroup = try QuotaCgroup.make(quota: 10_000, period: 100_000)
        defer { cgroup.remove() }
        let before = try cgroup.counters()
        let tx = try probe(servers.http("/bytes/64m.bin"), runner: { try cgroup.run($0) })
        let after = try cgroup.counters()
        let (verdict, evidence) = try CLIHarness.diagnosis(tx)
        XCTAssertEqual(verdict, "client-cpu", "\(evidence)")
        let host = try XCTUnwrap(evidence["host"] as? [String: Any], "\(evidence)")
        XCTAssertEqual(try XCTUnwrap(host["cpuQuota"] as? Double), 0.1, accuracy: 1e-9, "the quota written: 10000/100000")
        XCTAssertEqual(host["cgroup"] as? String, cgroup.name)
        let throttled = try XCTUnwrap(host["throttledPeriods"] as? Int)
        XCTAssertGreaterThan(throttled, 0, "\(host)")
        XCTAssertLessThanOrEqual(Int64(throttled), after.throttledPeriods - before.throttledPeriods, "the cgroup's count")
        XCTAssertLessThanOrEqual(Int64(try XCTUnwrap(host["throttledTime"] as? Int)),
                                 after.throttledTime - before.throttledTime, "the cgroup's throttled time")
        // The thread ran no more than the quota allows over the span, plus one period's worth.
        let span = Double(try XCTUnwrap(host["span"] as? Int))
        XCTAssertLessThanOrEqual(try XCTUnwrap(host["cpuShare"] as? Double), 0.1 + 10_000 / span + 0.01, "\(host)")
        XCTAssertGreaterThan(after.throttledPeriods - before.throttledPeriods, 0, "the cgroup throttled the probe")

        // The verdict as `-w %{verdict}` and the text report say it.
        let written = try cgroup.run(["probe", servers.http("/bytes/64m.bin"), "-s", "-o", "/dev/null", "-w", "%{verdict}"])
        XCTAssertEqual(written.status, 0, written.stderr)
        XCTAssertEqual(written.stdout, "client-cpu")

        // The same cap, a server paced at 512 KiB/s: the host had CPU to spare.
        let slow = try probe(servers.http("/slow/1m.bin"), runner: { try cgroup.run($0) })
        let (slowVerdict, slowEvidence) = try CLIHarness.diagnosis(slow)
        XCTAssertNotEqual(slowVerdict, "client-cpu", "\(slowEvidence)")
        let rate = try XCTUnwrap(slowEvidence["bodyRate"] as? Double)
        XCTAssertLessThanOrEqual(rate, 512 * 1024 * 1.25, "nginx's limit_rate 512k")
        let slowHost = try XCTUnwrap(slowEvidence["host"] as? [String: Any], "\(slowEvidence)")
        XCTAssertEqual(try XCTUnwrap(slowHost["cpuQuota"] as? Double), 0.1, accuracy: 1e-9)
    }

    /// A busy process pinned to the probe's only CPU: the probe's loop thread waits for that CPU, `client-cpu`, with
    /// one CPU allowed (taskset's) and the busy process's own CPU time showing it held the CPU meanwhile.
    func testABusyProcessOnTheProbesOnlyCPUIsTheClientsCPU() throws {
        let servers = try TestServers.get()
        let cpu = ProcessInfo.processInfo.activeProcessorCount - 1
        XCTAssertGreaterThan(cpu, 0, "the test needs a CPU for the server besides the probe's")
        // nginx off the probe's CPU: left free it can land there, and then the busy process slows the server, not
        // the probe (a CI run: the loop thread wanted the CPU 37% of the phase, verdict server-send).
        let nginx = try nginxProcesses(servers)
        try pin(nginx, to: "0-\(cpu - 1)")
        defer { try? pin(nginx, to: "0-\(cpu)") }
        let busy = try ServerProcess("/usr/bin/taskset", ["-c", "\(cpu)", "/bin/sh", "-c", "while :; do :; done"])
        defer { busy.kill(); _ = busy.waitForExit(seconds: 5) }
        let busyBefore = try cpuTicks(of: busy.pid)
        let started = Date()
        // 64 MiB: at loopback speed a shorter body moves in a few scheduler slices, too few to tell.
        let tx = try probe(servers.http("/bytes/64m.bin"), runner: { arguments in
            try ProcessRunner.run("/usr/bin/taskset", ["-c", "\(cpu)", "nice", "-n", "5", WirelensCLI.path] + arguments)
        })
        let wall = Date().timeIntervalSince(started)
        let busyRan = Double(try cpuTicks(of: busy.pid) - busyBefore) / Double(sysconf(Int32(_SC_CLK_TCK)))
        let (verdict, evidence) = try CLIHarness.diagnosis(tx)
        XCTAssertEqual(verdict, "client-cpu", "\(evidence)")
        let host = try XCTUnwrap(evidence["host"] as? [String: Any], "\(evidence)")
        XCTAssertEqual(host["cpusAllowed"] as? Int, 1, "taskset -c \(cpu)")
        // Kept waiting for its CPU a quarter of the span or more: the contention the verdict names (ci14 read 0.298).
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(host["runQueueShare"] as? Double), 0.25, "\(host)")
        // Alone on the CPU it runs the whole wall time; other work on the machine (the CPU is not reserved) takes some.
        XCTAssertGreaterThan(busyRan, wall * 0.05, "the busy process held the CPU: \(busyRan) s of \(wall) s")
    }

    /// The test nginx's master and its workers (the master's pid file, its children from /proc).
    private func nginxProcesses(_ servers: TestServers) throws -> [String] {
        let master = try String(contentsOfFile: servers.nginxDir + "/nginx.pid", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let children = try String(contentsOfFile: "/proc/\(master)/task/\(master)/children", encoding: .utf8)
        return [master] + children.split(separator: " ").map(String.init)
    }

    /// Sets the CPUs every thread of `pids` may run on (taskset -a -p -c).
    private func pin(_ pids: [String], to cpus: String) throws {
        for pid in pids {
            let set = try ProcessRunner.run("/usr/bin/taskset", ["-a", "-p", "-c", cpus, pid])
            XCTAssertEqual(set.status, 0, "taskset -a -p -c \(cpus) \(pid): \(set.stderr)")
        }
    }

    /// A process's user and system CPU time in clock ticks (/proc/PID/stat fields 14 and 15).
    private func cpuTicks(of pid: pid_t) throws -> Int64 {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The command name (field 2) is in parentheses and may hold spaces: count fields after its ")".
        let fields = try XCTUnwrap(stat.split(separator: ")").last).split(separator: " ")
        return (Int64(fields[11]) ?? 0) + (Int64(fields[12]) ?? 0)
    }
}
