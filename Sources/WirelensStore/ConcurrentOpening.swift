import Foundation

/// Opens a database that another connection may be creating at the same moment, trying again when that one wins.
///
/// A new SQLite file being switched to WAL answers "database is locked" without waiting for the busy timeout, and two
/// openers that both saw no migration applied both create the tables ("table … already exists"): the loser's
/// attempt fails, and by the next one the winner has finished (`wirelens history` while `check --every` starts, two
/// uploads starting with one journal).
enum ConcurrentOpening {
    /// How often opening is tried before its failure is reported.
    static let attempts = 5
    /// The pause between two attempts, in microseconds.
    static let pause: useconds_t = 20_000

    /// Runs `open` until it succeeds, at most `attempts` times, `pause` apart; throws the last attempt's error.
    static func open<Opened>(_ open: () throws -> Opened) throws -> Opened {
        var attempt = 1
        while true {
            do {
                return try open()
            } catch {
                guard attempt < attempts else { throw error }
                attempt += 1
                usleep(pause)
            }
        }
    }
}
