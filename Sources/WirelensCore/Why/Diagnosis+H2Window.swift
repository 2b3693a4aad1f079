extension Diagnosis {
    /// The share of an HTTP/2 upload's samples in which everything written must have fit the TCP windows and the send
    /// buffer, with the body ready, for the peer's HTTP/2 flow-control window to be the limit.
    public static let h2StarvedShare = 0.6

    /// The least share of the largest bytes in flight the body must have moved per round trip: a window-bound sender
    /// moves about a window a round trip (nghttp2 grants more once half is read), while on a short path (loopback) the
    /// same idle samples come from a peer that takes bytes faster than they are sampled.
    public static let h2WindowRoundTripShare = 0.3

    /// The `h2-window` diagnosis of an upload over HTTP/2 whose body was always ready, else nil: in most samples
    /// neither the congestion window, the peer's TCP window, the send buffer nor a queue on the path held back what
    /// libcurl had written (in flight, and any unsent bytes on their way out), and the body moved about those bytes a round trip. libcurl then had
    /// a body to send and did not write it: the stream's or the connection's flow-control window was spent, and the
    /// sender idled until the peer's WINDOW_UPDATE, about a round trip at a time. The largest bytes in flight seen
    /// estimate what the window let out per round trip.
    static func h2WindowHeld(_ tcp: TCPFacts, moving: Int64, evidence: Evidence) -> Diagnosis? {
        guard moving >= stopwatchFloor, tcp.sendMSS > 0 else { return nil }
        let mss = UInt64(tcp.sendMSS)
        let samples = tcp.samples.filter { $0.notSent != nil }
        guard samples.count >= 4 else { return nil }
        // What libcurl had written and the kernel not yet had acknowledged: in flight, and unsent bytes it was still
        // putting out (the looks come right after libcurl ran, often just after it wrote what a WINDOW_UPDATE let
        // through). Starved: all of it fit the congestion window, the peer's TCP window and the send buffer, so TCP
        // held nothing back and the body was all the kernel was given.
        let starved = samples.filter { s in
            let written = UInt64(s.unacked) * mss + UInt64(s.notSent ?? 0)
            let bufferRoom = tcp.sendBuffer.map { written * 2 < UInt64($0) } ?? true
            let windowRoom = s.peerWindow.map { written + mss <= UInt64($0) } ?? true
            let congestionRoom = written < UInt64(s.congestionWindow) * mss
            return congestionRoom && bufferRoom && windowRoom && !tcp.queuedOnThePath(s)
        }
        let share = Double(starved.count) / Double(samples.count)
        var evidence = evidence
        evidence.nothingUnsentShare = share
        guard share >= h2StarvedShare, let most = starved.map({ Int64($0.unacked) * Int64(mss) }).max(), most > 0,
              let rate = evidence.bodyRate, let rtt = evidence.rtt, rtt > 0,
              rate * Double(rtt) / 1e6 >= h2WindowRoundTripShare * Double(most) else { return nil }
        evidence.inFlightMax = most
        return Diagnosis(verdict: .h2Window, evidence: evidence)
    }
}

extension DiagnosisSentence {
    /// The sentence of `h2-window`: the kernel idle with the body ready, what was in flight per round trip, and what
    /// helps.
    static func h2WindowSentence(_ e: Diagnosis.Evidence, note: String) -> String {
        let rtt = e.rtt.map { DurationText.format(micros: $0) } ?? "an unknown"
        let inFlight = e.inFlightMax.map { "at most \(ByteSize.format($0)) in flight per \(rtt) round trip" }
            ?? "little in flight"
        let rate = e.bodyRate.map { ", the body at \(ByteSize.formatRate($0))" } ?? ""
        return "The server's HTTP/2 flow-control window held the upload: the body was ready but every TCP limit had room "
            + "for what libcurl had written in \(percent(e.nothingUnsentShare ?? 0)) of the samples, \(inFlight)\(rate); the stream and "
            + "connection windows the server grants (SETTINGS_INITIAL_WINDOW_SIZE, WINDOW_UPDATE) bound each round "
            + "trip: a server granting larger windows, or HTTP/1.1, helps\(note)."
    }
}
