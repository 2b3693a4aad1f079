internal import CCurl
internal import CCurlShim
import WirelensCore

/// What one transfer asks of its easy handle, beyond the run's options.
public struct TransferSettings {
    public var url: String
    /// "http" or "https".
    public var scheme: String
    public var method: String
    public var body: BodySource
    /// CURLOPT_POST or CURLOPT_UPLOAD for the body part (nil: neither; the method alone, CURLOPT_CUSTOMREQUEST).
    /// libcurl sends `Expect: 100-continue` by it: always for an upload, above 1 MiB for a POST.
    public var bodyKind: BodyKind?
    /// True when the transfer sends the secret headers (its origin is the task's first, or hops are trusted).
    public var keepsCredentials: Bool
    /// True when the transfer may not connect to a link-local address: libcurl then asks `mayConnect` before each socket.
    public var refusesLinkLocal: Bool
    /// The task's own headers, each replacing the run's header of the same name.
    public var headers: [HeaderField]
    /// The time left to the task's total timeout (µs), nil when it has none.
    public var remainingMicros: Int64?
    /// SO_SNDBUF for sockets the transfer makes (nil: the kernel's default).
    public var sendBuffer: Int?
    /// SO_RCVBUF for sockets the transfer makes (nil: the kernel's default and its auto-tuning).
    public var receiveBuffer: Int?
    /// True when the observer wants every incoming traffic event (`TrafficKind.headerIn`, `.dataIn`, `.tlsIn`,
    /// `.tlsOut`), for example to track activity; false spares it those calls.
    public var reportsIncomingTraffic: Bool
    /// For HTTP/2 with prior knowledge on a libcurl that cannot reuse such a connection itself
    /// (`LibcurlDescription.h2cReuseBroken`): whether this transfer opens the origin's connection or joins it; nil
    /// gives every transfer a connection of its own.
    public var priorKnowledgeRole: PriorKnowledgeRole?

    /// How a transfer takes part in an h2c prior-knowledge connection on libcurl before 8.0.
    ///
    /// libcurl 7.88 fails a prior-knowledge transfer that lands on an existing connection, because it switches the
    /// connection to HTTP/2 a second time ("Error in the HTTP2 framing layer", curl PR #10643); a transfer asking
    /// for plain HTTP/2 (CURL_HTTP_VERSION_2_0) joins the same connection without that switch, as curl's own
    /// `--http2-prior-knowledge URL --next --http2 URL` does.
    public enum PriorKnowledgeRole: Sendable {
        /// Prior knowledge on a new connection (CURLOPT_FRESH_CONNECT), which stays open for the joiners.
        case opens
        /// CURL_HTTP_VERSION_2_0 on the origin's open connection; the transfer fails before any packet when libcurl
        /// would have to open a connection for it (`CurlEasy.refusedNewConnection`), to be started again as `opens`.
        case joins
    }

    public init(url: String, scheme: String, method: String, body: BodySource, bodyKind: BodyKind?, keepsCredentials: Bool,
                refusesLinkLocal: Bool, headers: [HeaderField], remainingMicros: Int64?, sendBuffer: Int?,
                reportsIncomingTraffic: Bool, priorKnowledgeRole: PriorKnowledgeRole? = nil) {
        self.url = url
        self.scheme = scheme
        self.method = method
        self.body = body
        self.bodyKind = bodyKind
        self.keepsCredentials = keepsCredentials
        self.refusesLinkLocal = refusesLinkLocal
        self.headers = headers
        self.remainingMicros = remainingMicros
        self.sendBuffer = sendBuffer
        self.reportsIncomingTraffic = reportsIncomingTraffic
        self.priorKnowledgeRole = priorKnowledgeRole
    }
}

/// Sets the options of one easy handle from the run's options and the transfer's settings; every option libcurl
/// refuses throws a `CurlError` that names it.
public struct EasyConfigurator {
    let options: ProbeOptions
    let headers: RequestHeaderLists

    public init(options: ProbeOptions, headers: RequestHeaderLists) {
        self.options = options
        self.headers = headers
    }

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

    /// Configures `easy` (fresh or reset) for one transfer reported to `observer`.
    public func configure(_ easy: CurlEasy, for transfer: TransferSettings, observer: any TransferObserver)
        throws(CurlError) {
        easy.observer = observer
        easy.reportsIncomingTraffic = transfer.reportsIncomingTraffic
        easy.sendBuffer = transfer.sendBuffer
        easy.receiveBuffer = transfer.receiveBuffer
        let me = easy.opaque
        func check(_ code: CURLcode, _ what: String) throws(CurlError) {
            try easy.check(code, "curl_easy_setopt(\(what))")
        }
        func long(_ option: CURLoption, _ value: Int, _ what: String) throws(CurlError) {
            try easy.set(option, value, what)
        }
        func string(_ option: CURLoption, _ value: String, _ what: String) throws(CurlError) {
            try easy.set(option, value, what)
        }
        func pointer(_ option: CURLoption, _ what: String) throws(CurlError) {
            try easy.set(option, pointer: me, what)
        }
        let handle = easy.pointer

        try string(CURLOPT_URL, transfer.url, "CURLOPT_URL")
        try long(CURLOPT_NOSIGNAL, 1, "CURLOPT_NOSIGNAL")
        try easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(easy.errorBuffer), "CURLOPT_ERRORBUFFER")
        try check(wl_easy_setopt_data_cb(handle, CURLOPT_HEADERFUNCTION, wlHeaderCallback), "CURLOPT_HEADERFUNCTION")
        try pointer(CURLOPT_HEADERDATA, "CURLOPT_HEADERDATA")
        try check(wl_easy_setopt_data_cb(handle, CURLOPT_WRITEFUNCTION, wlWriteCallback), "CURLOPT_WRITEFUNCTION")
        try pointer(CURLOPT_WRITEDATA, "CURLOPT_WRITEDATA")
        try check(wl_easy_setopt_sockopt_cb(handle, wlSockoptCallback), "CURLOPT_SOCKOPTFUNCTION")
        try pointer(CURLOPT_SOCKOPTDATA, "CURLOPT_SOCKOPTDATA")
        try check(wl_easy_setopt_prereq_cb(handle, wlPrereqCallback), "CURLOPT_PREREQFUNCTION")
        try pointer(CURLOPT_PREREQDATA, "CURLOPT_PREREQDATA")
        try check(wl_easy_setopt_debug_cb(handle, wlDebugCallback), "CURLOPT_DEBUGFUNCTION")
        try pointer(CURLOPT_DEBUGDATA, "CURLOPT_DEBUGDATA")
        try long(CURLOPT_VERBOSE, 1, "CURLOPT_VERBOSE")

        try configureMethod(easy, transfer, long: long, string: string, pointer: pointer, check: check)

        switch options.httpVersion {
        case .auto: break
        case .http1_1: try long(CURLOPT_HTTP_VERSION, wl_http_version_1_1(), "CURLOPT_HTTP_VERSION")
        case .http2: try long(CURLOPT_HTTP_VERSION, wl_http_version_2tls(), "CURLOPT_HTTP_VERSION")
        case .http2PriorKnowledge where transfer.priorKnowledgeRole == .joins && Libcurl.h2cReuseBroken:
            try long(CURLOPT_HTTP_VERSION, wl_http_version_2_0(), "CURLOPT_HTTP_VERSION")
            easy.refusesNewConnection = true
        case .http2PriorKnowledge: try long(CURLOPT_HTTP_VERSION, wl_http_version_2_prior_knowledge(), "CURLOPT_HTTP_VERSION")
        case .http3: try long(CURLOPT_HTTP_VERSION, wl_http_version_3(), "CURLOPT_HTTP_VERSION")
        case .http3Only: try long(CURLOPT_HTTP_VERSION, wl_http_version_3only(), "CURLOPT_HTTP_VERSION")
        }
        if options.multiplex, Self.mayUseHTTP2(options.httpVersion, scheme: transfer.scheme) {
            // Wait for a connection that may multiplex instead of opening another one. Only where HTTP/2 is
            // possible: for HTTP/1.1, libcurl would hold transfers back until the first connection is free.
            try long(CURLOPT_PIPEWAIT, 1, "CURLOPT_PIPEWAIT")
        }
        let priorKnowledgeFault = options.httpVersion == .http2PriorKnowledge && Libcurl.h2cReuseBroken
        if !options.reuseConnections || (priorKnowledgeFault && transfer.priorKnowledgeRole == nil) {
            // libcurl before 8.0 fails ("Error in the HTTP2 framing layer") on a prior-knowledge transfer that
            // lands on an existing h2c connection (curl PR #10643): without a role, a connection of its own.
            try long(CURLOPT_FRESH_CONNECT, 1, "CURLOPT_FRESH_CONNECT")
            try long(CURLOPT_FORBID_REUSE, 1, "CURLOPT_FORBID_REUSE")
        } else if priorKnowledgeFault && transfer.priorKnowledgeRole == .opens {
            // Never on an existing connection, and its own stays in the pool for the transfers that join it.
            try long(CURLOPT_FRESH_CONNECT, 1, "CURLOPT_FRESH_CONNECT")
        }
        if let connect = options.connectTimeout {
            try long(CURLOPT_CONNECTTIMEOUT_MS, Int(max(1, connect / 1000)), "CURLOPT_CONNECTTIMEOUT_MS")
        }
        if let remaining = transfer.remainingMicros {
            // A backstop only: the engine enforces the total timeout itself, a little earlier.
            try long(CURLOPT_TIMEOUT_MS, Int(remaining / 1000) + 1000, "CURLOPT_TIMEOUT_MS")
        }
        switch options.addressFamily {
        case .any: break
        case .ipv4: try long(CURLOPT_IPRESOLVE, Int(CURL_IPRESOLVE_V4), "CURLOPT_IPRESOLVE")
        case .ipv6: try long(CURLOPT_IPRESOLVE, Int(CURL_IPRESOLVE_V6), "CURLOPT_IPRESOLVE")
        }
        if let list = headers.resolve { try easy.set(CURLOPT_RESOLVE, list: list, "CURLOPT_RESOLVE") }
        if let list = headers.connectTo { try easy.set(CURLOPT_CONNECT_TO, list: list, "CURLOPT_CONNECT_TO") }
        // "": every encoding this libcurl decodes, named in Accept-Encoding; the body is delivered decoded.
        if let wait = options.expectContinueTimeout {
            try long(CURLOPT_EXPECT_100_TIMEOUT_MS, Int(max(1, wait / 1000)), "CURLOPT_EXPECT_100_TIMEOUT_MS")
        }
        if options.compressed { try string(CURLOPT_ACCEPT_ENCODING, "", "CURLOPT_ACCEPT_ENCODING") }
        easy.verbose = options.verbose
        if let proxy = options.proxy { try string(CURLOPT_PROXY, proxy, "CURLOPT_PROXY") }
        if let ca = options.caFile { try string(CURLOPT_CAINFO, ca, "CURLOPT_CAINFO") }
        if options.insecure {
            try long(CURLOPT_SSL_VERIFYPEER, 0, "CURLOPT_SSL_VERIFYPEER")
            try long(CURLOPT_SSL_VERIFYHOST, 0, "CURLOPT_SSL_VERIFYHOST")
        }
        if !options.tlsBounds.isDefault {
            try long(CURLOPT_SSLVERSION, Self.sslVersion(options.tlsBounds), "CURLOPT_SSLVERSION")
        }
        if let interface = options.interface { try string(CURLOPT_INTERFACE, interface, "CURLOPT_INTERFACE") }

        if transfer.refusesLinkLocal {
            // A hop elsewhere: libcurl asks before it opens each socket, and gets none to a link-local address.
            try check(wl_easy_setopt_opensocket_cb(handle, wlOpenSocketCallback), "CURLOPT_OPENSOCKETFUNCTION")
            try pointer(CURLOPT_OPENSOCKETDATA, "CURLOPT_OPENSOCKETDATA")
        }
        let hasBody = transfer.body != .none
        if !transfer.headers.isEmpty {
            easy.ownHeaders = try headers.list(hasBody: hasBody, keepsCredentials: transfer.keepsCredentials,
                                               adding: transfer.headers)
            try easy.set(CURLOPT_HTTPHEADER, list: easy.ownHeaders, "CURLOPT_HTTPHEADER")
        } else if let list = headers.list(hasBody: hasBody, keepsCredentials: transfer.keepsCredentials) {
            try easy.set(CURLOPT_HTTPHEADER, list: list, "CURLOPT_HTTPHEADER")
        }
        if let signing = options.sigV4, transfer.keepsCredentials {
            // libcurl signs the request as it sends it, the headers of these lists included; a hop to another
            // origin goes unsigned, as it goes without the secret headers.
            try string(CURLOPT_AWS_SIGV4, signing.provider, "CURLOPT_AWS_SIGV4")
            try string(CURLOPT_USERNAME, signing.accessKey, "CURLOPT_USERNAME")
            try string(CURLOPT_PASSWORD, signing.secretKey, "CURLOPT_PASSWORD")
        }
        if let agent = headers.userAgentOption { try string(CURLOPT_USERAGENT, agent, "CURLOPT_USERAGENT") }
        if options.proxy != nil, let list = headers.proxy {
            // The User-Agent in a proxy's CONNECT too, as CURLOPT_USERAGENT would send it.
            try easy.set(CURLOPT_PROXYHEADER, list: list, "CURLOPT_PROXYHEADER")
        }
    }

    /// True when a transfer to this scheme may end up on a multiplexed (HTTP/2 or HTTP/3) connection.
    public static func mayUseHTTP2(_ version: HTTPVersion, scheme: String) -> Bool {
        switch version {
        case .http1_1: false
        case .http2PriorKnowledge: true
        case .auto, .http2, .http3, .http3Only: scheme == "https"
        }
    }

    /// CURLOPT_SSLVERSION's value for the bounds: the lowest version ORed with the highest, each libcurl's default
    /// when not set.
    static func sslVersion(_ bounds: TLSBounds) -> Int {
        Int(wl_sslversion_min(Int32(bounds.minimum?.minor ?? -1)) | wl_sslversion_max(Int32(bounds.maximum?.minor ?? -1)))
    }

    private func configureMethod(
        _ easy: CurlEasy, _ transfer: TransferSettings,
        long: (CURLoption, Int, String) throws(CurlError) -> Void,
        string: (CURLoption, String, String) throws(CurlError) -> Void,
        pointer: (CURLoption, String) throws(CurlError) -> Void,
        check: (CURLcode, String) throws(CurlError) -> Void
    ) throws(CurlError) {
        let handle = easy.pointer
        let size = transfer.body.size
        let hasBody = transfer.body != .none
        if hasBody {
            try check(wl_easy_setopt_data_cb(handle, CURLOPT_READFUNCTION, wlReadCallback), "CURLOPT_READFUNCTION")
            try pointer(CURLOPT_READDATA, "CURLOPT_READDATA")
            try check(wl_easy_setopt_seek_cb(handle, wlSeekCallback), "CURLOPT_SEEKFUNCTION")
            try pointer(CURLOPT_SEEKDATA, "CURLOPT_SEEKDATA")
            try long(CURLOPT_UPLOAD_BUFFERSIZE, Self.uploadBuffer(options.httpVersion, scheme: transfer.scheme),
                     "CURLOPT_UPLOAD_BUFFERSIZE")
        }
        // As curl: the body part is a POST or an upload whatever the method, which is then a custom request.
        switch transfer.bodyKind ?? (hasBody ? .upload : nil) {
        case .post:
            try long(CURLOPT_POST, 1, "CURLOPT_POST")
            try easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: size, "CURLOPT_POSTFIELDSIZE_LARGE")
            if !hasBody { try string(CURLOPT_COPYPOSTFIELDS, "", "CURLOPT_COPYPOSTFIELDS") }
            if transfer.method != "POST" { try string(CURLOPT_CUSTOMREQUEST, transfer.method, "CURLOPT_CUSTOMREQUEST") }
        case .upload:
            try long(CURLOPT_UPLOAD, 1, "CURLOPT_UPLOAD")
            try easy.set(CURLOPT_INFILESIZE_LARGE, offset: size, "CURLOPT_INFILESIZE_LARGE")
            if !hasBody {
                try check(wl_easy_setopt_data_cb(handle, CURLOPT_READFUNCTION, wlReadCallback), "CURLOPT_READFUNCTION")
                try pointer(CURLOPT_READDATA, "CURLOPT_READDATA")
            }
            if transfer.method != "PUT" { try string(CURLOPT_CUSTOMREQUEST, transfer.method, "CURLOPT_CUSTOMREQUEST") }
        case nil where transfer.method == "HEAD":
            try long(CURLOPT_NOBODY, 1, "CURLOPT_NOBODY")
        case nil where transfer.method != "GET":
            try string(CURLOPT_CUSTOMREQUEST, transfer.method, "CURLOPT_CUSTOMREQUEST")
        case nil:
            break
        }
    }
}
