/// The facts of one Multipath TCP subflow from its only snapshot, the `struct tcp_info` `MPTCP_TCPINFO` gives at the
/// transaction's end, for its own verdict (`MPTCPFacts.judged`).
///
/// One snapshot has no samples over the transfer, so each median is the end value and each counter runs over the
/// subflow's life (on a reused connection, the transactions before as well). What it lacks against a transaction's
/// own facts: the receive RTT, window and delivery rate over the transfer (the queue rule reads the last receive
/// RTT), the burst share (the burst guard cannot hold), the zero-window share, the receive queue (SIOCINQ answers for
/// the MPTCP socket, not a subflow) and the socket buffers (the connection's).
extension TCPFacts {
    /// The facts of a subflow whose only snapshot is `info`.
    public static func subflow(_ info: TCPInfo) -> TCPFacts {
        var facts = TCPFacts(
            span: 0, bytesSent: info.bytesSent, bytesAcked: info.bytesAcked, bytesReceived: info.bytesReceived,
            bytesRetransmitted: info.bytesRetrans, segmentsRetransmitted: info.totalRetrans,
            outOfOrderPacketsIn: info.outOfOrderPacketsIn, minRTT: info.minRTT, smoothedRTT: info.rtt, maxRTT: info.rtt,
            receiveRTT: info.receiveRTT, congestionWindowMin: info.congestionWindow,
            congestionWindowMax: info.congestionWindow, sendMSS: info.sendMSS, pathMTU: info.pathMTU,
            peerWindowMin: info.sendWindow, deliveryRateMax: info.deliveryRate, deliveryRateMedian: info.deliveryRate,
            peerWindowMedian: info.sendWindow, busy: info.busyTime, receiveWindowLimited: info.receiveWindowLimited,
            sendBufferLimited: info.sendBufferLimited, samples: [])
        // The one snapshot is every sample: its receive RTT (0: not measured yet) and window are the smallest, the
        // median and the largest alike.
        let measured = info.receiveRTT > 0 ? info.receiveRTT : nil
        (facts.receiveRTTMin, facts.receiveRTTMedian) = (measured, measured)
        (facts.receiveWindowMedian, facts.receiveWindowMax) = (info.receiveWindow, info.receiveWindow)
        (facts.receiveSSThresholdMax, facts.receiveSpace) = (info.receiveSSThreshold, info.receiveSpace)
        return facts
    }
}
