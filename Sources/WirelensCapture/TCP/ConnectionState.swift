import WirelensCaptureModel

/// A connection while packets still arrive: sequence tracking both ways, counters, and its HTTP conversation.
///
/// A value: the tracker keeps it in its table and mutates it in place, one access per packet, so the state a
/// packet touches (the record, both halves, the parsers) is reached without reference counting or run-time
/// exclusivity checks.
struct ConnectionState {
    private(set) var record: TCPConnection
    private var client = HalfConnection()
    private var server = HalfConnection()
    private var http: HTTPConversation
    private var reset = false
    /// False while a connection whose handshake was not captured has not shown which side is the client: the
    /// ports guessed it (the lower one the server's), the first request line or status line decides.
    private var rolesSettled: Bool
    /// Payload segments looked at for the roles (the looking stops after `maxRoleChecks`).
    private var roleChecks = 0
    /// The server the connection was first taken to have, when the payload showed the roles the other way round
    /// (handed to the tracker by `track`, for its per-server figures).
    private var swappedFrom: Endpoint?

    /// Payload segments of a connection without handshake looked at before its guessed roles are kept.
    static let maxRoleChecks = 64

    /// A segment filling a hole that no duplicate ACK asked for counts as out of order when it arrives within this
    /// long (µs) of the data beyond the hole, or within the handshake's round trip when that is longer (Wireshark
    /// uses 3 ms when it knows no round trip).
    static let reorderWindow: Int64 = 3_000

    /// True when the finished connection is handed over with its exchanges; false when only the summary counts it
    /// (its finished HTTP/1.x exchanges are folded as they end: `HTTP1Exchanges`).
    let handedOver: Bool

    /// Starts connection number `index` (in order of first packets) at its first captured segment;
    /// `clientIsSource` says who opened it; `targets` masks secrets in its request targets; `handedOver` says
    /// whether the finished connection is handed over or only counted.
    init(index: Int, first segment: TCPSegment, time: Int64, clientIsSource: Bool, targets: TargetRedactor,
         keyLog: KeyLog? = nil, handedOver: Bool = true) {
        http = HTTPConversation(targets: targets, keyLog: keyLog, keepsExchanges: handedOver)
        self.handedOver = handedOver
        let client = clientIsSource ? segment.source : segment.destination
        let server = clientIsSource ? segment.destination : segment.source
        record = TCPConnection(client: client, server: server, firstPacketAt: time)
        record.index = index
        rolesSettled = segment.flags.contains(.syn)
        if !rolesSettled { http.beginMidStream() }
    }

    /// Exchanges held now (read or inferred, not folded).
    var exchangeCount: Int { http.allExchanges.count }

    /// What the summary counts of the connection's exchanges (folded ones included).
    var exchangeTally: ExchangeTally { http.exchangeTally }

    /// True once both sides sent a FIN, or one sent a reset.
    var isClosed: Bool { reset || (client.finSent && server.finSent) }

    /// What one segment changed that the tracker must know.
    struct Step {
        /// The segment is a SYN opening a new connection on the 4-tuple: it was not taken into this one.
        var startsNew = false
        /// The connection closed with this segment.
        var closed = false
        /// The server the connection was taken to have until this segment showed the roles the other way round
        /// (for the tracker's per-server figures).
        var movedFrom: Endpoint?
    }

    /// Takes one segment of this 4-tuple, captured at `time` (µs), unless it opens a new connection.
    mutating func track(_ segment: TCPSegment, time: Int64) -> Step {
        var step = Step()
        if isNewConnection(segment) {
            step.startsNew = true
            return step
        }
        let wasClosed = isClosed
        handle(segment, time: time)
        if let swapped = swappedFrom {
            step.movedFrom = swapped
            swappedFrom = nil
        }
        step.closed = !wasClosed && isClosed
        return step
    }

    /// True when `segment` is a SYN that opens a new connection on this 4-tuple rather than repeating this one's.
    func isNewConnection(_ segment: TCPSegment) -> Bool {
        guard segment.flags.contains(.syn), !segment.flags.contains(.ack) else { return false }
        if segment.source == record.client, client.synSeen, segment.sequence == client.space.isn { return false }
        return true
    }

    /// Takes the connection's first segment: a swap of roles it shows needs no move (nothing counted the
    /// connection yet).
    mutating func begin(_ segment: TCPSegment, time: Int64) {
        handle(segment, time: time)
        swappedFrom = nil
    }

    /// Accounts for one segment of this connection, captured at `time` (µs).
    @inline(__always)
    private mutating func handle(_ segment: TCPSegment, time: Int64) {
        if !rolesSettled, segment.payloadLength > 0 { settleRoles(segment) }
        let fromClient = segment.source == record.client
        noteTime(time)
        // The sender's and the receiver's halves, the record and the conversation: four stored properties changed
        // in place, side by side (no copy of a half, no accessor).
        let resetNow: Bool
        if fromClient {
            resetNow = Self.take(segment, time: time, fromClient: true, sender: &client, receiver: &server,
                                 record: &record, http: &http, reset: reset)
        } else {
            resetNow = Self.take(segment, time: time, fromClient: false, sender: &server, receiver: &client,
                                 record: &record, http: &http, reset: reset)
        }
        if resetNow { reset = true }
    }

    /// One segment from the side `fromClient` says, `sender` being that side's half; true when it is a reset.
    private static func take(_ segment: TCPSegment, time: Int64, fromClient: Bool, sender: inout HalfConnection,
                             receiver: inout HalfConnection, record: inout TCPConnection,
                             http: inout HTTPConversation, reset: Bool) -> Bool {
        let flags = segment.flags
        sender.stats.packets += 1
        if flags.contains(.syn) {
            if sender.synSeen {
                if segment.sequence == sender.space.isn {
                    sender.stats.retransmissions += 1
                    if fromClient, record.handshakeAckAt == nil { record.lastSynAt = time }
                }
            } else {
                sender.synSeen = true
                sender.space.start(isn: segment.sequence)
                sender.scale = segment.windowScale
                if fromClient {
                    record.clientISN = segment.sequence
                    record.synAt = time
                    record.lastSynAt = time
                } else {
                    record.serverISN = segment.sequence
                    record.synAckAt = time
                }
            }
        } else if !sender.space.known {
            sender.space.start(isn: segment.sequence &- 1)
        }
        if fromClient, !flags.contains(.syn), flags.contains(.ack), record.handshakeAckAt == nil,
           record.synAckAt != nil, segment.acknowledgement == receiver.space.isn &+ 1 {
            record.handshakeAckAt = time
        }

        if flags.contains(.rst) {
            sender.stats.resets += 1
            noteClose(fromClient: fromClient, time: time, in: &record)
            if !reset { http.reset(time: time) }
            return true
        }

        let start = flags.contains(.syn) ? 0 : sender.space.offset(of: segment.sequence)
        let length = Int64(segment.payloadLength)
        if length > 0 {
            if fromClient, record.clientFirstDataAt == nil { record.clientFirstDataAt = time }
            sender.stats.wireBytes += length
            sender.stats.truncatedBytes += Int64(segment.missingPayload)
            if let acked = receiver.ackOffset {
                let window = windowShift(of: receiver, peer: sender).map { Int64(receiver.window) << $0 }
                if let window, start + length >= acked + window { sender.stats.windowFull += 1 }
                noteInFlight(front: max(start + length, sender.space.highest), acked: acked, window: window,
                             in: &sender.stats)
            }
            data(segment.payload, start: start, end: start + length, from: &sender, fromClient: fromClient,
                 http: &http, time: time, roundTrip: record.handshakeRoundTrip)
        } else if !flags.contains(.syn), !flags.contains(.fin), sender.space.next > 0,
                  start == sender.space.next - 1 {
            sender.stats.keepAlives += 1
        }
        if flags.contains(.fin) {
            let finOffset = start + length
            if sender.finSent {
                if length == 0, sender.space.fin == finOffset { sender.stats.retransmissions += 1 }
            } else {
                sender.finSent = true
                sender.space.noteFIN(at: finOffset)
                noteClose(fromClient: fromClient, time: time, in: &record)
                deliverCloseIfReached(&sender, fromClient: fromClient, http: &http, time: time)
            }
        }

        guard flags.contains(.ack), !flags.contains(.syn) else { return false }
        sender.window = segment.window
        if segment.window == 0, !flags.contains(.fin) { sender.stats.zeroWindow += 1 }
        if let shift = windowShift(of: sender, peer: receiver) {
            let advertised = Int64(segment.window) << shift
            if advertised > sender.stats.advertisedWindowMax ?? -1 { sender.stats.advertisedWindowMax = advertised }
        }
        guard receiver.space.known else { return false }
        let acked = receiver.space.offset(of: segment.acknowledgement)
        sender.ackOffset = acked
        if length == 0, !flags.contains(.fin), acked == receiver.space.next, receiver.space.firstHeldStart != nil {
            receiver.duplicateAckAt = time
            if receiver.duplicateAckOffset == acked {
                receiver.duplicateAcks += 1
            } else {
                receiver.duplicateAckOffset = acked
                receiver.duplicateAcks = 1
            }
        }
        skipAcknowledgedHoles(&receiver, upTo: acked, fromClient: !fromClient, http: &http, time: time)
        return false
    }

    /// The connection as a finished record, with what is left in the sequence spaces accounted for (without its
    /// exchanges, notes and protocol name when it is not `handedOver`: what the summary counts is all there).
    ///
    /// The record is moved out, not copied (a copy retains each of its references and the state's end releases
    /// them again): the state is dropped after, and keeps only its endpoints and first packet's time.
    mutating func finish() -> TCPConnection {
        var result = TCPConnection(client: record.client, server: record.server, firstPacketAt: record.firstPacketAt)
        swap(&result, &record)
        result.clientToServer = Self.finalStats(of: client)
        result.serverToClient = Self.finalStats(of: server)
        result.end = reset ? .reset : (client.finSent && server.finSent) ? .closed
            : (client.finSent || server.finSent) ? .halfClosed : .open
        result.tls = http.tls?.info
        // A connection only counted in the summary needs no more: its exchanges are tallied (`exchangeTally`), and
        // its notes and protocol name are never shown.
        guard handedOver else { return result }
        result.exchanges = http.allExchanges
        result.http2 = http.http2?.summary
        if let detected = http.detected {
            result.applicationProtocol = detected.rawValue
            if detected == .http1, let version = http.exchanges.first?.httpVersion {
                // The common versions without lowercasing (a string built per connection).
                result.applicationProtocol = version == "HTTP/1.1" ? "http/1.1"
                    : version == "HTTP/1.0" ? "http/1.0" : version.lowercased()
            }
        }
        if !result.handshakeSeen {
            result.notes.append("began before the capture: no handshake, sequence numbers relative to the first packet")
        } else if Self.windowShift(of: client, peer: server) == nil {
            result.notes.append("the handshake's window scaling was not fully captured: window-full events not counted")
        }
        let truncated = result.clientToServer.truncatedBytes + result.serverToClient.truncatedBytes
        if truncated > 0 {
            result.notes.append("\(truncated) payload bytes cut by the snapshot length")
        }
        let gaps = result.clientToServer.captureGaps + result.serverToClient.captureGaps
        if gaps > 0 {
            result.notes.append("\(gaps) stretches of data missing from the capture (not counted as retransmissions)")
        }
        http.appendNotes(to: &result.notes)
        return result
    }

    /// The figures of one side at the end, with what is left in its sequence space accounted for.
    private static func finalStats(of half: HalfConnection) -> DirectionStats {
        var stats = half.stats
        // Holes still open at the end were never captured.
        var position = half.space.next
        for held in half.space.pending {
            if held.start > position {
                stats.captureGaps += 1
                stats.captureGapBytes += held.start - position
            }
            position = max(position, held.end)
        }
        stats.bytes = max(half.space.highest, half.space.next)
        return stats
    }

    /// Looks at the first line of a payload segment of a connection without handshake: a status line comes from
    /// the server, a request line from the client, whatever their ports. The roles are kept once a side's first
    /// line tells, once exchanges were read, or after `maxRoleChecks` segments.
    private mutating func settleRoles(_ segment: TCPSegment) {
        roleChecks += 1
        guard roleChecks <= Self.maxRoleChecks, http.exchangeTotal == 0 else {
            rolesSettled = true
            return
        }
        guard let role = HTTPMessageParser.firstLineRole(segment.payload) else { return }
        rolesSettled = true
        guard (role == .request) != (segment.source == record.client) else { return }
        swappedFrom = record.server
        (client, server) = (server, client)
        (record.client, record.server) = (record.server, record.client)
        if let side = record.closedBy { record.closedBy = side == .client ? .server : .client }
        http.swapRoles()
    }

    /// Records the first FIN or RST: who closed first, and when.
    private static func noteClose(fromClient: Bool, time: Int64, in record: inout TCPConnection) {
        guard record.closedBy == nil else { return }
        record.closedBy = fromClient ? .client : .server
        record.closeStartedAt = time
    }

    /// Advances the connection's last-packet time, noting silences and idle gaps.
    @inline(__always)
    private mutating func noteTime(_ time: Int64) {
        let silence = time - record.lastPacketAt
        if silence > record.longestSilence { record.longestSilence = silence }
        if silence >= TCPConnection.idleThreshold {
            record.idleGapCount += 1
            if record.idleGaps.count < TCPConnection.maxIdleGapsListed {
                record.idleGaps.append(.init(startAt: record.lastPacketAt, duration: silence))
            }
        }
        if time > record.lastPacketAt { record.lastPacketAt = time }
    }

    /// Bytes in flight above this are taken for a misread: an acknowledgement from before a sequence space began
    /// again (a SYN/ACK after data on a connection captured mid-stream) or from a guessed ISN.
    static let maxInFlight: Int64 = 1 << 30

    /// Keeps the most bytes in flight, `front` (the highest byte sent) less `acked` (the peer's last
    /// acknowledgement, same offsets), with the peer's `window` then; nothing in flight, or a figure beyond
    /// `maxInFlight`, changes nothing.
    static func noteInFlight(front: Int64, acked: Int64, window: Int64?, in stats: inout DirectionStats) {
        let inFlight = front - acked
        guard inFlight > 0, inFlight <= maxInFlight, inFlight > stats.inFlightMax ?? 0 else { return }
        stats.inFlightMax = inFlight
        stats.windowAtInFlightMax = window
    }

    /// The shift that applies to `half`'s advertised windows: its scale option when both SYNs (its and its
    /// `peer`'s) carried one, 0 when either did not, nil when the handshake was not captured.
    private static func windowShift(of half: HalfConnection, peer: HalfConnection) -> Int64? {
        guard half.synSeen, peer.synSeen else { return nil }
        guard let scale = half.scale, peer.scale != nil else { return 0 }
        return Int64(scale)
    }

    /// Classifies a data segment and hands what is new and in order to the HTTP parser; `roundTrip` is the
    /// handshake's (SYN to the client's ACK, as captured), when captured.
    private static func data(_ payload: UnsafeRawBufferPointer, start: Int64, end: Int64,
                             from sender: inout HalfConnection, fromClient: Bool, http: inout HTTPConversation,
                             time: Int64, roundTrip: Int64?) {
        let next = sender.space.next
        if end <= next {
            if end - start == 1 && start == next - 1 {
                sender.stats.keepAlives += 1
            } else {
                sender.stats.retransmissions += 1
            }
        } else {
            if start < next {
                sender.stats.retransmissions += 1
            } else if start < sender.space.highest {
                // New data below data already seen: it fills a hole, late (reordered) or sent again.
                if isReordered(start: start, time: time, in: sender, roundTrip: roundTrip) {
                    sender.stats.outOfOrder += 1
                } else {
                    sender.stats.retransmissions += 1
                }
            }
            if start <= next {
                deliver(payload, start: start, end: end, to: &sender, fromClient: fromClient, http: &http, time: time)
            } else {
                sender.space.hold(start: start, end: end, payload: payload,
                                  keepBytes: http.wantsBytes(fromClient: fromClient), time: time)
            }
        }
        _ = sender.space.noteEnd(end, time: time)
    }

    /// True when a segment filling a hole at `start`, captured at `time`, came late rather than again.
    ///
    /// A resend needs the receiver's word: its duplicate ACKs travel to the sender and the resend travels back, so
    /// it arrives about one round trip after the data beyond the hole, wherever the capture is taken. A fill
    /// after a duplicate ACK of the hole is a retransmission unless it came within half the handshake's round trip
    /// of the data beyond the hole (a capture at the receiver sees its duplicate ACK before a merely late segment):
    /// the handshake only estimates the path's round trip (a lost pure ACK, a delay line's jitter, a client slow to
    /// send its ACK make it long), and a resend arriving one true round trip later must not fall under it. A fill of
    /// the very offset that two or more duplicate ACKs in a row asked for is a (fast) retransmission whenever it
    /// came, as tshark reads it. A fill no duplicate ACK asked for is out of order within one round trip, or within
    /// `reorderWindow` when that is longer.
    static func isReordered(start: Int64, time: Int64, in sender: HalfConnection, roundTrip: Int64?) -> Bool {
        let opened = sender.space.firstArrival(atOrAbove: start) ?? sender.space.highestAt
        let elapsed = time - opened
        if let asked = sender.duplicateAckAt, asked >= opened {
            if sender.duplicateAckOffset == start && sender.duplicateAcks >= 2 { return false }
            guard let roundTrip else { return false }
            return elapsed < roundTrip / 2
        }
        return elapsed < max(roundTrip ?? 0, reorderWindow)
    }

    /// Delivers `start..<end` (which reaches past the in-order point) and whatever held data it makes in order.
    private static func deliver(_ payload: UnsafeRawBufferPointer, start: Int64, end: Int64,
                                to half: inout HalfConnection, fromClient: Bool, http: inout HTTPConversation,
                                time: Int64) {
        let skip = Int(half.space.next - start)
        let count = end - half.space.next
        let captured = max(0, min(Int64(payload.count - skip), count))
        if http.wantsBytes(fromClient: fromClient) {
            if captured > 0 {
                http.receive(UnsafeRawBufferPointer(rebasing: payload[skip..<(skip + Int(captured))]),
                             fromClient: fromClient, time: time)
            }
            if count > captured { http.skip(count - captured, fromClient: fromClient, time: time) }
        }
        half.space.advance(by: count)
        while let held = half.space.popReady() {
            guard held.end > half.space.next else { continue }
            held.bytes.withUnsafeBytes { bytes in
                deliver(bytes, start: held.start, end: held.end, to: &half, fromClient: fromClient, http: &http,
                        time: held.time)
            }
        }
        deliverCloseIfReached(&half, fromClient: fromClient, http: &http, time: time)
    }

    /// Tells the HTTP parser the side closed once its stream is in order up to the FIN.
    private static func deliverCloseIfReached(_ half: inout HalfConnection, fromClient: Bool,
                                              http: inout HTTPConversation, time: Int64) {
        guard !half.closeDelivered, let fin = half.space.fin, half.space.next >= fin else { return }
        half.closeDelivered = true
        http.closed(fromClient: fromClient, time: time)
    }

    /// Data the peer acknowledged but the capture never held: counted as capture gaps and skipped over.
    private static func skipAcknowledgedHoles(_ half: inout HalfConnection, upTo acked: Int64, fromClient: Bool,
                                              http: inout HTTPConversation, time: Int64) {
        var limit = acked
        if let fin = half.space.fin, limit > fin { limit = fin }
        // A wildly distant acknowledgement means a misread (or a guessed ISN): ignore it.
        guard limit > half.space.next, limit - half.space.next < (1 << 30) else { return }
        for _ in 0..<TCPSequenceSpace.maxPendingSegments where limit > half.space.next {
            let holeEnd = min(limit, half.space.firstHeldStart ?? limit)
            guard holeEnd > half.space.next else { break }
            let missing = holeEnd - half.space.next
            half.stats.captureGaps += 1
            half.stats.captureGapBytes += missing
            _ = half.space.noteEnd(holeEnd, time: time)
            let empty = UnsafeRawBufferPointer(start: nil, count: 0)
            deliver(empty, start: half.space.next, end: holeEnd, to: &half, fromClient: fromClient, http: &http,
                    time: time)
        }
    }
}
