import WirelensCore

/// What the HTTP/2 frames show of an upload's flow control, and whether they confirm an `h2-window` verdict.
///
/// Read from the frames of the upload's connection (h2c, or TLS decrypted with the run's key log): the server's
/// SETTINGS_INITIAL_WINDOW_SIZE (the window the upload's stream started with; 65 535 when its SETTINGS did not set
/// it) and the credit its WINDOW_UPDATE frames granted the stream and the connection. A sender held by that window
/// moves at most about a window a round trip (the handshake's), and, granted half a window again at a time, at least
/// `minimumFill` of it: an `h2-window` verdict is confirmed when the body's rate on the wire (its first to last
/// request byte) lies within `minimumFill`...`maximumFill` of the window over the round trip. No other verdict is
/// judged here.
public struct H2WindowWireCheck: Sendable, Equatable {
    /// HTTP/2's initial window (RFC 9113, 6.9.2), for the stream when SETTINGS do not change it, and for the connection.
    public static let defaultWindow: Int64 = 65_535
    /// The body's rate within these shares of window / round trip is a window-bound sender.
    public static let minimumFill = 0.4
    public static let maximumFill = 1.25

    /// The probe's verdict for the upload (nil when it gave none).
    public var verdict: Verdict?
    /// The server's SETTINGS_INITIAL_WINDOW_SIZE as sent, nil when its SETTINGS did not set it (or were not seen).
    public var initialWindowSize: Int64?
    /// The credit the server's WINDOW_UPDATE frames granted the upload's stream and the whole connection.
    public var streamCredit: Int64
    public var connectionCredit: Int64
    /// The handshake's round trip (µs), the body's rate on the wire, and that rate over window / round trip; nil
    /// when the handshake or the body's span was not captured.
    public var roundTrip: Int64?
    public var bodyRate: Double?
    public var windowFill: Double?
    /// True when the body moved at the window over the round trip (`windowFill` within `minimumFill`...
    /// `maximumFill`): the frames alone show the window held it.
    public var windowBound: Bool
    /// True when the verdict is `h2-window` and the frames show the window held the body.
    public var confirms: Bool

    /// The check of an upload the probe called `verdict`: `bytes` of body sent over `span` µs on the wire, the
    /// server's `initialWindowSize` and credits, `roundTrip` the handshake's (µs).
    public init(verdict: Verdict?, initialWindowSize: Int64?, streamCredit: Int64, connectionCredit: Int64,
                bytes: Int64, span: Int64?, roundTrip: Int64?) {
        self.verdict = verdict
        self.initialWindowSize = initialWindowSize
        self.streamCredit = streamCredit
        self.connectionCredit = connectionCredit
        self.roundTrip = roundTrip.flatMap { $0 > 0 ? $0 : nil }
        if let span, span > 0, bytes > 0 { bodyRate = Double(bytes) * 1e6 / Double(span) }
        let window = initialWindowSize ?? Self.defaultWindow
        if let rate = bodyRate, let rtt = self.roundTrip, window > 0 {
            windowFill = rate / (Double(window) * 1e6 / Double(rtt))
        }
        windowBound = windowFill.map { (Self.minimumFill...Self.maximumFill).contains($0) } ?? false
        confirms = verdict == .h2Window && windowBound
    }

    /// One sentence: the window, the credit, and whether they confirm `h2-window`.
    public var finding: String {
        let window = ByteSize.format(initialWindowSize ?? Self.defaultWindow)
            + (initialWindowSize == nil ? " (the default)" : "")
        let fill = windowFill.map { "the body moved at \(Int(($0 * 100).rounded()))% of it a round trip: the window "
            + (windowBound ? "held it" : "did not hold it") } ?? "the body's pace against it unknown"
        let credit = "\(ByteSize.format(streamCredit)) granted the stream, \(ByteSize.format(connectionCredit)) the "
            + "connection"
        let said: String
        switch verdict {
        case nil: said = "; the probe gave no verdict"
        case .h2Window?: said = confirms ? ", which confirms h2-window" : ", which does not confirm h2-window"
        case let other?: said = "; the verdict is \(other.rawValue), not h2-window"
        }
        return "the server's frames give each stream a \(window) window, \(credit); \(fill)\(said)"
    }
}
