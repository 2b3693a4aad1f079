internal import CPcap
internal import CPcapShim
import Foundation
import Synchronization
import WirelensCaptureModel
import WirelensConcurrency
import WirelensCore

/// A live libpcap capture on one interface, analysed as it arrives (and written to a pcap file if asked).
///
/// Immediate mode and a large kernel buffer keep the kernel from dropping packets; the read loop runs on
/// its own thread from `start` until `stop`, which drains what is buffered and returns the analysis. The
/// libpcap handle, the file writer and the analysis (a `Session`) belong to one thread at a time: the opening
/// one, the capture thread from `start`, the stopping one once the capture thread handed them back.
package final class LiveCapture: Sendable {
    /// The handle, the file writer and the analysis so far.
    private final class Session {
        let handle: OpaquePointer
        let dumper: OpaquePointer?
        var analysis: CaptureAnalyzer.Analysis
        /// libpcap's functions.
        let pcap: wl_pcap_api

        init(handle: OpaquePointer, pcap: wl_pcap_api, linkType: LinkType, dumper: OpaquePointer?, keyLog: KeyLog?) {
            self.handle = handle
            self.pcap = pcap
            analysis = CaptureAnalyzer.Analysis(linkType: linkType, keyLog: keyLog)
            self.dumper = dumper
        }

        deinit {
            if let dumper { pcap.dump_close(dumper) }
            pcap.close(handle)
        }

        /// Reads packets until `stop` is requested. The handle is non-blocking and the loop waits for its
        /// descriptor at most 100 ms at a time, so the request is seen within that (no other thread touches the
        /// handle, so nothing breaks the loop from outside).
        func run(until stop: StopRequest) {
            let context = Unmanaged.passUnretained(self).toOpaque().assumingMemoryBound(to: UInt8.self)
            var poller = pollfd(fd: pcap.get_selectable_fd(handle), events: Int16(POLLIN), revents: 0)
            while !stop.isRequested {
                _ = poll(&poller, 1, 100)
                let rc = pcap.dispatch(handle, -1, { user, header, bytes in
                    guard let user, let header, let bytes else { return }
                    let session = Unmanaged<Session>.fromOpaque(UnsafeRawPointer(user)).takeUnretainedValue()
                    if let dumper = session.dumper {
                        session.pcap.dump(UnsafeMutableRawPointer(dumper).assumingMemoryBound(to: UInt8.self), header, bytes)
                    }
                    session.analysis.add(CapturedPacket(header: header.pointee, data: bytes))
                }, context)
                if rc < 0 && rc != PCAP_ERROR_BREAK { break }
            }
        }
    }

    /// What the kernel reported at the end (pcap_stats).
    package struct KernelCounts: Sendable, Equatable {
        package var received: Int
        package var dropped: Int
        package var droppedByInterface: Int
    }

    package let interface: String
    package let filter: String
    package let linkType: LinkType
    package let snapshotLength: Int
    /// The session until `start` hands it to the capture thread (or `stop` takes it, when never started).
    private let opened: Parcel<Session>
    private let thread = Mutex<BackgroundThread<Session>?>(nil)
    private let stopRequest = StopRequest()

    /// Opens `interface` for capture with `filter`; writes the packets to `filePath` when given; decrypts TLS with
    /// the key log at `keyLogPath` (which the run's client writes as it goes: it is read on as it grows).
    ///
    /// - Throws: `CaptureError.cannotCapture` with libpcap's reason (permission denied included), or
    ///   `libpcapUnavailable` when libpcap cannot be loaded.
    package init(interface: String, filter: String, filePath: String? = nil, keyLogPath: String? = nil,
                bufferBytes: Int = 256 << 20,
                snapshotLength: Int = 262_144) throws(CaptureError) {
        self.interface = interface
        self.filter = filter
        self.snapshotLength = snapshotLength
        let pcap = try PcapFunctions.load()
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        guard let handle = pcap.create(interface, &errorBuffer) else {
            throw .cannotCapture(interface: interface, reason: PacketFile.text(errorBuffer))
        }
        pcap.set_snaplen(handle, Int32(snapshotLength))
        pcap.set_immediate_mode(handle, 1)
        pcap.set_buffer_size(handle, Int32(clamping: bufferBytes))
        pcap.set_timeout(handle, 100)
        pcap.set_tstamp_precision(handle, PCAP_TSTAMP_PRECISION_NANO)
        let activated = pcap.activate(handle)
        if activated < 0 {
            let reason = activated == PCAP_ERROR_PERM_DENIED
                ? "permission denied (capturing needs root or CAP_NET_RAW and CAP_NET_ADMIN)"
                : pcap.errorText(handle)
            pcap.close(handle)
            throw .cannotCapture(interface: interface, reason: reason)
        }
        let dlt = pcap.datalink(handle)
        guard let linkType = LinkType(dlt: dlt) else {
            pcap.close(handle)
            throw .unsupportedLinkType(path: interface, dlt: dlt, name: "DLT \(dlt)")
        }
        guard pcap.setnonblock(handle, 1, &errorBuffer) == 0, pcap.get_selectable_fd(handle) >= 0 else {
            pcap.close(handle)
            throw .cannotCapture(interface: interface, reason: "cannot wait for packets: \(PacketFile.text(errorBuffer))")
        }
        do {
            try PcapFilter.apply(filter, to: handle, pcap)
        } catch {
            pcap.close(handle)
            throw error
        }
        var dumper: OpaquePointer?
        if let filePath {
            guard let opened = pcap.dump_open(handle, filePath) else {
                let reason = pcap.errorText(handle)
                pcap.close(handle)
                throw .cannotCapture(interface: interface, reason: "cannot write '\(filePath)': \(reason)")
            }
            dumper = opened
        }
        self.linkType = linkType
        let keyLog = keyLogPath.flatMap { try? KeyLog(path: $0) }
        keyLog?.grows = true
        opened = Parcel(Session(handle: handle, pcap: pcap, linkType: linkType, dumper: dumper, keyLog: keyLog))
    }

    deinit {
        stopRequest.request()
        _ = thread.withLock { $0 }?.join()
    }

    /// Starts reading on a thread of its own (once).
    package func start() {
        guard let session = opened.take() else { return }
        let stop = stopRequest
        let started = BackgroundThread(name: "wirelens-capture", input: session) { session in
            session.run(until: stop)
            return session
        }
        thread.withLock { $0 = started }
    }

    /// Waits `drain` seconds for the last packets, stops the loop and returns the analysis and the kernel's counts;
    /// `interrupted` marks the analysis as cut short by a signal. Call once.
    package func stop(drain: TimeInterval = 0.2, file: String,
                     interrupted: Bool = false) -> (report: CaptureReport, kernel: KernelCounts) {
        Thread.sleep(forTimeInterval: drain)
        stopRequest.request()
        let running = thread.withLock { $0 }
        var report = CaptureReport(file: file, filter: filter, linkType: linkType, snapshotLength: snapshotLength)
        report.interrupted = interrupted
        let session: Session
        if let running, let joined = running.join() {
            session = joined
        } else if let unstarted = opened.take() {
            session = unstarted
        } else {
            return (report, KernelCounts(received: 0, dropped: 0, droppedByInterface: 0))  // stopped before
        }
        let handle = session.handle, pcap = session.pcap
        var stats = pcap_stat()
        var kernel = KernelCounts(received: 0, dropped: 0, droppedByInterface: 0)
        if pcap.stats(handle, &stats) == 0 {
            kernel = KernelCounts(received: Int(stats.ps_recv), dropped: Int(stats.ps_drop),
                                  droppedByInterface: Int(stats.ps_ifdrop))
        }
        if let dumper = session.dumper { pcap.dump_flush(dumper) }
        session.analysis.complete(into: &report)
        if kernel.dropped > 0 {
            report.caveats.append(.init(id: "kernel-drops", text: "the kernel dropped \(kernel.dropped) of "
                + "\(kernel.received) packets before the capture read them: the analysis shows them as capture gaps, "
                + "and a drop looks like loss"))
        }
        return (report, kernel)
    }
}
