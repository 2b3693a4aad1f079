import WirelensCore

#if canImport(Glibc)
import Glibc
#endif

/// Masks secret-looking query values in the request targets of a capture, remembering the parameter names it
/// found harmless.
///
/// Most targets have no query, or only harmless names that the capture's requests repeat: those are let
/// through after a byte scan, without the Redactor's (Foundation-based) rewriting, which costs more than the
/// parsing. One instance serves every connection of an analysis (single-threaded).
final class TargetRedactor {
    /// Names found harmless (at most `maxNames`).
    private var names = Set<String>()
    /// The names of the last harmless query, in order, joined by `&`: the next request usually repeats them.
    private var lastQueryNames: [UInt8] = []
    private var scratch: [UInt8] = []

    /// Redacted targets by their raw bytes (a capture's requests repeat a few thousand targets).
    private var table = Table()

    static let maxNames = 256

    init() {}

    /// The text of the raw request target `bytes`, redacted (`redact`): taken from the table of targets already
    /// seen when it holds them, without decoding or scanning them again.
    func redact(_ bytes: UnsafeRawBufferPointer) -> String {
        let hash = Table.hash(bytes)
        if let found = table.text(of: bytes, hash: hash) { return found }
        let text = redact(String(decoding: bytes, as: UTF8.self))
        table.insert(bytes, hash: hash, text: text)
        return text
    }

    /// The target with the values of secret-looking query (or fragment) parameters, and any user info, masked.
    func redact(_ target: String) -> String {
        var text = target
        let masked = text.withUTF8 { needsRewriting($0) }
        return masked ? Redactor.url(target) : target
    }

    /// True when the target may hold a secret: a sensitive parameter name, user info, or percent-encoding
    /// (whose decoded names the Redactor judges).
    private func needsRewriting(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let ampersand = UInt8(ascii: "&"), hash = UInt8(ascii: "#"), equals = UInt8(ascii: "=")
        let at = UInt8(ascii: "@"), percent = UInt8(ascii: "%"), question = UInt8(ascii: "?")
        var mark = 0
        while mark < bytes.count, bytes[mark] != question, bytes[mark] != hash {
            if bytes[mark] == at { return true }
            mark += 1
        }
        guard mark < bytes.count else { return false }
        let rest = UnsafeBufferPointer(rebasing: bytes[(mark + 1)...])
        // The common case in one pass: no user info or percent-encoding, and the parameter names, in order, are
        // the last harmless query's (nothing to look up).
        let repeated = lastQueryNames.withUnsafeBufferPointer { last -> Bool? in
            var matched = 0
            var same = true
            var inName = true
            for b in rest {
                if b == percent || b == at { return nil }
                guard same else { continue }
                let listed: UInt8
                if b == ampersand || b == hash {
                    listed = ampersand
                    inName = true
                } else if b == equals {
                    inName = false
                    continue
                } else if inName {
                    listed = b
                } else {
                    continue
                }
                if matched < last.count, last[matched] == listed { matched += 1 } else { same = false }
            }
            return same && matched == last.count
        }
        guard let repeated else { return true }
        if repeated { return false }
        // The parameter names, in order.
        var list = scratch
        list.removeAll(keepingCapacity: true)
        var inName = true
        for b in rest {
            if b == ampersand || b == hash {
                list.append(ampersand)
                inName = true
            } else if b == equals {
                inName = false
            } else if inName {
                list.append(b)
            }
        }
        defer { scratch = list }
        for part in list.split(separator: ampersand, omittingEmptySubsequences: false) {
            let name = String(decoding: part, as: UTF8.self)
            if names.contains(name) { continue }
            if Redactor.isSensitive(name: name) { return true }
            if names.count < Self.maxNames { names.insert(name) }
        }
        swap(&lastQueryNames, &list)
        return false
    }

    /// Texts by raw bytes: an open-addressing table of indexes into `entries` (-1 for an empty slot), whose raw
    /// bytes are kept in `arena`. Past `maxEntries` targets or `maxArenaBytes` bytes, no more are added.
    private struct Table {
        static let slotCount = 8192
        static let maxEntries = 4096
        static let maxArenaBytes = 1 << 20

        private var slots = [Int32](repeating: -1, count: Table.slotCount)
        private var entries: [(start: Int, count: Int, hash: UInt64, text: String)] = []
        private var arena: [UInt8] = []

        /// A hash of `bytes`, eight at a time (only where a text is stored depends on it, never which).
        static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
            var hash = UInt64(bytes.count) &* 0x9e37_79b9_7f4a_7c15
            var offset = 0
            while offset + 8 <= bytes.count {
                let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                hash = (hash ^ word) &* 0xff51_afd7_ed55_8ccd
                hash ^= hash >> 29
                offset += 8
            }
            var tail: UInt64 = 0
            if offset < bytes.count, bytes.count >= 8 {
                // The last bytes, loaded with the eight that end the target, the ones hashed already shifted out.
                let last = bytes.loadUnaligned(fromByteOffset: bytes.count &- 8, as: UInt64.self)
                tail = last &>> UInt64(truncatingIfNeeded: (offset &+ 8 &- bytes.count) &* 8)
            } else {
                while offset < bytes.count {
                    tail = tail << 8 | UInt64(bytes[offset])
                    offset += 1
                }
            }
            hash = (hash ^ tail) &* 0xc4ce_b9fe_1a85_ec53
            return hash ^ hash >> 32
        }

        /// The text stored for `bytes`, if any.
        func text(of bytes: UnsafeRawBufferPointer, hash: UInt64) -> String? {
            let mask = Self.slotCount - 1
            return slots.withUnsafeBufferPointer { slots in
                entries.withUnsafeBufferPointer { entries in
                    arena.withUnsafeBytes { arena -> String? in
                        var slot = Int(truncatingIfNeeded: hash) & mask
                        while slots[slot] >= 0 {
                            let entry = entries[Int(slots[slot])]
                            if entry.hash == hash, entry.count == bytes.count,
                               entry.count == 0
                                || memcmp(arena.baseAddress! + entry.start, bytes.baseAddress!, entry.count) == 0 {
                                return entry.text
                            }
                            slot = (slot + 1) & mask
                        }
                        return nil
                    }
                }
            }
        }

        /// Stores `text` for `bytes` (not stored yet), while there is room.
        mutating func insert(_ bytes: UnsafeRawBufferPointer, hash: UInt64, text: String) {
            guard entries.count < Self.maxEntries, arena.count + bytes.count <= Self.maxArenaBytes else { return }
            let mask = Self.slotCount - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(entries.count)
            entries.append((start: arena.count, count: bytes.count, hash: hash, text: text))
            arena.append(contentsOf: bytes)
        }
    }
}
