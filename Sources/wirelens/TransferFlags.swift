import ArgumentParser
import Foundation
import WirelensCore
import WirelensProbe

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
    var connectTimeout: FlagValue<PositiveDuration>?

    @Option(name: .customLong("idle-timeout"), help: "Fail a transfer when no byte moves for this long.")
    var idleTimeout: FlagValue<PositiveDuration>?

    @Option(name: [.customShort("m"), .customLong("max-time"), .customLong("timeout")],
            help: "Fail a task that takes longer than this in all (unlike curl's -m: redirects and retries included).")
    var totalTimeout: FlagValue<PositiveDuration>?

    @Option(name: .customLong("tcp-sample"), help: "Read the kernel's TCP facts of each transfer this often, e.g. 100ms (0: at its start and end only; off: never).")
    var tcpSample = "100ms"

    @Option(help: "The client socket's send buffer (SO_SNDBUF), e.g. 16KiB (default: the kernel's auto-tuning).")
    var sndbuf: FlagValue<SocketBufferSize>?

    @Option(help: "The client socket's receive buffer (SO_RCVBUF), e.g. 64KiB: it caps the window a download may use (default: the kernel's auto-tuning).")
    var rcvbuf: FlagValue<SocketBufferSize>?

    @Option(name: .customLong("max-redirs"), help: "Redirects to follow, each its own transaction (0: none).")
    var maxRedirects = 10

    @Flag(name: [.customShort("L"), .customLong("location")],
          help: "Follow redirects (the default in Wirelens, unlike curl: -L is accepted and changes nothing).")
    var location = false

    @Flag(name: .customLong("no-location"), help: "Do not follow redirects: a 3xx is the answer, as curl without -L.")
    var noLocation = false

    @Flag(name: .customLong("post301"), help: "After a 301, send a -d/-F body again as a POST instead of a GET, as curl's.")
    var post301 = false

    @Flag(name: .customLong("post302"), help: "After a 302, send a -d/-F body again as a POST instead of a GET, as curl's.")
    var post302 = false

    @Flag(name: .customLong("post303"), help: "After a 303, send a -d/-F body again as a POST instead of a GET, as curl's.")
    var post303 = false

    @Flag(name: .customLong("location-trusted"),
          help: "Send secret headers (Authorization, Cookie, tokens) and URL credentials to redirects to other origins too.")
    var locationTrusted = false

    @Option(name: .customLong("retry-max-wait"),
            help: "The longest wait before a retry, backoff or a server's Retry-After (default 30s, at most 24h).")
    var retryMaxWait: FlagValue<PositiveDuration>?

    @Option(name: [.customShort("A"), .customLong("user-agent")], help: "The User-Agent header (default wirelens/VERSION).")
    var userAgent: String?

    @Option(name: [.customShort("b"), .customLong("cookie")],
            help: ArgumentHelp("Send cookies, as curl's: \"name=value; n2=v2\" (a value with '='), or a file of Netscape-format or Set-Cookie lines that also turns the cookie engine on (\"\" turns it on with none); repeatable; redacted everywhere.",
                               valueName: "data|file"))
    var cookie: [String] = []

    @Option(name: [.customShort("c"), .customLong("cookie-jar")],
            help: ArgumentHelp("Turn the cookie engine on and write its cookies to this file (Netscape format, mode 0600) when the run ends, as curl's.",
                               valueName: "file"))
    var cookieJar: String?

    @Option(name: [.customShort("u"), .customLong("user")],
            help: ArgumentHelp("Basic authentication as user:password (redacted everywhere; unlike curl, no prompt for a missing password).",
                               valueName: "user:password"))
    var user: String?

    @Option(name: .customLong("aws-sigv4"),
            help: ArgumentHelp("Sign every request with AWS Signature Version 4, as curl's: -u is then KEY:SECRET, or without -u the key pair, token (AWS_SESSION_TOKEN) and region of aws-cli's variables.",
                               valueName: "provider1[:provider2[:region[:service]]]"))
    var awsSigV4: String?

    @Option(name: .customLong("resolve"), help: ArgumentHelp("Connect to ADDR for HOST:PORT instead of resolving HOST (repeatable).",
                                                            valueName: "host:port:addr"))
    var resolve: [FlagValue<HostMapping.Resolve>] = []

    @Option(name: .customLong("connect-to"),
            help: ArgumentHelp("Connect to HOST2:PORT2 for requests to HOST1:PORT1, keeping the URL's name (repeatable).",
                               valueName: "host1:port1:host2:port2"))
    var connectTo: [FlagValue<HostMapping.ConnectTo>] = []

    @Flag(name: [.customShort("4"), .customLong("ipv4")], help: "Resolve names to IPv4 addresses only.")
    var ipv4 = false

    @Flag(name: [.customShort("6"), .customLong("ipv6")], help: "Resolve names to IPv6 addresses only.")
    var ipv6 = false

    @Flag(help: "Ask for a compressed response and deliver it decoded; the report counts both sizes.")
    var compressed = false

    @Flag(name: [.customShort("v"), .customLong("verbose")],
          help: "libcurl's verbose text on stderr, as curl -v, with every secret masked.")
    var verbose = false

    @Option(help: "Proxy URL.")
    var proxy: String?

    @Option(help: "CA certificates file to verify servers with.")
    var cacert: String?

    @Flag(name: [.customShort("k"), .customLong("insecure")], help: "Do not verify TLS certificates.")
    var insecure = false

    /// The lowest TLS version to accept; of `--tlsv1.2` and `--tlsv1.3` the last one given counts, as in curl.
    @Flag(exclusivity: .chooseLast)
    var tlsMinimum: TLSMinimumFlag?

    @Option(name: .customLong("tls-max"),
            help: ArgumentHelp("The highest TLS version to offer (1.0, 1.1, 1.2 or 1.3), as curl's.", valueName: "version"))
    var tlsMax: String?

    @Option(help: ArgumentHelp("Bind the sockets to this interface or local address, as curl's (NAME, ADDRESS, if!NAME, host!ADDRESS).",
                               valueName: "name"))
    var interface: String?

    @Flag(name: .customLong("mptcp"),
          help: "Open connections as Multipath TCP (plain TCP where the kernel refuses it), as curl's; each transaction reports its subflows.")
    var mptcp = false

    @Option(name: .customLong("doh-url"),
            help: ArgumentHelp("Resolve host names by DNS over HTTPS (RFC 8484) at this https URL, as curl's.",
                               valueName: "url"))
    var dohURL: String?

    @Flag(name: .customLong("doh-insecure"), help: "Do not verify the DoH server's certificate, as curl's.")
    var dohInsecure = false

    @Flag(name: .customLong("no-expect-100"),
          help: "Never send Expect: 100-continue (by default it goes as curl's: with -T, and with -d/-F above 1 MiB).")
    var noExpect100 = false

    @Option(name: .customLong("expect100-timeout"),
            help: ArgumentHelp("How long to wait for a 100 Continue before sending the body anyway (default 1s), as curl's.",
                               valueName: "seconds"))
    var expect100Timeout: FlagValue<PositiveDuration>?

    @Flag(name: .customLong("include-headers"), help: "Keep response headers (redacted) in the report.")
    var includeHeaders = false

    /// The engine options from these flags, the protocol flags (nil: the defaults, for a command that sets them
    /// itself) and the command's own concurrency and retries; bad values are usage errors.
    /// With `signsForS3` (an `s3://` destination) every request is signed even without `--aws-sigv4`, as aws-cli
    /// signs, and the provider's region (AWS_REGION, AWS_DEFAULT_REGION, else us-east-1) and service (s3) are filled
    /// in when it names none.
    func probeOptions(concurrency: Int, retries: Int, protocols: ProtocolFlags?, signsForS3: Bool = false,
                      environment: [String: String] = ProcessInfo.processInfo.environment) throws(UsageError) -> ProbeOptions {
        var o = ProbeOptions()
        guard concurrency >= 1 else { throw UsageError("--concurrency must be 1 or more, not \(concurrency)") }
        guard maxConnections >= 0 else { throw UsageError("--max-connections must be 0 (unlimited) or more") }
        guard retries >= 0 else { throw UsageError("--retries must be 0 or more, not \(retries)") }
        guard maxRedirects >= 0 else { throw UsageError("--max-redirs must be 0 or more, not \(maxRedirects)") }
        try protocols?.apply(to: &o)
        o.concurrency = concurrency
        o.maxConnections = maxConnections > 0 ? maxConnections : nil
        o.multiplex = !noMultiplex
        o.connectTimeout = try connectTimeout?.value("--connect-timeout").micros
        o.idleTimeout = try idleTimeout?.value("--idle-timeout").micros
        // Named with all three spellings, as the user may have typed any of them (curl's `-m 0`, no limit, is left
        // out here: 0 is refused like every duration).
        o.totalTimeout = try totalTimeout?.value("-m/--max-time/--timeout").micros
        o.retry.maxRetries = retries
        if let retryMaxWait {
            let wait = try retryMaxWait.value("--retry-max-wait").micros
            guard wait <= Self.longestRetryWait else { throw UsageError("--retry-max-wait must be at most 24h, not \(retryMaxWait.text)") }
            o.retry.maxDelay = wait
        }
        if noLocation, location { throw UsageError("give -L/--location or --no-location, not both") }
        o.maxRedirects = noLocation ? 0 : maxRedirects
        o.trustedRedirects = locationTrusted
        o.proxy = proxy
        o.caFile = cacert
        o.insecure = insecure
        o.tlsBounds = try tlsBounds()
        if let interface {
            if let problem = BindInterface.problem(interface, interfaceExists: { if_nametoindex($0) != 0 }) {
                throw UsageError("--interface \(problem)")
            }
            o.interface = interface
        }
        o.cookies = try cookieOptions()
        if let dohURL {
            if let problem = TargetURL.dohProblem(dohURL) { throw UsageError("--doh-url \(problem)") }
            o.dohURL = dohURL
        }
        o.dohInsecure = dohInsecure
        o.multipath = mptcp
        o.expectContinue = !noExpect100
        o.expectContinueTimeout = try expect100Timeout?.value("--expect100-timeout").micros
        o.keepsPostAfter = Set([(post301, 301), (post302, 302), (post303, 303)].filter(\.0).map(\.1))
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
        o.receiveBuffer = try Self.socketBuffer(rcvbuf, "--rcvbuf", needsUnit: true)
        if ipv4, ipv6 { throw UsageError("give -4/--ipv4 or -6/--ipv6, not both") }
        o.addressFamily = ipv4 ? .ipv4 : ipv6 ? .ipv6 : .any
        o.resolve = try resolve.map { mapping throws(UsageError) in try mapping.value("--resolve").entry }
        o.connectTo = try connectTo.map { mapping throws(UsageError) in try mapping.value("--connect-to").entry }
        o.compressed = compressed
        o.verbose = verbose
        if let userAgent {
            if let problem = RequestTextCheck.problem(name: "User-Agent", value: userAgent) { throw UsageError("-A: \(problem)") }
            o.userAgent = userAgent
        }
        o.headers = try headers.map { line throws(UsageError) in
            guard let field = HeaderField.parse(line) else {
                throw UsageError("-H '\(RequestTextCheck.oneLine(Redactor.message(line)))' is not a header; write \"Name: value\"")
            }
            if let problem = RequestTextCheck.problem(name: field.name, value: field.value) {
                throw UsageError("-H: \(problem)")
            }
            return field
        }
        if let provider = awsSigV4 ?? (signsForS3 ? "aws:amz" : nil) {
            o.sigV4 = try Self.sigV4Signing(provider, user: user, environment: environment, forS3: signsForS3,
                                            headers: &o.headers)
        } else if let user {
            let field = try Self.basicAuthorization(user)
            // As curl: a -H Authorization of the user's own is sent instead.
            if !o.headers.contains(where: { $0.name.lowercased() == "authorization" }) { o.headers.insert(field, at: 0) }
        }
        return o
    }

    /// The cookies of `-b` and `-c`, as curl tells data from a file name; stdin (`-`) is refused for either, and
    /// data that would split the request too.
    func cookieOptions() throws(UsageError) -> CookieOptions {
        if cookie.contains("-") { throw UsageError("-b - (cookies from stdin) is not supported: give a file") }
        if cookieJar == "-" { throw UsageError("-c - (the jar to stdout) is not supported: stdout carries the report; give a file") }
        if cookieJar == "" { throw UsageError("-c/--cookie-jar needs a file name") }
        let options = CookieOptions(arguments: cookie, jar: cookieJar)
        if let header = options.header, let problem = RequestTextCheck.problem(name: "Cookie", value: header) {
            throw UsageError("-b: \(problem)")
        }
        return options
    }

    /// Before the run: each `-b` file must be readable (curl would ignore one it cannot read), and the `-c` jar is
    /// made now, empty and mode 0600 (an existing one keeps its cookies until the run ends and gets mode 0600), so
    /// that a jar that cannot be written fails before any request; libcurl then keeps the mode when it writes it.
    static func prepareCookies(_ cookies: CookieOptions) throws {
        for file in cookies.files where !file.isEmpty {
            do throws(ProbeError) { _ = try ProbePlan.readableFileSize(file) } catch {
                throw CommandFailure(.localFile, "-b/--cookie: \(error.description)")
            }
        }
        guard let jar = cookies.jar else { return }
        let fd = open(jar, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw CommandFailure(.localFile, "-c/--cookie-jar \(jar): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw CommandFailure(.localFile, "-c/--cookie-jar \(jar): not a regular file")
        }
        guard fchmod(fd, 0o600) == 0 else {
            throw CommandFailure(.localFile, "-c/--cookie-jar \(jar): \(String(cString: strerror(errno)))")
        }
    }

    /// The TLS versions `--tlsv1.2`/`--tlsv1.3` and `--tls-max` allow; a maximum below the minimum is refused.
    func tlsBounds() throws(UsageError) -> TLSBounds {
        var bounds = TLSBounds(minimum: tlsMinimum?.version)
        if let tlsMax {
            guard let version = TLSVersion(rawValue: tlsMax) else {
                throw UsageError("--tls-max '\(RequestTextCheck.oneLine(tlsMax))' is not a TLS version; give 1.0, 1.1, 1.2 or 1.3")
            }
            bounds.maximum = version
        }
        if bounds.isEmpty, let minimum = tlsMinimum {
            throw UsageError("--tls-max \(tlsMax ?? "") is below --\(minimum.rawValue): no TLS version is left to negotiate")
        }
        return bounds
    }

    /// `-u user:password` as the Authorization header curl sends (Basic, RFC 7617): a header, so that it is redacted
    /// and kept from other origins as every secret header is (`RedirectPolicy`, `Redactor`).
    static func basicAuthorization(_ user: String) throws(UsageError) -> HeaderField {
        guard let colon = user.firstIndex(of: ":"), colon != user.startIndex else {
            throw UsageError("-u needs user:password (Wirelens does not prompt for a password)")
        }
        // Base64 leaves no byte of the user's text that could split the request.
        return HeaderField(name: "Authorization", value: "Basic " + Data(user.utf8).base64EncodedString())
    }

    /// `--aws-sigv4 PROVIDER` with `-u KEY:SECRET`, or without `-u` the key pair and session token of aws-cli's
    /// variables (the token as an `x-amz-security-token` header, unless -H gives one); the region of AWS_REGION or
    /// AWS_DEFAULT_REGION fills a provider that names none. For the s3 service, `x-amz-content-sha256:
    /// UNSIGNED-PAYLOAD` goes too (unless -H gives one): S3 wants the header, and libcurl 7.88 would sign the hash
    /// of an empty body for a body it reads from a file.
    static func sigV4Signing(_ text: String, user: String?, environment: [String: String], forS3: Bool = false,
                             headers: inout [HeaderField]) throws(UsageError) -> SigV4Signing {
        func has(_ name: String) -> Bool { headers.contains { $0.name.lowercased() == name } }
        do {
            let region = SigV4Signing.environmentRegion(environment) ?? (forS3 ? "us-east-1" : nil)
            let provider = try SigV4Signing.provider(text, region: region, service: forS3 ? "s3" : nil)
            if SigV4Signing.service(of: provider) == "s3", !has(SigV4Signing.payloadHashHeader.name) {
                headers.append(SigV4Signing.payloadHashHeader)
            }
            if let user {
                let pair = try SigV4Signing.keyPair(user)
                return SigV4Signing(provider: provider, accessKey: pair.accessKey, secretKey: pair.secretKey)
            }
            let keys = try SigV4Signing.environmentKeys(environment)
            if let token = keys.token, !has(SigV4Signing.tokenHeader) {
                headers.append(HeaderField(name: SigV4Signing.tokenHeader, value: token))
            }
            return SigV4Signing(provider: provider, accessKey: keys.accessKey, secretKey: keys.secretKey)
        } catch {
            throw UsageError(error.description)
        }
    }

    /// A socket buffer size flag (SO_SNDBUF, SO_RCVBUF) in bytes, 1 KiB to 64 MiB, or nil when not given; with
    /// `needsUnit` a bare number is refused too (64 could mean bytes or KiB).
    static func socketBuffer(_ value: FlagValue<SocketBufferSize>?, _ flag: String,
                             needsUnit: Bool = false) throws(UsageError) -> Int? {
        guard let value else { return nil }
        let size: SocketBufferSize
        do throws(ValueRefusal) {
            size = try SocketBufferSize(parsing: value.text)
        } catch {
            throw UsageError("\(flag) \(SocketBufferSize.refusal(value.text, unitRequired: needsUnit).message)")
        }
        guard size.hasUnit || !needsUnit else {
            throw UsageError("\(flag) \(SocketBufferSize.refusal(value.text, unitRequired: true).message)")
        }
        return size.bytes
    }
    /// The largest `--retry-max-wait`: a day, in µs.
    static let longestRetryWait: Int64 = 86_400_000_000
}
