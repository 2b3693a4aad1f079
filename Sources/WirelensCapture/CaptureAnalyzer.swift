import WirelensCore

/// Reads a capture file and builds its report: decoding, connection tracking and HTTP exchanges in one pass.
public enum CaptureAnalyzer {
    /// The report, and the read error that stopped it early (the report then covers the packets before it).
    public struct Outcome: Sendable {
        public var report: CaptureReport
        public var readError: CaptureError?
    }

    /// Analyses the file at `path`.
    ///
    /// - Throws: a `CaptureError` when the file cannot be opened, has an unsupported link type, or the filter is bad.
    public static func analyze(path: String, filter: String? = nil) throws(CaptureError) -> Outcome {
        let file = try PacketFile(path: path, filter: filter)
        var report = CaptureReport(file: path, filter: filter, linkType: file.linkType,
                                   snapshotLength: file.snapshotLength)
        var analysis = Analysis(linkType: file.linkType)
        var readError: CaptureError?
        do {
            try file.forEachPacket { analysis.add($0) }
        } catch {
            readError = error
            report.readError = error.description
        }
        analysis.complete(into: &report)
        return Outcome(report: report, readError: readError)
    }

    /// The running state of one pass over packets; usable on packets from any source (file or live).
    public struct Analysis {
        let linkType: LinkType
        private var tracker = ConnectionTracker()
        private var counts = PacketCounts()
        private var first: Int64?
        private var last: Int64?

        public init(linkType: LinkType) {
            self.linkType = linkType
        }

        /// Accounts for one captured packet.
        public mutating func add(_ packet: CapturedPacket) {
            let time = packet.timestampNanos / 1000
            counts.total += 1
            counts.wireBytes += Int64(packet.originalLength)
            if packet.bytes.count < packet.originalLength { counts.cutBySnapshot += 1 }
            if first == nil { first = time }
            last = max(last ?? time, time)
            switch PacketDecoder.decode(packet.bytes, linkType: linkType) {
            case .tcp(let segment):
                counts.tcp += 1
                tracker.handle(segment, time: time)
            case .notTCP:
                counts.other += 1
            case .truncated:
                counts.undecodable += 1
            }
        }

        /// Finishes every connection and fills the report's connections, summary and caveats.
        public mutating func complete(into report: inout CaptureReport) {
            var connections = tracker.finishAll()
            connections.sort { ($0.firstPacketAt, $0.client, $0.server) < ($1.firstPacketAt, $1.client, $1.server) }
            for i in connections.indices { connections[i].index = i }
            report.connections = connections
            report.packets = counts
            report.firstPacketAt = first
            report.lastPacketAt = last
            report.summary = CaptureSummary(of: connections)
            report.caveats = Self.caveats(report)
        }

        private static func caveats(_ report: CaptureReport) -> [Caveat] {
            var list: [Caveat] = []
            if report.packets.cutBySnapshot > 0 {
                list.append(Caveat(id: "snapshot-length", text: "\(report.packets.cutBySnapshot) packets were cut by "
                    + "the snapshot length (\(report.snapshotLength) bytes): TCP figures are complete, HTTP exchanges "
                    + "could only be read where the cut left the headers whole."))
            }
            if report.summary.captureGaps > 0 {
                list.append(Caveat(id: "capture-gaps", text: "the capture missed \(report.summary.captureGaps) "
                    + "stretches of data (\(report.summary.captureGapBytes) bytes) that the peers acknowledged: "
                    + "dropped by the capture, not lost on the network; they are not counted as retransmissions."))
            }
            let without = report.summary.connections - report.summary.connectionsWithHandshake
            if without > 0 {
                list.append(Caveat(id: "no-handshake", text: "\(without) connections began before the capture: "
                    + "no handshake time, and their client/server roles are guessed from the port numbers."))
            }
            if report.packets.undecodable > 0 {
                list.append(Caveat(id: "undecodable", text: "\(report.packets.undecodable) packets were cut before "
                    + "the end of their TCP header or had inconsistent lengths, and were skipped."))
            }
            if let error = report.readError {
                list.append(Caveat(id: "read-error", text: "reading stopped early: \(error)."))
            }
            return list
        }
    }
}
