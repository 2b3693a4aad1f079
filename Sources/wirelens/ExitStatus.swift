import WirelensCore

/// The documented exit codes of the `wirelens` command (their one-line meanings, for the help and the README:
/// `ExitStatus.meaning`). The libraries name none: `ErrorExit` maps their errors and typed outcomes to these.
enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Every task finished with a non-error status.
    case success = 0
    /// `wirelens check`: the checks ran and at least one assertion failed; `wirelens history`: it flagged a regression.
    case checkFailed = 1
    /// Bad usage: unknown option, bad value, malformed URL, unsupported scheme.
    case usage = 2
    /// A local file could not be read or written (upload file, output, report, CA file), or a capture file is
    /// not a readable pcap/pcapng, has a link type Wirelens does not decode, or is cut or damaged.
    case localFile = 3
    /// At least one task ended with an HTTP status of 400 or more (and no transport failure).
    case httpError = 4
    /// Name resolution failed.
    case dns = 5
    /// The connection failed: refused, unreachable, reset, dropped mid-exchange, proxy failure.
    case connect = 6
    /// TLS failed: handshake error or certificate verification.
    case tls = 7
    /// A connect, idle or total timeout expired.
    case timeout = 8
    /// The server broke the protocol (a malformed status line, chunk size or header block, headers over libcurl's
    /// limit, an HTTP/2 framing error), or another transfer failure. Retrying does not help.
    case transfer = 9
    /// An upload completed but the server's assembled file differs from the local one (size or SHA-256).
    case verification = 10
    /// A capture disagrees with a probe report (`capture analyze --probe`): a reuse flag, a connect time, the
    /// connections opened or a connection limit is contradicted by the wire, or the wire holds unexplained exchanges.
    case wireDisagreement = 11
    /// The history database could not be opened or written (damaged, unreadable). `wirelens check` and `serve`:
    /// every check passed (a failed check exits 1 instead) and the results were printed and exported, not stored;
    /// `wirelens history`: there is nothing to compare.
    case historyUnavailable = 12
    /// `serve` and `target`: the `--listen` address cannot be used (in use by another socket, not an address of
    /// this host, or a port below 1024 without the privilege).
    case listenUnavailable = 13
    /// An internal error: a bug; please report it.
    case internalError = 70
    /// Interrupted by SIGINT; the report holds what was gathered until then.
    case interrupted = 130
    /// Ended by SIGTERM; the report holds what was gathered until then (128 + 15, as a shell reports it).
    case terminated = 143

    /// The exit code for a transport failure of the given class.
    static func forError(_ errorClass: ErrorClass) -> ExitStatus {
        switch errorClass {
        case .dns: .dns
        case .connect, .proxy, .network: .connect
        case .tls: .tls
        case .connectTimeout, .idleTimeout, .totalTimeout: .timeout
        case .http: .httpError
        case .file: .localFile
        case .cancelled: .interrupted
        case .protocol, .other: .transfer
        }
    }

    /// The exit code for a finished run: the first transport failure in task order wins over HTTP error statuses.
    static func forTasks(_ tasks: [TaskRecord], interrupted: Bool) -> ExitStatus {
        ErrorExit.status(of: TaskFailures(tasks), interrupted: interrupted)
    }
}
