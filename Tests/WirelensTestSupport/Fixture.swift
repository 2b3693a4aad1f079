import WirelensCore

/// Builders of transactions, tasks and kernel facts shared by the Core and Compare tests. Instants are wall-clock µs unless a name says otherwise.
public enum Fixture {
    /// An arbitrary wall-clock instant: 2023-11-14T22:13:20Z.
    public static let epoch: Int64 = 1_700_000_000_000_000

    /// A transaction on a TCP connection identified by `connectionId` and `localPort`.
    ///
    /// With `reused == false` the transaction opened its connection: it gets a 1 ms TCP connect
    /// that ends where the request starts.
    public static func transaction(
        kind: TransactionKind = .initial,
        url: String = "https://example.com/",
        method: String = "GET",
        fetchStart: Int64,
        requestStart: Int64? = nil,
        requestEnd: Int64? = nil,
        responseStart: Int64? = nil,
        responseEnd: Int64? = nil,
        reused: Bool,
        connectionId: Int? = 0,
        localPort: Int? = 50_000,
        status: Int? = 200,
        protocolName: String? = "http/1.1",
        requestBodyBytes: Int64 = 0,
        responseBodyBytes: Int64 = 0,
        error: TransferError? = nil
    ) -> TransactionMetrics {
        let reqStart = requestStart ?? fetchStart + 1_000
        var timeline = Timeline(fetchStart: fetchStart)
        if !reused {
            timeline.connectStart = reqStart - 1_000
            timeline.connectEnd = reqStart
        }
        timeline.requestStart = reqStart
        timeline.requestEnd = requestEnd ?? reqStart
        timeline.responseStart = responseStart ?? responseEnd
        timeline.responseEnd = responseEnd
        let end = responseEnd ?? timeline.requestEnd!
        var phases = Phases(total: end - fetchStart)
        phases.queue = 0
        if let start = timeline.connectStart, let stop = timeline.connectEnd { phases.connect = stop - start }
        phases.send = timeline.requestEnd! - reqStart
        if let first = timeline.responseStart {
            phases.wait = first - timeline.requestEnd!
            phases.receive = end - first
        }
        var m = TransactionMetrics(kind: kind, url: url, method: method, timeline: timeline, phases: phases,
                                   reusedConnection: reused, proxyConnection: false,
                                   curlTimers: CurlTimers(preTransfer: 5, startTransfer: 10, total: (end - fetchStart)))
        m.networkProtocolName = responseEnd == nil ? nil : protocolName
        m.connectionId = connectionId
        m.localAddress = localPort == nil ? nil : "192.0.2.10"
        m.localPort = localPort
        m.remoteAddress = localPort == nil ? nil : "198.51.100.7"
        m.remotePort = localPort == nil ? nil : 443
        m.statusCode = status
        m.requestBodyBytes = requestBodyBytes
        m.responseBodyBytes = responseBodyBytes
        m.error = error
        return m
    }

    /// A task wrapping `transactions`; its interval spans them unless given.
    public static func task(
        index: Int = 0,
        url: String = "https://example.com/",
        method: String = "GET",
        startedAt: Int64? = nil,
        endedAt: Int64? = nil,
        status: Int? = 200,
        error: TransferError? = nil,
        transactions: [TransactionMetrics] = []
    ) -> TaskRecord {
        let start = startedAt ?? transactions.map(\.timeline.fetchStart).min() ?? epoch
        let end = endedAt ?? transactions.map { $0.timeline.responseEnd ?? $0.timeline.fetchStart + $0.phases.total }
            .max() ?? start
        return TaskRecord(index: index, url: url, method: method, startedAt: start, endedAt: end,
                          redirectCount: transactions.filter { $0.kind == .redirect }.count,
                          retries: transactions.filter { $0.kind == .retry }.count,
                          statusCode: status, error: error, transactions: transactions)
    }

    public static func error(_ errorClass: ErrorClass, curlCode: Int? = nil) -> TransferError {
        TransferError(errorClass: errorClass, curlCode: curlCode, message: "\(errorClass.rawValue) failure")
    }

    public static func libcurl(_ version: String) -> LibcurlDescription {
        LibcurlDescription(version: version, sslBackend: "OpenSSL/3.0.13", http2: true, http3: false, asyncDNS: true,
                           ipv6: true, nghttp2: "1.59.0")
    }

    /// A snapshot laid out as the kernel's struct tcp_info (232 bytes, Linux 5.4 and later): each field at its
    /// offset in <linux/tcp.h>, the rest zero; the state is ESTABLISHED and the minimum RTT 900 µs.
    public static func tcpInfo(acked: UInt64 = 0, sent: UInt64 = 0, retrans: UInt64 = 0, rtt: UInt32 = 0, cwnd: UInt32 = 10,
                        window: UInt32 = 65536, rate: UInt64 = 0, busy: UInt64 = 0, rwnd: UInt64 = 0, mss: UInt32 = 1448,
                        unacked: UInt32 = 0, notSent: UInt32 = 0, minRTT: UInt32 = 900) -> TCPInfo {
        var bytes = [UInt8](repeating: 0, count: 232)
        func put<T: FixedWidthInteger>(_ value: T, at offset: Int) {
            withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + MemoryLayout<T>.size, with: $0) }
        }
        put(UInt8(1), at: 0)
        put(mss, at: 16)
        put(unacked, at: 24)
        put(rtt, at: 68)
        put(cwnd, at: 80)
        put(acked, at: 120)
        put(notSent, at: 144)
        put(minRTT, at: 148)
        put(rate, at: 160)
        put(busy, at: 168)
        put(rwnd, at: 176)
        put(sent, at: 200)
        put(retrans, at: 208)
        put(window, at: 228)
        return bytes.withUnsafeBytes { TCPInfo(kernelBytes: $0, length: 232)! }
    }
}
