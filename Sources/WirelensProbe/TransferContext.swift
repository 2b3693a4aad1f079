#if canImport(Glibc)
import Glibc
#endif
import WirelensCore
import WirelensCurl

/// The state of one transfer (one transaction) that libcurl's callbacks write into; lives until the transfer ends.
final class TransferContext: TransferObserver {
    let handle: CurlEasy
    let task: TaskState
    /// The current attempt's kind: a resend after a dead connection is a retry.
    private(set) var kind: TransactionKind
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
    /// The attempts libcurl gave up on before the current one (their connection died under the request and libcurl
    /// resent it on a fresh one), in order, each its own transaction.
    private(set) var deadAttempts: [TransferObservation] = []
    /// libcurl's timers when it last resent the request: 7.88 adds each attempt's offsets to the ones before (its
    /// timers are reset only when the transfer starts), so an attempt's own are the difference.
    private var timersAtResend = CurlTimers()

    // Stamps (monotonic ns)
    /// When the current attempt began: the transfer's start, or the moment libcurl resent it after a dead connection.
    private(set) var fetchStart: Int64
    /// When libcurl made this attempt's first socket (the sockopt callback, before it connects).
    var socketOpenedAt: Int64?
    /// When libcurl said this attempt's new connection was made ("Connected to": after the SYN/ACK).
    var connectedAt: Int64?
    var connectionReady: Int64?
    var lastSend: Int64?
    var headerOutAt: Int64?
    var firstBodyOutAt: Int64?
    var responseStart: Int64?
    /// When the last response byte was handed over (a header line or a body chunk): a completed response's end.
    var lastReceivedAt: Int64?
    var lastActivity: Int64
    /// When libcurl made the socket of the connection this attempt opened.
    var connectionOpened: Int64?
    /// When libcurl closed the connection while this attempt was on it.
    var connectionClosed: Int64?
    var expectSent = false
    /// Request header bytes libcurl wrote in this attempt (its verbose output's HEADER_OUT).
    var headerBytesOut: Int64 = 0
    /// When the request body's last byte reached the server, as the engine's looks at the socket's TCP facts
    /// estimate it.
    var acknowledgement = AcknowledgementWatch()

    // Connection facts
    /// The socket of the connection, when this transfer opened it (libcurl's sockopt callback).
    var socket: Int32?
    /// False when the run reads no kernel facts.
    var readsTCP = true
    /// False when the record keeps only the diagnosis made from the kernel's facts: no facts, no samples, no totals
    /// (`ProbeOptions.keepsTransactionFacts`; a transfer that sends a body keeps them, as its diagnosis reads them).
    var keepsFacts = true
    /// SO_SNDBUF for a socket this transfer makes; nil leaves the kernel's default.
    var sendBuffer: Int?
    /// True when the run opens its sockets as Multipath TCP (`--mptcp`): the transfer's end reads their MPTCP facts.
    var multipath = false
    /// The connection's Multipath TCP facts at the transfer's end; nil on a plain TCP socket or without `multipath`.
    var mptcp: MPTCPFacts?
    /// The engine's table of open sockets (set when the transfer starts).
    var sockets: ConnectionSockets?
    /// This transfer's connection socket, found when the connection was ready; nil once libcurl closed it.
    var tcpSocket: Int32?
    /// The body bytes this transfer counts as not acknowledged in the progress display (`TransferProgress`).
    var unacknowledgedCounted: Int64 = 0
    /// True once the connection's socket was found (it stays true after the socket closed).
    var connectionSocketKnown = false
    /// The kernel's snapshots of the connection over this transfer.
    var tcp = TCPFacts.Builder()
    /// When the last snapshot was taken (monotonic ns).
    var tcpSampledAt: Int64 = 0
    /// The kernel's first RTT sample of a connection this transfer opened (µs): SYN to SYN/ACK.
    var handshakeRTT: UInt32?
    /// The engine's reader of the host's facts; nil when the run reads no kernel facts.
    var host: HostSampler?
    /// The host's snapshots when the connection was ready and when the final response began.
    var hostAtReady: HostSnapshot?
    var hostAtResponse: HostSnapshot?
    /// The snapshot that gave `handshakeRTT` and when it was taken, kept when nothing is sent on the connection
    /// between the handshake and the request (cleartext HTTP): it is then the transfer's first snapshot too.
    var handshakeSnapshot: (info: TCPInfo, at: Int64)?
    /// True when nothing is sent between the TCP handshake and the request: cleartext HTTP, no proxy.
    var handshakeStartsTransfer = false
    /// True when the transfer may share its connection with others at once (HTTP/2 multiplexing allowed and possible).
    var multiplexes = false
    /// True when the connection speaks HTTP/2 without asking (h2c prior knowledge).
    var speaksPriorKnowledge = false
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
    /// When each DNS-over-HTTPS request made for the transfer's name ended, and why those that failed did.
    var dohCompletions: [Int64] = []
    var dohFailures: [String] = []
    /// For an h2c prior-knowledge transfer on libcurl before 8.0: its role, the engine's table of roles, and the
    /// settings it was configured with (a joiner refused a new connection starts again as an opener).
    var priorKnowledge: (role: PriorKnowledgeRole, roles: PriorKnowledgeRoles, settings: TransferSettings)?
    /// True once an opener's socket or end was told to the roles table.
    var openerSettled = false
    /// How often this transfer, joining an h2c connection, was refused a new one and started again.
    var rejoins = 0

    // Response facts
    /// The status and the kept header lines of the response being received.
    var head: ResponseHead
    var responseBodyBytes: Int64 = 0
    /// The time the response body's writes to its sink took (ns): the client was not reading then.
    var writeTime: Int64 = 0
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
        head = ResponseHead(capturesHeaders: captureHeaders)
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
        let now = MonotonicClock.now()
        lastReceivedAt = now
        if tracksActivity { lastActivity = now }
        if head.take(bytes), responseStart == nil {
            responseStart = now
            hostAtResponse = host?.snapshot(now: now)
        }
    }

    /// A chunk of the response body; returns the count consumed (less makes libcurl fail the transfer).
    func onBody(_ data: UnsafeRawPointer?, count: Int) -> Int {
        let now = MonotonicClock.now()
        lastReceivedAt = now
        if tracksActivity { lastActivity = now }
        responseBodyBytes += Int64(count)
        progress?.received(count)
        guard !response.discards, let data else { return count }
        if followsRedirects, head.isRedirect { return count }
        do {
            try response.write(data, count: count, status: head.status)
        } catch {
            localFailure = error.message
            return 0
        }
        // A file, a pipe or a slow disk may hold the write: that time the client did not read.
        writeTime += MonotonicClock.now() - now
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
        if case .pipe = body, offset != bodyOffset { return false }  // a pipe cannot go back
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
        let now = MonotonicClock.now()
        if socketOpenedAt == nil { socketOpenedAt = now }
        self.socket = socket
        sockets?.opened(socket, at: now)
        if let priorKnowledge, priorKnowledge.role == .opens {
            priorKnowledge.roles.opened(socket, origin: target.origin, first: !openerSettled)
            openerSettled = true
        }
    }

    /// Tells the roles table that an opener ended (before it made a socket, if it never did).
    func settleOpener() {
        guard let priorKnowledge, priorKnowledge.role == .opens, !openerSettled else { return }
        openerSettled = true
        priorKnowledge.roles.ended(withoutSocket: target.origin)
    }

    /// The connection is ready and the request is about to be sent.
    func onConnectionReady(remoteIP: String?, localIP: String?, remotePort: Int, localPort: Int) {
        let now = MonotonicClock.now()
        connectionReady = now
        lastActivity = now
        hostAtReady = host?.snapshot(now: now)
        self.remoteIP = remoteIP
        self.localIP = localIP
        self.remotePort = remotePort
        self.localPort = localPort
        if let sockets, let found = sockets.socket(localPort: localPort, hint: socket, connection: connectionId) {
            tcpSocket = found
            connectionSocketKnown = true
            // Made by this transfer: it made a socket, and the connection's was made since the transfer began (the
            // winner of a happy-eyeballs race may be an earlier one of its sockets than the last).
            if socket != nil, let opened = sockets.openedAt(found), opened >= fetchStart { connectionOpened = opened }
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
    /// have grown it in between; only an upload's diagnosis uses it), and for one that receives, its receive buffer
    /// and, at every snapshot, the bytes waiting unread (a download's diagnosis uses them). Taken at `time`
    /// (monotonic ns), or now when not given: the clock is read only when there is a socket to read.
    func sampleTCP(at time: Int64? = nil, last: Bool = false) {
        guard readsTCP, let socket = tcpSocket else { return }
        if last { readMPTCP(socket) }
        let now = time ?? MonotonicClock.now()
        guard let info = TCPInfoReader.read(socket: socket) else { return }
        if sendsBody, tcp.isEmpty || last, let size = TCPInfoReader.sendBuffer(socket: socket) {
            tcp.noteSendBuffer(size)
        }
        var unread: Int?
        if !sendsBody {
            if tcp.isEmpty || last, let size = TCPInfoReader.receiveBuffer(socket: socket) { tcp.noteReceiveBuffer(size) }
            unread = SocketQuery.unreadBytes(socket)
        }
        tcp.add(info, at: now / 1000, receiveQueue: unread)
        tcpSampledAt = now
    }

    /// Ends the transfer's snapshots with `info`, taken `now` (nil: none could be read), and lets go of its socket:
    /// the next transfer on the connection took it over.
    func endTCP(with info: TCPInfo?, at now: Int64) {
        if let socket = tcpSocket { readMPTCP(socket) }
        if let info {
            tcp.add(info, at: now / 1000)
            tcpSampledAt = now
        }
        tcpSocket = nil
    }

    /// Reads the Multipath TCP facts of the connection's socket, when the run opens MPTCP sockets: at the
    /// transfer's end, where its last TCP snapshot is taken.
    private func readMPTCP(_ socket: Int32) {
        guard multipath else { return }
        mptcp = MPTCPInfoReader.read(socket: socket, sendsBody: sendsBody)
    }

    /// A fact about this transfer's connection.
    func onConnectionFact(_ fact: ConnectionFact) {
        switch fact {
        case .connected(let id):
            if connectedAt == nil { connectedAt = MonotonicClock.now() }
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
        case .retryingFreshConnect(let refused): attemptAbandoned(refusedStream: refused, at: MonotonicClock.now())
        case .dohRequestCompleted: dohCompletions.append(MonotonicClock.now())
        case .dohRequestFailed(let reason): dohFailures.append(reason)
        }
    }

    /// libcurl gave up on the attempt before any response byte and resends the request on a fresh connection: the
    /// reused connection it went out on died under it (libcurl closes it next, within the same call), or the server
    /// refused its HTTP/2 stream (`refusedStream`; the connection stays). The attempt so far becomes a transaction of
    /// its own, failed, and the resend starts as a retry now.
    private func attemptAbandoned(refusedStream: Bool, at now: Int64) {
        sampleTCP(at: now, last: true)
        sockets?.detach(self)
        // The timers of this attempt (libcurl's restart when it connects again); a failed read leaves them at 0.
        let info = (try? EasyInfo(handle, addresses: false)) ?? EasyInfo()
        // libcurl resends after a dead connection only when the connection was a reused one.
        let numConnects = refusedStream ? info.numConnects : 0
        settleTLSFacts(reused: numConnects == 0)
        if !refusedStream { connectionClosed = now }
        let message = refusedStream
            ? "stream refused: the server refused the HTTP/2 stream (REFUSED_STREAM) before answering; "
                + "libcurl resent the request on a fresh connection"
            : "connection died: the reused connection was closed or reset before any answer; "
                + "libcurl resent the request on a fresh connection"
        var seen = observation(info: info, numConnects: numConnects,
                               error: TransferError(errorClass: .network, message: message), end: now)
        seen.requestHeaderBytes = headerBytesOut
        seen.protocolName = nil
        deadAttempts.append(seen)
        timersAtResend = info.timers
        startResend(at: now)
    }

    /// Clears what the attempt on the dead connection saw, for the resend.
    private func startResend(at now: Int64) {
        kind = .retry
        retryWait = nil
        fetchStart = now
        lastActivity = now
        connectionReady = nil
        lastSend = nil
        headerOutAt = nil
        firstBodyOutAt = nil
        responseStart = nil
        lastReceivedAt = nil
        socketOpenedAt = nil
        connectedAt = nil
        connectionOpened = nil
        connectionClosed = nil
        expectSent = false
        headerBytesOut = 0
        requestBodyBytes = 0
        writeTime = 0
        acknowledgement = AcknowledgementWatch()
        socket = nil
        tcpSocket = nil
        connectionSocketKnown = false
        tcp = TCPFacts.Builder()
        mptcp = nil
        tcpSampledAt = 0
        handshakeRTT = nil
        hostAtReady = nil
        hostAtResponse = nil
        tcpShared = false
        remoteIP = nil
        localIP = nil
        remotePort = nil
        localPort = nil
        connectionId = nil
        tlsVersion = nil
        tlsCipher = nil
        alpn = nil
    }

    /// The TLS facts of the connection: this transfer's own are remembered by the connection's number for the
    /// transfers that reuse it; a transfer on a reused connection (`reused`) takes the remembered ones.
    func settleTLSFacts(reused: Bool) {
        guard let id = connectionId, let sockets else { return }
        if tlsVersion != nil || alpn != nil {
            sockets.remember(tls: (tlsVersion, tlsCipher, alpn), connection: id, socketKnown: connectionSocketKnown)
        } else if connectionReady != nil, reused, let known = sockets.tls(connection: id) {
            tlsVersion = known.version
            tlsCipher = known.cipher
            alpn = known.alpn
        }
    }

    /// The engine handed the transfer to libcurl again from the start (removed and added back): libcurl's timers
    /// start again too.
    func restartedInLibcurl() {
        timersAtResend = CurlTimers()
    }

    /// libcurl's timers for the current attempt alone: since the last resend (none: libcurl's own); TOTAL stays the
    /// whole transfer's.
    private func attemptTimers(_ t: CurlTimers) -> CurlTimers {
        let b = timersAtResend
        return CurlTimers(
            nameLookup: max(0, t.nameLookup - b.nameLookup), connect: max(0, t.connect - b.connect),
            appConnect: max(0, t.appConnect - b.appConnect), preTransfer: max(0, t.preTransfer - b.preTransfer),
            startTransfer: max(0, t.startTransfer - b.startTransfer), total: t.total)
    }

    /// What the current attempt saw, ended at `end` with `error`, with libcurl's figures from `info` (`numConnects`:
    /// the connections libcurl opened for it).
    func observation(info: EasyInfo, numConnects: Int, error: TransferError?, end: Int64) -> TransferObservation {
        var facts = tcp.finish(keepingSamples: keepsFacts)
        facts?.shared = tcpShared
        facts?.handshakeRTT = handshakeRTT
        var seen = TransferObservation(
            kind: kind, url: target.text, method: method, hostIsIPLiteral: target.hostIsIPLiteral,
            usesTLS: target.scheme == "https", fetchStart: fetchStart, connectionReady: connectionReady,
            socketOpened: socketOpenedAt, connected: connectedAt, requestEnd: requestEnd, responseStart: responseStart, headerOutAt: headerOutAt,
            firstBodyOutAt: firstBodyOutAt, expectSent: expectSent, end: end, connectionOpened: connectionOpened,
            connectionClosed: connectionClosed,
            curlTimers: attemptTimers(info.timers), numConnects: numConnects, protocolName: info.protocolName,
            // libcurl's count runs over the attempts it resent: theirs are left out.
            requestHeaderBytes: max(0, info.requestSize - deadAttempts.reduce(0) { $0 + $1.requestHeaderBytes }),
            responseHeaderBytes: info.headerSize, connectionId: connectionId,
            localAddress: localIP ?? info.localIP, localPort: localPort ?? info.localPort,
            remoteAddress: remoteIP ?? info.primaryIP, remotePort: remotePort ?? info.primaryPort,
            tlsVersion: tlsVersion, tlsCipher: tlsCipher, alpn: alpn, status: head.status,
            statusText: head.statusText, contentType: head.contentType,
            responseHeaders: captureHeaders ? head.headers : nil, requestBodyBytes: requestBodyBytes,
            responseBodyBytes: responseBodyBytes, retryWait: retryWait,
            error: error, tcp: consume facts, readsTCP: readsTCP, keepsFacts: keepsFacts,
            connectionTotals: keepsFacts ? tcp.lastSnapshot.map(TCPTotals.init) : nil)
        seen.responseBodyWireBytes = info.bodyBytesReceived
        seen.mptcp = mptcp
        let options = task.profile.options
        seen.resolution = DomainResolutionProtocol.of(
            host: target.host, port: target.origin.port, hostIsIPLiteral: target.hostIsIPLiteral,
            reusedConnection: seen.reusedConnection, resolveEntries: options.resolve, usesDoH: options.dohURL != nil,
            systemResolver: TaskProfile.systemResolver)
        seen.dohLastAnswer = dohCompletions.last
        seen.writeTime = writeTime / 1000
        seen.lastReceived = lastReceivedAt
        seen.http2ReadyBody = sendsBody && info.protocolName == "h2" && body.alwaysReady
        if let host, let atEnd = host.snapshot(now: end) {
            // Sending ends when the response begins; receiving runs from there to the end.
            seen.hostSend = hostAtReady.flatMap { HostFacts(from: $0, to: hostAtResponse ?? atEnd, limits: host.limits) }
            seen.hostReceive = hostAtResponse.flatMap { HostFacts(from: $0, to: atEnd, limits: host.limits) }
            let local = seen.remoteAddress.map(HostFacts.isOnThisMachine) ?? false
            seen.hostSend?.peerOnThisMachine = local
            seen.hostReceive?.peerOnThisMachine = local
        }
        return seen
    }

    /// One event of libcurl's verbose output other than its informational text.
    func onTraffic(_ kind: TrafficKind, _ text: UnsafeBufferPointer<UInt8>) {
        switch kind {
        case .headerOut:
            let now = MonotonicClock.now()
            lastActivity = now
            headerBytesOut += Int64(text.count)
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
    /// for a body, the moment its last byte reached the server when the engine's looks could tell (bytes written but
    /// still in the kernel's send queue or a slow path's queue are not sent yet: they would otherwise count as server
    /// wait; and the server's ACK of the last byte may be delayed, which would count server wait as send).
    var requestEnd: Int64? {
        let written: Int64?
        switch (lastSend, bodyReadEnd) {
        case let (a?, b?): written = max(a, b)
        case let (a?, nil): written = a
        case let (nil, b?): written = b
        default: written = nil
        }
        guard let arrival = acknowledgement.arrival else { return written }
        return max(written ?? arrival, arrival)
    }
}
