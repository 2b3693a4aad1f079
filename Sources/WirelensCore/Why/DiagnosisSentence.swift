/// The sentence of a diagnosis, made from its verdict and evidence alone: what held the transfer back, with the
/// numbers, and what would help.
enum DiagnosisSentence {
    /// The explanation of `verdict` given `e`.
    static func text(_ verdict: Verdict, _ e: Diagnosis.Evidence) -> String {
        let note = (e.sharedConnection ? " (figures of the connection, shared with other transfers)" : "")
            + (e.proxyHop ? " (the socket's facts describe the hop to the proxy)" : "")
        let rtt = e.rtt.map { DurationText.format(micros: $0) } ?? "an unknown"
        switch verdict {
        case .serverThink:
            return "The server took \(DurationText.format(micros: e.wait ?? 0)) to answer, \(percent(e.waitShare ?? 0)) of "
                + "the total: a faster server, not the network, would help."
        case .roundTrips:
            let spent = (e.handshakes ?? 0) + (e.movingTime ?? 0)
            let trips = Double(spent) / Double(max(e.rtt ?? 1, 1))
            let total = e.roundTrips.map { $0 * Double(max(e.rtt ?? 1, 1)) } ?? Double(spent)
            return "About \(Format.fixed(trips, digits: 0)) round trips of \(rtt) (handshakes and the first windows) hold "
                + "\(percent(Double(spent) / max(total, 1))) of the time: reusing connections, TLS resumption or a "
                + "shorter path help, bandwidth does not\(note)."
        case .serverWindow:
            let full = percent(e.receiveWindowLimitedShare ?? 0)
            if let closed = e.zeroWindowShare, closed >= Diagnosis.closedWindowShare {
                let rate = e.bodyRate.map { " (it took the body at \(ByteSize.formatRate($0)))" } ?? ""
                return "The server's receive window was full \(full) of the send time and closed in \(percent(closed)) of "
                    + "the samples: the server read slower than the client sent\(rate); a faster-reading server helps, "
                    + "and parallel connections help when it paces each connection\(note)."
            }
            let window = e.peerWindow.map { ByteSize.format($0) } ?? "an unknown size"
            let cap = e.windowCap.map { " caps one connection at \(ByteSize.formatRate($0))" } ?? " held the sender back"
            let moved = e.bodyRate.map { ", and the body moved at \(ByteSize.formatRate($0))" } ?? ""
            return "The server's receive window was full \(full) of the send time: its window of \(window) over a \(rtt) "
                + "RTT\(cap)\(moved); parallel connections, a larger server buffer or a faster-reading server help\(note)."
        case .sendBuffer:
            let size = e.sendBuffer.map { " of \(ByteSize.format($0))" } ?? ""
            var held = ""
            if let segments = e.segmentsInFlight, let mss = e.segmentSize, let cwnd = e.congestionWindow {
                held = ": it let \(segments) segment\(segments == 1 ? "" : "s") of \(ByteSize.format(Int64(mss))) be in flight "
                    + "while the congestion window allowed \(cwnd)"
                    + (e.peerWindow.map { " and the server's window \(ByteSize.format($0))" } ?? "")
            }
            return "The client's socket send buffer\(size) was the limit \(percent(e.sendBufferLimitedShare ?? 0)) of the "
                + "send time\(held); a larger send buffer (or leaving it to the kernel's auto-tuning) helps\(note)."
        case .network where e.direction == "download":
            let rate = e.bodyRate.map { ByteSize.formatRate($0) } ?? "an unknown rate"
            let sign: String
            if let outOfOrder = e.outOfOrderPacketsIn, outOfOrder > 0 {
                sign = "\(outOfOrder) packets arrived out of order (a sign of loss on the way in)"
            } else {
                sign = "the receive RTT rose to \(DurationText.format(micros: e.receiveRTTMedian ?? 0)) from a minimum of "
                    + "\(DurationText.format(micros: e.minRTT ?? 0)) (a queue on the way in)"
            }
            let fill = e.windowFill.map { ", \(percent($0)) of what the client's window allowed" } ?? ""
            return "\(sign) while the body came at \(rate)\(fill): the path from the server was the limit; a larger "
                + "window will not help, and more connections help only when each flow is capped\(note)."
        case .client where e.direction == "download":
            let write = e.writeTime.map { DurationText.format(micros: $0) } ?? "an unknown time"
            let queue = e.receiveQueueShare.map { ", and unread data waited in \(percent($0)) of the samples" } ?? ""
            return "The client did not read: writing the body took \(write), \(percent(e.writeShare ?? 0)) of the "
                + "receive time\(queue); a faster sink (file, pipe, disk), not the network, would help\(note)."
        case .clientWindow:
            let window = e.receiveWindow.map { ByteSize.format($0) } ?? "an unknown size"
            let cap = e.windowCap.map { ByteSize.formatRate($0) } ?? "an unknown rate"
            let rate = e.bodyRate.map { ByteSize.formatRate($0) } ?? "an unknown rate"
            let floor = e.minRTT.map { DurationText.format(micros: $0) } ?? "an unknown"
            let buffer = e.receiveBuffer.map { " (receive buffer \(ByteSize.format($0)))" } ?? ""
            return "The client's own receive window was the limit: the body came at \(rate), \(percent(e.windowFill ?? 0)) "
                + "of what its window of \(window)\(buffer) allows over a \(floor) RTT (\(cap)); a larger receive "
                + "buffer (or leaving it to the kernel's auto-tuning) or parallel connections help\(note)."
        case .serverSend:
            let rate = e.bodyRate.map { ByteSize.formatRate($0) } ?? "an unknown rate"
            let cap = e.windowCap.map { " of the \(ByteSize.formatRate($0)) the client's window allowed" } ?? ""
            return "The server sent slower than the path and the window allowed: the body came at \(rate), "
                + "\(percent(e.windowFill ?? 0))\(cap), with no queue and no loss on the way in; a faster server (or one "
                + "that does not pace its sending), not the network, would help\(note)."
        case .network:
            let loss = e.retransmittedShare.map { ", \(percent($0, digits: 2)) of the bytes retransmitted" } ?? ""
            let rate = e.deliveryRate.map { ", delivering \(ByteSize.formatRate($0))" } ?? ""
            let floor = e.minRTT.map { " (min \(DurationText.format(micros: $0)))" } ?? ""
            return "The path was the limit: the sender was busy within its congestion window "
                + "\(percent(e.networkShare ?? 0)) of the send time, RTT \(rtt)\(floor)\(loss)\(rate); more connections "
                + "help only when each flow is capped (loss, per-flow shaping), not when they share one link\(note)."
        case .client:
            return "The sender had nothing queued \(percent(e.idleShare ?? 0)) of the send time: the body source was slower "
                + "than the network (a faster reader, a larger read size or reading ahead helps)\(note)."
        case .unknown:
            var figures = ""
            if e.reason == .tooShort, let moving = e.movingTime {
                figures = " (\(DurationText.format(micros: moving)), RTT \(rtt))"
            } else if e.direction == "download", let rate = e.bodyRate {
                figures = " (the body came at \(ByteSize.formatRate(rate)))"
            }
            return "Unknown: \(e.reason?.text ?? "no reason recorded")\(figures)\(note)."
        case .clientCPU:
            return hostSentence(e)
        case .h2Window:
            return h2WindowSentence(e, note: note)
        }
    }

    static func percent(_ value: Double, digits: Int = 0) -> String {
        "\(Format.fixed(value * 100, digits: digits))%"
    }
}
