import WirelensCaptureModel
import WirelensConcurrency
#if canImport(Glibc)
import Glibc
#endif

/// Reads a classic pcap file's records straight into packet batches: the file read with `pread` in large blocks
/// into a batch's own storage, its 16-byte record headers walked in place, without libpcap's two stdio reads and
/// copy per record.
///
/// Only for a regular file in the classic format (version 2.4, microsecond or nanosecond magic, either byte order)
/// read without a BPF filter; libpcap still opens and checks the file, and reads pcapng, pipes, filtered files and
/// live captures. A damaged record ends the reading with libpcap's own message for it.
struct ClassicPcapReader {
    /// The open file, read at explicit offsets (its stdio stream, libpcap's, is left alone).
    let descriptor: Int32
    /// True when the file was written in the other byte order.
    let swapped: Bool
    /// True for nanosecond timestamps, false for microseconds.
    let nanoseconds: Bool
    /// libpcap's snapshot length for the file: longer records are cut to it, their rest skipped.
    let snapshot: Int

    /// The longest record libpcap accepts for the link types Wirelens decodes (its `MAXIMUM_SNAPLEN`).
    static let maximumCaptured = 262_144
    /// Bytes of a file header and of a record header.
    static let fileHeaderBytes = 24
    static let recordHeaderBytes = 16
    /// Bytes read per `pread` call at most.
    static let readBlock = 1 << 18

    /// The reader for the file open on `descriptor`, when it is a regular file whose header is one this reader
    /// walks; nil otherwise (libpcap reads it).
    init?(descriptor: Int32, snapshot: Int) {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        var header = (UInt32(0), UInt16(0), UInt16(0))
        let read = withUnsafeMutableBytes(of: &header) { pread(descriptor, $0.baseAddress, 8, 0) }
        guard read == 8 else { return nil }
        switch header.0 {
        case 0xa1b2_c3d4: (swapped, nanoseconds) = (false, false)
        case 0xa1b2_3c4d: (swapped, nanoseconds) = (false, true)
        case 0xd4c3_b2a1: (swapped, nanoseconds) = (true, false)
        case 0x4d3c_b2a1: (swapped, nanoseconds) = (true, true)
        default: return nil
        }
        let (major, minor) = swapped ? (header.1.byteSwapped, header.2.byteSwapped) : (header.1, header.2)
        guard major == 2, minor == 4, snapshot > 0 else { return nil }
        self.descriptor = descriptor
        self.snapshot = snapshot
    }

    /// Fills batches of `batchBytes` for `linkType` and queues them on `full` (waiting while it is full), until
    /// the end of the file, a damaged record or `stop` (looked at between blocks read); the caller closes `full`.
    func read(path: String, linkType: LinkType, until stop: StopRequest?, into full: HandOffQueue<PacketBatch>,
              batchBytes: Int) -> PcapSource.Ending {
        /// The file offset of the first record not yet in a batch: a record cut by a batch's end is read again
        /// into the next one (from the page cache), so no bytes are carried between batches.
        var position = Int64(Self.fileHeaderBytes)
        var count = 0
        /// Bytes the next batch needs at least (a record longer than a batch).
        var needed = batchBytes
        while true {
            let batch = PacketBatch(capacity: needed, linkType: linkType)
            let filled = fill(batch, from: position, packetsBefore: count, path: path, until: stop)
            position += Int64(filled.consumed)
            count += batch.count
            needed = max(batchBytes, filled.needed)
            if !batch.isEmpty { full.put(batch) }
            if let ending = filled.ending { return ending }
        }
    }

    /// How far one batch's filling went.
    private struct Filling {
        /// Bytes of whole records taken from the file.
        var consumed = 0
        /// Bytes the next batch needs at least.
        var needed = 0
        /// Set when the reading ends with this batch.
        var ending: PcapSource.Ending?
    }

    /// Reads the file from `position` into `batch` and adds its whole records, until the batch is full (in bytes
    /// or records), the file ends, a record is damaged or `stop` is requested.
    private func fill(_ batch: PacketBatch, from position: Int64, packetsBefore: Int, path: String,
                      until stop: StopRequest?) -> Filling {
        var filling = Filling()
        var scan = 0  // where the next record header lies in the batch
        func fail(_ reason: String) -> Filling {
            filling.consumed = scan
            filling.ending = PcapSource.Ending(failure: .readFailed(path: path, packetsRead: packetsBefore
                                                                        + batch.count, reason: reason),
                                               stopped: false)
            return filling
        }
        while true {
            // Walk the whole records read so far.
            let walk = batch.appendClassicRecords(from: scan, swapped: swapped, nanoseconds: nanoseconds,
                                                  snapshot: snapshot, maximum: Self.maximumCaptured)
            scan = walk.scan
            let pending = walk.pending
            if let captured = walk.impossible {
                return fail(captured > snapshot
                    ? "invalid packet capture length \(captured), bigger than snaplen of \(snapshot)"
                    : "invalid packet capture length \(captured), bigger than maximum of \(Self.maximumCaptured)")
            }
            filling.consumed = scan
            if batch.count == PacketBatch.maxRecords { return filling }
            if let stop, stop.isRequested {
                filling.ending = PcapSource.Ending(failure: nil, stopped: true)
                return filling
            }
            if scan + pending > batch.capacity {  // the next record starts the next batch
                filling.needed = pending
                return filling
            }
            let got = batch.read(descriptor, at: position + Int64(batch.used),
                                 count: min(batch.capacity - batch.used, Self.readBlock))
            if got < 0 {
                if errno == EINTR { continue }
                return fail("error reading dump file: \(String(cString: strerror(errno)))")
            }
            if got == 0 {
                let left = batch.used - scan
                guard left > 0 else {
                    filling.ending = PcapSource.Ending(failure: nil, stopped: false)
                    return filling
                }
                return fail(truncation(left: left, captured: left >= Self.recordHeaderBytes
                                                             ? pending - Self.recordHeaderBytes : nil))
            }
        }
    }

    /// libpcap's message for a file that ends `left` bytes into a record, whose header says `captured` bytes
    /// follow it (nil when the header itself is cut).
    private func truncation(left: Int, captured: Int?) -> String {
        guard let captured else {
            return "truncated dump file; tried to read \(Self.recordHeaderBytes) header bytes, only got \(left)"
        }
        let got = left - Self.recordHeaderBytes
        // libpcap reads a record longer than the snapshot in two parts: the snapshot, then the rest it skips.
        if captured > snapshot, got < snapshot {
            return "truncated dump file; tried to read \(snapshot) captured bytes, only got \(got)"
        }
        return "truncated dump file; tried to read \(captured) captured bytes, only got \(got)"
    }
}
