import WirelensCore

/// A command's failure with its one line and exit code, for the failures no library error type describes (a
/// capture file that cannot be read, a report that is not a report).
struct CommandFailure: Error {
    let status: ExitStatus
    let message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }
}
