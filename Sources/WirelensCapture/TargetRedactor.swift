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

    /// Redacted targets by their raw bytes (a capture's requests repeat a few thousand targets): an open-addressing
    /// table of indexes into `entries` (-1 for an empty slot), whose raw bytes are kept in `arena`.
    private var slots = [Int32](repeating: -1, count: TargetRedactor.slotCount)
    private var entries: [(start: Int, count: Int, hash: UInt64, text: String)] = []
    private var arena: [UInt8] = []

    static let maxNames = 256
    /// Slots of the table of redacted targets (a power of two), and the most targets and raw bytes it holds:
    /// past those, other targets are redacted each time.
    static let slotCount = 8192
    static let maxEntries = 4096
    static let maxArenaBytes = 1 << 20

    init() {}

    /// The text of the raw request target `bytes`, redacted (`redact`): taken from the table of targets already
    /// seen when it holds them, without decoding or scanning them again.
    func redact(_ bytes: UnsafeRawBufferPointer) -> String {
        // FNV-1a.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { hash = (hash ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        let mask = Self.slotCount - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let index = Int(slots[slot])
            if index < 0 { break }
            let found = arena.withUnsafeBufferPointer { stored -> String? in
                let entry = entries[index]
                guard entry.hash == hash, entry.count == bytes.count else { return nil }
                guard entry.count == 0
                    || memcmp(stored.baseAddress! + entry.start, bytes.baseAddress!, entry.count) == 0 else { return nil }
                return entry.text
            }
            if let found { return found }
            slot = (slot + 1) & mask
        }
        let text = redact(String(decoding: bytes, as: UTF8.self))
        if entries.count < Self.maxEntries, arena.count + bytes.count <= Self.maxArenaBytes {
            slots[slot] = Int32(entries.count)
            entries.append((start: arena.count, count: bytes.count, hash: hash, text: text))
            arena.append(contentsOf: bytes)
        }
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
}
