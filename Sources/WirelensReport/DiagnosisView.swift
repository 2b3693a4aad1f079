import WirelensCore

/// The "Why" block of a transaction in text: the verdict with its sentence, then the kernel's key figures.
struct DiagnosisView {
    let style: ANSIStyle

    /// `Why`, `Basis` and `Kernel` lines; none when the transaction has no diagnosis.
    func lines(for tx: TransactionMetrics) -> [String] {
        guard let diagnosis = tx.diagnosis else { return [] }
        var out = ReportText.keyValue("Why", "\(diagnosis.verdict.rawValue): \(diagnosis.explanation)")
        out[0] = out[0].replacingFirst(diagnosis.verdict.rawValue, with: style.paint(diagnosis.verdict.rawValue, .bold))
        if let basis = diagnosis.basis { out += ReportText.keyValue("Basis", basis) }
        if let tcp = tx.tcp {
            out += ReportText.keyList("Kernel", Self.figures(tcp))
        }
        return out
    }

    /// The kernel's figures a reader checks a verdict against, each only when the kernel gave it.
    static func figures(_ tcp: TCPFacts) -> [String] {
        var items = ["RTT \(DurationText.format(micros: Int64(tcp.smoothedRTT)))"
                     + (tcp.minRTT.map { " (min \(DurationText.format(micros: Int64($0))))" } ?? "")]
        items.append("cwnd \(tcp.congestionWindowMin)-\(tcp.congestionWindowMax) segments")
        if let share = tcp.retransmittedShare {
            items.append("\(Format.fixed(share * 100, digits: 2))% retransmitted")
        }
        if let rate = tcp.deliveryRateMedian {
            items.append("delivery \(ByteSize.formatRate(Double(rate)))"
                         + (tcp.deliveryRateMax.map { " (max \(ByteSize.formatRate(Double($0))))" } ?? ""))
        }
        if let window = tcp.peerWindowMin { items.append("peer window >= \(ByteSize.format(Int64(window)))") }
        if let buffer = tcp.sendBuffer { items.append("send buffer \(ByteSize.format(Int64(buffer)))") }
        if let busy = tcp.busy, let rwnd = tcp.receiveWindowLimited, let sndbuf = tcp.sendBufferLimited, busy > 0 {
            items.append("busy \(DurationText.format(micros: Int64(busy))): "
                         + "rwnd-limited \(DurationText.format(micros: Int64(rwnd))), "
                         + "sndbuf-limited \(DurationText.format(micros: Int64(sndbuf)))")
        }
        if let outOfOrder = tcp.outOfOrderPacketsIn, outOfOrder > 0 { items.append("\(outOfOrder) out-of-order in") }
        if let window = tcp.receiveWindowMedian {
            items.append("receive window \(ByteSize.format(Int64(window)))"
                         + (tcp.receiveWindowMax.map { " (max \(ByteSize.format(Int64($0))))" } ?? ""))
        }
        if let buffer = tcp.receiveBuffer { items.append("receive buffer \(ByteSize.format(Int64(buffer)))") }
        if let median = tcp.receiveRTTMedian {
            items.append("receive RTT \(DurationText.format(micros: Int64(median)))"
                         + (tcp.receiveRTTMin.map { " (min \(DurationText.format(micros: Int64($0))))" } ?? ""))
        }
        if tcp.shared { items.append("shared with other transfers") }
        return items
    }
}

private extension String {
    /// The string with the first occurrence of `target` replaced, found by its UTF-8 bytes (`target` is a verdict's
    /// ASCII name here, so a match never splits a character), without Foundation's bridged search.
    func replacingFirst(_ target: String, with replacement: String) -> String {
        let bytes = Array(utf8), wanted = Array(target.utf8)
        guard !wanted.isEmpty, bytes.count >= wanted.count else { return self }
        for start in 0...(bytes.count - wanted.count) where bytes[start..<start + wanted.count].elementsEqual(wanted) {
            return String(decoding: bytes[..<start], as: UTF8.self) + replacement
                + String(decoding: bytes[(start + wanted.count)...], as: UTF8.self)
        }
        return self
    }
}
