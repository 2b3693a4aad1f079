internal import CPcap
internal import CPcapShim
import WirelensCaptureModel
import WirelensConcurrency
import WirelensCore
#if canImport(Glibc)
import Glibc
#endif

/// An opened capture file's libpcap handle and stdio stream: owned by one thread at a time (the opening one,
/// then the reading thread of `PacketFile.forEachPacket`), closed when released.
final class PcapSource {
    let path: String
    let linkType: LinkType
    let snapshotLength: Int
    private let handle: OpaquePointer
    /// libpcap's functions (loaded on the first capture opened).
    private let pcap: wl_pcap_api
    /// The stdio buffer of the file's stream (`readBuffer` bytes), freed after the stream is closed.
    private let streamBuffer: UnsafeMutablePointer<CChar>
    /// The stream libpcap reads, and whether it is a pipe, a FIFO or a device rather than a regular file: a read
    /// of one can wait for its writer indefinitely, so a stop is watched for while it has nothing buffered.
    private let stream: UnsafeMutablePointer<FILE>
    private let mayWait: Bool
    /// The reader that walks the file's records itself when it is a regular classic pcap file read unfiltered.
    private let classic: ClassicPcapReader?

    /// Opens `path`, optionally with a BPF filter applied by libpcap.
    init(path: String, filter: String?) throws(CaptureError) {
        self.path = path
        let pcap = try PcapFunctions.load()
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        // The file is opened here so that its stream gets a large buffer: libpcap reads record by record, and
        // with stdio's default 4 KiB a gigabyte costs a quarter of a million read calls.
        guard let stream = fopen(path, "rb") else {
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        // glibc ignores the size when it is not given the buffer itself.
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Self.readBuffer)
        setvbuf(stream, buffer, _IOFBF, Self.readBuffer)
        guard let handle = pcap.fopen_offline_with_tstamp_precision(stream, UInt32(PCAP_TSTAMP_PRECISION_NANO),
                                                                    &errorBuffer) else {
            fclose(stream)  // libpcap closes the stream only once it has taken it
            buffer.deallocate()
            throw .cannotOpen(path: path, reason: Self.clean(PacketFile.text(errorBuffer), path: path))
        }
        let dlt = pcap.datalink(handle)
        guard let linkType = LinkType(dlt: dlt) else {
            let name = pcap.datalink_val_to_name(dlt).map { String(cString: $0) } ?? "unknown"
            pcap.close(handle)
            buffer.deallocate()
            throw .unsupportedLinkType(path: path, dlt: dlt, name: name)
        }
        self.handle = handle
        self.pcap = pcap
        streamBuffer = buffer
        self.stream = stream
        var status = stat()
        mayWait = fstat(fileno(stream), &status) != 0 || status.st_mode & S_IFMT != S_IFREG
        self.linkType = linkType
        snapshotLength = Int(pcap.snapshot(handle))
        classic = filter == nil ? ClassicPcapReader(descriptor: fileno(stream), snapshot: snapshotLength) : nil
        // Every property is set from here on: a throw runs deinit, which closes the handle.
        if let filter { try PcapFilter.apply(filter, to: handle, pcap) }
    }

    /// The stdio buffer of the file's stream.
    static let readBuffer = 1 << 20

    deinit {
        pcap.close(handle)  // closes the stream, which no longer uses its buffer then
        streamBuffer.deallocate()
    }

    /// How a reading ended: the damage that stopped it, or a stop request.
    struct Ending: Sendable {
        var failure: CaptureError?
        var stopped: Bool
    }

    /// Fills batches of `batchBytes` and queues them on `full` (waiting while it is full), until the end of the
    /// file, a damaged record or `stop`; closes `full` at the end.
    func read(until stop: StopRequest?, into full: HandOffQueue<PacketBatch>, batchBytes: Int) -> Ending {
        defer { full.close() }
        if let classic {
            return classic.read(path: path, linkType: linkType, until: stop, into: full, batchBytes: batchBytes)
        }
        var ending = Ending(failure: nil, stopped: false)
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        var count = 0
        /// A packet read that did not fit the last batch: the next one starts with it.
        var carried: CapturedPacket?
        while true {
            let batch = PacketBatch(capacity: batchBytes, linkType: linkType)
            if let packet = carried {
                batch.append(timestampNanos: packet.timestampNanos, originalLength: packet.originalLength,
                             bytes: packet.bytes.bytes)
                count += 1
                carried = nil
            }
            var ended = false
            while true {
                if let stop, stop.isRequested || (mayWait && !awaitInput(unless: stop)) {
                    ending.stopped = true
                    ended = true
                    break
                }
                let rc = pcap.next_ex(handle, &header, &data)
                if rc == 1, let header, let data {
                    let packet = CapturedPacket(header: header.pointee, data: data)
                    guard batch.fits(packet.bytes.count) else {
                        carried = packet  // still in libpcap's buffer: nothing is read before it is copied
                        break
                    }
                    batch.append(timestampNanos: packet.timestampNanos, originalLength: packet.originalLength,
                                 bytes: packet.bytes.bytes)
                    count += 1
                } else if rc == 0 {
                    continue  // live captures only: a timeout
                } else {
                    if rc != PCAP_ERROR_BREAK {
                        ending.failure = .readFailed(path: path, packetsRead: count,
                                                     reason: pcap.errorText(handle))
                    }
                    ended = true
                    break
                }
            }
            if !batch.isEmpty { full.put(batch) }
            if ended { return ending }
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

    /// libpcap's open errors often repeat the path; drop it so the line names the file once.
    private static func clean(_ reason: String, path: String) -> String {
        let prefix = path + ": "
        return reason.hasPrefix(prefix) ? String(reason.dropFirst(prefix.count)) : reason
    }
}
