internal import CCurl
internal import CCurlShim
import WirelensCore

/// Sets the options of one easy handle from its profile's settings and the transfer's; every option libcurl refuses
/// throws a `CurlError` that names it. It decides nothing: what to ask for comes from the layer above.
package struct EasyConfigurator {
    let settings: CurlSettings
    let headers: RequestHeaderLists

    package init(settings: CurlSettings, headers: RequestHeaderLists) {
        self.settings = settings
        self.headers = headers
    }

    /// Configures `easy` (fresh or reset) for one transfer reported to `observer`.
    package func configure(_ easy: CurlEasy, for transfer: TransferSettings, observer: any TransferObserver)
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

        if let version = transfer.httpVersion.optionValue {
            try long(CURLOPT_HTTP_VERSION, version, "CURLOPT_HTTP_VERSION")
        }
        easy.refusesNewConnection = transfer.refusesNewConnection
        if transfer.pipeWait { try long(CURLOPT_PIPEWAIT, 1, "CURLOPT_PIPEWAIT") }
        if transfer.freshConnect { try long(CURLOPT_FRESH_CONNECT, 1, "CURLOPT_FRESH_CONNECT") }
        if transfer.forbidReuse { try long(CURLOPT_FORBID_REUSE, 1, "CURLOPT_FORBID_REUSE") }
        if let connect = settings.connectTimeoutMillis {
            try long(CURLOPT_CONNECTTIMEOUT_MS, connect, "CURLOPT_CONNECTTIMEOUT_MS")
        }
        if let remaining = transfer.remainingMicros {
            // A backstop only: the engine enforces the total timeout itself, a little earlier.
            try long(CURLOPT_TIMEOUT_MS, Int(remaining / 1000) + 1000, "CURLOPT_TIMEOUT_MS")
        }
        switch settings.ipFamily {
        case 4?: try long(CURLOPT_IPRESOLVE, Int(CURL_IPRESOLVE_V4), "CURLOPT_IPRESOLVE")
        case 6?: try long(CURLOPT_IPRESOLVE, Int(CURL_IPRESOLVE_V6), "CURLOPT_IPRESOLVE")
        default: break
        }
        if let list = headers.resolve { try easy.set(CURLOPT_RESOLVE, list: list, "CURLOPT_RESOLVE") }
        if let list = headers.connectTo { try easy.set(CURLOPT_CONNECT_TO, list: list, "CURLOPT_CONNECT_TO") }
        if let wait = settings.expectContinueTimeoutMillis {
            try long(CURLOPT_EXPECT_100_TIMEOUT_MS, wait, "CURLOPT_EXPECT_100_TIMEOUT_MS")
        }
        // "": every encoding this libcurl decodes, named in Accept-Encoding; the body is delivered decoded.
        if settings.acceptsEncodings { try string(CURLOPT_ACCEPT_ENCODING, "", "CURLOPT_ACCEPT_ENCODING") }
        easy.verbose = settings.verbose
        if let proxy = settings.proxy { try string(CURLOPT_PROXY, proxy, "CURLOPT_PROXY") }
        if let ca = settings.caFile { try string(CURLOPT_CAINFO, ca, "CURLOPT_CAINFO") }
        if !settings.verifiesPeer {
            try long(CURLOPT_SSL_VERIFYPEER, 0, "CURLOPT_SSL_VERIFYPEER")
            try long(CURLOPT_SSL_VERIFYHOST, 0, "CURLOPT_SSL_VERIFYHOST")
        }
        if let version = settings.sslVersion { try long(CURLOPT_SSLVERSION, version, "CURLOPT_SSLVERSION") }
        if let interface = settings.interface { try string(CURLOPT_INTERFACE, interface, "CURLOPT_INTERFACE") }
        if let store = transfer.cookieStore {
            try easy.set(CURLOPT_SHARE, pointer: store.pointer, "CURLOPT_SHARE")
            easy.cookieStore = store
            try string(CURLOPT_COOKIEFILE, "", "CURLOPT_COOKIEFILE")
        }
        if let cookie = transfer.cookie { try string(CURLOPT_COOKIE, cookie, "CURLOPT_COOKIE") }
        if let doh = settings.dohURL {
            try string(CURLOPT_DOH_URL, doh, "CURLOPT_DOH_URL")
            if !settings.dohVerifiesPeer {
                try long(CURLOPT_DOH_SSL_VERIFYPEER, 0, "CURLOPT_DOH_SSL_VERIFYPEER")
                try long(CURLOPT_DOH_SSL_VERIFYHOST, 0, "CURLOPT_DOH_SSL_VERIFYHOST")
            }
            // The DoH transfers inherit CURLOPT_VERBOSE (always on here) but not the debug callback (7.88).
            try check(wl_easy_setopt_stderr_null(handle), "CURLOPT_STDERR")
        }

        easy.multipath = settings.multipath
        if transfer.refusesLinkLocal || settings.multipath {
            // A hop elsewhere: libcurl asks before it opens each socket, and gets none to a link-local address.
            // With --mptcp the callback opens the socket as IPPROTO_MPTCP.
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
        if let signing = settings.awsSigV4, transfer.keepsCredentials {
            // libcurl signs the request as it sends it, the headers of these lists included; a hop to another
            // origin goes unsigned, as it goes without the secret headers.
            try string(CURLOPT_AWS_SIGV4, signing.provider, "CURLOPT_AWS_SIGV4")
            try string(CURLOPT_USERNAME, signing.accessKey, "CURLOPT_USERNAME")
            try string(CURLOPT_PASSWORD, signing.secretKey, "CURLOPT_PASSWORD")
        }
        if let agent = headers.userAgentOption { try string(CURLOPT_USERAGENT, agent, "CURLOPT_USERAGENT") }
        if settings.proxy != nil, let list = headers.proxy {
            // The User-Agent in a proxy's CONNECT too, as CURLOPT_USERAGENT would send it.
            try easy.set(CURLOPT_PROXYHEADER, list: list, "CURLOPT_PROXYHEADER")
        }
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
            try long(CURLOPT_UPLOAD_BUFFERSIZE, transfer.uploadBufferSize, "CURLOPT_UPLOAD_BUFFERSIZE")
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
