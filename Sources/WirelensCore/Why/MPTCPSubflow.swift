/// One subflow of a Multipath TCP connection at a transaction's end: its 4-tuple and the kernel's figures of it
/// (its `struct tcp_info` through `MPTCP_TCPINFO`).
public struct MPTCPSubflow: Sendable, Equatable, Decodable {
    public var localAddress: String?
    public var localPort: Int?
    public var remoteAddress: String?
    public var remotePort: Int?
    /// The subflow's smoothed round-trip time (µs, `tcpi_rtt`).
    public var rtt: UInt32
    /// Bytes the subflow sent, retransmissions included (`tcpi_bytes_sent`, Linux 4.19); nil on an older kernel.
    public var bytesSent: UInt64?
    /// Bytes the subflow received, each once (`tcpi_bytes_received`).
    public var bytesReceived: UInt64?
    /// Segments the subflow retransmitted over its life (`tcpi_total_retrans`).
    public var retransmissions: UInt32
    /// The subflow's share of the bytes all subflows moved in the body's direction (received for a download, sent
    /// for an upload), 0 to 1; nil when they moved none.
    public var bodyShare: Double?
    /// The subflow's own verdict (`MPTCPFacts.judged`), when the connection had two or more subflows.
    public var verdict: Verdict?
    /// The subflow's `tcp_info`, kept from `MPTCPFacts.of` until `MPTCPFacts.judged` gives the verdict (not written).
    public var snapshot: TCPInfo? = nil

    public init(addresses: SubflowAddresses?, info: TCPInfo, bodyShare: Double?) {
        localAddress = addresses?.localAddress
        localPort = addresses?.localPort
        remoteAddress = addresses?.remoteAddress
        remotePort = addresses?.remotePort
        rtt = info.rtt
        bytesSent = info.bytesSent
        bytesReceived = info.bytesReceived
        retransmissions = info.totalRetrans
        self.bodyShare = bodyShare
    }

    private enum CodingKeys: String, CodingKey {
        case localAddress, localPort, remoteAddress, remotePort, rtt, bytesSent, bytesReceived, retransmissions, bodyShare,
            verdict
    }
}
