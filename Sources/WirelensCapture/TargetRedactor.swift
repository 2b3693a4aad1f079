import WirelensCore

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

    static let maxNames = 256

    init() {}

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
