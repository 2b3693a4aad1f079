#if canImport(Glibc)
import Glibc
#endif

/// The TLS secrets of an NSS key log (`SSLKEYLOGFILE`), by client random: what decrypts the captured connections.
///
/// Lines are `LABEL <client random, 64 hex digits> <secret, hex>`; `#` starts a comment. Kept: `CLIENT_RANDOM`
/// (the TLS 1.2 master secret) and the TLS 1.3 `CLIENT_HANDSHAKE_TRAFFIC_SECRET`, `SERVER_HANDSHAKE_TRAFFIC_SECRET`,
/// `CLIENT_TRAFFIC_SECRET_0` and `SERVER_TRAFFIC_SECRET_0`; other labels (exporter, early data) are passed over.
/// A malformed line is counted (the first one's number kept for the warning) and the rest is used.
///
/// One instance serves every connection of an analysis (single-threaded). A key log that grows while it is read
/// (a live capture whose client writes it) is read again from where it stopped when a client random is not in it.
package final class KeyLog {
    /// The secrets of one TLS session.
    struct Secrets: Equatable {
        var masterSecret: [UInt8]?
        var clientHandshake: [UInt8]?
        var serverHandshake: [UInt8]?
        var clientTraffic: [UInt8]?
        var serverTraffic: [UInt8]?

        /// True when nothing more is to come for the session: its master secret, or all four TLS 1.3 secrets.
        var complete: Bool {
            masterSecret != nil
                || (clientHandshake != nil && serverHandshake != nil && clientTraffic != nil && serverTraffic != nil)
        }
    }

    /// The file the log was read from (for messages); nil for text given directly.
    package let path: String?
    /// Lines that were not a key log line, and the number (from 1) of the first one.
    package private(set) var malformedLines = 0
    package private(set) var firstMalformedLine: Int?
    /// True when the file may still grow (a live capture whose client writes it): a client random not found is
    /// looked for again in what was added since, and the records of its connection wait (bounded) meanwhile.
    package var grows = false
    /// Client randoms with at least one secret kept.
    package var sessions: Int { entries.count }

    private var entries: [[UInt8]: Secrets] = [:]
    /// Lines read so far, and the bytes of a last line not yet ended (a growing file).
    private var lineNumber = 0
    private var partial: [UInt8] = []
    /// Bytes of the file consumed so far (a growing file is read on from here).
    private var offset: Int64 = 0
    /// TLS 1.2 master secrets learnt from this capture's full handshakes, by session id or ticket, for resumptions
    /// whose key log line is missing (bounded: `maxLearnt`).
    private var learnt: [[UInt8]: [UInt8]] = [:]
    static let maxLearnt = 4096
    /// The plaintext buffer of the record being decrypted, shared by every connection (one record at a time).
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: TLSDecryptor.maxRecord, alignment: 16)

    /// Why a key log cannot be read.
    package struct ReadError: Error, Sendable, CustomStringConvertible {
        package let path: String
        package let reason: String
        package var description: String {
            "cannot read key log '\(path)': \(reason); give the file SSLKEYLOGFILE named (NSS key log format)"
        }
    }

    /// Reads the key log at `path` (the whole file now; more later when it grows).
    package init(path: String) throws(ReadError) {
        self.path = path
        guard let more = try Self.read(path, from: 0) else {
            throw ReadError(path: path, reason: String(cString: strerror(errno)))
        }
        take(more)
    }

    /// A key log from text (tests).
    init(text: String) {
        path = nil
        take(Array(text.utf8) + [10])
    }

    deinit { scratch.deallocate() }

    /// The warning to print about malformed lines, or nil when every line was well formed.
    package var warning: String? {
        guard let first = firstMalformedLine else { return nil }
        let more = malformedLines > 1 ? " (and \(malformedLines - 1) more)" : ""
        return "key log '\(path ?? "-")': line \(first) is not a key log line\(more): ignored, the rest is used"
    }

    /// The secrets for `clientRandom`, reading on in the file when they are not known yet.
    func secrets(for clientRandom: [UInt8]) -> Secrets? {
        let found = entries[clientRandom]
        if found?.complete == true { return found }
        guard grows, let path, let more = try? Self.read(path, from: offset), !more.isEmpty else { return found }
        take(more)
        return entries[clientRandom]
    }

    /// True when the key log holds secrets for `clientRandom` (without reading on).
    func knows(_ clientRandom: [UInt8]) -> Bool { entries[clientRandom] != nil }

    /// Remembers the master secret of a TLS 1.2 session under its session id or ticket.
    func learn(_ identity: [UInt8], masterSecret: [UInt8]) {
        guard !identity.isEmpty, learnt.count < Self.maxLearnt || learnt[identity] != nil else { return }
        learnt[identity] = masterSecret
    }

    /// The master secret learnt for a session id or ticket.
    func learnt(_ identity: [UInt8]) -> [UInt8]? { identity.isEmpty ? nil : learnt[identity] }

    /// The bytes of `path` from `start` on; nil when the file cannot be read.
    private static func read(_ path: String, from start: Int64) throws(ReadError) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        guard status.st_mode & S_IFMT != S_IFDIR else { throw ReadError(path: path, reason: "it is a directory") }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var position = start
        // Bounded: a key log is text of at most a few hundred bytes per connection.
        for _ in 0..<(1 << 14) {
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(position)) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { break }
            result += chunk[0..<n]
            position += Int64(n)
        }
        return result
    }

    /// Parses whole lines of `bytes` (after what was left of the last read); keeps an unended last line.
    private func take(_ bytes: [UInt8]) {
        offset += Int64(bytes.count)
        var text = partial + bytes
        partial = []
        guard let lastBreak = text.lastIndex(of: 10) else {
            partial = text
            return
        }
        partial = Array(text[(lastBreak + 1)...])
        text.removeSubrange((lastBreak + 1)...)
        for line in text.split(separator: 10, omittingEmptySubsequences: false).dropLast() {
            lineNumber += 1
            parse(line)
        }
    }

    private func parse(_ raw: ArraySlice<UInt8>) {
        var line = raw
        while let last = line.last, last == 13 || last == 32 || last == 9 { line.removeLast() }
        while let first = line.first, first == 32 || first == 9 { line.removeFirst() }
        if line.isEmpty || line.first == UInt8(ascii: "#") { return }
        let fields = line.split(whereSeparator: { $0 == 32 || $0 == 9 })
        guard fields.count == 3, let random = Self.hex(fields[1]), random.count == 32,
              let secret = Self.hex(fields[2]), !secret.isEmpty else {
            malformed()
            return
        }
        let label = String(decoding: fields[0], as: UTF8.self)
        var entry = entries[random] ?? Secrets()
        switch label {
        case "CLIENT_RANDOM":
            guard secret.count == 48 else { return malformed() }
            entry.masterSecret = secret
        case "CLIENT_HANDSHAKE_TRAFFIC_SECRET": entry.clientHandshake = secret
        case "SERVER_HANDSHAKE_TRAFFIC_SECRET": entry.serverHandshake = secret
        case "CLIENT_TRAFFIC_SECRET_0": entry.clientTraffic = secret
        case "SERVER_TRAFFIC_SECRET_0": entry.serverTraffic = secret
        default:
            // Other labels of the format (EXPORTER_SECRET, CLIENT_EARLY_TRAFFIC_SECRET, RSA...): not needed here.
            guard label.allSatisfy({ $0 == "_" || $0.isUppercase || $0.isNumber }) else { return malformed() }
            return
        }
        entries[random] = entry
    }

    private func malformed() {
        malformedLines += 1
        if firstMalformedLine == nil { firstMalformedLine = lineNumber }
    }

    /// The bytes of hex text; nil when it is not an even number of hex digits.
    static func hex(_ text: some Collection<UInt8>) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(text.count / 2)
        var high: UInt8?
        for c in text {
            let v: UInt8
            switch c {
            case 48...57: v = c - 48
            case 65...70: v = c - 55
            case 97...102: v = c - 87
            default: return nil
            }
            if let h = high {
                result.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        return result
    }
}
