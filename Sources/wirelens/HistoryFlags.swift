import ArgumentParser
import Foundation
import WirelensStore

/// Where check history lives: `--history PATH`, or the XDG data directory; `--no-history` keeps none.
struct HistoryFlags: ParsableArguments {
    @Option(name: .customLong("history"),
            help: "The history database (default $XDG_DATA_HOME/wirelens/history.sqlite or ~/.local/share/wirelens/history.sqlite).")
    var path: String?

    @Flag(name: .customLong("no-history"), help: "Do not store results.")
    var disabled = false

    /// The database's path.
    var resolvedPath: String {
        path ?? CheckHistory.defaultPath(environment: ProcessInfo.processInfo.environment)
    }

    /// Opens the database, or nil with --no-history; a database that cannot be opened is a usage error.
    func open() throws(UsageError) -> CheckHistory? {
        guard !disabled else { return nil }
        let path = resolvedPath
        do {
            return try CheckHistory(path: path)
        } catch {
            throw UsageError("cannot open the history database '\(path)': \(error); give --history PATH or --no-history")
        }
    }
}
