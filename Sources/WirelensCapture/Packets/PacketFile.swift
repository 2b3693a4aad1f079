import WirelensCaptureModel
import WirelensConcurrency
import WirelensCore

/// A .pcap or .pcapng file read through libpcap, packet by packet, with nanosecond timestamps.
///
/// Nothing is kept between packets: memory does not grow with the file. The file is read once: its libpcap
/// handle goes to the reading thread of `forEachPacket`, which closes it at the end.
package final class PacketFile {
    package let path: String
    /// The BPF filter libpcap applies, if any.
    package let filter: String?
    package let linkType: LinkType
    /// The file's snapshot length: packets longer than this were cut.
    package let snapshotLength: Int
    /// The opened file, until a reading thread takes it.
    private let source: Parcel<PcapSource>

    /// Opens `path`, optionally with a BPF filter applied by libpcap.
    package init(path: String, filter: String? = nil) throws(CaptureError) {
        self.path = path
        self.filter = filter
        let source = try PcapSource(path: path, filter: filter)
        linkType = source.linkType
        snapshotLength = source.snapshotLength
        self.source = Parcel(source)
    }

    /// How a pass over the file ended.
    package struct Reading: Sendable, Equatable {
        /// Packets handed over.
        package var packets: Int
        /// True when a `StopRequest` ended the pass before the end of the file.
        package var stopped: Bool
    }

    /// Calls `body` for each packet (that passes the filter) in file order, with its decoding, until the end of
    /// the file or until `stop` is requested. A second call hands over nothing: the file was read.
    ///
    /// The file is read ahead on a thread of its own, which owns the libpcap handle, copies packets out of
    /// libpcap in batches of `batchBytes` (at most `batchesInFlight` of them wait) and decodes them, so that
    /// reading and analysing use two cores; a batch is handed over whole (`sending`) and freed once analysed. A stop ends the reading between two packets (or while a pipe's writer sends nothing): the packets
    /// already read (a few MiB at most) are still handed over, then the reading thread is joined.
    ///
    /// - Throws: `readFailed` when the file ends in the middle of a packet or holds a damaged record; the packets
    ///   before it have been handed over.
    @discardableResult
    package func forEachPacket(until stop: StopRequest? = nil,
                              _ body: (CapturedPacket, PacketDecoder.Outcome) -> Void) throws(CaptureError) -> Reading {
        guard let source = source.take() else { return Reading(packets: 0, stopped: false) }
        let full = HandOffQueue<PacketBatch>(capacity: Self.batchesInFlight)
        let thread = BackgroundThread(name: "wirelens-pcap-read", input: source) { source in
            source.read(until: stop, into: full, batchBytes: Self.batchBytes)
        }
        var count = 0
        while let batch = full.take() {
            batch.forEach(body)
            count += batch.count
        }
        let ending = thread.join() ?? PcapSource.Ending(failure: nil, stopped: false)
        if let failure = ending.failure { throw failure }
        return Reading(packets: count, stopped: ending.stopped)
    }

    /// Bytes per read-ahead batch, and how many wait at most: memory stays at a few MiB.
    static let batchBytes = 1 << 20
    static let batchesInFlight = 4

    /// The text libpcap left in an error buffer.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
