import WirelensCaptureModel

/// The table of connections in progress, keyed by 4-tuple; a new SYN on a 4-tuple starts a new connection.
///
/// Memory follows the open connections: a closed one is finished once quiet for `closedQuiet` (its record
/// waits in `finished` until the caller takes it, and joins the summary), leaving only a small tombstone
/// in its place for `closedLinger`, so that a late ACK or FIN (TIME_WAIT) is not taken for a new connection.
/// Both are capped (`maxClosing`, `maxTombstones`), so that thousands of connections closing every second
/// do not grow memory either.
struct ConnectionTracker {
    /// What is left of a finished connection while its 4-tuple may still see late packets.
    struct Tombstone {
        var client: Endpoint
        var clientISN: UInt32?
        var lastPacketAt: Int64
        /// The serial of its entry in `tombstoneOrder`: an entry with another serial is stale.
        var serial: Int
    }

    /// The connections in progress, as values changed in place (one lookup per packet).
    private var open = FlowTable<ConnectionState>()
    /// Closed connections in the table (waiting out `closedQuiet`), by 4-tuple and connection index, in the order
    /// they closed; entries of those since finished are stale and skipped.
    private var closing = FIFOQueue<(key: FlowKey, index: Int)>()
    /// The tombstones by 4-tuple (looked up for each new 4-tuple, laid for each connection closing).
    private var tombstones = FlowTable<Tombstone>()
    /// Tombstones in the order they were laid (with that time), for expiry; an entry whose tombstone was replaced
    /// (a new connection on its 4-tuple, or laid again) is stale and skipped.
    private var tombstoneOrder = FIFOQueue<(key: FlowKey, laidAt: Int64, serial: Int)>()
    private var nextSerial = 0
    /// Finished connections not yet handed over (`takeFinished`).
    private(set) var finished: [TCPConnection] = []
    /// The totals of every connection finished so far.
    private(set) var summary = CaptureSummary.Accumulator()
    private var nextIndex = 0
    /// Masks secrets in request targets, for every connection.
    private let targets = TargetRedactor()
    /// Decrypts the TLS connections, when a key log was given.
    var keyLog: KeyLog?
    private var packetsSinceSweep = 0
    private var lastSweepAt: Int64 = .min

    /// A closed connection (both FINs, or a reset) is finished after this long without packets (µs)...
    static let closedQuiet: Int64 = 1_000_000
    /// ...and its tombstone absorbs late packets for this long: longer than Linux's 60 s TIME_WAIT...
    static let closedLinger: Int64 = 120_000_000
    /// ...unless more than this many tombstones stand: the oldest go first, so that memory stays bounded when
    /// thousands of connections close every second (about 150 bytes each). A straggler of an evicted one is
    /// then read as a connection that began before the capture.
    static let defaultMaxTombstones = 32_768
    /// At most this many closed connections wait out `closedQuiet`: beyond it the one that closed first is
    /// finished at once (50 ms after its close when 20 000 close every second; a late packet of it then goes to
    /// its tombstone). Each holds its state, counters and parsers: several KB.
    static let defaultMaxClosing = 1_024
    /// The table is swept every this many packets, or this much capture time (µs), whichever comes first.
    static let sweepEvery = 16_384
    static let sweepInterval: Int64 = 10_000_000
    /// How far (µs) capture timestamps may go backwards and still be counted exactly in the concurrency peaks.
    static let clockSlack: Int64 = 1_000_000

    /// How many tombstones may stand at once (`defaultMaxTombstones` unless a test says otherwise).
    let maxTombstones: Int
    /// How many closed connections may wait out `closedQuiet` (`defaultMaxClosing` unless a test says otherwise).
    let maxClosing: Int
    /// Connections numbered from here on are not handed over: only the summary counts them.
    let handOverLimit: Int

    init(maxTombstones: Int = Self.defaultMaxTombstones, maxClosing: Int = Self.defaultMaxClosing,
         handOverLimit: Int = .max) {
        self.maxTombstones = maxTombstones
        self.maxClosing = maxClosing
        self.handOverLimit = handOverLimit
    }

    /// The tombstones standing now.
    var tombstoneCount: Int { tombstones.count }

    /// Entries in the tombstones' expiry queue (stale ones included).
    var tombstoneQueueCount: Int { tombstoneOrder.count }

    /// The number of connections in the table now.
    var openCount: Int { open.count }

    /// Exchanges held by the connections in the table.
    var openExchanges: Int {
        var total = 0
        open.forEach { total += $1.exchangeCount }
        return total
    }

    /// Accounts for one segment captured at `time` (µs since the epoch).
    ///
    /// Inlined into the analysis's per-packet step: the segment's fields are then read where the decoder left them,
    /// not copied for the call first.
    @inline(__always)
    mutating func handle(_ segment: TCPSegment, time: Int64) {
        let key = FlowKey(segment.source, segment.destination)
        if let slot = open.slot(of: key) {
            let step = open[slot: slot].track(segment, time: time)
            if step.startsNew {
                replace(key, with: segment, time: time)
            } else if step.closed || step.movedFrom != nil {
                note(step, at: slot, key: key, time: time)
            }
        } else {
            arrive(segment, key: key, time: time)
        }
        packetsSinceSweep += 1
        if packetsSinceSweep >= Self.sweepEvery || time - lastSweepAt >= Self.sweepInterval {
            sweep(now: time)
        }
    }

    // The rarer turns of `handle` are functions of their own, not inlined: the per-packet path keeps a small
    // stack frame and few registers to save.

    /// A segment of a 4-tuple with no connection in the table: a straggler of a finished one (its tombstone
    /// absorbs it) or the first of a new one. The first packet of the capture comes here: the sweep clock starts.
    @inline(never)
    private mutating func arrive(_ segment: TCPSegment, key: FlowKey, time: Int64) {
        if lastSweepAt == .min { lastSweepAt = time }
        if let slot = tombstones.slot(of: key) {
            if Self.isLate(segment, after: tombstones[slot: slot], time: time) {
                tombstones[slot: slot].lastPacketAt = time
                return
            }
            tombstones.removeValue(at: key)
        }
        start(segment, time: time, key: key)
    }

    /// A SYN opened a new connection on the 4-tuple `key`: the old one is finished, the new one takes its place.
    @inline(never)
    private mutating func replace(_ key: FlowKey, with segment: TCPSegment, time: Int64) {
        retire(key, tombstone: false, now: time)
        start(segment, time: time, key: key)
    }

    /// What `step` of the connection in `slot` (at `key`) tells the tracker: a swap of roles, a close.
    @inline(never)
    private mutating func note(_ step: ConnectionState.Step, at slot: Int, key: FlowKey, time: Int64) {
        if let old = step.movedFrom { summary.moved(open[slot: slot].record, from: old) }
        if step.closed { noteClosed(key, index: open.index(at: slot), now: time) }
    }

    /// True when `segment` is a straggler of the finished connection `tombstone` stands for, not a new one.
    private static func isLate(_ segment: TCPSegment, after tombstone: Tombstone, time: Int64) -> Bool {
        guard time - tombstone.lastPacketAt <= closedLinger else { return false }
        guard segment.flags.contains(.syn), !segment.flags.contains(.ack) else { return true }
        return segment.source == tombstone.client && segment.sequence == tombstone.clientISN
    }

    /// Hands over the connections finished since the last call, in the order they finished.
    mutating func takeFinished(_ body: (TCPConnection) -> Void) {
        guard !finished.isEmpty else { return }
        // Moved out one at a time, first first, not copied (a record holds many references: a copy retains each).
        finished.reverse()
        while let connection = finished.popLast() { body(connection) }
    }

    /// Ends tracking: hands over the connections finished and not yet taken, then every connection still in the
    /// table, finished as the capture left it (in the order they began), one at a time.
    mutating func finishAll(_ body: (TCPConnection) -> Void) {
        takeFinished(body)
        closing.removeAll()
        tombstones.removeAll()
        tombstoneOrder.removeAll()
        var table = FlowTable<ConnectionState>()
        swap(&table, &open)
        table.removeAll { state in
            if let connection = count(Leaving(&state)) { body(connection) }
        }
    }

    /// What a finished connection takes out of the table: its record, and the tally of its exchanges when it is
    /// only counted (not handed over).
    private struct Leaving {
        var connection: TCPConnection
        var tally: ExchangeTally?

        /// Takes the record out of `state`, which is dropped after.
        init(_ state: inout ConnectionState) {
            tally = state.handedOver ? nil : state.exchangeTally
            connection = state.finish()
        }
    }

    /// A connection's record leaves the table into the summary; returns it when it is to be handed over.
    private mutating func count(_ leaving: consuming Leaving) -> TCPConnection? {
        guard let tally = leaving.tally else {
            summary.add(leaving.connection)
            return leaving.connection  // moved out, not copied: the record is not used after
        }
        summary.add(leaving.connection, exchanges: tally)
        return nil
    }

    /// `state` (at `key`) just closed: it waits out `closedQuiet` unless `maxClosing` others already wait, in
    /// which case the one that closed first is finished now.
    private mutating func noteClosed(_ key: FlowKey, index: Int, now: Int64) {
        closing.append((key, index))
        while closing.count > maxClosing, let oldest = closing.removeFirst() {
            if Self.holds(open, oldest) { retire(oldest.key, now: now) }
        }
    }

    /// True when the connection `entry` names is still the one in the table `open` at its 4-tuple.
    private static func holds(_ open: FlowTable<ConnectionState>, _ entry: (key: FlowKey, index: Int)) -> Bool {
        guard let slot = open.slot(of: entry.key) else { return false }
        return open.index(at: slot) == entry.index
    }

    /// Finishes the connection at the 4-tuple `key` where it lies (into the summary and the hand-over queue) and,
    /// when `tombstone` says so (a closed connection, not one replaced by a new SYN), lays a tombstone in its place.
    @inline(never)
    private mutating func retire(_ key: FlowKey, tombstone: Bool = true, now: Int64) {
        guard let (leaving, standing) = open.remove(key, after: { state in
            let standing = Tombstone(client: state.record.client, clientISN: state.record.clientISN,
                                     lastPacketAt: state.record.lastPacketAt, serial: 0)
            return (Leaving(&state), standing)
        }) else { return }
        if let connection = count(leaving) { finished.append(connection) }
        guard tombstone else { return }
        var left = standing
        nextSerial += 1
        left.serial = nextSerial
        tombstones.set(left, at: key)
        tombstoneOrder.append((key, now, nextSerial))
        if tombstones.count > maxTombstones { expireTombstones(now: now) }
    }

    /// Finishes closed connections that have been quiet for `closedQuiet` (a tombstone takes their place),
    /// expires old tombstones, and folds the concurrency events no connection can still precede.
    private mutating func sweep(now: Int64) {
        packetsSinceSweep = 0
        lastSweepAt = now
        var done: [(key: FlowKey, index: Int)] = []
        var watermark = now
        // In place: a copy of each state would retain each of its references.
        open.forEachInPlace { key, state in
            if state.isClosed && now - state.record.lastPacketAt > Self.closedQuiet {
                done.append((key, state.record.index))
            } else {
                // An open connection stops being in use at its first FIN or RST, or its last packet: not before
                // what it has now.
                watermark = min(watermark, state.record.closeStartedAt ?? state.record.lastPacketAt)
            }
        }
        for (key, _) in done.sorted(by: { $0.index < $1.index }) {
            retire(key, now: now)
        }
        if !done.isEmpty { closing.retain { [open] in Self.holds(open, $0) } }
        expireTombstones(now: now)
        summary.fold(before: watermark - Self.clockSlack)
    }

    /// Drops the tombstones quiet for `closedLinger`, oldest first (one that saw late packets is kept on), and
    /// the oldest beyond `maxTombstones` whatever their age.
    private mutating func expireTombstones(now: Int64) {
        while let (key, laidAt, serial) = tombstoneOrder.first {
            guard let tombstone = tombstones[key], tombstone.serial == serial else {
                tombstoneOrder.removeFirst()  // stale: replaced by a new connection, or queued again
                continue
            }
            let overLimit = tombstones.count > maxTombstones
            guard overLimit || now - laidAt > Self.closedLinger else { break }  // the rest were laid later
            tombstoneOrder.removeFirst()
            if overLimit || now - tombstone.lastPacketAt > Self.closedLinger {
                tombstones.removeValue(at: key)
            } else {
                nextSerial += 1  // late packets came: look again later
                if let slot = tombstones.slot(of: key) { tombstones[slot: slot].serial = nextSerial }
                tombstoneOrder.append((key, tombstone.lastPacketAt, nextSerial))
            }
        }
        // Stale entries behind live ones (a client reusing its ports keeps replacing tombstones) would pile up for
        // the whole linger: drop them once they outnumber the live ones.
        if tombstoneOrder.count > 2 * tombstones.count + 1024 {
            tombstoneOrder.retain { tombstones[$0.key]?.serial == $0.serial }
        }
    }

    /// Puts in the table, at `key`, a connection starting at `segment`: a SYN's sender is the client, a SYN/ACK's the
    /// server; without a handshake, the side with the lower port is taken as the server until the payload tells
    /// (the side sending a request line is the client, the side sending a status line the server: `ConnectionState`).
    private mutating func start(_ segment: TCPSegment, time: Int64, key: FlowKey) {
        let clientIsSource: Bool
        if segment.flags.contains(.syn) {
            clientIsSource = !segment.flags.contains(.ack)
        } else {
            clientIsSource = segment.destination.port <= segment.source.port
        }
        var state = ConnectionState(index: nextIndex, first: segment, time: time, clientIsSource: clientIsSource,
                                    targets: targets, keyLog: keyLog, handedOver: nextIndex < handOverLimit)
        nextIndex += 1
        state.begin(segment, time: time)
        summary.opened(at: state.record.firstPacketAt, server: state.record.server)
        if state.isClosed { noteClosed(key, index: state.record.index, now: time) }
        // Moved into the table (a state holds many references: a copy retains each).
        open.insert(consume state, at: key)
    }
}
