import ArgumentParser
import Foundation
import WirelensCheck
import WirelensCore
import WirelensProbe
import WirelensReport
import WirelensStore

/// `wirelens check CONFIG.yaml`: runs the configured checks once (or every `--every`), prints pass or fail per
/// check, stores each result in the history database.
struct CheckCommand: CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Run the health checks of a YAML configuration and report pass or fail per check.",
        discussion: """
            Exit codes: 0 every check passed, 1 a check failed, 2 a configuration or usage error (with the file, \
            line and key at fault), 12 every check passed but the history database could not be used (one warning \
            line names it; the results are still printed and written). A check without 'timeout:' is bounded by 10s \
            (or the configuration's 'defaults: { timeout: }'). With --history-keep, each round removes the runs older \
            than that from the history (at most 200,000 rows a round, 10,000 per transaction). With --every, runs \
            until SIGINT or SIGTERM, which end it after the current round; the exit code is then the last round's.
            """)

    @Argument(help: "The checks' configuration (YAML).")
    var config: String

    @Option(help: "Run the checks on this schedule (e.g. 60s), with ±10% jitter, until SIGINT/SIGTERM.")
    var every: FlagValue<PositiveDuration>?

    @Option(help: "Output: text, or prometheus (exposition text for node_exporter's textfile collector).")
    var format: CheckOutputFormat = .text

    @Option(name: .customLong("report"), help: "Write the output to this file (replaced atomically each round).")
    var reportPath: String?

    @OptionGroup(title: "History")
    var history: HistoryFlags

    @Flag(name: [.customShort("q"), .customLong("quiet")], help: "No messages but errors.")
    var quiet = false

    @OptionGroup(title: "Vantage points")
    var fleet: FleetFlags

    /// The checked flags: the schedule (nil: one round), the retention, the vantage and the configuration (this
    /// shard's checks).
    private func checked() throws(UsageError) -> (schedule: Schedule?, keep: Int64?, checks: CheckConfig, vantage: String?) {
        let schedule = try every.map { every throws(UsageError) in Schedule(interval: try every.value("--every").micros) }
        let keep = try history.keep()
        let (vantage, shard) = try fleet.checked()
        do throws(CheckConfigError) {
            var checks = try CheckConfig.load(path: config, environment: ProcessInfo.processInfo.environment)
            if let shard { checks.checks = shard.select(checks.checks) }
            return (schedule, keep, checks, vantage)
        } catch {
            throw UsageError(error.description)
        }
    }

    func checkFlags() throws(UsageError) {
        _ = try checked()
    }

    /// Runs the checks; ends with 1 when one failed, 12 when the history could not be used.
    func run() async throws {
        let (schedule, keep, checks, vantage) = try checked()
        if let reportPath { try ReportFile.checkReport(reportPath) }
        // A history that cannot be used is a warning: the checks run, print and export without it.
        let (store, unavailable) = history.open()

        let runner = CheckRunner(keptConnections: CheckRunner.keptConnections(for: checks.checks))
        let trap = SignalTrap {}
        var status = ExitStatus.success
        var round = 0
        repeat {
            round += 1
            let results = await runner.runRound(checks.checks)
            var stored = !unavailable
            if let store, case .failed(let report) = store.store(results.map { $0.historyEntry(vantage: vantage) }) {
                stored = false
                if let report { Console.error(report.description) }
            }
            if let store, let keep, case .failure(let failure) = Self.prune(store, keep: keep) {
                stored = false
                if let report = failure.report { Console.error(report.description) }
            }
            // A failed check outweighs the history's trouble.
            status = !results.allSatisfy(\.passed) ? .checkFailed : stored ? .success : .historyUnavailable
            let text = format == .prometheus ? PrometheusRenderer.render(results, vantage: vantage) : CheckText.render(results)
            if let reportPath {
                do {
                    try ReportFile.write(to: reportPath) { emit in try emit(Array(text.utf8)) }
                } catch {
                    throw CommandFailure(.localFile, "cannot write '\(reportPath)': \(error)")
                }
            } else {
                if schedule != nil, format == .text, !quiet {
                    print("round \(round) at \(WallClock.iso8601(micros: Int64(Date().timeIntervalSince1970 * 1e6)))")
                }
                try ReportFile.writeStandardOutput(Array(text.utf8))
            }
            guard let schedule else { break }
            await Self.sleep(micros: schedule.nextDelay(), unless: { trap.fired })
        } while !trap.fired
        if schedule != nil, !quiet {
            Console.error("stopped after \(round) rounds")
        }
        try ErrorExit.end(status.rawValue)
    }

    /// Removes the runs older than `keep` (µs), at most `pruneBatches` transactions of 10,000 rows per round so that
    /// a first retention over a large history does not hold the checks up; the rest goes in later rounds.
    static func prune(_ store: CheckHistory, keep: Int64) -> Result<Int, CheckHistory.PruneFailure> {
        let cut = Int64(Date().timeIntervalSince1970 * 1e6) - keep
        var total = 0
        for _ in 0..<pruneBatches {
            switch store.prune(before: cut, limit: pruneBatch) {
            case .success(let removed):
                total += removed
                if removed < pruneBatch { return .success(total) }
            case .failure(let failure):
                return .failure(failure)
            }
        }
        return .success(total)
    }

    /// The most rows one retention transaction removes.
    static let pruneBatch = 10_000
    /// The most retention transactions per round.
    static let pruneBatches = 20

    /// Sleeps in short slices so that a signal ends the wait at once.
    static func sleep(micros: Int64, unless stop: () -> Bool) async {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, micros)) * 1000
        while !stop() {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return }
            try? await Task.sleep(nanoseconds: min(deadline - now, 50_000_000))
        }
    }
}
