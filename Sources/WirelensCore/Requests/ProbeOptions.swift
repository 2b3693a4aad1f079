/// The engine's per-run options: concurrency, connection limits, protocol, timeouts, retries and TLS.
public struct ProbeOptions: Sendable, Codable, Equatable {
    /// Tasks in flight at once.
    public var concurrency: Int = 1
    /// CURLMOPT_MAX_HOST_CONNECTIONS; nil is unlimited.
    public var maxHostConnections: Int?
    /// CURLMOPT_MAX_TOTAL_CONNECTIONS; nil is unlimited.
    public var maxConnections: Int?
    /// The HTTP version asked for.
    public var httpVersion: HTTPVersion = .auto
    /// Keep connections alive and reuse them; false opens a fresh connection per transaction and closes it after.
    public var reuseConnections = true
    /// Multiplex HTTP/2 streams over one connection.
    public var multiplex = true
    /// Connect timeout in microseconds (DNS, TCP and TLS); nil is libcurl's default of 300 s.
    public var connectTimeout: Int64?
    /// Fails a transaction when no byte moves for this many microseconds (like timeoutIntervalForRequest).
    public var idleTimeout: Int64?
    /// Fails a task that lasts longer than this many microseconds, redirects and retries included
    /// (like timeoutIntervalForResource).
    public var totalTimeout: Int64?
    /// Retries for connect errors, timeouts, 5xx and 429.
    public var retry = RetryPolicy()
    /// Redirects followed by the engine, one transaction each; 0 follows none.
    public var maxRedirects = 10
    /// Send the secret headers and the URL's user info to every hop, whatever its origin (`--location-trusted`);
    /// by default only hops to the task's first origin get them (`RedirectPolicy.keepsCredentials`).
    public var trustedRedirects = false
    /// Follow redirects into link-local addresses (169.254.0.0/16, fe80::/10); checks turn it off unless they
    /// allow it (`allow_link_local_redirects: true`).
    public var allowsLinkLocalRedirects = true
    /// Proxy URL (redacted in reports).
    public var proxy: String?
    /// CA bundle file used to verify servers.
    public var caFile: String?
    /// Skip TLS certificate verification (off unless asked).
    public var insecure = false
    /// The TLS versions the handshake may settle on (`--tlsv1.2`, `--tlsv1.3`, `--tls-max`).
    public var tlsBounds = TLSBounds()
    /// The interface or local address the transfer's sockets are bound to, in curl's `--interface` form
    /// (`NAME`, `ADDRESS`, `if!NAME`, `host!ADDRESS`; checked by `BindInterface`); nil: the kernel's choice.
    public var interface: String?
    /// Extra request headers (redacted in reports).
    public var headers: [HeaderField] = []
    /// The cookies sent and kept (`-b`, `-c`, a check's `cookies: true`); none by default. Not in reports: a secret.
    public var cookies = CookieOptions()
    /// Send `Expect: 100-continue` before request bodies when curl would (`BodyKind`); false never sends it.
    public var expectContinue = true
    /// Keep each transaction's response headers in the report.
    public var includeResponseHeaders = false
    /// The User-Agent header.
    public var userAgent = "wirelens/\(WirelensVersion.current)"
    /// How often the kernel's facts of each transfer's connection are read while it runs (µs); 0: at its start and
    /// end only. Each transfer keeps at most `TCPFacts.Builder.sampleLimit` samples. Not in the report's options: the
    /// samples' own instants show it.
    public var tcpSampleInterval: Int64 = 100_000
    /// False reads no kernel facts at all (`--tcp-sample off`): transactions then have no `tcp`, and an `unknown`
    /// diagnosis unless their phases tell.
    public var readsKernelFacts = true
    /// False keeps of the kernel's facts only what a run's summary shows: each transaction's diagnosis, made from
    /// them as always, but not the facts themselves (`tcp`: nil, no samples) nor its connection's totals. For a
    /// report that prints neither (the text summary of many tasks); everything else keeps them.
    public var keepsTransactionFacts = true
    /// The send buffer of each new connection's socket (SO_SNDBUF, bytes); nil leaves it to the kernel's auto-tuning.
    public var sendBuffer: Int?
    /// The receive buffer of each new connection's socket (SO_RCVBUF, bytes, set before it connects, so the window
    /// scale fits it); nil leaves it to the kernel's auto-tuning.
    public var receiveBuffer: Int?
    /// `HOST:PORT:ADDR[,ADDR]` entries that take the place of name resolution (CURLOPT_RESOLVE, `--resolve`).
    public var resolve: [String] = []
    /// `HOST:PORT:CONNECT-HOST:CONNECT-PORT` entries: connect elsewhere, keep the URL's name (CURLOPT_CONNECT_TO).
    public var connectTo: [String] = []
    /// The IP versions names resolve to (CURLOPT_IPRESOLVE, `-4`/`-6`).
    public var addressFamily: AddressFamily = .any
    /// Ask for a compressed response (every encoding libcurl decodes) and deliver it decoded (`--compressed`).
    public var compressed = false
    /// Write libcurl's verbose text to stderr, redacted (`-v`).
    public var verbose = false
    /// How long a request that sent `Expect: 100-continue` waits for the server's 100 before it sends the body
    /// anyway (µs, CURLOPT_EXPECT_100_TIMEOUT_MS, `--expect100-timeout`); nil: libcurl's 1 s.
    public var expectContinueTimeout: Int64?
    /// The redirect statuses (301, 302, 303) after which a POST body stays a POST, as curl's `--post301`,
    /// `--post302` and `--post303` (`RedirectPolicy.next`).
    public var keepsPostAfter: Set<Int> = []
    /// AWS Signature Version 4 on every request to the task's first origin (`--aws-sigv4`), signed by libcurl; nil
    /// signs none. Not encoded: its key pair is a secret.
    public var sigV4: SigV4Signing?
    /// Open each connection's socket as Multipath TCP (IPPROTO_MPTCP, `--mptcp`, a check's `mptcp: true`), plain
    /// TCP where the kernel refuses it; each transaction on an MPTCP socket reports `TransactionMetrics.mptcp`.
    public var multipath = false
    /// The DNS over HTTPS server names are resolved through (CURLOPT_DOH_URL, `--doh-url`); nil: the system resolver.
    public var dohURL: String?
    /// False skips the check of the DoH server's certificate and name (`--doh-insecure`; CURLOPT_DOH_SSL_VERIFYPEER and
    /// CURLOPT_DOH_SSL_VERIFYHOST off); the transfer's own `insecure` does not reach the DoH exchange.
    public var dohInsecure = false

    /// The IP versions a host name may resolve to.
    public enum AddressFamily: String, Sendable, Codable, Equatable {
        /// Whatever the name resolves to.
        case any
        /// IPv4 addresses only.
        case ipv4
        /// IPv6 addresses only.
        case ipv6
    }

    public init() {}

    // trustedRedirects, allowsLinkLocalRedirects, tlsBounds, interface, cookies and the flags after sendBuffer stay out of
    // reports: saved reports lack them, and the synthesized decoder would refuse those.
    private enum CodingKeys: String, CodingKey {
        case concurrency, maxHostConnections, maxConnections, httpVersion, reuseConnections, multiplex
        case connectTimeout = "connectTimeoutUs", idleTimeout = "idleTimeoutUs", totalTimeout = "totalTimeoutUs"
        case retry, maxRedirects, proxy, caFile, insecure, headers, expectContinue, includeResponseHeaders, userAgent
    }

    /// A copy fit for a report: secrets in headers and the proxy URL are masked; the `-b` cookies are a masked Cookie
    /// header.
    public var redacted: ProbeOptions {
        var copy = self
        copy.dohURL = dohURL.map(Redactor.url)
        copy.headers = Redactor.headers(headers)
        copy.proxy = proxy.map(Redactor.url)
        // The -b text shows as the Cookie header it is sent as, masked (and goes no further).
        if cookies.header != nil { copy.headers.append(HeaderField(name: "Cookie", value: Redactor.mask)) }
        copy.cookies.header = nil
        copy.sigV4 = sigV4.map { SigV4Signing(provider: $0.provider, accessKey: Redactor.mask, secretKey: Redactor.mask) }
        return copy
    }
}
