import CCurl
import CCurlShim
import WirelensCore

/// Sets the options of one easy handle from the run's options and the transfer's context.
struct EasyConfigurator {
    let options: ProbeOptions
    let headers: RequestHeaderLists

    /// Upload buffer for request bodies: large enough that a fast loopback upload is not callback-bound.
    static let uploadBufferSize = 512 * 1024

    func configure(_ ctx: TransferContext, remainingMicros: Int64?) throws(ProbeError) {
        let easy = ctx.easy
        let me = Unmanaged.passUnretained(ctx).toOpaque()
        func check(_ code: CURLcode, _ what: String) throws(ProbeError) {
            guard code == CURLE_OK else {
                throw ProbeError.engine("setting \(what) failed: \(String(cString: curl_easy_strerror(code)))")
            }
        }
        func long(_ option: CURLoption, _ value: Int, _ what: String) throws(ProbeError) {
            try check(wl_easy_setopt_long(easy, option, value), what)
        }
        func string(_ option: CURLoption, _ value: String, _ what: String) throws(ProbeError) {
            try check(wl_easy_setopt_str(easy, option, value), what)
        }
        func pointer(_ option: CURLoption, _ what: String) throws(ProbeError) {
            try check(wl_easy_setopt_ptr(easy, option, me), what)
        }

        try string(CURLOPT_URL, ctx.target.text, "the URL")
        try long(CURLOPT_NOSIGNAL, 1, "NOSIGNAL")
        try check(wl_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(ctx.handle.errorBuffer)), "ERRORBUFFER")
        try check(wl_easy_setopt_data_cb(easy, CURLOPT_HEADERFUNCTION, wlHeaderCallback), "HEADERFUNCTION")
        try pointer(CURLOPT_HEADERDATA, "HEADERDATA")
        try check(wl_easy_setopt_data_cb(easy, CURLOPT_WRITEFUNCTION, wlWriteCallback), "WRITEFUNCTION")
        try pointer(CURLOPT_WRITEDATA, "WRITEDATA")
        try check(wl_easy_setopt_sockopt_cb(easy, wlSockoptCallback), "SOCKOPTFUNCTION")
        try pointer(CURLOPT_SOCKOPTDATA, "SOCKOPTDATA")
        if let sockets = ctx.sockets {
            try check(wl_easy_setopt_closesocket_cb(easy, wlCloseSocketCallback), "CLOSESOCKETFUNCTION")
            try check(wl_easy_setopt_ptr(easy, CURLOPT_CLOSESOCKETDATA, Unmanaged.passUnretained(sockets).toOpaque()),
                      "CLOSESOCKETDATA")
        }
        try check(wl_easy_setopt_prereq_cb(easy, wlPrereqCallback), "PREREQFUNCTION")
        try pointer(CURLOPT_PREREQDATA, "PREREQDATA")
        try check(wl_easy_setopt_debug_cb(easy, wlDebugCallback), "DEBUGFUNCTION")
        try pointer(CURLOPT_DEBUGDATA, "DEBUGDATA")
        try long(CURLOPT_VERBOSE, 1, "VERBOSE")

        try configureMethod(ctx, long: long, string: string, pointer: pointer, check: check)

        switch options.httpVersion {
        case .auto: break
        case .http1_1: try long(CURLOPT_HTTP_VERSION, wl_http_version_1_1(), "HTTP version")
        case .http2: try long(CURLOPT_HTTP_VERSION, wl_http_version_2tls(), "HTTP version")
        case .http2PriorKnowledge: try long(CURLOPT_HTTP_VERSION, wl_http_version_2_prior_knowledge(), "HTTP version")
        }
        if options.multiplex, Self.mayUseHTTP2(options.httpVersion, scheme: ctx.target.scheme) {
            // Wait for a connection that may multiplex instead of opening another one. Only where HTTP/2 is
            // possible: for HTTP/1.1, libcurl would hold transfers back until the first connection is free.
            try long(CURLOPT_PIPEWAIT, 1, "PIPEWAIT")
        }
        if !options.reuseConnections || (options.httpVersion == .http2PriorKnowledge && Libcurl.h2cReuseBroken) {
            // libcurl before 8.0 fails ("Error in the HTTP2 framing layer") on any transfer that joins an
            // existing h2c prior-knowledge connection (fixed by curl PR #10643): a fresh connection each.
            try long(CURLOPT_FRESH_CONNECT, 1, "FRESH_CONNECT")
            try long(CURLOPT_FORBID_REUSE, 1, "FORBID_REUSE")
        }
        if let connect = options.connectTimeout {
            try long(CURLOPT_CONNECTTIMEOUT_MS, Int(max(1, connect / 1000)), "connect timeout")
        }
        if let remaining = remainingMicros {
            // A backstop only: the engine enforces the total timeout itself, a little earlier.
            try long(CURLOPT_TIMEOUT_MS, Int(remaining / 1000) + 1000, "total timeout")
        }
        if let proxy = options.proxy { try string(CURLOPT_PROXY, proxy, "proxy") }
        if let ca = options.caFile { try string(CURLOPT_CAINFO, ca, "CA file") }
        if options.insecure {
            try long(CURLOPT_SSL_VERIFYPEER, 0, "SSL_VERIFYPEER")
            try long(CURLOPT_SSL_VERIFYHOST, 0, "SSL_VERIFYHOST")
        }

        if ctx.refusesLinkLocal {
            // A hop elsewhere: libcurl asks before it opens each socket, and gets none to a link-local address.
            try check(wl_easy_setopt_opensocket_cb(easy, wlOpenSocketCallback), "OPENSOCKETFUNCTION")
            try pointer(CURLOPT_OPENSOCKETDATA, "OPENSOCKETDATA")
        }
        let hasBody = ctx.body != .none
        if !ctx.task.spec.headers.isEmpty {
            ctx.ownHeaders = try headers.list(hasBody: hasBody, keepsCredentials: ctx.keepsCredentials,
                                              adding: ctx.task.spec.headers)
            try check(wl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, ctx.ownHeaders), "headers")
        } else if let list = headers.list(hasBody: hasBody, keepsCredentials: ctx.keepsCredentials) {
            try check(wl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list), "headers")
        }
        if options.proxy != nil, let list = headers.proxy {
            // The User-Agent in a proxy's CONNECT too, as CURLOPT_USERAGENT would send it.
            try check(wl_easy_setopt_slist(easy, CURLOPT_PROXYHEADER, list), "proxy headers")
        }
    }

    /// True when a transfer to this scheme may end up on an HTTP/2 connection.
    static func mayUseHTTP2(_ version: HTTPVersion, scheme: String) -> Bool {
        switch version {
        case .http1_1: false
        case .http2PriorKnowledge: true
        case .auto, .http2: scheme == "https"
        }
    }

    private func configureMethod(
        _ ctx: TransferContext,
        long: (CURLoption, Int, String) throws(ProbeError) -> Void,
        string: (CURLoption, String, String) throws(ProbeError) -> Void,
        pointer: (CURLoption, String) throws(ProbeError) -> Void,
        check: (CURLcode, String) throws(ProbeError) -> Void
    ) throws(ProbeError) {
        let easy = ctx.easy
        let size = ctx.body.size
        let hasBody = ctx.body != .none
        if hasBody {
            try check(wl_easy_setopt_data_cb(easy, CURLOPT_READFUNCTION, wlReadCallback), "READFUNCTION")
            try pointer(CURLOPT_READDATA, "READDATA")
            try check(wl_easy_setopt_seek_cb(easy, wlSeekCallback), "SEEKFUNCTION")
            try pointer(CURLOPT_SEEKDATA, "SEEKDATA")
            try long(CURLOPT_UPLOAD_BUFFERSIZE, Self.uploadBufferSize, "upload buffer size")
        }
        switch ctx.method {
        case "GET" where !hasBody:
            break
        case "HEAD":
            try long(CURLOPT_NOBODY, 1, "NOBODY")
        case "POST":
            try long(CURLOPT_POST, 1, "POST")
            try check(wl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(size)), "body size")
            if !hasBody { try string(CURLOPT_COPYPOSTFIELDS, "", "empty body") }
        default:
            if hasBody || ctx.method == "PUT" {
                try long(CURLOPT_UPLOAD, 1, "UPLOAD")
                try check(wl_easy_setopt_off(easy, CURLOPT_INFILESIZE_LARGE, curl_off_t(size)), "body size")
                if !hasBody {
                    try check(wl_easy_setopt_data_cb(easy, CURLOPT_READFUNCTION, wlReadCallback), "READFUNCTION")
                    try pointer(CURLOPT_READDATA, "READDATA")
                }
            }
            if ctx.method != "PUT" { try string(CURLOPT_CUSTOMREQUEST, ctx.method, "method") }
        }
    }
}
