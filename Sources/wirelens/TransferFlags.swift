import ArgumentParser
import WirelensCore

/// The connection, timeout, header and TLS flags every transfer command shares (named as curl's); the protocol and
/// reuse flags, which `compare` sets per mode, are `ProtocolFlags`.
struct TransferFlags: ParsableArguments {
    @Option(name: [.customShort("H"), .customLong("header")], help: "Extra request header \"Name: value\" (repeatable).")
    var headers: [String] = []

    @Option(name: .customLong("max-connections"), help: "Connections in total at most (0: unlimited).")
    var maxConnections = 0

    @Flag(name: .customLong("no-multiplex"), help: "Do not multiplex HTTP/2 streams over one connection.")
    var noMultiplex = false

    @Option(name: .customLong("connect-timeout"), help: "Give up connecting after this long.")
    var connectTimeout: String?

    @Option(name: .customLong("idle-timeout"), help: "Fail a transfer when no byte moves for this long.")
    var idleTimeout: String?

    @Option(name: .customLong("timeout"), help: "Fail a task that takes longer than this in all.")
    var totalTimeout: String?

    @Option(name: .customLong("tcp-sample"), help: "Read the kernel's TCP facts of each transfer this often, e.g. 100ms (0: at its start and end only; off: never).")
    var tcpSample = "100ms"

    @Option(help: "The client socket's send buffer (SO_SNDBUF), e.g. 16KiB (default: the kernel's auto-tuning).")
    var sndbuf: String?

    @Option(name: .customLong("max-redirs"), help: "Redirects to follow, each its own transaction (0: none).")
    var maxRedirects = 10

    @Flag(name: .customLong("location-trusted"),
          help: "Send secret headers (Authorization, Cookie, tokens) and URL credentials to redirects to other origins too.")
    var locationTrusted = false

    @Option(name: .customLong("retry-max-wait"),
            help: "The longest wait before a retry, backoff or a server's Retry-After (default 30s, at most 24h).")
    var retryMaxWait: String?

    @Option(help: "Proxy URL.")
    var proxy: String?

    @Option(help: "CA certificates file to verify servers with.")
    var cacert: String?

    @Flag(name: [.customShort("k"), .customLong("insecure")], help: "Do not verify TLS certificates.")
    var insecure = false

    @Flag(name: .customLong("no-expect-100"), help: "Do not send Expect: 100-continue before request bodies.")
    var noExpect100 = false

    @Flag(name: .customLong("include-headers"), help: "Keep response headers (redacted) in the report.")
    var includeHeaders = false

    /// The engine options from these flags, the protocol flags (nil: the defaults, for a command that sets them
    /// itself) and the command's own concurrency and retries; bad values are usage errors.
    func probeOptions(concurrency: Int, retries: Int, protocols: ProtocolFlags?) throws(UsageError) -> ProbeOptions {
        var o = ProbeOptions()
        guard concurrency >= 1 else { throw UsageError("--concurrency must be 1 or more, not \(concurrency)") }
        guard maxConnections >= 0 else { throw UsageError("--max-connections must be 0 (unlimited) or more") }
        guard retries >= 0 else { throw UsageError("--retries must be 0 or more, not \(retries)") }
        guard maxRedirects >= 0 else { throw UsageError("--max-redirs must be 0 or more, not \(maxRedirects)") }
        try protocols?.apply(to: &o)
        o.concurrency = concurrency
        o.maxConnections = maxConnections > 0 ? maxConnections : nil
        o.multiplex = !noMultiplex
        o.connectTimeout = try Self.duration(connectTimeout, "--connect-timeout")
        o.idleTimeout = try Self.duration(idleTimeout, "--idle-timeout")
        o.totalTimeout = try Self.duration(totalTimeout, "--timeout")
        o.retry.maxRetries = retries
        if let wait = try Self.duration(retryMaxWait, "--retry-max-wait") {
            guard wait <= Self.longestRetryWait else { throw UsageError("--retry-max-wait must be at most 24h, not \(retryMaxWait ?? "")") }
            o.retry.maxDelay = wait
        }
        o.maxRedirects = maxRedirects
        o.trustedRedirects = locationTrusted
        o.proxy = proxy
        o.caFile = cacert
        o.insecure = insecure
        o.expectContinue = !noExpect100
        o.includeResponseHeaders = includeHeaders
        if tcpSample == "off" {
            o.readsKernelFacts = false
        } else {
            guard let sample = DurationText.parseMicroseconds(tcpSample), sample == 0 || (1000...60_000_000).contains(sample) else {
                throw UsageError("--tcp-sample '\(tcpSample)' is not off, 0 or a duration from 1ms to 60s; write e.g. 100ms")
            }
            o.tcpSampleInterval = sample
        }
        o.sendBuffer = try Self.socketBuffer(sndbuf, "--sndbuf")
        o.headers = try headers.map { line throws(UsageError) in
            guard let field = HeaderField.parse(line) else {
                throw UsageError("-H '\(RequestTextCheck.oneLine(Redactor.message(line)))' is not a header; write \"Name: value\"")
            }
            if let problem = RequestTextCheck.problem(name: field.name, value: field.value) {
                throw UsageError("-H: \(problem)")
            }
            return field
        }
        return o
    }

    /// A socket buffer size flag (SO_SNDBUF, SO_RCVBUF) in bytes, 1 KiB to 64 MiB, or nil when not given.
    static func socketBuffer(_ text: String?, _ flag: String) throws(UsageError) -> Int? {
        guard let text else { return nil }
        guard let bytes = ByteSize.parse(text), (1024...(64 << 20)).contains(bytes) else {
            throw UsageError("\(flag) '\(text)' is not a size from 1KiB to 64MiB; write e.g. 64KiB")
        }
        return Int(bytes)
    }
    /// The largest `--retry-max-wait`: a day, in µs.
    static let longestRetryWait: Int64 = 86_400_000_000

    /// A positive duration flag in microseconds (`DurationText.parsePositive`), or nil when not given.
    static func duration(_ text: String?, _ flag: String) throws(UsageError) -> Int64? {
        guard let text else { return nil }
        switch DurationText.parsePositive(text) {
        case .success(let micros): return micros
        case .failure(let refusal): throw UsageError("\(flag) \(refusal.message)")
        }
    }
}
