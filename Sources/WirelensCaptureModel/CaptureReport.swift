import WirelensCore

/// The analysis of one capture file: its connections with their HTTP exchanges, and a summary.
public struct CaptureReport: Sendable, Equatable {
    public static let schemaID = "wirelens.capture/1"

    public var schema = CaptureReport.schemaID
    /// The wirelens version that wrote the report.
    public var toolVersion = WirelensVersion.current
    public var file: String
    public var filter: String?
    public var linkType: LinkType
    public var snapshotLength: Int
    /// First and last packet (µs since the epoch); nil for an empty capture.
    public var firstPacketAt: Int64?
    public var lastPacketAt: Int64?
    public var packets = PacketCounts()
    /// Why reading stopped before the end of the file (a cut or damaged file); nil when it was read whole.
    public var readError: String?
    /// True when a signal (SIGINT, SIGTERM) stopped the analysis early; it then covers the packets read until then.
    public var interrupted = false
    /// What the analysis could not see, for the whole capture.
    public var caveats: [Caveat] = []
    public var summary = CaptureSummary()
    /// The check of a probe report against this capture (`--probe`); nil without one.
    public var verification: ProbeVerification?
    public var connections: [TCPConnection] = []

    public init(file: String, filter: String?, linkType: LinkType, snapshotLength: Int) {
        self.file = file
        self.filter = filter
        self.linkType = linkType
        self.snapshotLength = snapshotLength
    }
}
