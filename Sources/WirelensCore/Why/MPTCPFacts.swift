/// What a transaction's Multipath TCP connection was, read at its end: whether MPTCP was negotiated and each
/// subflow's 4-tuple and figures. A transaction on a plain TCP socket has none.
///
/// The subflows' counters run over the connection's life up to the transaction's end: on a reused connection they
/// include the transactions before.
public struct MPTCPFacts: Sendable, Equatable, Codable {
    /// False when the socket was opened as MPTCP and the connection fell back to plain TCP (the server did not
    /// answer MP_CAPABLE): it then has no subflows to show.
    public var negotiated: Bool
    /// The subflows, in the kernel's order (the first is the one the connection began with).
    public var subflows: [MPTCPSubflow]

    public init(negotiated: Bool, subflows: [MPTCPSubflow]) {
        self.negotiated = negotiated
        self.subflows = subflows
    }

    /// The facts from a socket's answers: `info` to `MPTCP_INFO` (nil: refused, as the kernel refuses it on a
    /// connection that fell back), `tcpInfo` to `MPTCP_TCPINFO` and `addresses` to `MPTCP_SUBFLOW_ADDRS` (nil:
    /// refused). Both lists come in the kernel's subflow order and are paired by position; a subflow without its
    /// `tcp_info` is left out. `sendsBody` picks the direction of each subflow's `bodyShare`.
    public static func of(info: MPTCPInfo?, tcpInfo: MPTCPSubflowData?, addresses: MPTCPSubflowData?,
                          sendsBody: Bool) -> MPTCPFacts {
        guard let info, !info.fellBack else { return MPTCPFacts(negotiated: false, subflows: []) }
        let infos = tcpInfo?.tcpInfos ?? []
        let pairs = addresses?.addresses ?? []
        let moved = infos.map { (sendsBody ? $0.bytesSent : $0.bytesReceived) ?? 0 }
        let total = moved.reduce(0, +)
        let subflows = infos.indices.map { i in
            var subflow = MPTCPSubflow(addresses: i < pairs.count ? pairs[i] : nil, info: infos[i],
                                       bodyShare: total > 0 ? Double(moved[i]) / Double(total) : nil)
            subflow.snapshot = infos[i]
            return subflow
        }
        return MPTCPFacts(negotiated: true, subflows: subflows)
    }
}

extension MPTCPFacts: CompactJSONWritable {
    /// Through the one writer of the kernel's facts (`KernelFactsJSONWriter`), samples included.
    package func appendCompactJSON(to bytes: inout [UInt8]) {
        KernelFactsJSONWriter.append(self, to: &bytes)
    }

    public func encode(to encoder: Encoder) throws {
        try encodeCompactJSON(to: encoder)
    }
}
