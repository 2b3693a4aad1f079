import Foundation
import WirelensTestSupport
import XCTest
import WirelensCore

/// The measuring host's facts and the `client-cpu` verdict on crafted text and snapshots (and this machine's
/// /proc/stat against awk's reading of it), no cgroup involved: the files' formats are the kernel's
/// (Documentation/scheduler/sched-bwc.rst, cgroup-v2.rst, proc(5)).
final class HostFactsTests: XCTestCase {
    private let mountInfo = """
        31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
        32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
        33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
        41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
        """

    func testAV1CPUControllerIsFoundUnderItsMount() throws {
        let cgroup = "4:memory:/x\n2:cpuacct:/\n1:cpu:/probe/inner\n0::/\n"
        let found = try XCTUnwrap(CgroupCPU.locate(cgroup: cgroup, mountInfo: mountInfo))
        XCTAssertEqual(found.version, .v1)
        XCTAssertEqual(found.path, "/probe/inner")
        XCTAssertEqual(found.directory, "/sys/fs/cgroup/cpu/probe/inner")
        XCTAssertEqual(found.lineage, ["/sys/fs/cgroup/cpu/probe/inner", "/sys/fs/cgroup/cpu/probe", "/sys/fs/cgroup/cpu"])
        // The root cgroup is the mount itself.
        let root = try XCTUnwrap(CgroupCPU.locate(cgroup: "1:cpu:/\n", mountInfo: mountInfo))
        XCTAssertEqual(root.directory, "/sys/fs/cgroup/cpu")
        XCTAssertEqual(root.lineage, ["/sys/fs/cgroup/cpu"])
    }

    func testCombinedV1ControllersAndAMountOfASubtreeAreFound() throws {
        let info = "25 20 0:22 /docker/abc /sys/fs/cgroup/cpu,cpuacct ro,nosuid - cgroup cgroup rw,cpu,cpuacct\n"
        let found = try XCTUnwrap(CgroupCPU.locate(cgroup: "3:cpu,cpuacct:/docker/abc/job\n", mountInfo: info))
        XCTAssertEqual(found.directory, "/sys/fs/cgroup/cpu,cpuacct/job")
    }

    func testAV2OnlyMachineUsesTheUnifiedHierarchy() throws {
        let info = "30 24 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
        let found = try XCTUnwrap(CgroupCPU.locate(cgroup: "0::/user.slice/probe\n", mountInfo: info))
        XCTAssertEqual(found.version, .v2)
        XCTAssertEqual(found.directory, "/sys/fs/cgroup/user.slice/probe")
    }

    func testNoCgroupFilesFindNothing() {
        XCTAssertNil(CgroupCPU.locate(cgroup: "", mountInfo: mountInfo))
        XCTAssertNil(CgroupCPU.locate(cgroup: "1:cpu:/\n", mountInfo: "31 23 0:28 / /sys rw - sysfs sysfs rw\n"))
    }

    func testQuotasAndCountersParse() throws {
        XCTAssertEqual(try XCTUnwrap(CgroupCPU.quota(v1Quota: "2000\n", period: "100000\n")), 0.02, accuracy: 1e-12)
        XCTAssertNil(CgroupCPU.quota(v1Quota: "-1\n", period: "100000\n"))
        XCTAssertEqual(try XCTUnwrap(CgroupCPU.quota(cpuMax: "150000 100000\n")), 1.5, accuracy: 1e-12)
        XCTAssertNil(CgroupCPU.quota(cpuMax: "max 100000\n"))
        XCTAssertNil(CgroupCPU.quota(cpuMax: "garbage"))
        let v1 = try XCTUnwrap(CgroupCPU.throttling(cpuStat: "nr_periods 121\nnr_throttled 120\nthrottled_time 11006500047\n"
                                                     + "nr_bursts 0\nburst_time 0\n"))
        XCTAssertEqual(v1, HostSnapshot.Throttling(periods: 121, throttledPeriods: 120, throttledTime: 11_006_500))
        let v2 = try XCTUnwrap(CgroupCPU.throttling(cpuStat: "usage_usec 5\nuser_usec 3\nsystem_usec 2\nnr_periods 7\n"
                                                     + "nr_throttled 2\nthrottled_usec 900\n"))
        XCTAssertEqual(v2, HostSnapshot.Throttling(periods: 7, throttledPeriods: 2, throttledTime: 900))
        // A v2 cgroup without the cpu controller enabled has usage only: no counters, not zeros.
        XCTAssertNil(CgroupCPU.throttling(cpuStat: "usage_usec 5\nuser_usec 3\nsystem_usec 2\n"))
        let sched = try XCTUnwrap(CgroupCPU.schedstat("334287000 289071000 2\n"))
        XCTAssertEqual(sched.cpuTime, 334_287)
        XCTAssertEqual(sched.runQueueWait, 289_071)
        XCTAssertNil(CgroupCPU.schedstat(""))
        // Read by bytes: a counter that is not all digits, or beyond Int64 (9223372036854775807), is not a counter.
        XCTAssertNil(CgroupCPU.throttling(cpuStat: "nr_periods 7\nnr_throttled 2x\nthrottled_usec 900\n"))
        XCTAssertNil(CgroupCPU.throttling(cpuStat: "nr_periods 9223372036854775808\nnr_throttled 2\nthrottled_usec 9\n"))
        XCTAssertEqual(CgroupCPU.throttling(cpuStat: "nr_periods 9223372036854775807\nnr_throttled 2\nthrottled_usec 9")?
            .periods, Int64.max)
        XCTAssertNil(CgroupCPU.schedstat("334287000\n"))
        XCTAssertEqual(CgroupCPU.schedstat("\t5000 7000\n")?.runQueueWait, 7)
    }

    func testTheAffinityListCounts() {
        XCTAssertEqual(HostLimits.allowedCPUs(status: "Name:\tx\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n"), 2)
        XCTAssertEqual(HostLimits.allowedCPUs(status: "Cpus_allowed_list:\t0-3,6,8-9\n"), 7)
        XCTAssertEqual(HostLimits.allowedCPUs(status: "Cpus_allowed_list:\t1\n"), 1)
        XCTAssertNil(HostLimits.allowedCPUs(status: "Name:\tx\n"))
        XCTAssertNil(HostLimits.allowedCPUs(status: "Cpus_allowed_list:\t3-1\n"))
    }

    /// Two snapshots 1 s apart: the thread ran `cpu` µs and waited `wait` µs.
    private func facts(cpu: Int64, wait: Int64?, span: Int64 = 1_000_000, quota: Double? = nil,
                       throttled: Int64? = nil) -> HostFacts? {
        let limits = HostLimits(cpusAllowed: 2, cgroup: quota == nil ? "/" : "/probe", cpuQuota: quota)
        let a = HostSnapshot(at: 5_000, cpuTime: 100, runQueueWait: wait.map { _ in 50 },
                             throttling: throttled.map { _ in .init(periods: 10, throttledPeriods: 3, throttledTime: 1000) })
        let b = HostSnapshot(at: 5_000 + span, cpuTime: 100 + cpu, runQueueWait: wait.map { 50 + $0 },
                             throttling: throttled.map { .init(periods: 20, throttledPeriods: 12, throttledTime: 1000 + $0) })
        return HostFacts(from: a, to: b, limits: limits)
    }

    func testTheThreadBoundIsWhatItRanAndWaited() throws {
        // The 2% quota as measured: ran 2%, waited (throttled) 97%.
        let quota = try XCTUnwrap(facts(cpu: 20_000, wait: 970_000, quota: 0.02, throttled: 960_000))
        XCTAssertTrue(quota.bound)
        XCTAssertEqual(quota.demandShare, 0.99, accuracy: 1e-9)
        XCTAssertEqual(quota.periods, 10)
        XCTAssertEqual(quota.throttledPeriods, 9)
        XCTAssertEqual(quota.throttledTime, 960_000)
        // A busy neighbour on its only CPU: ran half, waited the other half.
        XCTAssertTrue(try XCTUnwrap(facts(cpu: 500_000, wait: 450_000)).bound)
        // A busy neighbour on its only CPU, the transfer waiting on its peer now and then (CI's run: ran 42%, waited
        // 32%): a third of the span lost to the neighbour is the host's.
        XCTAssertTrue(try XCTUnwrap(facts(cpu: 420_000, wait: 320_000)).bound)
        // Waited as long but wanted little else (a wake-up now and then on a loaded machine): not held back.
        XCTAssertFalse(try XCTUnwrap(facts(cpu: 200_000, wait: 300_000)).bound)
        // Waiting on the network: ran 10%, waited 5%.
        XCTAssertFalse(try XCTUnwrap(facts(cpu: 100_000, wait: 50_000)).bound)
        // Too short to tell, however busy.
        XCTAssertFalse(try XCTUnwrap(facts(cpu: 15_000, wait: 0, span: 15_000)).bound)
        XCTAssertNil(facts(cpu: 0, wait: 0, span: 0))
    }

    /// The machine's ticks are the first line's: this machine's /proc/stat (a line per CPU, the interrupt and
    /// softirq counters after it) summed by awk from the same bytes, and a first line without a newline.
    func testTheMachineTicksAreTheFirstLinesAsAwkSumsThem() throws {
        let stat = try String(contentsOfFile: "/proc/stat", encoding: .utf8)
        let path = WirelensCLI.temporaryPath("proc-stat.txt")
        defer { unlink(path) }
        try stat.write(toFile: path, atomically: true, encoding: .utf8)
        let awk = try ProcessRunner.run("/usr/bin/awk", [
            "NR == 1 { t = 0; for (i = 2; i <= 9 && i <= NF; i++) t += $i; print t - $5 - $6, t; exit }", path,
        ], timeout: 30)
        XCTAssertEqual(awk.status, 0, awk.stderr)
        let ticks = try XCTUnwrap(CgroupCPU.machineTicks(procStat: stat))
        XCTAssertEqual("\(ticks.busy) \(ticks.total)", awk.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertGreaterThan(stat.split(separator: "\n").count, 2, "more than the first line to skip")
        let lastLine = try XCTUnwrap(CgroupCPU.machineTicks(procStat: "cpu  7 0 3 90 0 0 0 0 0 0"))
        XCTAssertEqual(lastLine.busy, 10)
        XCTAssertEqual(lastLine.total, 100)
    }

    func testAPeerOnThisMachineWithTheMachineSaturatedIsTheHost() throws {
        let stat = "cpu  100 5 50 1000 20 3 2 0 0 0\ncpu0 50 2 25 500 10 1 1 0 0 0\n"
        let ticks = try XCTUnwrap(CgroupCPU.machineTicks(procStat: stat))
        XCTAssertEqual(ticks.busy, 160)
        XCTAssertEqual(ticks.total, 1180)
        XCTAssertNil(CgroupCPU.machineTicks(procStat: "intr 5\n"))
        let limits = HostLimits(cpusAllowed: 2, cgroup: "/", cpuQuota: nil)
        // The thread ran 30% and waited 25% while the machine's CPUs were 95% busy.
        let a = HostSnapshot(at: 0, cpuTime: 0, runQueueWait: 0, throttling: nil, machine: (1000, 2000))
        let b = HostSnapshot(at: 100_000, cpuTime: 30_000, runQueueWait: 25_000, throttling: nil, machine: (1019, 2020))
        var shared = try XCTUnwrap(HostFacts(from: a, to: b, limits: limits))
        XCTAssertEqual(shared.machineBusyShare ?? 0, 0.95, accuracy: 1e-9)
        XCTAssertFalse(shared.bound, "a remote peer: the machine's other work is not this transfer's")
        shared.peerOnThisMachine = true
        XCTAssertTrue(shared.bound)
        // A loop thread that ran little on a saturated machine (a slow source, a window-bound upload) is not the
        // host's doing, however long it waited at each wake-up.
        let idle = HostSnapshot(at: 100_000, cpuTime: 4_000, runQueueWait: 44_000, throttling: nil, machine: (1019, 2020))
        var waiting = try XCTUnwrap(HostFacts(from: a, to: idle, limits: limits))
        waiting.peerOnThisMachine = true
        XCTAssertFalse(waiting.bound)
    }

    func testWithoutSchedulerStatisticsTheQuotaJudges() throws {
        // 2% of a CPU used under a 2% quota: the whole allowance.
        XCTAssertTrue(try XCTUnwrap(facts(cpu: 19_000, wait: nil, quota: 0.02)).bound)
        // 2% used, no quota: idle.
        let idle = try XCTUnwrap(facts(cpu: 20_000, wait: nil))
        XCTAssertFalse(idle.bound)
        XCTAssertNil(idle.runQueueWait)
        XCTAssertNil(idle.runQueueShare)
        XCTAssertNil(idle.throttledTime)
    }

    /// A 64 MiB download whose receive phase lasted 2 s, on loopback, with the host's facts as given.
    private func download(_ host: HostFacts?, tcp: Bool = true) -> Diagnosis {
        let kernel = TCPFacts(span: 2_000_000, bytesSent: 100, bytesAcked: 100, bytesReceived: 64 << 20,
                             bytesRetransmitted: 0, segmentsRetransmitted: 0, outOfOrderPacketsIn: 0, minRTT: 20,
                             smoothedRTT: 40, maxRTT: 80, receiveRTT: 40, congestionWindowMin: 10, congestionWindowMax: 10,
                             sendMSS: 65483, pathMTU: 65535, peerWindowMin: 65536, deliveryRateMax: nil,
                             deliveryRateMedian: nil, busy: 0, receiveWindowLimited: 0, sendBufferLimited: 0, samples: [])
        return Diagnosis.of(.init(phases: Phases(connect: 100, send: 50, wait: 300, receive: 2_000_000, total: 2_000_500),
                                  requestBodyBytes: 0, responseBodyBytes: 64 << 20, tcp: tcp ? kernel : nil,
                                  missingReason: "kernel facts were not read (--tcp-sample off)",
                                  hostSend: facts(cpu: 0, wait: 0), hostReceive: host))
    }

    func testACPUBoundDownloadIsTheClientsCPU() throws {
        let d = download(facts(cpu: 20_000, wait: 970_000, quota: 0.02, throttled: 960_000))
        XCTAssertEqual(d.verdict, .clientCPU, d.explanation)
        XCTAssertEqual(d.evidence.host?.cpuQuota, 0.02)
        for part in ["ran 2% of the receive time", "waited for a CPU 97%", "/probe allows 0.02 CPU",
                     "throttled it in 9 of 10 periods", "33.6 MB/s"] {
            XCTAssertTrue(d.explanation.contains(part), "\(part): \(d.explanation)")
        }
        // The receive phase's facts are the ones read, not the send phase's.
        XCTAssertEqual(d.evidence.host?.span, 1_000_000)
        // Without kernel facts the host still tells.
        XCTAssertEqual(download(facts(cpu: 900_000, wait: 50_000), tcp: false).verdict, .clientCPU)
    }

    func testAnIdleHostOrNoHostFactsLeaveTheOtherVerdicts() {
        let idle = download(facts(cpu: 50_000, wait: 1_000))
        XCTAssertEqual(idle.verdict, .unknown)
        XCTAssertNotNil(idle.evidence.host)
        let none = download(nil)
        XCTAssertEqual(none.verdict, .unknown)
        XCTAssertNil(none.evidence.host)
        XCTAssertEqual(download(nil, tcp: false).evidence.reason, "kernel facts were not read (--tcp-sample off)")
    }

    func testTheServersWaitComesBeforeTheHost() {
        let busy = facts(cpu: 900_000, wait: 50_000)
        let d = Diagnosis.of(.init(phases: Phases(connect: 100, send: 50, wait: 3_000_000, receive: 1_000_000, total: 4_000_200),
                                   requestBodyBytes: 0, responseBodyBytes: 1 << 20, tcp: nil, hostReceive: busy))
        XCTAssertEqual(d.verdict, .serverThink)
    }

    /// A probe held to a tenth of a CPU, throttled while the answer waited in its socket (a CI run's `-w %{verdict}`
    /// said `server-think`): the wait was the client's, and the facts over the request and the wait say so.
    func testAWaitTheCgroupHeldIsTheClientsCPU() throws {
        let held = facts(cpu: 30_000, wait: 260_000, span: 300_000, quota: 0.1, throttled: 250_000)
        let d = Diagnosis.of(.init(phases: Phases(connect: 100, send: 50, wait: 299_000, receive: 20_000, total: 320_000),
                                   requestBodyBytes: 0, responseBodyBytes: 16 << 20, tcp: nil, hostSend: held,
                                   hostReceive: facts(cpu: 19_000, wait: 0, span: 20_000)))
        XCTAssertEqual(d.verdict, .clientCPU, d.explanation)
        XCTAssertEqual(d.evidence.host?.span, 300_000, "the facts over the request and the wait")
        XCTAssertTrue(d.explanation.contains("ran 10% of the request and wait time"), d.explanation)
        // An idle client over the same wait: the server's.
        let idle = Diagnosis.of(.init(phases: Phases(connect: 100, send: 50, wait: 299_000, receive: 20_000, total: 320_000),
                                      requestBodyBytes: 0, responseBodyBytes: 16 << 20, tcp: nil,
                                      hostSend: facts(cpu: 300, wait: 100, span: 300_000, quota: 0.1, throttled: 0)))
        XCTAssertEqual(idle.verdict, .serverThink, idle.explanation)
    }
}
