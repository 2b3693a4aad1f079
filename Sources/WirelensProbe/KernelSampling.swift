import WirelensCore

/// What the kernel tells of one transfer's connection: which socket is its, the snapshots of its TCP facts taken so
/// far and when the last one was, the handshake's RTT, and the Multipath TCP facts at its end.
///
/// The context reads the kernel (`TCPInfoReader`, `MPTCPInfoReader`) and hands the readings here; this decides
/// nothing about sockets, only when the next snapshot is due and what the transfer's facts are at its end.
struct KernelSampling {
    /// False when the run reads no kernel facts.
    var readsTCP = true
    /// False when the record keeps only the diagnosis made from the kernel's facts: no facts, no samples, no totals
    /// (`ProbeOptions.keepsTransactionFacts`; a transfer that sends a body keeps them, as its diagnosis reads them).
    var keepsFacts = true
    /// True when the run opens its sockets as Multipath TCP (`--mptcp`): the transfer's end reads their MPTCP facts.
    var multipath = false
    /// True when nothing is sent between the TCP handshake and the request: cleartext HTTP, no proxy.
    var handshakeStartsTransfer = false
    /// True when the transfer may share its connection with others at once (HTTP/2 multiplexing allowed and possible).
    var multiplexes = false
    /// True when the connection speaks HTTP/2 without asking (h2c prior knowledge).
    var speaksPriorKnowledge = false

    /// The socket of the connection, when this attempt opened it (libcurl's sockopt callback).
    var madeSocket: Int32?
    /// This transfer's connection socket, found when the connection was ready; nil once libcurl closed it or the
    /// next transfer on the connection took it over.
    var socket: Int32?
    /// True once the connection's socket was found (it stays true after the socket closed).
    var socketKnown = false
    /// The kernel's snapshots of the connection over this transfer.
    var tcp = TCPFacts.Builder()
    /// When the last snapshot was taken (monotonic ns).
    private(set) var sampledAt: Int64 = 0
    /// The kernel's first RTT sample of a connection this transfer opened (µs): SYN to SYN/ACK.
    var handshakeRTT: UInt32?
    /// The snapshot that gave `handshakeRTT` and when it was taken, kept when nothing is sent on the connection
    /// between the handshake and the request (cleartext HTTP): it is then the transfer's first snapshot too.
    var handshakeSnapshot: (info: TCPInfo, at: Int64)?
    /// True when other transfers were in flight on the same connection during this one.
    var shared = false
    /// The connection's Multipath TCP facts at the transfer's end; nil on a plain TCP socket or without `multipath`.
    var mptcp: MPTCPFacts?

    /// Adds a snapshot taken at `now` (monotonic ns), with the bytes waiting unread when they were read.
    mutating func add(_ info: TCPInfo, at now: Int64, receiveQueue: Int? = nil) {
        tcp.add(info, at: now / 1000, receiveQueue: receiveQueue)
        sampledAt = now
    }

    /// When the next periodic snapshot is due (monotonic ns), every `intervalMicros`; nil without a socket to read.
    func nextSample(intervalMicros: Int64) -> Int64? {
        socket == nil ? nil : sampledAt + intervalMicros * 1000
    }

    /// True when a periodic snapshot is due at `now` (monotonic ns).
    func isDue(at now: Int64, intervalMicros: Int64) -> Bool {
        nextSample(intervalMicros: intervalMicros).map { now >= $0 } ?? false
    }

    /// Forgets the attempt libcurl gave up on (its connection died): its socket and snapshots; the run's choices stay.
    mutating func startAgain() {
        madeSocket = nil
        socket = nil
        socketKnown = false
        tcp = TCPFacts.Builder()
        mptcp = nil
        sampledAt = 0
        handshakeRTT = nil
        shared = false
    }

    /// The transfer's facts: the differences between its first and last snapshots, marked shared and with the
    /// handshake's RTT; its samples only when the record keeps its facts.
    mutating func facts() -> TCPFacts? {
        var facts = tcp.finish(keepingSamples: keepsFacts)
        facts?.shared = shared
        facts?.handshakeRTT = handshakeRTT
        return facts
    }

    /// The connection's totals at the last snapshot, when the record keeps its facts.
    var totals: TCPTotals? {
        keepsFacts ? tcp.lastSnapshot.map(TCPTotals.init) : nil
    }
}
