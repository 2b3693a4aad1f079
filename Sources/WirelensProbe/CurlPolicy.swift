import WirelensCore
import WirelensCurl

/// The run's options and the probe's rules turned into what libcurl is asked: a task profile's `CurlSettings` and
/// header lists, and each transfer's HTTP version, connection use and upload buffer.
enum CurlPolicy {
    /// Upload buffer for request bodies: large enough that a fast loopback upload is not callback-bound.
    static let uploadBufferSize = 512 * 1024

    /// Upload buffer where the body may go over HTTP/2: libcurl's own default. libcurl before 8.2.0 sends part of a
    /// larger buffer twice when the socket blocks mid-DATA frame (curl #10591, fixed by PR #11342), and the server
    /// resets the stream with PROTOCOL_ERROR; at this size that needs a send buffer far smaller than the window.
    static let http2UploadBufferSize = 64 * 1024

    /// The upload buffer for a transfer with this version choice to this scheme.
    static func uploadBuffer(_ version: HTTPVersion, scheme: String) -> Int {
        mayUseHTTP2(version, scheme: scheme) ? http2UploadBufferSize : uploadBufferSize
    }

    /// True when a transfer to this scheme may end up on a multiplexed (HTTP/2 or HTTP/3) connection.
    static func mayUseHTTP2(_ version: HTTPVersion, scheme: String) -> Bool {
        switch version {
        case .http1_1: false
        case .http2PriorKnowledge: true
        case .auto, .http2, .http3, .http3Only: scheme == "https"
        }
    }

    /// The easy-handle options every transfer of a profile with these options shares.
    static func settings(_ options: ProbeOptions) -> CurlSettings {
        var settings = CurlSettings()
        settings.connectTimeoutMillis = options.connectTimeout.map { Int(max(1, $0 / 1000)) }
        switch options.addressFamily {
        case .any: settings.ipFamily = nil
        case .ipv4: settings.ipFamily = 4
        case .ipv6: settings.ipFamily = 6
        }
        settings.expectContinueTimeoutMillis = options.expectContinueTimeout.map { Int(max(1, $0 / 1000)) }
        settings.acceptsEncodings = options.compressed
        settings.verbose = options.verbose
        settings.proxy = options.proxy
        settings.caFile = options.caFile
        settings.verifiesPeer = !options.insecure
        settings.tlsMinimumMinor = options.tlsBounds.minimum?.minor
        settings.tlsMaximumMinor = options.tlsBounds.maximum?.minor
        settings.interface = options.interface
        settings.multipath = options.multipath
        settings.dohURL = options.dohURL
        settings.dohVerifiesPeer = !options.dohInsecure
        settings.awsSigV4 = options.sigV4
        return settings
    }

    /// The cookie engine of a profile with these options: nil unless it runs (`CookieOptions.engine`), else loaded
    /// with their files.
    static func cookieStore(_ options: ProbeOptions) throws(CurlError) -> CurlCookieStore? {
        guard options.cookies.engine else { return nil }
        return try CurlCookieStore(files: options.cookies.files)
    }

    /// The cookies a transfer sends: the profile's engine, and the `-b` text only where the secret headers go
    /// (`RedirectPolicy.keepsCredentials`: a hop to another origin gets it with `--location-trusted` only).
    static func cookies(_ options: ProbeOptions, store: CurlCookieStore?, keepsCredentials: Bool,
                        into transfer: inout TransferSettings) {
        transfer.cookieStore = store
        transfer.cookie = keepsCredentials ? options.cookies.header : nil
    }

    /// The header lists of a profile with these options.
    ///
    /// The User-Agent is one of the lines rather than CURLOPT_USERAGENT, which libcurl would copy and format again
    /// for every request; a `-H "User-Agent: …"` of the user's replaces it. In a signed run (`ProbeOptions.sigV4`) it
    /// is CURLOPT_USERAGENT instead: libcurl then leaves it out of the signed headers, as curl does, which signers that
    /// never sign it need (botocore's, so moto's, refuses a request that did). A hop to another origin goes without
    /// the secret headers (`RedirectPolicy.keepsCredentials`); a proxy's CONNECT carries the User-Agent alone.
    static func headerLists(_ options: ProbeOptions) throws(CurlError) -> RequestHeaderLists {
        let usersAgent = options.headers.last(where: { $0.name.lowercased() == "user-agent" })?.value
        let userAgent = usersAgent ?? options.userAgent
        let userAgentOption = usersAgent == nil && options.sigV4 != nil ? userAgent : nil
        func plain(keepsCredentials: Bool) -> [String] {
            var lines = RedirectPolicy.headers(options.headers, keepsCredentials: keepsCredentials)
                .map { "\($0.name): \($0.value)" }
            if usersAgent == nil, userAgentOption == nil { lines.append("User-Agent: \(userAgent)") }
            return lines
        }
        return try RequestHeaderLists(plain: (plain(keepsCredentials: false), plain(keepsCredentials: true)),
                                      bodyLines: options.expectContinue ? [] : ["Expect:"],
                                      proxyLines: ["User-Agent: \(userAgent)"], resolve: options.resolve,
                                      connectTo: options.connectTo, userAgentOption: userAgentOption)
    }

    /// Sets the HTTP version and connection use of a transfer to `scheme`, with its role in an h2c prior-knowledge
    /// connection (nil: none, or a libcurl that needs none).
    static func connection(_ options: ProbeOptions, scheme: String, role: PriorKnowledgeRole?,
                           brokenH2CReuse: Bool, into transfer: inout TransferSettings) {
        transfer.refusesNewConnection = false
        switch options.httpVersion {
        case .auto: transfer.httpVersion = .libcurlDefault
        case .http1_1: transfer.httpVersion = .http1_1
        case .http2: transfer.httpVersion = .http2TLS
        case .http2PriorKnowledge where role == .joins && brokenH2CReuse:
            transfer.httpVersion = .http2
            transfer.refusesNewConnection = true
        case .http2PriorKnowledge: transfer.httpVersion = .http2PriorKnowledge
        case .http3: transfer.httpVersion = .http3
        case .http3Only: transfer.httpVersion = .http3Only
        }
        // Wait for a connection that may multiplex instead of opening another one. Only where HTTP/2 is possible:
        // for HTTP/1.1, libcurl would hold transfers back until the first connection is free.
        transfer.pipeWait = options.multiplex && mayUseHTTP2(options.httpVersion, scheme: scheme)
        let priorKnowledgeFault = options.httpVersion == .http2PriorKnowledge && brokenH2CReuse
        // libcurl before 8.0 fails ("Error in the HTTP2 framing layer") on a prior-knowledge transfer that lands on
        // an existing h2c connection (curl PR #10643): without a role, a connection of its own; an opener never goes
        // on an existing connection, and its own stays in the pool for the transfers that join it.
        let ownConnection = !options.reuseConnections || (priorKnowledgeFault && role == nil)
        transfer.freshConnect = ownConnection || (priorKnowledgeFault && role == .opens)
        transfer.forbidReuse = ownConnection
    }
}
