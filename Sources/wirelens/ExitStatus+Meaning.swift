import WirelensCore

extension ExitStatus {
    /// One line per code for help texts and the README.
    var meaning: String {
        switch self {
        case .success: "every task finished with a status below 400"
        case .checkFailed: "wirelens check: a check failed one of its assertions; wirelens history: a regression was flagged"
        case .usage: "bad usage: unknown option, bad value, malformed URL, unsupported scheme"
        case .localFile: "a local file could not be read or written (upload, output, report, CA file, TLS key log), or a capture is unreadable, cut or damaged"
        case .httpError: "a task ended with an HTTP status of 400 or more"
        case .dns: "name resolution failed"
        case .connect: "connection failed: refused, unreachable, reset or dropped mid-exchange, or the proxy failed"
        case .tls: "TLS failed: handshake error or certificate verification"
        case .timeout: "a connect, idle or total timeout expired"
        case .transfer: "protocol error: the server broke HTTP (malformed status line, chunk size or headers, headers over the limit), or another transfer failure"
        case .verification: "an upload's assembled file on the server differs from the local file (SHA-256)"
        case .wireDisagreement: "the capture disagrees with the probe report (capture analyze --probe, probe --capture)"
        case .historyUnavailable: "the history database could not be used (check, serve: every check passed; the results were printed, not stored)"
        case .listenUnavailable: "wirelens serve/target: the --listen address is in use or cannot be bound"
        case .internalError: "internal error (a bug)"
        case .interrupted: "interrupted (SIGINT); the report holds what was gathered"
        case .terminated: "terminated (SIGTERM); the report holds what was gathered"
        }
    }
}
