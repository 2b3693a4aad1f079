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
        guard let mark = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == hash }) else {
            return bytes.contains(UInt8(ascii: "@"))
        }
        let rest = UnsafeBufferPointer(rebasing: bytes[(mark + 1)...])
        if rest.contains(UInt8(ascii: "%")) || bytes.contains(UInt8(ascii: "@")) { return true }
        // The parameter names, in order: when they are the last harmless query's, nothing to look up.
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
        if list == lastQueryNames { return false }
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
