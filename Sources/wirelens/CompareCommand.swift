import ArgumentParser
import Foundation
import WirelensCompare
import WirelensCore
import WirelensProbe
import WirelensUpload
import WirelensReport

/// `wirelens compare URL --limits 1,2,4`: one workload across per-host connection limits and protocols,
/// interleaved over repetitions, with a recommendation.
struct CompareCommand: CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Run one workload at several connection limits and protocols; recommend a limit.",
        discussion: """
            Each configuration (a mode at a limit) runs the same workload; the runs are interleaved (A B C A B C …) \
            over --repeat repetitions so that drift on a noisy machine falls on all of them. LIMIT is both the tasks \
            (or segments) in flight and the connections per host.

            Workloads: requests:N (N GETs of URL), download:SIZExN (N GETs; {size} in URL becomes the byte count), \
            upload:SIZExN (N PUTs of a generated SIZE body, at most LIMIT at a time), segmented:FILE or \
            segmented:SIZE (one segmented upload with LIMIT segments in flight; URL is the upload's base on a \
            server with the target's segment protocol).

            Modes: h1 (HTTP/1.1, keep-alive), h1-fresh (a fresh connection per request), h2 (HTTP/2 multiplexed: \
            over TLS for https URLs, with prior knowledge for http URLs), mptcp (h1 over Multipath TCP, as --mptcp).

            Limits are numbers or presets: \(UploadPreset.all.map { "\($0.name) (\($0.maxHostConnections ?? $0.parallel ?? 1))" }.joined(separator: ", ")).

            The recommendation is the smallest limit within 5% of the best throughput of its mode.
            """)

    @Argument(help: "The http:// or https:// URL (the upload base for segmented workloads).")
    var url: String

    @Option(help: "Connection limits to compare: numbers and preset names.")
    var limits = "1,2,4,6,8"

    @Option(help: "Modes to compare: h1, h1-fresh, h2, mptcp.")
    var modes = "h1"

    @Option(help: "requests:N, download:SIZExN, upload:SIZExN, segmented:FILE or segmented:SIZE.")
    var workload = "requests:20"

    @Option(name: .customLong("repeat"), help: "Repetitions of every configuration.")
    var repeatCount = 3

    @OptionGroup(title: "Connections, timeouts and TLS")
    var transfer: TransferFlags

    /// Set per mode and limit: hidden from the help, and refused with a pointer to --modes and --limits.
    @OptionGroup(visibility: .hidden)
    var protocols: ProtocolFlags

    @OptionGroup(title: "Report")
    var report: ReportFlags<CompareFormat>

    @OptionGroup(title: "Report")
    var detail: DetailFlags

    /// The checked flags: the workload, limits and modes, and the engine options every run starts from.
    private func checked() throws(UsageError) -> (work: CompareWorkload, limits: [CompareLimit], modes: [CompareMode],
                                                  base: ProbeOptions) {
        let work: CompareWorkload
        let limitList: [CompareLimit]
        let modeList: [CompareMode]
        do throws(CompareParseError) {
            work = try CompareWorkload.parse(workload)
            limitList = try CompareLimit.parseList(limits)
            modeList = try CompareMode.parseList(modes)
        } catch {
            throw UsageError(error.message)
        }
        guard repeatCount >= 1 else { throw UsageError("--repeat must be 1 or more, not \(repeatCount)") }
        if protocols.maxHostConnections != 0 {
            throw UsageError("compare sets the connections per host from --limits; drop --max-host-connections")
        }
        if protocols.choosesProtocol {
            throw UsageError("compare sets the protocol and reuse per mode; give --modes h1,h1-fresh,h2 instead")
        }
        let base = try transfer.probeOptions(concurrency: 1, retries: 0, protocols: nil)
        return (work, limitList, modeList, base)
    }

    func checkFlags() throws(UsageError) {
        _ = try checked()
        try UsageError.checkURL(url.replacingOccurrences(of: "{size}", with: "1"))
    }

    /// Runs the comparison and writes its document; ends with the first failed run's exit code.
    func run() async throws {
        let (work, limitList, modeList, base) = try checked()
        try TransferFlags.prepareCookies(base.cookies)
        try report.check()
        if let cacert = base.caFile { _ = try ProbePlan.readableFileSize(cacert) }
        var filePath: String?
        if case .segmentedFile(let path) = work {
            _ = try ProbePlan.readableFileSize(path)
            filePath = path
        }
        var scratch: String?
        if case .segmentedSize(let size) = work {
            do {
                let path = FileManager.default.temporaryDirectory.appendingPathComponent("wirelens-compare-\(getpid()).bin").path
                try Self.writeGenerated(size: size, to: path)
                scratch = path
                filePath = path
            } catch {
                throw CommandFailure(.localFile, "cannot write the generated upload file: \(error)")
            }
        }
        defer { if let scratch { unlink(scratch) } }

        let configurations = CompareConfiguration.all(modes: modeList, limits: limitList)
        let current = EngineSlot()
        let trap = SignalTrap { current.cancel() }
        let started = MonotonicClock.wallMicros()
        var runs: [CompareDocument.Run] = []
        var status = ExitStatus.success
        var firstFailure: String?
        let schedule = CompareConfiguration.schedule(count: configurations.count, repetitions: repeatCount)
        for (n, step) in schedule.enumerated() where !trap.fired {
            let c = configurations[step.configuration]
            let options = c.mode.options(base: base, limit: c.limit.value, https: url.lowercased().hasPrefix("https:"))
            let engine = try Engine(options: options)
            current.set(engine)
            let before = Self.machineTicks()
            let cpuBefore = Self.processCPU(), wallBefore = MonotonicClock.now()
            var run = try await Self.runOnce(work, url: url, file: filePath, limit: c.limit.value,
                                             maxLimit: limitList.map(\.value).max() ?? 1, engine: engine,
                                             interrupted: { trap.fired })
            run.0.detail = detail.level
            current.set(nil)
            let wall = Double(MonotonicClock.now() - wallBefore) / 1e9
            runs.append(CompareDocument.Run(mode: c.mode, limit: c.limit.label, repetition: step.repetition, report: run.0,
                                            machineBusyShare: Self.busyShare(from: before, to: Self.machineTicks()),
                                            clientCPUShare: wall > 0 ? (Self.processCPU() - cpuBefore) / wall : nil))
            if status == .success, run.1 != .success {
                status = run.1
                if let task = run.0.tasks.first(where: { $0.error != nil }), let error = task.error {
                    firstFailure = "\(c.name): \(task.url): \(error.errorClass.rawValue): \(error.message)"
                } else if let failure = run.0.upload?.failure {
                    firstFailure = "\(c.name): \(failure)"
                }
            }
            if !report.quiet {
                let rate = CompareRecommendation.rate(CompareResult.throughput(of: run.0, movesBytes: work.movesBytes),
                                                      work.movesBytes ? "B/s" : "req/s")
                Console.error("[\(n + 1)/\(schedule.count)] \(c.name), repetition \(step.repetition + 1): \(rate), "
                              + "\(run.0.summary.connections.opened) connection(s) opened, \(run.0.summary.failed) failed")
            }
        }
        let document = CompareDocument(url: url, workload: work, modes: modeList, limits: limitList,
                                       repetitions: repeatCount, startedAt: started, endedAt: MonotonicClock.wallMicros(),
                                       interrupted: trap.fired, runs: runs)
        if let failure = deliver(document) { throw ExitCode(failure) }
        if trap.fired { throw ExitCode(ExitStatus.interrupted.rawValue) }
        if let firstFailure { Console.error("some runs failed; the first: \(firstFailure)") }
        try ErrorExit.end(status.rawValue)
    }

    /// This process's CPU time so far (user and system, every thread), in seconds.
    private static func processCPU() -> Double {
        var usage = rusage()
        guard getrusage(Int32(RUSAGE_SELF.rawValue), &usage) == 0 else { return 0 }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The machine's busy and total CPU ticks so far (`/proc/stat`), nil where it cannot be read.
    private static func machineTicks() -> (busy: Int64, total: Int64)? {
        (try? String(contentsOfFile: "/proc/stat", encoding: .utf8)).flatMap(CgroupCPU.machineTicks)
    }

    /// The busy share of the machine's CPU time between two readings, nil without both or when fewer than
    /// `shareTicks` ticks passed over all CPUs (a run too short for /proc/stat's ticks to tell: 3 of them read 0.67).
    private static func busyShare(from a: (busy: Int64, total: Int64)?, to b: (busy: Int64, total: Int64)?) -> Double? {
        guard let a, let b, b.total - a.total >= shareTicks else { return nil }
        return CgroupCPU.busyShare(from: a, to: b)
    }

    /// The fewest ticks (over all CPUs) a run's busy share is read from: 20, a twentieth at most per tick.
    private static let shareTicks: Int64 = 20

    /// Writes the document in the asked format; returns the exit code of a failure, nil on success.
    private func deliver(_ document: CompareDocument) -> Int32? {
        let color = report.reportPath == nil && Console.colorsStdout(noColor: report.noColor)
        let failure = report.write { emit in
            switch report.choice {
            case .json:
                var bytes = try StreamingJSONEncoder(prettyPrinted: true).encode(document)
                bytes.append(UInt8(ascii: "\n"))
                try emit(bytes)
            case .html: try emit(Array(HTMLRenderer.render(document).utf8))
            case .text: try emit(Array(CompareTextRenderer(color: color).render(document).utf8))
            }
        }
        if failure == nil, !report.quiet, let path = report.reportPath { Console.error("report written to \(path)") }
        return failure
    }

    /// Runs the workload once on `engine` at `limit`; returns the run's report and its exit status.
    private static func runOnce(_ work: CompareWorkload, url: String, file: String?, limit: Int, maxLimit: Int,
                                engine: Engine, interrupted: @escaping @Sendable () -> Bool) async throws -> (Report, ExitStatus) {
        switch work {
        case .segmentedFile, .segmentedSize:
            guard let file else { throw UsageError("segmented workload without a file") }
            let size = try ProbePlan.readableFileSize(file)
            let plan = UploadPlan(filePath: file, fileSize: size, baseURL: url,
                                  sizing: .fixed(CompareWorkload.segmentSize(fileBytes: size, maxLimit: maxLimit)),
                                  parallel: limit, maxRetries: 2)
            let uploader = SegmentUploader(plan: plan, engine: engine, journal: nil, journalKey: nil, resume: false,
                                           progress: UploadProgress())
            var (report, outcome) = await UploadSession.run(uploader, interrupted: interrupted)
            report.command = "compare"
            return (report, ErrorExit.status(of: outcome.ending))
        case .requests(let count):
            return try await probe(urls: Array(repeating: url, count: count), size: nil, engine: engine, interrupted: interrupted)
        case .download(let size, let count):
            let target = url.replacingOccurrences(of: "{size}", with: String(size))
            return try await probe(urls: Array(repeating: target, count: count), size: nil, engine: engine,
                                   interrupted: interrupted)
        case .upload(let size, let count):
            return try await probe(urls: Array(repeating: url, count: count), size: size, engine: engine,
                                   interrupted: interrupted)
        }
    }

    /// One probe run of `urls` (with a generated body of `size` bytes when given).
    private static func probe(urls: [String], size: Int64?, engine: Engine,
                              interrupted: @escaping @Sendable () -> Bool) async throws -> (Report, ExitStatus) {
        let plan = try ProbePlan(urls: urls, method: nil, uploadPath: nil, uploadSize: size, repeatCount: 1, outputPath: nil)
        let report = await ProbeSession.run(plan, engine: engine, command: "compare", interrupted: interrupted)
        return (report, ExitStatus.forTasks(report.tasks, interrupted: report.interrupted))
    }

    /// Writes `size` bytes of the deterministic pattern (`PatternBytes`) to `path`, 64 KiB at a time.
    static func writeGenerated(size: Int64, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw CocoaError(.fileWriteUnknown)
        }
        defer { try? handle.close() }
        var offset: Int64 = 0
        while offset < size {
            let n = Int(min(size - offset, 1 << 16))
            try handle.write(contentsOf: PatternBytes.bytes(offset: offset, count: n))
            offset += Int64(n)
        }
    }
}
