import WirelensCore

/// What one transfer saw, gathered when it ends: the engine's own stamps (monotonic ns), the callbacks' facts and
/// libcurl's figures. `metrics` turns it into the transaction's record; no libcurl type and no clock is involved.
struct TransferObservation {
    var kind: TransactionKind
    var url: String
    var method: String
    var hostIsIPLiteral: Bool
    var usesTLS: Bool

    // Stamps (monotonic ns)
    var fetchStart: Int64
    var connectionReady: Int64?
    /// When libcurl made the first socket of a new connection for it, and when it said that connection was made.
    var socketOpened: Int64? = nil
    var connected: Int64? = nil
    var requestEnd: Int64?
    var responseStart: Int64?
    /// When the request head went out, and the first body byte after it.
    var headerOutAt: Int64?
    var firstBodyOutAt: Int64?
    /// True when the request asked for a 100 Continue.
    var expectSent: Bool
    /// When the engine saw the transfer end: after `curl_multi_perform` returned, by when libcurl may already have
    /// started the next transfer on the same connection.
    var end: Int64
    /// When the last response byte was handed over (the last header line or body chunk).
    var lastReceived: Int64? = nil
    /// When libcurl made the socket of the connection the transfer opened.
    var connectionOpened: Int64?
    /// When libcurl closed the connection while the transfer was on it.
    var connectionClosed: Int64?

    // libcurl's figures
    var curlTimers: CurlTimers
    /// Connections libcurl opened for the transfer (0: it reused one).
    var numConnects: Int
    var protocolName: String?
    var requestHeaderBytes: Int64
    var responseHeaderBytes: Int64

    // The connection
    var connectionId: Int?
    var localAddress: String?
    var localPort: Int?
    var remoteAddress: String?
    var remotePort: Int?
    var tlsVersion: String?
    var tlsCipher: String?
    var alpn: String?

    // The exchange
    var status: Int?
    var statusText: String?
    var contentType: String?
    /// The final response's header lines, when the run keeps them.
    var responseHeaders: [HeaderField]?
    var requestBodyBytes: Int64
    var responseBodyBytes: Int64
    var retryWait: TaskLifecycle.RetryWait?
    var error: TransferError?
    /// The kernel's facts over the transfer; `readsTCP` false when the run reads none.
    var tcp: TCPFacts?
    var readsTCP: Bool
    /// False when the record keeps the diagnosis made from `tcp`, not `tcp` itself (`KernelSampling.keepsFacts`).
    var keepsFacts = true
    /// The connection's Multipath TCP facts at the transfer's end (`--mptcp` on an MPTCP socket).
    var mptcp: MPTCPFacts? = nil
    /// The kernel's totals of the connection at the transfer's last snapshot.
    var connectionTotals: TCPTotals? = nil
    /// The response body's bytes as they came over the connection, before content decoding (`--compressed` only).
    var responseBodyWireBytes: Int64? = nil
    /// The time the response body's writes to its sink took (µs).
    var writeTime: Int64 = 0
    /// What the host gave the engine's loop thread while the request was sent and while the response came.
    var hostSend: HostFacts? = nil
    var hostReceive: HostFacts? = nil
    /// True when the request body went over HTTP/2 from a source always ready to read (`BodySource.alwaysReady`).
    var http2ReadyBody = false
    /// How the name was resolved (nil: no resolver ran), and when the last DNS-over-HTTPS answer came.
    var resolution: DomainResolutionProtocol? = nil
    var dohLastAnswer: Int64? = nil

    /// True when the transfer ran on a connection from the pool: it had a connection and libcurl opened none.
    var reusedConnection: Bool { connectionReady != nil && numConnects == 0 }

    /// The transaction as recorded: phases from the stamps and libcurl's timers (`PhaseMath`), the facts kept only
    /// where they mean something (a status only once a response began, its text and type only with a status), the
    /// 100-continue wait, and the diagnosis.
    consuming func metrics(anchor: ClockAnchor, throughProxy: Bool) -> TransactionMetrics {
        let reused = reusedConnection
        let raw = RawTimings(
            fetchStart: fetchStart, connectionReady: connectionReady, requestEnd: requestEnd,
            responseStart: responseStart, end: completedAt, curl: curlTimers, reusedConnection: reused,
            hostIsIPLiteral: hostIsIPLiteral, usesTLS: usesTLS, socketOpened: socketOpened, connected: connected)
        let computed = PhaseMath.compute(raw, anchor: anchor)
        var m = TransactionMetrics(kind: kind, url: url, method: method, timeline: computed.timeline,
                                   phases: computed.phases, reusedConnection: reused, proxyConnection: throughProxy,
                                   curlTimers: curlTimers)
        m.networkProtocolName = protocolName
        // A phase that did not run resolved nothing, whatever the configuration says.
        m.domainResolutionProtocol = computed.timeline.domainLookupStart != nil ? resolution : nil
        if let answer = dohLastAnswer, let start = computed.timeline.domainLookupStart {
            let span = max(0, anchor.wallMicros(ofMonotonic: answer) - start)
            m.dohDuration = computed.phases.dns.map { min($0, span) } ?? span
        }
        m.connectionId = connectionId
        m.localAddress = localAddress
        m.localPort = localPort
        m.remoteAddress = remoteAddress
        m.remotePort = remotePort
        m.tlsVersion = tlsVersion
        m.tlsCipher = tlsCipher
        m.alpn = alpn
        m.statusCode = responseStart != nil ? status : nil
        m.requestHeaderBytes = requestHeaderBytes
        m.requestBodyBytes = requestBodyBytes
        m.responseHeaderBytes = responseHeaderBytes
        m.responseBodyBytes = responseBodyBytes
        m.responseBodyWireBytes = responseBodyWireBytes
        if expectSent, let sent = headerOutAt {
            let bodyStart = firstBodyOutAt ?? responseStart ?? end
            m.expectContinueWait = max(0, bodyStart - sent) / 1000
        }
        if m.statusCode != nil {
            m.statusText = statusText
            m.contentType = contentType
        }
        if let responseHeaders { m.responseHeaders = responseHeaders }
        if let retryWait {
            m.retryWait = retryWait.planned
            m.retryAfter = retryWait.requested
        }
        m.connectionOpened = connectionOpened.map { anchor.wallMicros(ofMonotonic: $0) }
        m.connectionClosed = connectionClosed.map { anchor.wallMicros(ofMonotonic: $0) }
        m.error = error
        var input = Diagnosis.Input(
            phases: m.phases, requestBodyBytes: requestBodyBytes, responseBodyBytes: responseBodyBytes, tcp: tcp,
            missingReason: missingFactsReason, throughProxy: throughProxy, writeTime: writeTime, hostSend: hostSend,
            hostReceive: hostReceive)
        input.http2ReadyBody = http2ReadyBody
        m.diagnosis = Diagnosis.of(input)
        m.mptcp = mptcp?.judged(input)
        if keepsFacts {
            m.tcp = tcp
            m.connectionTotals = connectionTotals
        }
        return m
    }

    /// When the transfer ended: a completed response at its last byte (libcurl hands its connection to the next
    /// transfer before the engine hears of the end), a failed one when the engine saw it fail.
    var completedAt: Int64 {
        guard error == nil, responseStart != nil, let lastReceived else { return end }
        return min(end, lastReceived)
    }

    /// Why the transfer has no kernel facts (said in its `unknown` diagnosis).
    var missingFactsReason: String {
        #if os(Linux)
        if !readsTCP { return "kernel facts were not read (--tcp-sample off)" }
        if connectionReady == nil { return "no connection was ready for the request" }
        return "the connection's socket could not be read (TCP_INFO)"
        #else
        return "kernel facts are read on Linux only"
        #endif
    }
}
