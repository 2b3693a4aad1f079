import Foundation
@testable import WirelensCapture

/// A capture built frame by frame in a test: fed to the analysis as it grows, and written as a pcap file for tshark
/// and the `wirelens` executable to read the same bytes.
struct CraftedCapture {
    var builder = FrameBuilder()
    var analysis = CaptureAnalyzer.Analysis(linkType: .ethernet)
    private(set) var records: [(time: Int64, frame: [UInt8])] = []
    /// The time of the last frame (µs since the epoch).
    var clock: Int64 = 1_700_000_000_000_000

    /// A capture between `client` and `server` ports on 10.0.0.1 and 10.0.0.2.
    init(clientPort: UInt16 = 40000, serverPort: UInt16 = 80) {
        builder.source.port = clientPort
        builder.destination.port = serverPort
    }

    /// One segment `after` µs after the previous one; `fromServer` sends it from the server's side.
    mutating func send(seq: UInt32, ack: UInt32, flags: TCPFlags, payload: [UInt8] = [], fromServer: Bool = false,
                       after: Int64 = 100) {
        add(builder.frame(seq: seq, ack: ack, flags: flags, payload: payload, reverse: fromServer), after: after)
    }

    /// One frame `after` µs after the previous one, of which the capture holds the first `cut` bytes (all unless told).
    mutating func add(_ frame: [UInt8], after: Int64 = 100, cut: Int? = nil) {
        clock += after
        let kept = cut.map { Array(frame.prefix($0)) } ?? frame
        records.append((clock, kept))
        kept.withUnsafeBytes {
            analysis.add(CapturedPacket(timestampNanos: clock * 1000, originalLength: frame.count, bytes: $0))
        }
    }

    /// The analysis's report of what was sent so far.
    mutating func report() -> CaptureReport {
        var report = CaptureReport(file: "crafted", filter: nil, linkType: .ethernet, snapshotLength: 65535)
        analysis.complete(into: &report)
        return report
    }

    /// The frames as a classic pcap file (microsecond timestamps, Ethernet) at `path`.
    func write(to path: String) {
        let bytes = ShortConnections.pcapHeader
            + records.flatMap { ShortConnections.pcapRecord(time: $0.time, frame: $0.frame) }
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    }
}
