/// Writes a transaction's `tcp`, `mptcp` and `diagnosis` as compact JSON straight into bytes, field by field: their
/// only writer (`TCPFacts`, `MPTCPFacts` and `Diagnosis` hand these bytes over as their encoding).
///
/// Every transaction of a probe carries both, and through the generic encoder they cost a third of a JSON run's CPU
/// (`make bench`, 20 000 GETs; reports/bench/json-writers.md); `KernelFactsJSONWriterTests` reads these bytes back
/// with Foundation's decoder over seeded random values. Keys follow the declaration order of `TCPFacts`, `TCPSample` and `Diagnosis.Evidence`.
package enum KernelFactsJSONWriter {
    /// Appends the kernel's facts of a transaction, with their samples when `samples` is true and there are any
    /// (`ReportDetail.full`; `TCPFacts.samples` writes no key for none).
    package static func append(_ f: TCPFacts, samples: Bool, to b: inout [UInt8]) {
        raw("{\"span\":", &b); JSONBytes.appendInt(f.span, to: &b)
        raw(",\"bytesSent\":", &b); unsigned(f.bytesSent, &b)
        raw(",\"bytesAcked\":", &b); unsigned(f.bytesAcked, &b)
        raw(",\"bytesReceived\":", &b); unsigned(f.bytesReceived, &b)
        raw(",\"bytesRetransmitted\":", &b); unsigned(f.bytesRetransmitted, &b)
        raw(",\"segmentsRetransmitted\":", &b); unsigned(f.segmentsRetransmitted, &b)
        raw(",\"outOfOrderPacketsIn\":", &b); unsigned(f.outOfOrderPacketsIn, &b)
        raw(",\"minRTT\":", &b); unsigned(f.minRTT, &b)
        raw(",\"smoothedRTT\":", &b); unsigned(f.smoothedRTT, &b)
        raw(",\"maxRTT\":", &b); unsigned(f.maxRTT, &b)
        raw(",\"receiveRTT\":", &b); unsigned(f.receiveRTT, &b)
        raw(",\"congestionWindowMin\":", &b); unsigned(f.congestionWindowMin, &b)
        raw(",\"congestionWindowMax\":", &b); unsigned(f.congestionWindowMax, &b)
        raw(",\"sendMSS\":", &b); unsigned(f.sendMSS, &b)
        raw(",\"pathMTU\":", &b); unsigned(f.pathMTU, &b)
        raw(",\"peerWindowMin\":", &b); unsigned(f.peerWindowMin, &b)
        raw(",\"peerWindowMedian\":", &b); unsigned(f.peerWindowMedian, &b)
        raw(",\"zeroWindowShare\":", &b); double(f.zeroWindowShare, &b)
        raw(",\"deliveryRateMax\":", &b); unsigned(f.deliveryRateMax, &b)
        raw(",\"deliveryRateMedian\":", &b); unsigned(f.deliveryRateMedian, &b)
        raw(",\"busy\":", &b); unsigned(f.busy, &b)
        raw(",\"receiveWindowLimited\":", &b); unsigned(f.receiveWindowLimited, &b)
        raw(",\"sendBufferLimited\":", &b); unsigned(f.sendBufferLimited, &b)
        raw(",\"sendBuffer\":", &b); unsigned(f.sendBuffer, &b)
        raw(",\"shared\":", &b); bool(f.shared, &b)
        raw(",\"handshakeRTT\":", &b); unsigned(f.handshakeRTT, &b)
        raw(",\"receiveWindowMedian\":", &b); unsigned(f.receiveWindowMedian, &b)
        raw(",\"receiveWindowMax\":", &b); unsigned(f.receiveWindowMax, &b)
        raw(",\"receiveSSThresholdMax\":", &b); unsigned(f.receiveSSThresholdMax, &b)
        raw(",\"receiveSpace\":", &b); unsigned(f.receiveSpace, &b)
        raw(",\"receiveRTTMin\":", &b); unsigned(f.receiveRTTMin, &b)
        raw(",\"receiveRTTMedian\":", &b); unsigned(f.receiveRTTMedian, &b)
        raw(",\"receiveBuffer\":", &b); unsigned(f.receiveBuffer, &b)
        raw(",\"receiveQueueShare\":", &b); double(f.receiveQueueShare, &b)
        raw(",\"burstShare\":", &b); double(f.burstShare, &b)
        guard samples, !f.samples.isEmpty else { return raw("}", &b) }
        raw(",\"samples\":[", &b)
        for i in f.samples.indices {
            if i > 0 { b.append(UInt8(ascii: ",")) }
            let s = f.samples[i]
            raw("{\"at\":", &b); JSONBytes.appendInt(s.at, to: &b)
            raw(",\"rtt\":", &b); unsigned(s.rtt, &b)
            raw(",\"congestionWindow\":", &b); unsigned(s.congestionWindow, &b)
            raw(",\"deliveryRate\":", &b); unsigned(s.deliveryRate, &b)
            raw(",\"appLimited\":", &b); s.appLimited.map { bool($0, &b) } ?? raw("null", &b)
            raw(",\"peerWindow\":", &b); unsigned(s.peerWindow, &b)
            raw(",\"unacked\":", &b); unsigned(s.unacked, &b)
            raw(",\"notSent\":", &b); unsigned(s.notSent, &b)
            raw(",\"acked\":", &b); unsigned(s.acked, &b)
            raw(",\"received\":", &b); unsigned(s.received, &b)
            raw(",\"receiveRTT\":", &b); unsigned(s.receiveRTT, &b)
            raw(",\"receiveWindow\":", &b); unsigned(s.receiveWindow, &b)
            raw(",\"receiveQueue\":", &b); unsigned(s.receiveQueue, &b)
            raw(",\"sinceReceived\":", &b); unsigned(s.sinceReceived, &b)
            raw("}", &b)
        }
        raw("]}", &b)
    }

    /// Appends a transaction's Multipath TCP facts (`MPTCPFacts`, keys in its declaration order).
    package static func append(_ m: MPTCPFacts, to b: inout [UInt8]) {
        raw("{\"negotiated\":", &b); bool(m.negotiated, &b)
        raw(",\"subflows\":[", &b)
        for (i, s) in m.subflows.enumerated() {
            raw(i == 0 ? "{" : ",{", &b)
            for (key, address, port) in [("local", s.localAddress, s.localPort), ("remote", s.remoteAddress, s.remotePort)] {
                JSONBytes.appendString(key + "Address", to: &b)
                b.append(UInt8(ascii: ":"))
                if let address { JSONBytes.appendString(address, to: &b) } else { raw("null", &b) }
                raw(",", &b)
                JSONBytes.appendString(key + "Port", to: &b)
                b.append(UInt8(ascii: ":"))
                int(port.map { Int64($0) }, &b)
                raw(",", &b)
            }
            let counts: [(StaticString, UInt64?)] = [("\"rtt\":", UInt64(s.rtt)), (",\"bytesSent\":", s.bytesSent),
                                                     (",\"bytesReceived\":", s.bytesReceived),
                                                     (",\"retransmissions\":", UInt64(s.retransmissions))]
            for (key, value) in counts {
                raw(key, &b)
                unsigned(value, &b)
            }
            raw(",\"bodyShare\":", &b); double(s.bodyShare, &b)
            if let verdict = s.verdict {
                raw(",\"verdict\":", &b)
                JSONBytes.appendString(verdict.rawValue, to: &b)
            }
            raw("}", &b)
        }
        raw("]}", &b)
    }

    /// Appends a transaction's diagnosis (its sentence made here, from the verdict and the evidence).
    package static func append(_ d: Diagnosis, to b: inout [UInt8]) {
        let e = d.evidence
        raw("{\"verdict\":", &b); JSONBytes.appendString(d.verdict.rawValue, to: &b)
        raw(",\"explanation\":", &b); JSONBytes.appendString(d.explanation, to: &b)
        raw(",\"basis\":", &b)
        if let basis = d.basis { JSONBytes.appendString(basis, to: &b) } else { raw("null", &b) }
        raw(",\"evidence\":{\"direction\":", &b); JSONBytes.appendString(e.direction, to: &b)
        raw(",\"movingTime\":", &b); int(e.movingTime, &b)
        raw(",\"receiveWindowLimitedShare\":", &b); double(e.receiveWindowLimitedShare, &b)
        raw(",\"sendBufferLimitedShare\":", &b); double(e.sendBufferLimitedShare, &b)
        raw(",\"bufferBoundShare\":", &b); double(e.bufferBoundShare, &b)
        raw(",\"sendBuffer\":", &b); int(e.sendBuffer, &b)
        raw(",\"segmentsInFlight\":", &b); int(e.segmentsInFlight.map { Int64($0) }, &b)
        raw(",\"segmentSize\":", &b); int(e.segmentSize.map { Int64($0) }, &b)
        raw(",\"congestionWindow\":", &b); int(e.congestionWindow.map { Int64($0) }, &b)
        raw(",\"networkShare\":", &b); double(e.networkShare, &b)
        raw(",\"idleShare\":", &b); double(e.idleShare, &b)
        raw(",\"wait\":", &b); int(e.wait, &b)
        raw(",\"waitShare\":", &b); double(e.waitShare, &b)
        raw(",\"handshakes\":", &b); int(e.handshakes, &b)
        raw(",\"rtt\":", &b); int(e.rtt, &b)
        raw(",\"minRTT\":", &b); int(e.minRTT, &b)
        raw(",\"receiveRTT\":", &b); int(e.receiveRTT, &b)
        raw(",\"roundTrips\":", &b); double(e.roundTrips, &b)
        raw(",\"retransmittedShare\":", &b); double(e.retransmittedShare, &b)
        raw(",\"outOfOrderPacketsIn\":", &b); int(e.outOfOrderPacketsIn.map { Int64($0) }, &b)
        raw(",\"bodyRate\":", &b); double(e.bodyRate, &b)
        raw(",\"deliveryRate\":", &b); double(e.deliveryRate, &b)
        raw(",\"peerWindow\":", &b); int(e.peerWindow, &b)
        raw(",\"zeroWindowShare\":", &b); double(e.zeroWindowShare, &b)
        raw(",\"windowCap\":", &b); double(e.windowCap, &b)
        raw(",\"sharedConnection\":", &b); bool(e.sharedConnection, &b)
        raw(",\"proxyHop\":", &b); bool(e.proxyHop, &b)
        raw(",\"reason\":", &b)
        if let reason = e.reason { JSONBytes.appendString(reason.text, to: &b) } else { raw("null", &b) }
        raw(",\"writeTime\":", &b); int(e.writeTime, &b)
        raw(",\"writeShare\":", &b); double(e.writeShare, &b)
        raw(",\"receiveWindow\":", &b); int(e.receiveWindow, &b)
        raw(",\"receiveBuffer\":", &b); int(e.receiveBuffer, &b)
        raw(",\"receiveWindowMax\":", &b); int(e.receiveWindowMax, &b)
        raw(",\"receiveRTTMin\":", &b); int(e.receiveRTTMin, &b)
        raw(",\"receiveRTTMedian\":", &b); int(e.receiveRTTMedian, &b)
        raw(",\"windowFill\":", &b); double(e.windowFill, &b)
        raw(",\"receiveQueueShare\":", &b); double(e.receiveQueueShare, &b)
        raw(",\"burstShare\":", &b); double(e.burstShare, &b)
        raw(",\"confidence\":", &b); double(e.confidence, &b)
        raw(",\"host\":", &b)
        if let host = e.host { append(host, to: &b) } else { raw("null", &b) }
        raw(",\"nothingUnsentShare\":", &b); double(e.nothingUnsentShare, &b)
        raw(",\"inFlightMax\":", &b); int(e.inFlightMax, &b)
        raw("}}", &b)
    }

    /// Appends the host's facts of a diagnosis (`HostFacts`, keys in its declaration order).
    private static func append(_ h: HostFacts, to b: inout [UInt8]) {
        raw("{\"span\":", &b); JSONBytes.appendInt(h.span, to: &b)
        raw(",\"cpuTime\":", &b); JSONBytes.appendInt(h.cpuTime, to: &b)
        raw(",\"cpuShare\":", &b); double(h.cpuShare, &b)
        raw(",\"runQueueWait\":", &b); int(h.runQueueWait, &b)
        raw(",\"runQueueShare\":", &b); double(h.runQueueShare, &b)
        raw(",\"cpusAllowed\":", &b); int(h.cpusAllowed.map { Int64($0) }, &b)
        raw(",\"cgroup\":", &b)
        if let cgroup = h.cgroup { JSONBytes.appendString(cgroup, to: &b) } else { raw("null", &b) }
        raw(",\"cpuQuota\":", &b); double(h.cpuQuota, &b)
        raw(",\"periods\":", &b); int(h.periods, &b)
        raw(",\"throttledPeriods\":", &b); int(h.throttledPeriods, &b)
        raw(",\"throttledTime\":", &b); int(h.throttledTime, &b)
        raw(",\"machineBusyShare\":", &b); double(h.machineBusyShare, &b)
        raw(",\"peerOnThisMachine\":", &b); bool(h.peerOnThisMachine, &b)
        raw("}", &b)
    }

    private static func raw(_ text: StaticString, _ b: inout [UInt8]) {
        b.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static func bool(_ value: Bool, _ b: inout [UInt8]) { raw(value ? "true" : "false", &b) }

    private static func unsigned<T: UnsignedInteger & FixedWidthInteger>(_ value: T?, _ b: inout [UInt8]) {
        if let value { JSONBytes.appendUnsigned(UInt64(value), to: &b) } else { raw("null", &b) }
    }

    private static func int(_ value: Int64?, _ b: inout [UInt8]) {
        if let value { JSONBytes.appendInt(value, to: &b) } else { raw("null", &b) }
    }

    /// A number, or null when absent or not finite (JSON has no NaN; the evidence's shares are finite).
    private static func double(_ value: Double?, _ b: inout [UInt8]) {
        guard let value, JSONBytes.appendDouble(value, to: &b) else { return raw("null", &b) }
    }
}
