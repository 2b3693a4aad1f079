import ArgumentParser
import Foundation
import WirelensCheck
import WirelensCore
import WirelensReport
import WirelensStore

/// `wirelens history [CHECK] [--since 24h]`: per-phase p50/p90 of the recent window against the window before,
/// with regressions flagged.
struct HistoryCommand: CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Compare recent check results with the window before and flag regressions.",
        discussion: "A phase regressed when its p50 or p90 grew by half and by at least 5 ms (3 runs or more in each window).")

    @Argument(help: "Only this check.")
    var check: String?

    @Option(help: "The window: the last this long (e.g. 24h, 30m), against the same length before it.")
    var since: FlagValue<PositiveDuration> = "24h"

    @Option(name: .customLong("history"),
            help: "The history database (default $XDG_DATA_HOME/wirelens/history.sqlite or ~/.local/share/wirelens/history.sqlite).")
    var path: String?

    /// The window's length in µs.
    private func window() throws(UsageError) -> Int64 {
        try since.value("--since").micros
    }

    func checkFlags() throws(UsageError) {
        _ = try window()
    }

    /// Prints the comparison; exit 0, or 1 when a regression was flagged.
    func run() async throws {
        let window = try window()
        let resolved = path ?? CheckHistory.defaultPath(environment: ProcessInfo.processInfo.environment)
        guard FileManager.default.fileExists(atPath: resolved) else {
            throw UsageError("no history database at '\(resolved)'; run 'wirelens check' first or give --history PATH")
        }
        let store = try CheckHistory(path: resolved)
        let now = Int64(Date().timeIntervalSince1970 * 1e6)
        let comparison: HistoryComparison
        do {
            if let check {
                let entries = try store.entries(check: check, since: now - 2 * window)
                if entries.isEmpty {
                    throw UsageError("no results for check '\(check)' in the last \(DurationText.span(micros: 2 * window))")
                }
                comparison = HistoryComparison.compare(entries, check: check, end: now + 1, window: window)
            } else {
                // One check's runs at a time: the history may hold millions of runs of thousands of checks.
                comparison = try HistoryComparison.compare(checks: store.checkNames(), end: now + 1, window: window) {
                    try store.entries(check: $0, since: now - 2 * window)
                }
            }
        } catch let error as UsageError {
            throw error
        } catch {
            throw CommandFailure(.localFile, "cannot read the history database '\(store.path)': \(error)")
        }
        try ReportFile.writeStandardOutput(Array(comparison.render().utf8))
        if comparison.checks.contains(where: \.regressed) { throw ExitCode(ExitStatus.checkFailed.rawValue) }
    }
}
