/// Durations of one transaction's phases in microseconds; nil where the phase did not happen.
///
/// The phases are contiguous: queue, dns, connect, tls, send, wait and receive follow each other,
/// so the non-null ones add up to `total`, less libcurl's own set-up between the last set-up instant and the
/// request (microseconds, or milliseconds on a loaded host).
public struct Phases: Sendable, Equatable, Codable {
    /// Waiting for a connection slot (behind the per-host or total connection limit) before libcurl started the transfer.
    @CompactOptional public var queue: Int64?
    /// Name resolution.
    @CompactOptional public var dns: Int64?
    /// TCP handshake.
    @CompactOptional public var connect: Int64?
    /// TLS handshake.
    @CompactOptional public var tls: Int64?
    /// Writing the request: headers and body (upload time lives here, never in `wait`).
    @CompactOptional public var send: Int64?
    /// From the last request byte to the first response byte: the server's time.
    @CompactOptional public var wait: Int64?
    /// From the first to the last response byte.
    @CompactOptional public var receive: Int64?
    /// From fetch start to the end of the transaction.
    public var total: Int64

    public init(queue: Int64? = nil, dns: Int64? = nil, connect: Int64? = nil, tls: Int64? = nil, send: Int64? = nil,
                wait: Int64? = nil, receive: Int64? = nil, total: Int64) {
        self.queue = queue
        self.dns = dns
        self.connect = connect
        self.tls = tls
        self.send = send
        self.wait = wait
        self.receive = receive
        self.total = total
    }

    /// The phase names in order, as used in JSON and reports.
    public static let names = ["queue", "dns", "connect", "tls", "send", "wait", "receive", "total"]

    /// The value of a phase by its name in `names`.
    public func value(named name: String) -> Int64? {
        Self.names.firstIndex(of: name).flatMap(value(at:))
    }

    /// The value of a phase by its position in `names`.
    public func value(at index: Int) -> Int64? {
        switch index {
        case 0: queue
        case 1: dns
        case 2: connect
        case 3: tls
        case 4: send
        case 5: wait
        case 6: receive
        case 7: total
        default: nil
        }
    }

    /// The sum of the phases other than `total` that happened.
    public var sumOfParts: Int64 {
        [queue, dns, connect, tls, send, wait, receive].compactMap { $0 }.reduce(0, +)
    }

    private enum CodingKeys: String, CodingKey { case queue, dns, connect, tls, send, wait, receive, total }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        func put(_ v: Int64?, _ k: CodingKeys) throws {
            if let v { try c.encode(Format.millis(fromMicros: v), forKey: k) } else { try c.encodeNil(forKey: k) }
        }
        try put(queue, .queue); try put(dns, .dns); try put(connect, .connect); try put(tls, .tls)
        try put(send, .send); try put(wait, .wait); try put(receive, .receive); try put(total, .total)
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func get(_ k: CodingKeys) throws -> Int64? {
            try c.decodeIfPresent(Double.self, forKey: k).map { Int64(($0 * 1000).rounded()) }
        }
        self.init(queue: try get(.queue), dns: try get(.dns), connect: try get(.connect), tls: try get(.tls),
                  send: try get(.send), wait: try get(.wait), receive: try get(.receive), total: try get(.total) ?? 0)
    }
}
