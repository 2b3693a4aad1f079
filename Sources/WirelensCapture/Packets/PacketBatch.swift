import WirelensCaptureModel
#if canImport(Glibc)
import Glibc
#endif

/// Packets copied out of libpcap's buffer into one block and decoded, so that a reading thread can hand them
/// to the analysing thread many at a time (`PacketFile.forEachPacket`).
///
/// Not `Sendable`: a batch crosses threads as a `sending` value, owned by one thread at a time. It takes the
/// bytes of a packet as a `RawSpan`, which it cannot keep, so the compiler knows a filled batch holds no
/// reference to libpcap's buffer (only its own copy) and lets it go to the other thread.
final class PacketBatch {
    /// Where one packet lies in `storage`, with its record's fields and its decoding (whose payload points
    /// into `storage`).
    struct Record {
        var offset: Int
        var captured: Int
        var originalLength: Int
        var timestampNanos: Int64
        var decoded: PacketDecoder.Outcome
    }

    private(set) var storage: UnsafeMutableRawBufferPointer
    private(set) var used = 0
    /// The records: `count` of them, room for `recordCapacity`. A record holds no reference (its payload
    /// pointer is into `storage`), so it is written in place, its memory neither initialised nor torn down.
    private var records: UnsafeMutablePointer<Record>
    private var recordCapacity: Int
    /// Packets in the batch.
    private(set) var count = 0
    /// The link type packets are decoded as.
    let linkType: LinkType

    /// A batch of `capacity` bytes (a larger packet grows it) of packets of `linkType`.
    init(capacity: Int, linkType: LinkType) {
        self.linkType = linkType
        storage = .allocate(byteCount: max(capacity, 4096), alignment: 16)
        recordCapacity = max(min(capacity / 256, Self.maxRecords), 16)
        records = .allocate(capacity: recordCapacity)
        assert(_isPOD(Record.self), "records are written in place and freed without deinitialising them")
    }

    deinit {
        storage.deallocate()
        records.deallocate()
    }

    /// True when the batch holds no packet.
    var isEmpty: Bool { count == 0 }

    /// True when `count` more bytes and one more record fit, or the batch is empty (it then grows to take them).
    func fits(_ count: Int) -> Bool {
        isEmpty || (used + count <= storage.count && self.count < Self.maxRecords)
    }

    /// Makes room for `total` records at least.
    private func reserveRecords(_ total: Int) {
        guard total > recordCapacity else { return }
        recordCapacity = max(total, recordCapacity * 2)
        let larger = UnsafeMutablePointer<Record>.allocate(capacity: recordCapacity)
        larger.moveInitialize(from: records, count: count)
        records.deallocate()
        records = larger
    }

    /// Packets per batch at most: small packets would otherwise grow the records (120 bytes each, more
    /// than such a packet) of every batch in flight.
    static let maxRecords = 4096

    /// Copies one packet in and decodes it; the caller has checked `fits`.
    func append(_ packet: CapturedPacket) {
        append(timestampNanos: packet.timestampNanos, originalLength: packet.originalLength, bytes: packet.bytes.bytes)
    }

    /// Copies in a packet captured at `timestampNanos`, `originalLength` bytes long on the wire, whose captured
    /// `bytes` are still in their reader's buffer, and decodes it; the caller has checked `fits`.
    func append(timestampNanos: Int64, originalLength: Int, bytes packetBytes: RawSpan) {
        packetBytes.withUnsafeBytes { append(timestampNanos: timestampNanos, originalLength: originalLength, copying: $0) }
    }

    private func append(timestampNanos: Int64, originalLength: Int, copying bytes: UnsafeRawBufferPointer) {
        if used + bytes.count > storage.count {
            let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: used + bytes.count, alignment: 16)
            if used > 0 { larger.copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[..<used])) }
            storage.deallocate()
            storage = larger
        }
        if let base = bytes.baseAddress, !bytes.isEmpty {
            (storage.baseAddress! + used).copyMemory(from: base, byteCount: bytes.count)
        }
        // The storage does not move from here on (it grows only while empty): the payload pointer stays valid.
        let stored = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(storage)[used..<(used + bytes.count)])
        reserveRecords(count + 1)
        Self.write(records + count, offset: used, captured: bytes.count, originalLength: originalLength,
                   timestampNanos: timestampNanos, linkType: linkType, frame: stored)
        count += 1
        used += bytes.count
    }

    /// Writes the record of the packet whose captured bytes are `frame` (at `offset` in the storage) into the
    /// uninitialised `record`, field by field, the decoder storing its outcome there itself: a `Record` is
    /// trivial (no references), so assigning its fields initialises it.
    @inline(__always)
    private static func write(_ record: UnsafeMutablePointer<Record>, offset: Int, captured: Int, originalLength: Int,
                              timestampNanos: Int64, linkType: LinkType, frame: UnsafeRawBufferPointer) {
        record.pointee.offset = offset
        record.pointee.captured = captured
        record.pointee.originalLength = originalLength
        record.pointee.timestampNanos = timestampNanos
        PacketDecoder.decode(frame, linkType: linkType, into: &record.pointee.decoded)
    }

    /// Bytes the storage holds.
    var capacity: Int { storage.count }

    /// Reads up to `count` bytes of the file open on `descriptor`, from `offset`, into the storage after the bytes
    /// it holds (`ClassicPcapReader`); returns `pread`'s result.
    func read(_ descriptor: Int32, at offset: Int64, count: Int) -> Int {
        let got = pread(descriptor, storage.baseAddress! + used, min(count, storage.count - used), off_t(offset))
        if got > 0 { used += got }
        return got
    }

    /// Where a walk of classic pcap records stopped (`appendClassicRecords`).
    struct Walk {
        /// Where the first record not added starts.
        var scan: Int
        /// Bytes that record takes (its header's 16 when the header itself is not all there yet).
        var pending: Int
        /// Its captured length when that is more than the walk accepts (a damaged record).
        var impossible: Int?
    }

    /// Adds the whole classic pcap records that a file read left in the storage from `start` on (while the batch
    /// takes more records), each decoded in place: their headers in the other byte order when `swapped`, their
    /// fractions in nanoseconds or microseconds, their bytes cut to `snapshot`, none longer than `maximum`.
    func appendClassicRecords(from start: Int, swapped: Bool, nanoseconds: Bool, snapshot: Int,
                              maximum: Int) -> Walk {
        // Each record takes 16 bytes at least: room for as many as the bytes left can hold is made first, and the
        // records are written in place through locals (no access check or capacity check per record). Offsets
        // stay within the storage, so their sums cannot overflow.
        let end = used
        reserveRecords(min(count + max(0, end - start) / 16, Self.maxRecords))
        let base = UnsafeRawPointer(storage.baseAddress!)
        let list = records, linkType = linkType
        var added = count
        defer { count = added }
        var walk = Walk(scan: start, pending: 16)
        while added < Self.maxRecords, end &- walk.scan >= 16 {
            let header = base + walk.scan
            var fields = (header.loadUnaligned(as: UInt32.self), header.loadUnaligned(fromByteOffset: 4, as: UInt32.self),
                          header.loadUnaligned(fromByteOffset: 8, as: UInt32.self),
                          header.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
            if swapped { fields = (fields.0.byteSwapped, fields.1.byteSwapped, fields.2.byteSwapped, fields.3.byteSwapped) }
            let captured = Int(fields.2)
            guard captured <= maximum else {
                walk.impossible = captured
                return walk
            }
            walk.pending = 16 &+ captured
            guard end &- walk.scan >= walk.pending else { return walk }
            let fraction = Int64(Int32(bitPattern: fields.1))
            let offset = walk.scan &+ 16, kept = min(captured, snapshot)
            Self.write(list + added, offset: offset, captured: kept, originalLength: Int(fields.3),
                       timestampNanos: Int64(Int32(bitPattern: fields.0)) * 1_000_000_000
                           + (nanoseconds ? fraction : fraction * 1000),
                       linkType: linkType, frame: UnsafeRawBufferPointer(start: base + offset, count: kept))
            added += 1
            walk.scan &+= walk.pending
            walk.pending = 16
        }
        return walk
    }

    /// Calls `body` for each packet in the batch, in order, with its decoding.
    func forEach(_ body: (CapturedPacket, PacketDecoder.Outcome) -> Void) {
        let base = UnsafeRawPointer(storage.baseAddress!)
        for record in UnsafeBufferPointer(start: records, count: count) {
            body(CapturedPacket(timestampNanos: record.timestampNanos, originalLength: record.originalLength,
                                bytes: UnsafeRawBufferPointer(start: base + record.offset, count: record.captured)),
                 record.decoded)
        }
    }

    /// Empties the batch for reuse.
    func clear() {
        used = 0
        count = 0
    }
}
