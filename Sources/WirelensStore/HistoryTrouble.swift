import Foundation
import GRDB

/// Why the check history database cannot be used: one warning line naming the file and what to do.
///
/// The checks run without it (their results are printed and exported, not stored); `wirelens check` and `serve` then
/// exit with the CLI's "history unavailable" code unless a check failed.
package struct HistoryTrouble: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database file.
    package let path: String
    /// SQLite's (or the file system's) reason, one line.
    package let reason: String
    /// True when the file is damaged or not a database at all: moving it away is the fix.
    package let damaged: Bool

    package init(path: String, reason: String, damaged: Bool) {
        self.path = path
        self.reason = reason
        self.damaged = damaged
    }

    /// The trouble behind an error GRDB or the file system threw for the database at `path`.
    package init(path: String, error: any Error) {
        if let error = error as? DatabaseError {
            self.init(path: path, reason: error.message ?? "SQLite error \(error.resultCode.rawValue)",
                      damaged: [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode))
        } else {
            let text = (error as NSError).localizedDescription
            self.init(path: path, reason: text.split(separator: "\n").first.map(String.init) ?? text, damaged: false)
        }
    }

    /// The warning line.
    package var description: String {
        damaged
            ? "history database '\(path)' is damaged (\(reason)): move it away and a new one is created"
            : "cannot use the history database '\(path)' (\(reason)): fix it, or give --history PATH or --no-history"
    }
}
