import CPcap
import WirelensCore
#if canImport(Glibc)
import Glibc
#endif

/// A .pcap or .pcapng file read through libpcap, packet by packet, with nanosecond timestamps.
///
/// Nothing is kept between packets: memory does not grow with the file.
public final class PacketFile {
    public let path: String
    /// The BPF filter libpcap applies, if any.
    public let filter: String?
    public let linkType: LinkType
    /// The file's snapshot length: packets longer than this were cut.
    public let snapshotLength: Int
    private let handle: OpaquePointer
    /// The stdio buffer of the file's stream (`readBuffer` bytes), freed after the stream is closed.
    private let streamBuffer: UnsafeMutablePointer<CChar>
    /// The stream libpcap reads, and whether it is a pipe, a FIFO or a device rather than a regular file: a read
    /// of one can wait for its writer indefinitely, so a stop is watched for while it has nothing buffered.
    private let stream: UnsafeMutablePointer<FILE>
    private let mayWait: Bool

    /// Opens `path`, optionally with a BPF filter applied by libpcap.
    public init(path: String, filter: String? = nil) throws(CaptureError) {
        self.path = path
        self.filter = filter
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        // The file is opened here so that its stream gets a large buffer: libpcap reads record by record, and
        // with stdio's default 4 KiB a gigabyte costs a quarter of a million read calls.
        guard let stream = fopen(path, "rb") else {
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        // glibc ignores the size when it is not given the buffer itself.
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Self.readBuffer)
        setvbuf(stream, buffer, _IOFBF, Self.readBuffer)
        guard let handle = pcap_fopen_offline_with_tstamp_precision(stream, UInt32(PCAP_TSTAMP_PRECISION_NANO),
                                                                    &errorBuffer) else {
            fclose(stream)  // libpcap closes the stream only once it has taken it
            buffer.deallocate()
            throw .cannotOpen(path: path, reason: Self.clean(Self.text(errorBuffer), path: path))
        }
        let dlt = pcap_datalink(handle)
        guard let linkType = LinkType(dlt: dlt) else {
            let name = pcap_datalink_val_to_name(dlt).map { String(cString: $0) } ?? "unknown"
            pcap_close(handle)
            buffer.deallocate()
            throw .unsupportedLinkType(path: path, dlt: dlt, name: name)
        }
        self.handle = handle
        streamBuffer = buffer
        self.stream = stream
        var status = stat()
        mayWait = fstat(fileno(stream), &status) != 0 || status.st_mode & S_IFMT != S_IFREG
        self.linkType = linkType
        snapshotLength = Int(pcap_snapshot(handle))
        // Every property is set from here on: a throw runs deinit, which closes the handle.
        if let filter { try PcapFilter.apply(filter, to: handle) }
    }

    /// The stdio buffer of the file's stream.
    static let readBuffer = 1 << 20

    deinit {
        pcap_close(handle)  // closes the stream, which no longer uses its buffer then
        streamBuffer.deallocate()
    }

    /// How a pass over the file ended.
    public struct Reading: Sendable, Equatable {
        /// Packets handed over.
        public var packets: Int
        /// True when a `StopRequest` ended the pass before the end of the file.
        public var stopped: Bool
    }

    /// Calls `body` for each packet (that passes the filter) in file order, with its decoding, until the end of
    /// the file or until `stop` is requested.
    ///
    /// The file is read ahead on a thread of its own, which copies packets out of libpcap in batches of
    /// `batchBytes` (at most `batchesInFlight` of them exist) and decodes them, so that reading and analysing
    /// use two cores. A stop ends the reading between two packets (or while a pipe's writer sends nothing): the
    /// packets already read (a few MiB at most) are still handed over, then the reading thread is joined.
    ///
    /// - Throws: `readFailed` when the file ends in the middle of a packet or holds a damaged record; the packets
    ///   before it have been handed over.
    @discardableResult
    public func forEachPacket(until stop: StopRequest? = nil,
                              _ body: (CapturedPacket, PacketDecoder.Outcome) -> Void) throws(CaptureError) -> Reading {
        let full = HandOffQueue<PacketBatch>(capacity: Self.batchesInFlight)
        let free = HandOffQueue<PacketBatch>(capacity: Self.batchesInFlight)
        for _ in 0..<Self.batchesInFlight { free.put(PacketBatch(capacity: Self.batchBytes, linkType: linkType)) }
        let reader = Reader(file: self, stop: stop)
        let thread = BackgroundThread(name: "wirelens-pcap-read") { reader.run(full: full, free: free) }
        var count = 0
        while let batch = full.take() {
            batch.forEach(body)
            count += batch.records.count
            batch.clear()
            free.put(batch)
        }
        free.close()
        thread.join()
        if let failure = reader.failure { throw failure }
        return Reading(packets: count, stopped: reader.stopped)
    }

    /// Bytes per read-ahead batch, and how many batches exist: memory stays at a few MiB.
    static let batchBytes = 1 << 20
    static let batchesInFlight = 4

    /// The reading side of `forEachPacket`, run on its own thread while the caller waits in `forEachPacket`.
    private final class Reader: @unchecked Sendable {
        let file: PacketFile
        let stop: StopRequest?
        /// Why reading stopped early; read after the thread is joined.
        private(set) var failure: CaptureError?
        /// True when the stop request ended the reading; read after the thread is joined.
        private(set) var stopped = false

        init(file: PacketFile, stop: StopRequest?) {
            self.file = file
            self.stop = stop
        }

        /// Fills batches from `free` and queues them on `full`, until the end of the file or a damaged record.
        func run(full: HandOffQueue<PacketBatch>, free: HandOffQueue<PacketBatch>) {
            defer { full.close() }
            guard var batch = free.take() else { return }
            var header: UnsafeMutablePointer<pcap_pkthdr>?
            var data: UnsafePointer<UInt8>?
            var count = 0
            while true {
                if let stop, stop.isRequested || (file.mayWait && !file.awaitInput(unless: stop)) {
                    stopped = true
                    break
                }
                let rc = pcap_next_ex(file.handle, &header, &data)
                if rc == 1, let header, let data {
                    let packet = CapturedPacket(header: header.pointee, data: data)
                    if !batch.fits(packet.bytes.count) {
                        full.put(batch)
                        guard let next = free.take() else { return }
                        batch = next
                    }
                    batch.append(packet)
                    count += 1
                } else if rc == 0 {
                    continue  // live captures only: a timeout
                } else {
                    if rc != PCAP_ERROR_BREAK {
                        failure = .readFailed(path: file.path, packetsRead: count,
                                              reason: String(cString: pcap_geterr(file.handle)))
                    }
                    break
                }
            }
            if !batch.records.isEmpty { full.put(batch) }
        }
    }

    /// Waits until the stream has bytes buffered or its descriptor is readable (or at its end); false when `stop`
    /// was requested meanwhile. Checked before each record, so a writer that stops between records (tcpdump -U
    /// writes whole ones) does not keep a stop waiting.
    private func awaitInput(unless stop: StopRequest) -> Bool {
        var poller = pollfd(fd: fileno(stream), events: Int16(POLLIN), revents: 0)
        while stream.pointee._IO_read_ptr == stream.pointee._IO_read_end {
            let ready = poll(&poller, 1, 100)
            if stop.isRequested { return false }
            if ready > 0 || (ready < 0 && errno != EINTR) { return true }
        }
        return true
    }

    /// The text libpcap left in an error buffer.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// libpcap's open errors often repeat the path; drop it so the line names the file once.
    private static func clean(_ reason: String, path: String) -> String {
        let prefix = path + ": "
        return reason.hasPrefix(prefix) ? String(reason.dropFirst(prefix.count)) : reason
    }
}
