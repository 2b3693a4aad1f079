/// The table of connections in progress, keyed by 4-tuple; a new SYN on a 4-tuple starts a new connection.
///
/// Memory follows the open connections: closed ones leave the table (and their buffers) once quiet for
/// `closedLinger`, and only their finished records are kept.
struct ConnectionTracker {
    private var open: [FlowKey: ConnectionState] = [:]
    private(set) var finished: [TCPConnection] = []
    private var packetsSinceSweep = 0

    /// A closed connection leaves the table after this long without packets (µs): longer than Linux's
    /// 60 s TIME_WAIT, so a late ACK or FIN still finds it.
    static let closedLinger: Int64 = 120_000_000
    static let sweepEvery = 16_384

    /// The number of connections in the table now.
    var openCount: Int { open.count }

    /// Accounts for one segment captured at `time` (µs since the epoch).
    mutating func handle(_ segment: TCPSegment, time: Int64) {
        let key = FlowKey(segment.source, segment.destination)
        if let state = open[key] {
            if state.isNewConnection(segment) {
                finished.append(state.finish())
                open[key] = Self.start(segment, time: time)
            } else {
                state.handle(segment, time: time)
            }
        } else {
            open[key] = Self.start(segment, time: time)
        }
        packetsSinceSweep += 1
        if packetsSinceSweep >= Self.sweepEvery {
            packetsSinceSweep = 0
            sweep(now: time)
        }
    }

    /// Ends tracking: every connection still in the table is finished as the capture left it.
    mutating func finishAll() -> [TCPConnection] {
        for state in open.values { finished.append(state.finish()) }
        open = [:]
        return finished
    }

    /// Finishes closed connections that have been quiet for `closedLinger`, freeing their table entries.
    private mutating func sweep(now: Int64) {
        let done = open.filter { $0.value.isClosed && now - $0.value.record.lastPacketAt > Self.closedLinger }
        for (key, state) in done {
            finished.append(state.finish())
            open[key] = nil
        }
    }

    /// A connection starting at `segment`: a SYN's sender is the client, a SYN/ACK's the server; without a
    /// handshake, the side with the lower port is taken as the server.
    private static func start(_ segment: TCPSegment, time: Int64) -> ConnectionState {
        let clientIsSource: Bool
        if segment.flags.contains(.syn) {
            clientIsSource = !segment.flags.contains(.ack)
        } else {
            clientIsSource = segment.destination.port <= segment.source.port
        }
        let state = ConnectionState(first: segment, time: time, clientIsSource: clientIsSource)
        state.handle(segment, time: time)
        return state
    }
}
