import ArgumentParser
import Foundation
import WirelensCore
import WirelensStore

/// Where check history lives: `--history PATH`, or the XDG data directory; `--no-history` keeps none;
/// `--history-keep` how long runs are kept.
struct HistoryFlags: ParsableArguments {
    @Option(name: .customLong("history"),
            help: "The history database (default $XDG_DATA_HOME/wirelens/history.sqlite or ~/.local/share/wirelens/history.sqlite).")
    var path: String?

    @Flag(name: .customLong("no-history"), help: "Do not store results.")
    var disabled = false

    @Option(name: .customLong("history-keep"),
            help: "Remove the runs older than this from the history (e.g. 90d, 12h; a bare number is seconds).")
    var keepText: FlagValue<PositiveDuration>?

    /// The retention window in µs, nil when runs are kept for ever; `--history-keep` must be a positive duration.
    func keep() throws(UsageError) -> Int64? {
        try keepText?.value("--history-keep").micros
    }

    /// The database's path.
    var resolvedPath: String {
        path ?? CheckHistory.defaultPath(environment: ProcessInfo.processInfo.environment)
    }

    /// Opens the database, or nil with --no-history. A database that cannot be used (damaged, not writable) is one
    /// warning line naming it and what to do, and `unavailable`: the checks run without it.
    func open() -> (store: CheckHistory?, unavailable: Bool) {
        guard !disabled else { return (nil, false) }
        do {
            return (try CheckHistory(path: resolvedPath), false)
        } catch {
            Console.error(error.description)
            return (nil, true)
        }
    }
}
