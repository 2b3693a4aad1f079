import Foundation
import XCTest
@testable import WirelensCapture

/// Connection tracking over hand-built packet sequences: lifetimes, handshakes, loss, reordering and windows.
final class ConnectionTrackingTests: XCTestCase {
    private var capture = CraftedCapture()
    private var builder: FrameBuilder {
        get { capture.builder }
        set { capture.builder = newValue }
    }
    private var clock: Int64 {
        get { capture.clock }
        set { capture.clock = newValue }
    }

    override func setUp() {
        capture = CraftedCapture()
    }

    /// Feeds one frame `after` µs after the previous one.
    private func send(_ frame: [UInt8], after: Int64 = 100, cut: Int? = nil) {
        capture.add(frame, after: after, cut: cut)
    }

    private func report() -> CaptureReport {
        capture.report()
    }

    /// SYN, SYN/ACK, ACK with the given ISNs; returns the next sequence numbers (client, server).
    private func handshake(client isnC: UInt32 = 1000, server isnS: UInt32 = 5000, scale: UInt8? = nil) -> (UInt32, UInt32) {
        send(builder.frame(seq: isnC, flags: .syn, windowScale: scale))
        send(builder.frame(seq: isnS, ack: isnC &+ 1, flags: [.syn, .ack], windowScale: scale, reverse: true), after: 40)
        send(builder.frame(seq: isnC &+ 1, ack: isnS &+ 1, flags: .ack), after: 30)
        return (isnC &+ 1, isnS &+ 1)
    }

    /// One request and its response on an established connection; returns the advanced sequence numbers.
    private func exchange(_ c: UInt32, _ s: UInt32, path: String = "/", body: String = "hi") -> (UInt32, UInt32) {
        let request = Array("GET \(path) HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8)
        send(builder.frame(seq: c, ack: s, flags: [.ack, .psh], payload: request))
        send(builder.frame(seq: s, ack: c &+ UInt32(request.count), flags: [.ack, .psh], payload: response, reverse: true))
        let c2 = c &+ UInt32(request.count), s2 = s &+ UInt32(response.count)
        send(builder.frame(seq: c2, ack: s2, flags: .ack))
        return (c2, s2)
    }

    private func close(_ c: UInt32, _ s: UInt32, clientFirst: Bool = true) {
        if clientFirst {
            send(builder.frame(seq: c, ack: s, flags: [.fin, .ack]))
            send(builder.frame(seq: s, ack: c &+ 1, flags: [.fin, .ack], reverse: true))
            send(builder.frame(seq: c &+ 1, ack: s &+ 1, flags: .ack))
        } else {
            send(builder.frame(seq: s, ack: c, flags: [.fin, .ack], reverse: true))
            send(builder.frame(seq: c, ack: s &+ 1, flags: [.fin, .ack]))
            send(builder.frame(seq: s &+ 1, ack: c &+ 1, flags: .ack, reverse: true))
        }
    }

    func testAKeepAliveConnectionFromSYNToClose() throws {
        var (c, s) = handshake()
        for i in 0..<3 { (c, s) = exchange(c, s, path: "/\(i)") }
        close(c, s, clientFirst: false)
        let r = report()
        let conn = try XCTUnwrap(r.connections.first)
        XCTAssertEqual(r.connections.count, 1)
        XCTAssertEqual(conn.client, builder.source)
        XCTAssertEqual(conn.server, builder.destination)
        XCTAssertEqual(conn.clientISN, 1000)
        XCTAssertEqual(conn.serverISN, 5000)
        XCTAssertEqual(conn.handshakeTime, 70)
        XCTAssertEqual(conn.end, .closed)
        XCTAssertEqual(conn.closedBy, .server)
        XCTAssertEqual(conn.exchanges.map(\.target), ["/0", "/1", "/2"])
        XCTAssertEqual(conn.clientToServer.bytes, 3 * Int64("GET /0 HTTP/1.1\r\nHost: h\r\n\r\n".utf8.count))
        XCTAssertEqual(conn.clientToServer.packets, 2 + 3 * 2 + 1)
        XCTAssertEqual(conn.serverToClient.packets, 1 + 3 + 2)
        XCTAssertEqual(conn.clientToServer.retransmissions + conn.serverToClient.retransmissions, 0)
        XCTAssertEqual(r.summary.maxExchangesPerConnection, 3)
        XCTAssertNil(conn.notes.first)
    }

    func testAReused4TupleGivesOneConnectionPerHandshake() {
        for round in 0..<3 {
            let (c, s) = handshake(client: UInt32(round) * 7_000_000 + 9, server: UInt32(round) * 3_000_000 + 1)
            let (c2, s2) = exchange(c, s)
            close(c2, s2)
        }
        let r = report()
        XCTAssertEqual(r.connections.count, 3)
        XCTAssertTrue(r.connections.allSatisfy { $0.end == .closed && $0.exchanges.count == 1 && $0.handshakeSeen })
        XCTAssertEqual(r.connections.map(\.clientISN), [9, 7_000_009, 14_000_009])
        XCTAssertEqual(r.summary.maxConcurrentConnections, 1)
    }

    /// The report's first packet time is the first packet's, even when a later one is stamped earlier; its last is
    /// the latest stamp; an analysis without packets has neither.
    func testFirstAndLastPacketTimesFollowTheStampsAsCaptured() {
        let start = clock
        send(builder.frame(seq: 1, flags: .syn), after: 500)
        send(builder.frame(seq: 9, ack: 2, flags: [.syn, .ack], reverse: true), after: -300)  // stamped earlier
        send(builder.frame(seq: 2, ack: 10, flags: .ack), after: 1_000)
        send(builder.frame(seq: 2, ack: 10, flags: .ack), after: -100)
        let r = report()
        XCTAssertEqual(r.packets.total, 4)
        XCTAssertEqual(r.firstPacketAt, start + 500)
        XCTAssertEqual(r.lastPacketAt, start + 1_200)

        var empty = CaptureReport(file: "none", filter: nil, linkType: .ethernet, snapshotLength: 65535)
        var analysis = CaptureAnalyzer.Analysis(linkType: .ethernet)
        analysis.complete(into: &empty)
        XCTAssertEqual(empty.packets.total, 0)
        XCTAssertNil(empty.firstPacketAt)
        XCTAssertNil(empty.lastPacketAt)
    }

    func testARepeatedSYNIsARetransmissionNotANewConnection() {
        send(builder.frame(seq: 1000, flags: .syn))
        send(builder.frame(seq: 1000, flags: .syn), after: 1_000_000)
        send(builder.frame(seq: 5000, ack: 1001, flags: [.syn, .ack], reverse: true))
        send(builder.frame(seq: 1001, ack: 5001, flags: .ack))
        let r = report()
        XCTAssertEqual(r.connections.count, 1)
        XCTAssertEqual(r.connections.first?.clientToServer.retransmissions, 1)
        XCTAssertEqual(r.connections.first?.handshakeTime, 1_000_200)
        XCTAssertEqual(r.connections.first?.idleGapCount, 1)
    }

    func testRetransmissionOutOfOrderAndCaptureGapAreToldApart() throws {
        let (c, s) = handshake()
        let a = [UInt8](repeating: 65, count: 100)
        // In order, then the same segment again: a retransmission.
        send(builder.frame(seq: c, ack: s, flags: .ack, payload: a))
        send(builder.frame(seq: c, ack: s, flags: .ack, payload: a), after: 50_000)
        // 200..300 arrives before 100..200, within the reordering window: out of order.
        send(builder.frame(seq: c + 200, ack: s, flags: .ack, payload: a))
        send(builder.frame(seq: c + 100, ack: s, flags: .ack, payload: a), after: 500)
        // 400..500 arrives, 300..400 never does, and the server acknowledges 500: a capture gap.
        send(builder.frame(seq: c + 400, ack: s, flags: .ack, payload: a))
        send(builder.frame(seq: s, ack: c + 500, flags: .ack, reverse: true))
        let conn = try XCTUnwrap(report().connections.first)
        XCTAssertEqual(conn.clientToServer.retransmissions, 1)
        XCTAssertEqual(conn.clientToServer.outOfOrder, 1)
        XCTAssertEqual(conn.clientToServer.captureGaps, 1)
        XCTAssertEqual(conn.clientToServer.captureGapBytes, 100)
        XCTAssertEqual(conn.clientToServer.bytes, 500)
        XCTAssertEqual(conn.clientToServer.wireBytes, 500)
    }

    /// A capture at the receiver (handshake round trip 70 µs): a hole its duplicate ACK asked for, filled 1 ms later,
    /// was resent (a retransmission, although within 3 ms); a hole filled 30 µs after its duplicate ACK, well within
    /// one round trip of the data beyond it, came late (out of order).
    func testAHoleFilledAfterTheReceiversDuplicateACKIsARetransmissionUnlessWithinARoundTrip() throws {
        let (c, s) = handshake()
        let a = [UInt8](repeating: 65, count: 100)
        send(builder.frame(seq: c, ack: s, flags: .ack, payload: a))
        send(builder.frame(seq: s, ack: c + 100, flags: .ack, reverse: true), after: 10)
        // 100..200 is lost: 200..300 arrives, the receiver asks again for 100, the resend comes 1 ms later.
        send(builder.frame(seq: c + 200, ack: s, flags: .ack, payload: a))
        send(builder.frame(seq: s, ack: c + 100, flags: .ack, reverse: true), after: 10)
        send(builder.frame(seq: c + 100, ack: s, flags: .ack, payload: a), after: 1_000)
        send(builder.frame(seq: s, ack: c + 300, flags: .ack, reverse: true), after: 10)
        // 300..400 is late: 400..500 arrives, the receiver asks for 300, and 300..400 follows 30 µs later.
        send(builder.frame(seq: c + 400, ack: s, flags: .ack, payload: a))
        send(builder.frame(seq: s, ack: c + 300, flags: .ack, reverse: true), after: 10)
        send(builder.frame(seq: c + 300, ack: s, flags: .ack, payload: a), after: 20)
        let conn = try XCTUnwrap(report().connections.first)
        XCTAssertEqual(conn.handshakeTime, 70)
        XCTAssertEqual(conn.clientToServer.retransmissions, 1)
        XCTAssertEqual(conn.clientToServer.outOfOrder, 1)
        XCTAssertEqual(conn.clientToServer.captureGaps, 0)
        XCTAssertEqual(conn.clientToServer.bytes, 500)
    }

    /// A capture at the receiver whose handshake took 5 ms (the client's stack slow to send its ACK) on a path of
    /// 100 µs: a hole the receiver asked for with three duplicate ACKs, filled 1 ms after the data beyond it, was
    /// resent (a fast retransmission, as tshark says), although within the handshake's round trip; a lone
    /// duplicate ACK followed 30 µs later by the missing segment still reads as reordering.
    func testAHoleAskedForByRepeatedDuplicateACKsIsARetransmissionWhateverTheHandshakeTook() throws {
        send(builder.frame(seq: 1000, flags: .syn))
        send(builder.frame(seq: 5000, ack: 1001, flags: [.syn, .ack], reverse: true), after: 50)
        send(builder.frame(seq: 1001, ack: 5001, flags: .ack), after: 5_000)
        let (c, s): (UInt32, UInt32) = (1001, 5001)
        let a = [UInt8](repeating: 65, count: 100)
        send(builder.frame(seq: c, ack: s, flags: .ack, payload: a))
        send(builder.frame(seq: s, ack: c + 100, flags: .ack, reverse: true), after: 10)
        // 100..200 is lost: 200..300, 300..400 and 400..500 arrive, each answered by a duplicate ACK for 100.
        for k: UInt32 in 2...4 {
            send(builder.frame(seq: c + 100 * k, ack: s, flags: .ack, payload: a), after: 20)
            send(builder.frame(seq: s, ack: c + 100, flags: .ack, reverse: true), after: 10)
        }
        send(builder.frame(seq: c + 100, ack: s, flags: .ack, payload: a), after: 1_000)
        send(builder.frame(seq: s, ack: c + 500, flags: .ack, reverse: true), after: 10)
        // 500..600 is late: 600..700 arrives, one duplicate ACK for 500, and 500..600 follows 30 µs later.
        send(builder.frame(seq: c + 600, ack: s, flags: .ack, payload: a))
        send(builder.frame(seq: s, ack: c + 500, flags: .ack, reverse: true), after: 10)
        send(builder.frame(seq: c + 500, ack: s, flags: .ack, payload: a), after: 20)
        let conn = try XCTUnwrap(report().connections.first)
        XCTAssertEqual(conn.handshakeTime, 5_050)
        XCTAssertEqual(conn.clientToServer.retransmissions, 1)
        XCTAssertEqual(conn.clientToServer.outOfOrder, 1)
        XCTAssertEqual(conn.clientToServer.bytes, 700)

        // tshark on the same packets: the resend of 100 is a fast retransmission.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wl-dupacks-\(UUID().uuidString).pcap").path
        defer { unlink(path) }
        capture.write(to: path)
        let fast = try TsharkOracle.values(path, filter: "tcp.analysis.fast_retransmission", field: "tcp.seq_raw")
        XCTAssertEqual(fast, [String(c + 100)], "tshark's fast retransmissions")
    }

    func testZeroWindowWindowFullResetAndSequenceWrap() throws {
        // Window scale 0 both ways; the server advertises 100 bytes, the client fills it, then a zero window.
        let (c, s) = handshake(client: 0xffff_ffc0, scale: 0)
        send(builder.frame(seq: s, ack: c, flags: .ack, window: 100, reverse: true))
        send(builder.frame(seq: c, ack: s, flags: .ack, payload: [UInt8](repeating: 1, count: 60)))
        send(builder.frame(seq: c &+ 60, ack: s, flags: .ack, payload: [UInt8](repeating: 1, count: 40)))
        send(builder.frame(seq: s, ack: c &+ 100, flags: .ack, window: 0, reverse: true))
        send(builder.frame(seq: s, ack: c &+ 100, flags: [.rst, .ack], window: 0, reverse: true))
        let conn = try XCTUnwrap(report().connections.first)
        XCTAssertEqual(conn.clientToServer.windowFull, 1)
        XCTAssertEqual(conn.serverToClient.zeroWindow, 1)
        XCTAssertEqual(conn.serverToClient.resets, 1)
        XCTAssertEqual(conn.end, .reset)
        XCTAssertEqual(conn.closedBy, .server)
        XCTAssertEqual(conn.clientToServer.bytes, 100, "sequence numbers wrapped past 2^32")
        XCTAssertEqual(conn.clientToServer.retransmissions + conn.clientToServer.captureGaps, 0)
    }

    func testAConnectionWithoutHandshakeIsStillTracked() throws {
        // Mid-stream: the server (port 80) sends first; roles come from the ports.
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8)
        send(builder.frame(seq: 42, ack: 7, flags: .ack, payload: response, reverse: true))
        send(builder.frame(seq: 7, ack: 42 + UInt32(response.count), flags: .ack))
        let r = report()
        let conn = try XCTUnwrap(r.connections.first)
        XCTAssertEqual(conn.server.port, 80)
        XCTAssertFalse(conn.handshakeSeen)
        XCTAssertNil(conn.handshakeTime)
        XCTAssertTrue(r.caveats.contains { $0.id == "no-handshake" })
        XCTAssertEqual(conn.end, .open)
    }

    func testSnapshotCutPayloadIsCountedNotParsed() throws {
        var (c, s) = handshake()
        let request = Array("GET /long/path/that/is/cut HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        let frame = builder.frame(seq: c, ack: s, flags: .ack, payload: request)
        send(frame, cut: frame.count - request.count + 10)
        c += UInt32(request.count)
        send(builder.frame(seq: s, ack: c, flags: .ack, reverse: true))
        let r = report()
        let conn = try XCTUnwrap(r.connections.first)
        XCTAssertEqual(conn.clientToServer.truncatedBytes, Int64(request.count - 10))
        XCTAssertEqual(conn.clientToServer.bytes, Int64(request.count))
        XCTAssertEqual(conn.clientToServer.captureGaps, 0)
        XCTAssertTrue(r.caveats.contains { $0.id == "snapshot-length" })
        XCTAssertTrue(conn.notes.contains { $0.contains("cut by the snapshot length") }, "\(conn.notes)")
        s += 0
    }

    func testConcurrencyPerServer() {
        // Two overlapping connections from different client ports, then a third after both closed.
        var b1 = FrameBuilder(), b2 = FrameBuilder(), b3 = FrameBuilder()
        b2.source.port = 40001
        b3.source.port = 40002
        send(b1.frame(seq: 1, flags: .syn))
        send(b2.frame(seq: 1, flags: .syn))
        send(b1.frame(seq: 2, ack: 1, flags: [.fin, .ack]))
        send(b2.frame(seq: 2, ack: 1, flags: [.fin, .ack]))
        send(b3.frame(seq: 1, flags: .syn))
        b1 = b3
        let r = report()
        XCTAssertEqual(r.summary.connections, 3)
        XCTAssertEqual(r.summary.maxConcurrentConnections, 2)
        XCTAssertEqual(r.summary.servers.map(\.maxConcurrent), [2])
    }

    /// Runs `count` connections one after another, 2 s apart (every tenth overlapping the next), taking finished
    /// connections as a streamed analysis does; returns the most the analysis held at once and what was taken.
    private func streamConnections(_ count: Int) -> (held: CaptureAnalyzer.Retained, taken: [TCPConnection],
                                                       summary: CaptureSummary) {
        var held = Self.nothingHeld
        var taken: [TCPConnection] = []
        func sample() {
            held = Self.most(held, capture.analysis.retained)
            capture.analysis.takeFinished { taken.append($0) }
        }
        var i = 0
        while i < count {
            clock += 2_000_000
            builder.source.port = UInt16(20000 + i)
            let (c, s) = handshake()
            if i % 10 == 0, i + 1 < count {
                // A second connection opens before the first closes.
                builder.source.port = UInt16(20000 + i + 1)
                let (c1, s1) = handshake()
                builder.source.port = UInt16(20000 + i)
                let (c2, s2) = exchange(c, s)
                close(c2, s2)
                builder.source.port = UInt16(20000 + i + 1)
                let (c3, s3) = exchange(c1, s1)
                close(c3, s3)
                i += 2
            } else {
                let (c2, s2) = exchange(c, s)
                close(c2, s2)
                i += 1
            }
            sample()
        }
        var report = CaptureReport(file: "test", filter: nil, linkType: .ethernet, snapshotLength: 65535)
        capture.analysis.complete(into: &report) { taken.append($0) }
        return (held, taken, report.summary)
    }

    func testMemoryFollowsTheOpenConnectionsNotTheNumberAnalysed() {
        let small = streamConnections(300)
        setUp()
        let large = streamConnections(1200)
        XCTAssertEqual(small.taken.count, 300)
        XCTAssertEqual(large.taken.count, 1200)
        XCTAssertEqual(Set(large.taken.map(\.index)), Set(0..<1200), "every connection handed over once")
        XCTAssertEqual(large.summary.connections, 1200)
        XCTAssertEqual(large.summary.exchanges, 1200)
        // Closed connections stay 120 s (TIME_WAIT) plus one sweep interval: about 65 at 2 s apart, whatever the count.
        XCTAssertLessThan(large.held.connections, 100)
        XCTAssertLessThanOrEqual(large.held.connections, small.held.connections + 2)
        XCTAssertLessThanOrEqual(large.held.exchanges, small.held.exchanges + 2)
        XCTAssertLessThanOrEqual(large.held.concurrencyEvents, small.held.concurrencyEvents + 4)
        XCTAssertLessThan(large.held.concurrencyEvents, 400)
        XCTAssertLessThanOrEqual(large.held.tombstones, small.held.tombstones + 2)
        XCTAssertGreaterThan(large.held.tombstones, 30, "closed connections' 4-tuples linger 120 s")
        // The folded peaks agree with the peaks computed over every connection at once.
        let whole = CaptureSummary(of: large.taken)
        XCTAssertEqual(large.summary.maxConcurrentConnections, 2)
        XCTAssertEqual(large.summary, whole)
    }

    /// With more closed connections than the tombstone limit within the linger time, the oldest tombstones go:
    /// what is held stays near the limit, and every connection is still counted once.
    func testTombstonesAreCappedWhenManyConnectionsCloseWithinTheLinger() {
        capture.analysis = CaptureAnalyzer.Analysis(linkType: .ethernet, maxTombstones: 20)
        let run = streamConnections(300)
        XCTAssertEqual(run.taken.count, 300)
        XCTAssertEqual(run.summary.connections, 300)
        // A sweep (every 10 s of capture here, 5 connections) lays its tombstones before it trims them.
        XCTAssertLessThanOrEqual(run.held.tombstones, 20 + 5)
        XCTAssertGreaterThanOrEqual(run.held.tombstones, 20)
    }

    private static let nothingHeld = CaptureAnalyzer.Retained(connections: 0, exchanges: 0, concurrencyEvents: 0,
                                                             tombstones: 0, tombstoneQueue: 0)

    /// The larger of each count.
    private static func most(_ a: CaptureAnalyzer.Retained, _ b: CaptureAnalyzer.Retained) -> CaptureAnalyzer.Retained {
        .init(connections: max(a.connections, b.connections), exchanges: max(a.exchanges, b.exchanges),
              concurrencyEvents: max(a.concurrencyEvents, b.concurrencyEvents),
              tombstones: max(a.tombstones, b.tombstones), tombstoneQueue: max(a.tombstoneQueue, b.tombstoneQueue))
    }

    /// Feeds `count` short connections to `analysis`, taking finished ones as a streamed analysis does; returns
    /// the most it held at once, how many were handed over, and the summary.
    private static func streamShort(_ count: Int, _ connections: ShortConnections,
                                    into analysis: inout CaptureAnalyzer.Analysis)
        -> (held: CaptureAnalyzer.Retained, taken: Int, summary: CaptureSummary) {
        var held = nothingHeld
        var taken = 0
        for n in 0..<count {
            for (time, frame) in connections.frames(n) {
                frame.withUnsafeBytes {
                    analysis.add(CapturedPacket(timestampNanos: time * 1000, originalLength: frame.count, bytes: $0))
                }
            }
            analysis.takeFinished { _ in taken += 1 }
            if n % 16 == 0 { held = most(held, analysis.retained) }
        }
        var report = CaptureReport(file: "test", filter: nil, linkType: .ethernet, snapshotLength: 65535)
        analysis.complete(into: &report) { _ in taken += 1 }
        return (held, taken, report.summary)
    }

    /// 10 000 short connections a second (a load generator with Connection: close, as in the capture benchmark):
    /// each closed one would wait out its quiet second in the table, 10 000 at a time. What the analysis holds
    /// is the same for 15 000 connections (1.5 s) and 40 000 (4 s), within the limits of closed connections and
    /// tombstones (the concurrency events of the last second or so are kept: they follow the rate, not the count).
    func testManyShortConnectionsAtAHighRateHoldTheSameForAnyCount() {
        func run(_ count: Int) -> (held: CaptureAnalyzer.Retained, taken: Int, summary: CaptureSummary) {
            var analysis = CaptureAnalyzer.Analysis(linkType: .ethernet, maxTombstones: 4096)
            return Self.streamShort(count, ShortConnections(every: 100), into: &analysis)
        }
        let small = run(15_000), large = run(40_000)
        XCTAssertEqual(large.taken, 40_000)
        XCTAssertEqual(large.summary.connections, 40_000)
        XCTAssertEqual(large.summary.completeExchanges, 40_000)
        XCTAssertEqual(large.summary.connectionsWithHandshake, 40_000)
        XCTAssertEqual(large.summary.maxConcurrentConnections, 1)
        XCTAssertLessThanOrEqual(large.held.connections, ConnectionTracker.defaultMaxClosing + 16,
                                 "closed connections waiting are capped")
        XCTAssertLessThanOrEqual(large.held.connections, small.held.connections + 16)
        XCTAssertLessThanOrEqual(large.held.exchanges, small.held.exchanges + 16)
        XCTAssertLessThanOrEqual(large.held.concurrencyEvents, small.held.concurrencyEvents + 256)
        XCTAssertLessThanOrEqual(large.held.tombstones, 4096)
        XCTAssertLessThanOrEqual(large.held.tombstoneQueue, small.held.tombstoneQueue + 64)
    }

    /// A client cycling over fewer ports than the tombstone limit replaces tombstones all the time: their expiry
    /// queue's stale entries must not pile up for the whole linger (120 s: every connection here).
    func testTombstonesReplacedByReusedPortsDoNotPileUp() {
        func run(_ count: Int) -> CaptureAnalyzer.Retained {
            var analysis = CaptureAnalyzer.Analysis(linkType: .ethernet, maxTombstones: 4096)
            // A port comes back every 2 s: its last connection is a tombstone by then (quiet for 1 s).
            let reusing = ShortConnections(every: 1_000, ports: 2_000)
            let outcome = Self.streamShort(count, reusing, into: &analysis)
            XCTAssertEqual(outcome.summary.connections, count)
            return outcome.held
        }
        let small = run(6_000), large = run(30_000)
        XCTAssertLessThanOrEqual(large.tombstones, 2_000)
        XCTAssertLessThanOrEqual(large.tombstoneQueue, small.tombstoneQueue + 64)
        XCTAssertLessThan(large.tombstoneQueue, 3 * 2_000 + 1024)
    }
}
