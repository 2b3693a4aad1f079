import WirelensCore

/// What the wire shows of a download's pace, and whether it confirms the probe's verdict.
///
/// Read from the capture of the connection that carried the download: the server's data (retransmissions, segments
/// out of order, segments that reached the right edge of the client's window, the most bytes in flight) and the
/// client's acknowledgements (its advertised windows, zero windows). A capture taken on the client sees the server's
/// data in flight from the client's side: what arrived beyond the client's last acknowledgement, far less than the
/// server had in flight. So the client's window is judged by the bytes delivered per round trip (the response's
/// bytes over its time on the wire, times the handshake's round trip) against the largest window the client
/// advertised, not by the bytes in flight. The wire's reading, in this order:
/// 1. loss: a retransmission or a segment out of order on the way in: `network`;
/// 2. a stalled reader: the client advertised a zero window: `client`;
/// 3. the client's window: at least `Diagnosis.windowFillFloor` of it delivered per round trip: `client-window`;
/// 4. an open window: none of those, so the server (or a queue the wire does not weigh) set the pace.
/// The verdict is confirmed when the reading is its own: `network` by loss, `client` by a zero window or segments that
/// filled the window without loss, `client-window` by the window's fill without loss or zero window, `server-send` by
/// an open window that no segment filled. The wire confirms no other verdict (it cannot see the server's think time,
/// the round trips' share or the host's CPU).
public struct DownloadWireCheck: Sendable, Equatable {
    /// What the wire alone shows set the download's pace.
    public enum Reading: String, Sendable {
        case loss
        case zeroWindow = "zero-window"
        case clientWindow = "client-window"
        case openWindow = "open-window"
    }

    /// The probe's verdict for the download (nil when it gave none).
    public var verdict: Verdict?
    /// The most bytes of the server's data in flight as the capture saw them (beyond the client's last
    /// acknowledgement), and the window the client advertised then (scaled; nil when the handshake's window scaling
    /// was not captured).
    public var inFlightMax: Int64?
    public var advertisedWindow: Int64?
    /// The largest window the client advertised (scaled), what the fill is weighed against.
    public var advertisedWindowMax: Int64?
    /// The handshake's round trip (µs) and the bytes delivered per round trip, with their share of
    /// `advertisedWindowMax`; nil when the handshake or the response's span was not captured.
    public var roundTrip: Int64?
    public var deliveredPerRoundTrip: Double?
    public var windowFill: Double?
    /// Server segments that reached the right edge of the client's window.
    public var windowFullSegments: Int
    /// Server segments sent again, and segments that came late (both loss signs on the way in).
    public var retransmissions: Int
    public var outOfOrder: Int
    /// Client packets advertising a zero window.
    public var zeroWindows: Int
    public var reading: Reading
    /// True when the wire's reading is the verdict's own.
    public var confirms: Bool

    /// The check of a download the probe called `verdict`: `data` is the server's direction of its connection,
    /// `acks` the client's; `bytes` arrived over `span` µs on the wire; `roundTrip` is the handshake's (µs).
    public init(verdict: Verdict?, data: DirectionStats, acks: DirectionStats, bytes: Int64, span: Int64?,
                roundTrip: Int64?) {
        self.verdict = verdict
        inFlightMax = data.inFlightMax
        advertisedWindow = data.windowAtInFlightMax
        advertisedWindowMax = acks.advertisedWindowMax
        self.roundTrip = roundTrip.flatMap { $0 > 0 ? $0 : nil }
        if let rtt = self.roundTrip, let span, span > 0, bytes > 0 {
            let perRoundTrip = Double(bytes) * Double(rtt) / Double(span)
            deliveredPerRoundTrip = perRoundTrip
            if let window = advertisedWindowMax, window > 0 { windowFill = perRoundTrip / Double(window) }
        }
        windowFullSegments = data.windowFull
        retransmissions = data.retransmissions
        outOfOrder = data.outOfOrder
        zeroWindows = acks.zeroWindow
        let lossless = retransmissions == 0 && outOfOrder == 0
        if !lossless {
            reading = .loss
        } else if zeroWindows > 0 {
            reading = .zeroWindow
        } else if (windowFill ?? 0) >= Diagnosis.windowFillFloor {
            reading = .clientWindow
        } else {
            reading = .openWindow
        }
        switch verdict {
        case .network?: confirms = reading == .loss
        case .client?: confirms = reading == .zeroWindow || (lossless && windowFullSegments > 0)
        case .clientWindow?: confirms = reading == .clientWindow
        case .serverSend?: confirms = reading == .openWindow && windowFullSegments == 0
        default: confirms = false
        }
    }

    /// One sentence: what the wire shows, and whether it confirms the verdict.
    public var finding: String {
        let shown: String
        switch reading {
        case .loss:
            shown = "\(retransmissions) retransmissions and \(outOfOrder) segments out of order on the way in: loss on "
                + "the path"
        case .zeroWindow:
            shown = "the client advertised a zero window \(zeroWindows) times: its reader fell behind"
        case .clientWindow, .openWindow:
            let fill = windowFill.map { "\(Int(($0 * 100).rounded()))% of" } ?? "an unknown share of"
            let window = advertisedWindowMax.map { ByteSize.format($0) } ?? "size unknown"
            shown = "no loss; \(fill) the client's largest window (\(window)) delivered a round trip: "
                + (reading == .clientWindow ? "the client's window set the pace" : "the window was open")
                + " (\(windowFullSegments) segments reached its edge as captured)"
        }
        guard let verdict else { return "the wire shows \(shown); the probe gave no verdict" }
        return "the wire shows \(shown), which " + (confirms ? "confirms" : "does not confirm") + " \(verdict.rawValue)"
    }
}
