import WirelensCaptureModel
import WirelensConcurrency
import WirelensCore

/// Reads a capture file and builds its report: decoding, connection tracking and HTTP exchanges in one pass.
package enum CaptureAnalyzer {
    /// The report, and the read error that stopped it early (the report then covers the packets before it).
    package struct Outcome: Sendable {
        package var report: CaptureReport
        package var readError: CaptureError?
    }

    /// Analyses the file at `path`, keeping every connection in the report (in order of their first packets).
    ///
    /// - Throws: a `CaptureError` when the file cannot be opened, has an unsupported link type, or the filter is bad.
    package static func analyze(path: String, filter: String? = nil, keyLog: KeyLog? = nil) throws(CaptureError) -> Outcome {
        var all: [TCPConnection] = []
        var outcome = try analyze(path: path, filter: filter, keyLog: keyLog) { all.append($0) }
        all.sort { $0.index < $1.index }
        outcome.report.connections = all
        return outcome
    }

    /// Analyses the file at `path`, handing each connection to `onConnection` as it finishes (its last packet
    /// long past, or replaced by a new connection on its 4-tuple; the rest at the end of the file) instead of
    /// keeping it: memory follows the connections open at a time, not the file's size. The report's
    /// `connections` stay empty; its summary covers them all.
    ///
    /// - Throws: a `CaptureError` when the file cannot be opened, has an unsupported link type, or the filter is bad.
    package static func analyze(path: String, filter: String? = nil, keyLog: KeyLog? = nil,
                               onConnection: (TCPConnection) -> Void) throws(CaptureError) -> Outcome {
        analyze(try PacketFile(path: path, filter: filter), keyLog: keyLog, onConnection: onConnection)
    }

    /// The report of `file` before any packet: its name, filter, link type and snapshot length.
    package static func head(of file: PacketFile) -> CaptureReport {
        CaptureReport(file: file.path, filter: file.filter, linkType: file.linkType, snapshotLength: file.snapshotLength)
    }

    /// Reads the opened `file` to its end (or to the damage that stops it, or until `stop` is requested), handing
    /// over connections as above. A stopped analysis is marked `interrupted`: it covers the packets read until
    /// then, and the connections still open are handed over as the capture left them, as at the end of a file.
    /// Only the first `handOverLimit` connections (in order of first packets) are handed over, when it is given
    /// (a text summary lists no more): the summary counts the others without their exchanges being kept.
    package static func analyze(_ file: PacketFile, until stop: StopRequest? = nil, keyLog: KeyLog? = nil,
                               handOverLimit: Int? = nil, onConnection: (TCPConnection) -> Void) -> Outcome {
        var report = head(of: file)
        var analysis = Analysis(linkType: file.linkType, keyLog: keyLog, handOverLimit: handOverLimit ?? .max)
        var readError: CaptureError?
        do {
            let reading = try file.forEachPacket(until: stop) { packet, decoded in
                analysis.add(packet, decoded: decoded)
                analysis.takeFinished(onConnection)
            }
            report.interrupted = reading.stopped
        } catch {
            readError = error
            report.readError = error.description
        }
        analysis.complete(into: &report, onConnection: onConnection)
        return Outcome(report: report, readError: readError)
    }

    /// What an analysis holds in memory now: the measure of whether it grows with the capture.
    package struct Retained: Sendable, Equatable {
        /// Connections in the table or finished and not yet handed over.
        package var connections: Int
        /// Their HTTP exchanges.
        package var exchanges: Int
        /// Concurrency events not yet folded into the summary's peaks.
        package var concurrencyEvents: Int
        /// Closed connections' 4-tuples kept to absorb their late packets.
        package var tombstones: Int
        /// Entries of the tombstones' expiry queue (stale ones included).
        package var tombstoneQueue: Int
    }

    /// The running state of one pass over packets; usable on packets from any source (file or live).
    package struct Analysis {
        let linkType: LinkType
        private var tracker: ConnectionTracker
        private var counts = PacketCounts()
        /// The capture times (µs) of the first packet and the latest one (meaningful once `counts.total > 0`).
        private var first: Int64 = 0
        private var last: Int64 = .min

        /// An analysis of packets of `linkType`; TLS connections are decrypted with `keyLog` when given. Connections
        /// numbered `handOverLimit` and up are only counted in the summary, never handed over.
        package init(linkType: LinkType, keyLog: KeyLog? = nil, handOverLimit: Int = .max) {
            self.init(linkType: linkType, maxTombstones: ConnectionTracker.defaultMaxTombstones,
                      handOverLimit: handOverLimit)
            tracker.keyLog = keyLog
        }

        /// An analysis that keeps at most `maxTombstones` closed connections' 4-tuples and `maxClosing` closed
        /// connections waiting out their quiet time (tests use small ones).
        init(linkType: LinkType, maxTombstones: Int, maxClosing: Int = ConnectionTracker.defaultMaxClosing,
             handOverLimit: Int = .max) {
            self.linkType = linkType
            tracker = ConnectionTracker(maxTombstones: maxTombstones, maxClosing: maxClosing,
                                        handOverLimit: handOverLimit)
        }

        /// What the analysis holds now.
        package var retained: Retained {
            Retained(connections: tracker.openCount + tracker.finished.count,
                     exchanges: tracker.openExchanges + tracker.finished.reduce(0) { $0 + $1.exchanges.count },
                     concurrencyEvents: tracker.summary.heldEvents, tombstones: tracker.tombstoneCount,
                     tombstoneQueue: tracker.tombstoneQueueCount)
        }

        /// Accounts for one captured packet.
        package mutating func add(_ packet: CapturedPacket) {
            add(packet, decoded: PacketDecoder.decode(packet.bytes, linkType: linkType))
        }

        /// Accounts for one captured packet already decoded (as `linkType`).
        package mutating func add(_ packet: CapturedPacket, decoded: PacketDecoder.Outcome) {
            let time = packet.timestampNanos / 1000
            if counts.total == 0 { first = time }
            counts.total += 1
            counts.wireBytes += Int64(packet.originalLength)
            if packet.bytes.count < packet.originalLength { counts.cutBySnapshot += 1 }
            if time > last { last = time }
            switch decoded {
            case .tcp(let segment):
                counts.tcp += 1
                tracker.handle(segment, time: time)
            case .notTCP:
                counts.other += 1
            case .truncated:
                counts.undecodable += 1
            }
        }

        /// Hands over (and forgets) the connections finished since the last call. Without calls, they are kept
        /// until `complete`.
        ///
        /// Called after every packet: the test for nothing to hand over (the usual case) is made here, inlined into
        /// the caller's loop, before the call that sets up the hand-over's frame.
        @inline(__always)
        package mutating func takeFinished(_ body: (TCPConnection) -> Void) {
            guard !tracker.finished.isEmpty else { return }
            tracker.takeFinished(body)
        }

        /// Finishes every connection and fills the report's connections (those not yet taken, in order of their
        /// first packets), summary and caveats.
        package mutating func complete(into report: inout CaptureReport) {
            var connections: [TCPConnection] = []
            complete(into: &report) { connections.append($0) }
            connections.sort { $0.index < $1.index }
            report.connections = connections
        }

        /// Finishes every connection, hands those not yet taken to `onConnection` (in order of their first
        /// packets), and fills the report's summary and caveats.
        package mutating func complete(into report: inout CaptureReport, onConnection: (TCPConnection) -> Void) {
            tracker.finishAll(onConnection)
            report.packets = counts
            report.firstPacketAt = counts.total > 0 ? first : nil
            report.lastPacketAt = counts.total > 0 ? last : nil
            report.summary = tracker.summary.summary
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
            let inferred = report.summary.inferredConnections
            if inferred > 0 {
                let reasons = report.summary.notDecrypted.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
                let noLog = report.summary.notDecrypted.keys.contains(TLSInfo.Decryption.noKeyLog.rawValue)
                list.append(Caveat(id: "tls-inferred", text: "\(inferred) of \(report.summary.tlsConnections) TLS "
                    + "connections were not decrypted (\(reasons.joined(separator: ", "))): their "
                    + "\(report.summary.inferredExchanges) exchanges are inferred from the direction changes of "
                    + "encrypted records, so requests per connection, HTTP/2 streams and their concurrency, "
                    + "pipelining, methods and statuses cannot be verified on them"
                    + (noLog ? "; give --keylog with the client's key log (SSLKEYLOGFILE) to decrypt them." : ".")))
            }
            if report.packets.undecodable > 0 {
                list.append(Caveat(id: "undecodable", text: "\(report.packets.undecodable) packets were cut before "
                    + "the end of their TCP header or had inconsistent lengths, and were skipped."))
            }
            if let error = report.readError {
                list.append(Caveat(id: "read-error", text: "reading stopped early: \(error)."))
            }
            if report.interrupted {
                list.append(Caveat(id: "interrupted", text: "a signal stopped the analysis after "
                    + "\(report.packets.total) packets: the report covers them, and the connections open then are "
                    + "shown as the capture left them."))
            }
            return list
        }
    }
}
