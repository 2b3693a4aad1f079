import WirelensCore

/// What one transfer asks of its easy handle beyond its profile's `CurlSettings`, in libcurl's terms; the layer that
/// holds the run's policy decides each field.
package struct TransferSettings {
    package var url: String
    package var method: String
    package var body: BodySource
    /// CURLOPT_POST or CURLOPT_UPLOAD for the body part (nil: neither; the method alone, CURLOPT_CUSTOMREQUEST).
    /// libcurl sends `Expect: 100-continue` by it: always for an upload, above 1 MiB for a POST.
    package var bodyKind: BodyKind?
    /// CURLOPT_UPLOAD_BUFFERSIZE for a transfer with a body.
    package var uploadBufferSize: Int
    /// CURLOPT_HTTP_VERSION.
    package var httpVersion: CurlHTTPVersion = .libcurlDefault
    /// CURLOPT_PIPEWAIT: wait for a connection that may multiplex rather than open another.
    package var pipeWait = false
    /// CURLOPT_FRESH_CONNECT: never an existing connection.
    package var freshConnect = false
    /// CURLOPT_FORBID_REUSE: the connection closes when the transfer ends.
    package var forbidReuse = false
    /// The transfer fails before any packet when libcurl would open a connection for it
    /// (`CurlEasy.refusedNewConnection`).
    package var refusesNewConnection = false
    /// True when the transfer sends the secret headers and is signed (its origin is the task's first, or hops are
    /// trusted).
    package var keepsCredentials: Bool
    /// True when the transfer may not connect to a link-local address: libcurl then asks `mayConnect` before each socket.
    package var refusesLinkLocal: Bool
    /// The task's own headers, each replacing the profile's header of the same name; already the ones this transfer
    /// may send.
    package var headers: [HeaderField]
    /// The time left to the task's total timeout (µs), nil when it has none.
    package var remainingMicros: Int64?
    /// SO_SNDBUF for sockets the transfer makes (nil: the kernel's default).
    package var sendBuffer: Int?
    /// SO_RCVBUF for sockets the transfer makes (nil: the kernel's default and its auto-tuning).
    package var receiveBuffer: Int?
    /// True when the observer wants every incoming traffic event (`TrafficKind.headerIn`, `.dataIn`, `.tlsIn`,
    /// `.tlsOut`), for example to track activity; false spares it those calls.
    package var reportsIncomingTraffic: Bool
    /// The cookie engine the transfer uses (CURLOPT_SHARE, and CURLOPT_COOKIEFILE "" to turn it on): it sends the
    /// store's cookies that match and keeps the response's Set-Cookie; nil: no cookie engine.
    package var cookieStore: CurlCookieStore?
    /// CURLOPT_COOKIE: `name=value; …` sent besides the engine's cookies (nil: none).
    package var cookie: String?

    package init(url: String, method: String, body: BodySource, bodyKind: BodyKind?, uploadBufferSize: Int,
                keepsCredentials: Bool, refusesLinkLocal: Bool, headers: [HeaderField], remainingMicros: Int64?,
                sendBuffer: Int?, receiveBuffer: Int?, reportsIncomingTraffic: Bool) {
        self.url = url
        self.method = method
        self.body = body
        self.bodyKind = bodyKind
        self.uploadBufferSize = uploadBufferSize
        self.keepsCredentials = keepsCredentials
        self.refusesLinkLocal = refusesLinkLocal
        self.headers = headers
        self.remainingMicros = remainingMicros
        self.sendBuffer = sendBuffer
        self.receiveBuffer = receiveBuffer
        self.reportsIncomingTraffic = reportsIncomingTraffic
    }
}
