import WirelensCore
import WirelensCurl

/// The wiring between one transfer's easy handle and its state: libcurl's callbacks land here and write into the
/// small values that each keep one part of it (`AttemptMarks`, `RequestBody`, `ResponseIntake`, `KernelSampling`,
/// `ConnectionIdentity`, ...); lives until the transfer ends.
///
/// The callbacks run on the engine's loop thread, inside `curl_multi_perform`; they read the clock and the kernel,
/// and hand what they read to those values.
final class TransferContext: TransferObserver {
    let handle: CurlEasy
    let task: TaskState
    let target: TargetURL
    let method: String
    /// True when an idle timeout is set, so callbacks must stamp every byte's arrival (otherwise they need not).
    let tracksActivity: Bool
    /// Run-wide byte counters for progress displays; nil when nobody watches.
    let progress: TransferProgress?
    /// The engine's table of open sockets (set when the transfer starts).
    var sockets: ConnectionSockets?
    /// The engine's reader of the host's facts; nil when the run reads no kernel facts.
    var host: HostSampler?

    /// The current attempt's kind and instants.
    var marks: AttemptMarks
    var request: RequestBody
    var response: ResponseIntake
    var kernel = KernelSampling()
    var connection = ConnectionIdentity()
    var hostMarks = HostMarks()
    var access = HopAccess()
    var failure = TransferFailure()
    /// The attempts libcurl resent after a dead connection, before the current one.
    private(set) var resends = ResentAttempts()
    /// When each DNS-over-HTTPS request made for the transfer's name ended, and why those that failed did.
    private(set) var dohCompletions: [Int64] = []
    private(set) var dohFailures: [String] = []
    /// For an h2c prior-knowledge transfer on libcurl before 8.0: its part in its origin's connection.
    var priorKnowledge: PriorKnowledgeJoin?

    init(handle: CurlEasy, task: TaskState, kind: TransactionKind, target: TargetURL, method: String,
         body: BodySource, response: ResponseIntake, tracksActivity: Bool, progress: TransferProgress?, now: Int64) {
        self.handle = handle
        self.task = task
        self.target = target
        self.method = method
        request = RequestBody(body)
        self.response = response
        self.progress = progress
        self.tracksActivity = tracksActivity
        marks = AttemptMarks(kind: kind, startingAt: now)
    }

    /// Closes the files the context opened (the handle goes back to the engine).
    func release() {
        request.reader.close()
        response.writer.close()
    }

    // MARK: Callback bodies (run on the engine's loop thread, inside curl_multi_perform)

    /// A response header line (status lines included).
    func onHeader(_ bytes: UnsafeBufferPointer<UInt8>) {
        let now = MonotonicClock.now()
        marks.lastReceivedAt = now
        if tracksActivity { marks.lastActivity = now }
        if response.head.take(bytes), marks.responseStart == nil {
            marks.responseStart = now
            hostMarks.atResponse = host?.snapshot(now: now)
        }
    }

    /// A chunk of the response body; returns the count consumed (less makes libcurl fail the transfer).
    func onBody(_ data: UnsafeRawPointer?, count: Int) -> Int {
        let now = MonotonicClock.now()
        marks.lastReceivedAt = now
        if tracksActivity { marks.lastActivity = now }
        progress?.received(count)
        do {
            try response.takeBody(data, count: count, at: now, clock: MonotonicClock.now)
        } catch {
            failure.local = error.message
            return 0
        }
        return count
    }

    /// Fills libcurl's upload buffer; returns 0 at the end of the body.
    func onRead(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int? {
        if tracksActivity { marks.lastActivity = MonotonicClock.now() }
        do {
            let n = try request.read(into: buffer, capacity: capacity, now: MonotonicClock.now)
            if n > 0 { progress?.sent(n) }
            return n
        } catch {
            failure.local = error.message
            return nil
        }
    }

    /// Moves the body's read position (libcurl rewinds on some redirects and retries of its own).
    func onSeek(to offset: Int64) -> Bool {
        request.seek(to: offset)
    }

    /// Decides whether libcurl may open a socket to `address` (4 or 16 bytes) (`HopAccess`).
    func mayConnect(to address: ArraySlice<UInt8>) -> Bool {
        access.mayConnect(to: address, host: target.host)
    }

    /// libcurl made a socket for a new connection of this transfer.
    func onSocketOpened(_ socket: Int32) {
        let now = MonotonicClock.now()
        if marks.socketOpenedAt == nil { marks.socketOpenedAt = now }
        kernel.madeSocket = socket
        sockets?.opened(socket, at: now)
        priorKnowledge?.opened(socket, origin: target.origin)
    }

    /// Tells the roles table that an opener ended (before it made a socket, if it never did).
    func settleOpener() {
        priorKnowledge?.ended(origin: target.origin)
    }

    /// The connection is ready and the request is about to be sent.
    func onConnectionReady(remoteIP: String?, localIP: String?, remotePort: Int, localPort: Int) {
        let now = MonotonicClock.now()
        marks.connectionReady = now
        marks.lastActivity = now
        hostMarks.atReady = host?.snapshot(now: now)
        connection.remoteIP = remoteIP
        connection.localIP = localIP
        connection.remotePort = remotePort
        connection.localPort = localPort
        guard let sockets, let found = sockets.socket(localPort: localPort, hint: kernel.madeSocket,
                                                      connection: connection.connectionId) else { return }
        kernel.socket = found
        kernel.socketKnown = true
        // Made by this transfer: it made a socket, and the connection's was made since the transfer began (the
        // winner of a happy-eyeballs race may be an earlier one of its sockets than the last).
        if kernel.madeSocket != nil, let opened = sockets.openedAt(found), opened >= marks.fetchStart {
            marks.connectionOpened = opened
        }
        guard kernel.readsTCP else { return }
        if let start = sockets.attach(self, to: found, at: now, multiplexes: kernel.multiplexes) {
            // The connection's previous transfer ended with this snapshot: it is this one's start.
            kernel.add(start, at: now)
        } else if let handshake = kernel.handshakeSnapshot {
            // A cleartext connection this transfer just opened: nothing moved on it since the handshake's snapshot.
            kernel.add(handshake.info, at: handshake.at)
        } else {
            sampleTCP(at: now)
        }
        kernel.handshakeSnapshot = nil
    }

    /// A fact about this transfer's connection.
    func onConnectionFact(_ fact: ConnectionFact) {
        switch fact {
        case .connected(let id):
            if marks.connectedAt == nil { marks.connectedAt = MonotonicClock.now() }
            connection.connectionId = id
            // libcurl says so right after the TCP handshake (before TLS): the kernel's RTT estimate is then its
            // first sample, the SYN to the SYN/ACK.
            if kernel.readsTCP, let socket = kernel.madeSocket, let info = TCPInfoReader.read(socket: socket) {
                kernel.handshakeRTT = info.rtt
                // TLS sends its handshake between this and the request; cleartext HTTP sends nothing.
                if kernel.handshakeStartsTransfer { kernel.handshakeSnapshot = (info, MonotonicClock.now()) }
            }
        case .reused(let id): connection.connectionId = id
        case .tls(let version, let cipher): connection.tlsVersion = version; connection.tlsCipher = cipher
        case .alpn(let name): connection.alpn = name
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
        if !refusedStream { marks.connectionClosed = now }
        let message = refusedStream
            ? "stream refused: the server refused the HTTP/2 stream (REFUSED_STREAM) before answering; "
                + "libcurl resent the request on a fresh connection"
            : "connection died: the reused connection was closed or reset before any answer; "
                + "libcurl resent the request on a fresh connection"
        var seen = observation(info: info, numConnects: numConnects,
                               error: TransferError(errorClass: .network, message: message), end: now)
        seen.requestHeaderBytes = marks.headerBytesOut
        seen.protocolName = nil
        resends.abandon(seen, timers: info.timers)
        // What the attempt on the dead connection saw is cleared for the resend.
        marks = .resend(at: now)
        request.sentBytes = 0
        response.writeTime = 0
        kernel.startAgain()
        hostMarks = HostMarks()
        connection = ConnectionIdentity()
    }

    /// The attempts libcurl gave up on before the current one, in order, each its own transaction.
    var deadAttempts: [TransferObservation] { resends.abandoned }

    /// The TLS facts of the connection: this transfer's own are remembered by the connection's number for the
    /// transfers that reuse it; a transfer on a reused connection (`reused`) takes the remembered ones.
    func settleTLSFacts(reused: Bool) {
        guard let id = connection.connectionId, let sockets else { return }
        if connection.toldTLS {
            sockets.remember(tls: connection.tls, connection: id, socketKnown: kernel.socketKnown)
        } else if marks.connectionReady != nil, reused, let known = sockets.tls(connection: id) {
            connection.adopt(known)
        }
    }

    /// The engine handed the transfer to libcurl again from the start (removed and added back): libcurl's timers
    /// start again too.
    func restartedInLibcurl() {
        resends.restartedInLibcurl()
    }

    /// One event of libcurl's verbose output other than its informational text.
    func onTraffic(_ kind: TrafficKind, _ text: UnsafeBufferPointer<UInt8>) {
        switch kind {
        case .headerOut:
            let sendsBody = request.isSent
            marks.noteHeaderOut(bytes: text.count, at: MonotonicClock.now()) {
                sendsBody && DebugText.asksForContinue(Substring(String(decoding: text, as: UTF8.self)))
            }
        case .dataOut:
            marks.noteBodyOut(at: MonotonicClock.now())
        case .headerIn, .dataIn, .tlsIn, .tlsOut:
            if tracksActivity { marks.lastActivity = MonotonicClock.now() }
        }
    }

    /// The end of the request as observed (`AttemptMarks.requestEnd`).
    var requestEnd: Int64? {
        marks.requestEnd(bodyReadEnd: request.readEnd)
    }
}
