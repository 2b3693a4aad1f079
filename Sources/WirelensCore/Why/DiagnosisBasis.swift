/// What a verdict rests on, in words made from its evidence alone: the leading share against the next, or the
/// checks that held with their figures, then the confidence (`Diagnosis+Confidence`). Made when it is read, as the
/// sentence is.
enum DiagnosisBasis {
    /// The basis of `verdict` given `e`, or nil for `unknown` (its reason names the missing fact).
    static func text(_ verdict: Verdict, _ e: Diagnosis.Evidence) -> String? {
        var checks: [String] = []
        let download = e.direction == "download"
        switch verdict {
        case .unknown:
            return nil
        case .serverThink:
            checks.append("the server's wait \(percent(e.waitShare ?? 0)) of the total"
                          + (download ? ", at least half of it with the request's round trip taken out" : " (at least 50%)"))
        case .roundTrips:
            checks.append("the body moved within \(Diagnosis.shortTransferRoundTrips) round trips")
            if let trips = e.roundTrips { checks.append("the total \(Format.fixed(trips, digits: 1)) round trips") }
        case .clientWindow:
            checks.append(fill(e, "at least"))
            if let median = e.receiveWindow, let largest = e.receiveWindowMax {
                checks.append("the window stayed at its largest (median \(ByteSize.format(median)) of "
                              + "\(ByteSize.format(largest)))")
            }
            checks += clientChecks(e)
        case .serverSend:
            if let median = e.receiveWindow, let largest = e.receiveWindowMax, !Diagnosis.windowHeld(e) {
                checks.append("the window still growing (median \(ByteSize.format(median)) of \(ByteSize.format(largest)))")
            } else {
                checks.append(fill(e, "under"))
            }
            checks.append(queue(e) ?? "no receive RTT measured")
            checks.append("no out-of-order arrivals")
            checks += clientChecks(e)
        case .client where download:
            checks += clientChecks(e)
        case .network where download:
            if let outOfOrder = e.outOfOrderPacketsIn, outOfOrder > 0 { checks.append("\(outOfOrder) packets arrived out of order") }
            if let queue = queue(e) { checks.append(queue) }
            if e.windowFill != nil { checks.append(fill(e, "under")) }
        case .serverWindow, .sendBuffer, .network, .client:
            let (lead, next) = Diagnosis.leadingShares(verdict, e)
            checks.append("\(verdict.rawValue) \(percent(lead)) of the send time"
                          + (next.map { " against \($0.verdict.rawValue) \(percent($0.share))" } ?? ""))
        case .clientCPU:
            if let host = e.host {
                checks.append("the loop thread on a CPU \(percent(host.cpuShare)) and waiting for one "
                              + "\(percent(host.runQueueShare ?? 0)) of the moving phase")
            }
        case .h2Window:
            checks.append("every TCP limit open for what was written in \(percent(e.nothingUnsentShare ?? 0)) of the "
                          + "samples (at least \(percent(Diagnosis.h2StarvedShare)))")
        }
        let sure = e.confidence.map { "confidence \(Format.fixed($0, digits: 2))" }
        return (checks + [sure].compactMap { $0 }).joined(separator: "; ")
    }

    /// The window's fill, against its threshold ("at least" or "under").
    private static func fill(_ e: Diagnosis.Evidence, _ side: String) -> String {
        let value = e.windowFill.map(percent) ?? "an unknown share"
        return "the body at \(value) of the client's window over the minimum RTT (\(side) \(percent(Diagnosis.windowFillFloor)))"
    }

    /// The queue check of a download, with its figures; nil without a receive RTT.
    private static func queue(_ e: Diagnosis.Evidence) -> String? {
        guard let ratio = Diagnosis.queueRatio(e) else { return nil }
        let high = Diagnosis.queueFactor <= ratio && Diagnosis.queueDelay(e) >= Int64(TCPFacts.queueDelayFloor)
        let text = "the receive RTT's median \(Format.fixed(ratio, digits: 1))x the minimum"
        if high, let bursts = e.burstShare, bursts >= Diagnosis.burstFloor {
            return text + ", but data came in bursts with gaps (\(percent(bursts)) of the samples): no queue"
        }
        return text + (high ? ": a queue" : ": no queue")
    }

    /// The checks on the client's own reading, with the figures the engine and the kernel gave.
    private static func clientChecks(_ e: Diagnosis.Evidence) -> [String] {
        var checks: [String] = []
        if let write = e.writeShare { checks.append("writing the body took \(percent(write)) of the receive time") }
        if let queue = e.receiveQueueShare { checks.append("unread data queued in \(percent(queue)) of the samples") }
        return checks
    }

    private static func percent(_ value: Double) -> String { "\(Format.fixed(value * 100, digits: 0))%" }
}
