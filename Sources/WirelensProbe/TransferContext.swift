#if canImport(Glibc)
import Glibc
#endif
import WirelensCore
import WirelensCurl

/// The state of one transfer (one transaction) that libcurl's callbacks write into; lives until the transfer ends.
final class TransferContext: TransferObserver {
    let handle: CurlEasy
    let task: TaskState
    let kind: TransactionKind
    let target: TargetURL
    let method: String
    let body: BodySource
    /// True when the transfer sends a body (`body != .none`, decided once: the callbacks ask often).
    let sendsBody: Bool
    let captureHeaders: Bool
    /// True when a 3xx answer of this transfer will be followed, so its body is not written to the output.
    let followsRedirects: Bool
    /// True when an idle timeout is set, so callbacks must stamp every byte's arrival (otherwise they need not).
    let tracksActivity: Bool

    // Request body
    var bodyReader: BodyReader
    var bodyOffset: Int64 = 0
    var bodyReadEnd: Int64?

    // Response body output
    /// Where the response body goes (the task's sink).
    var response = ResponseWriter(.discard)
    /// Run-wide byte counters for progress displays; nil when nobody watches.
    let progress: TransferProgress?
    var localFailure: String?
    /// Why the engine gave up on the transfer: a libcurl call about it failed (perform, poll, remove, getinfo).
    var engineFailure: CurlError?

    // Redirect rules
    /// True when the transfer sends the secret headers: its origin is the task's first, or hops are trusted.
    var keepsCredentials = true
    /// True when the transfer may not connect to a link-local address (a hop elsewhere, in a run that refuses them).
    var refusesLinkLocal = false
    /// Why a connection was refused before it was made (a hop whose name led into a link-local address).
    var refusal: String?
    /// The wait before this attempt (µs) and the server's Retry-After as asked, when this is a retry.
    var retryWait: TaskLifecycle.RetryWait?

    // Stamps (monotonic ns)
    let fetchStart: Int64
    var connectionReady: Int64?
    var lastSend: Int64?
    var headerOutAt: Int64?
    var firstBodyOutAt: Int64?
    var responseStart: Int64?
    var lastActivity: Int64
    var expectSent = false
    /// When the peer had acknowledged the whole request body, as the engine's looks at the socket's send queue
    /// decide it.
    var acknowledgement = AcknowledgementWatch()

    // Connection facts
    /// The socket of the connection, when this transfer opened it (libcurl's sockopt callback).
    var socket: Int32?
    /// False when the run reads no kernel facts.
    var readsTCP = true
    /// SO_SNDBUF for a socket this transfer makes; nil leaves the kernel's default.
    var sendBuffer: Int?
    /// The engine's table of open sockets (set when the transfer starts).
    var sockets: ConnectionSockets?
    /// This transfer's connection socket, found when the connection was ready; nil once libcurl closed it.
    var tcpSocket: Int32?
    /// True once the connection's socket was found (it stays true after the socket closed).
    var connectionSocketKnown = false
    /// The kernel's snapshots of the connection over this transfer.
    var tcp = TCPFacts.Builder()
    /// When the last snapshot was taken (monotonic ns).
    var tcpSampledAt: Int64 = 0
    /// The kernel's first RTT sample of a connection this transfer opened (µs): SYN to SYN/ACK.
    var handshakeRTT: UInt32?
    /// The snapshot that gave `handshakeRTT` and when it was taken, kept when nothing is sent on the connection
    /// between the handshake and the request (cleartext HTTP): it is then the transfer's first snapshot too.
    var handshakeSnapshot: (info: TCPInfo, at: Int64)?
    /// True when nothing is sent between the TCP handshake and the request: cleartext HTTP, no proxy.
    var handshakeStartsTransfer = false
    /// True when the transfer may share its connection with others at once (HTTP/2 multiplexing allowed and possible).
    var multiplexes = false
    /// True when the connection speaks HTTP/2 without asking (h2c prior knowledge).
    var priorKnowledge = false
    /// True when other transfers were in flight on the same connection during this one.
    var tcpShared = false
    var remoteIP: String?
    var localIP: String?
    var remotePort: Int?
    var localPort: Int?
    var connectionId: Int?
    var tlsVersion: String?
    var tlsCipher: String?
    var alpn: String?

    // Response facts
    var status: Int?
    var inFinalResponse = false
    var location: String?
    var retryAfter: String?
    /// The final response's reason phrase and Content-Type, kept with or without `captureHeaders`.
    var statusText: String?
    var contentType: String?
    var headers: [HeaderField] = []
    var responseBodyBytes: Int64 = 0
    var requestBodyBytes: Int64 = 0
    var abortReason: ErrorClass?

    init(handle: CurlEasy, task: TaskState, kind: TransactionKind, target: TargetURL, method: String,
         body: BodySource, captureHeaders: Bool, followsRedirects: Bool, tracksActivity: Bool,
         progress: TransferProgress?, now: Int64) {
        self.handle = handle
        self.task = task
        self.kind = kind
        self.target = target
        self.method = method
        self.body = body
        sendsBody = body != .none
        bodyReader = BodyReader(body)
        self.progress = progress
        self.captureHeaders = captureHeaders
        self.followsRedirects = followsRedirects
        self.tracksActivity = tracksActivity
        fetchStart = now
        lastActivity = now
    }

    /// Closes the files the context opened (the handle goes back to the engine).
    func release() {
        bodyReader.close()
        response.close()
    }

    // MARK: Callback bodies (run on the engine's loop thread, inside curl_multi_perform)

    /// A response header line (status lines included).
    func onHeader(_ bytes: UnsafeBufferPointer<UInt8>) {
        if tracksActivity { lastActivity = MonotonicClock.now() }
        if let code = RawHeader.statusCode(bytes) {
            status = code
            inFinalResponse = code >= 200
            if inFinalResponse, responseStart == nil { responseStart = MonotonicClock.now() }
            if inFinalResponse {
                location = nil
                retryAfter = nil
                statusText = RawHeader.reasonPhrase(bytes)
                contentType = nil
                headers.removeAll()
            }
            return
        }
        guard inFinalResponse else { return }
        // Only Location, Retry-After and Content-Type are always kept, their values read straight from the bytes;
        // other lines become Strings only when asked for.
        if RawHeader.hasName(bytes, "location") {
            location = RawHeader.value(bytes)
        } else if RawHeader.hasName(bytes, "retry-after") {
            retryAfter = RawHeader.value(bytes)
        } else if RawHeader.hasName(bytes, "content-type") {
            contentType = RawHeader.value(bytes)
        }
        guard captureHeaders, let field = HeaderField.parse(String(decoding: bytes, as: UTF8.self)) else { return }
        headers.append(field)  // redacted when they become the record's responseHeaders
    }

    /// A chunk of the response body; returns the count consumed (less makes libcurl fail the transfer).
    func onBody(_ data: UnsafeRawPointer?, count: Int) -> Int {
        if tracksActivity { lastActivity = MonotonicClock.now() }
        responseBodyBytes += Int64(count)
        progress?.received(count)
        guard !response.discards, let data else { return count }
        if followsRedirects, let status, (300..<400).contains(status), location != nil { return count }
        do {
            try response.write(data, count: count, status: status)
        } catch {
            localFailure = error.message
            return 0
        }
        return count
    }

    /// Fills libcurl's upload buffer; returns 0 at the end of the body.
    func onRead(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int? {
        if tracksActivity { lastActivity = MonotonicClock.now() }
        do {
            let n = try bodyReader.read(into: buffer, count: capacity, at: bodyOffset)
            if n == 0 {
                if bodyReadEnd == nil { bodyReadEnd = MonotonicClock.now() }
                return 0
            }
            bodyOffset += Int64(n)
            requestBodyBytes = bodyOffset
            progress?.sent(n)
            // libcurl does not ask again after the last byte of a body of known size: this is its end.
            if bodyOffset >= body.size, bodyReadEnd == nil { bodyReadEnd = MonotonicClock.now() }
            return n
        } catch {
            localFailure = error.message
            return nil
        }
    }

    /// Moves the body's read position (libcurl rewinds on some redirects and retries of its own).
    func onSeek(to offset: Int64) -> Bool {
        guard offset >= 0, offset <= body.size else { return false }
        bodyOffset = offset
        bodyReadEnd = nil
        return true
    }

    /// Decides whether libcurl may open a socket to `address` (4 or 16 bytes): not to a link-local address when the
    /// transfer refuses them, and then the refusal is the transfer's error.
    func mayConnect(to address: ArraySlice<UInt8>) -> Bool {
        guard refusesLinkLocal, LinkLocalAddress.contains(address) else { return true }
        if refusal == nil {
            let shown = LinkLocalAddress.text(of: address).map { "\(target.host) (\($0))" } ?? target.host
            refusal = RedirectPolicy.Refusal.linkLocal(shown).description
        }
        return false
    }

    /// libcurl made a socket for a new connection of this transfer.
    func onSocketOpened(_ socket: Int32) {
        self.socket = socket
        sockets?.opened(socket)
    }

    /// The connection is ready and the request is about to be sent.
    func onConnectionReady(remoteIP: String?, localIP: String?, remotePort: Int, localPort: Int) {
        let now = MonotonicClock.now()
        connectionReady = now
        lastActivity = now
        self.remoteIP = remoteIP
        self.localIP = localIP
        self.remotePort = remotePort
        self.localPort = localPort
        if let sockets, let found = sockets.socket(localPort: localPort, hint: socket, connection: connectionId) {
            tcpSocket = found
            connectionSocketKnown = true
            guard readsTCP else { return }
            if let start = sockets.attach(self, to: found, at: now, multiplexes: multiplexes) {
                // The connection's previous transfer ended with this snapshot: it is this one's start.
                tcp.add(start, at: now / 1000)
                tcpSampledAt = now
            } else if let handshake = handshakeSnapshot {
                // A cleartext connection this transfer just opened: nothing moved on it since the handshake's snapshot.
                tcp.add(handshake.info, at: handshake.at / 1000)
                tcpSampledAt = handshake.at
            } else {
                sampleTCP(at: now)
            }
            handshakeSnapshot = nil
        }
    }

    /// Takes a snapshot of the kernel's facts of this transfer's connection, if it still has one; for a transfer that
    /// sends a body, the first and the `last` one also read the socket's send buffer (the kernel's auto-tuning may
    /// have grown it in between; only an upload's diagnosis uses it).
    func sampleTCP(at now: Int64, last: Bool = false) {
        guard readsTCP, let socket = tcpSocket, let info = TCPInfoReader.read(socket: socket) else { return }
        if sendsBody, tcp.isEmpty || last, let size = TCPInfoReader.sendBuffer(socket: socket) {
            tcp.noteSendBuffer(size)
        }
        tcp.add(info, at: now / 1000)
        tcpSampledAt = now
    }

    /// Ends the transfer's snapshots with `info`, taken `now` (nil: none could be read), and lets go of its socket:
    /// the next transfer on the connection took it over.
    func endTCP(with info: TCPInfo?, at now: Int64) {
        if let info {
            tcp.add(info, at: now / 1000)
            tcpSampledAt = now
        }
        tcpSocket = nil
    }

    /// A fact about this transfer's connection.
    func onConnectionFact(_ fact: ConnectionFact) {
        switch fact {
        case .connected(let id):
            connectionId = id
            // libcurl says so right after the TCP handshake (before TLS): the kernel's RTT estimate is then its
            // first sample, the SYN to the SYN/ACK.
            if readsTCP, let socket, let info = TCPInfoReader.read(socket: socket) {
                handshakeRTT = info.rtt
                // TLS sends its handshake between this and the request; cleartext HTTP sends nothing.
                if handshakeStartsTransfer { handshakeSnapshot = (info, MonotonicClock.now()) }
            }
        case .reused(let id): connectionId = id
        case .tls(let version, let cipher): tlsVersion = version; tlsCipher = cipher
        case .alpn(let name): alpn = name
        }
    }

    /// One event of libcurl's verbose output other than its informational text.
    func onTraffic(_ kind: TrafficKind, _ text: UnsafeBufferPointer<UInt8>) {
        switch kind {
        case .headerOut:
            let now = MonotonicClock.now()
            lastActivity = now
            if responseStart == nil { lastSend = now }
            if headerOutAt == nil {
                headerOutAt = now
                if sendsBody {
                    expectSent = DebugText.asksForContinue(Substring(String(decoding: text, as: UTF8.self)))
                }
            }
        case .dataOut:
            let now = MonotonicClock.now()
            lastActivity = now
            if responseStart == nil { lastSend = now }
            if firstBodyOutAt == nil { firstBodyOutAt = now }
        case .headerIn, .dataIn, .tlsIn, .tlsOut:
            if tracksActivity { lastActivity = MonotonicClock.now() }
        }
    }

    /// What the timeouts see of this transfer.
    var activity: TaskLifecycle.Activity {
        TaskLifecycle.Activity(connectionReady: connectionReady != nil, lastActivity: lastActivity)
    }

    /// The end of the request as observed: the last write to the socket or the end of the body, whichever is later;
    /// for a body, the moment the peer had acknowledged its last byte when the engine saw that (bytes written but
    /// still in the kernel's send queue are not sent yet: on a slow link they would otherwise count as server wait).
    var requestEnd: Int64? {
        let written: Int64?
        switch (lastSend, bodyReadEnd) {
        case let (a?, b?): written = max(a, b)
        case let (a?, nil): written = a
        case let (nil, b?): written = b
        default: written = nil
        }
        guard let acknowledged = acknowledgement.acknowledged else { return written }
        return max(written ?? acknowledged, acknowledged)
    }
}
