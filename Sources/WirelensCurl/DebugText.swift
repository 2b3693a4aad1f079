import Foundation

/// Reads the facts libcurl 7.88 only tells in its verbose text: connection numbers, TLS version, cipher and ALPN
/// (the scraper behind `VerboseTextFacts`).
package enum DebugText {
    /// One fact found in a line of libcurl's informational text: "Connected to host (ip) port p (#N)",
    /// "Re-using existing connection #N with host …", "SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384",
    /// "ALPN: server accepted h2" (or the older "ALPN, server accepted to use h2"), and libcurl's resend of a request
    /// whose connection died: "Connection died, retrying a fresh connect (retry count: 1)" (transfer.c's
    /// Curl_retry_request) or "REFUSED_STREAM, retrying a fresh connect"; and the DNS-over-HTTPS requests made for the
    /// transfer's name, which libcurl runs on easy handles of its own and tells only here: "a DoH request is completed,
    /// N to go" as each ends, "DoH request REASON" when one failed (doh.c's doh_done).
    package typealias Fact = ConnectionFact

    /// The fact in one line of CURLINFO_TEXT, or nil when the line carries none that Wirelens uses.
    package static func parse(_ line: Substring) -> Fact? {
        var text = String(line)
        return text.withUTF8 { parse(bytes: $0) }
    }

    /// The facts only TLS connections print, read from the text of a line already known to start like one.
    private static func parseTLS(_ line: Substring) -> Fact? {
        if line.hasPrefix(sslPrefix) {
            let rest = line.dropFirst(sslPrefix.count).trimmingCharacters(in: .whitespacesAndNewlines)
            let parts = rest.components(separatedBy: " / ")
            guard let version = parts.first, !version.isEmpty else { return nil }
            return .tls(version: version, cipher: parts.count > 1 ? parts[1] : nil)
        }
        if line.hasPrefix("ALPN"), let range = line.range(of: "server accepted ") {
            var rest = line[range.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)
            if rest.hasPrefix("to use ") { rest.removeFirst("to use ".count) }
            return rest.isEmpty ? nil : .alpn(rest)
        }
        return nil
    }

    private static let sslPrefix = "SSL connection using "
    /// The lines of libcurl's resend on a fresh connection (both end the same).
    private static let resendPrefixes = [
        "Connection died, retrying a fresh connect", "REFUSED_STREAM, retrying a fresh connect",
    ].map { Array($0.utf8) }
    private static let dohCompleted = Array("a DoH request is completed".utf8)
    private static let dohFailed = Array("DoH request ".utf8)
    private static let prefixes: [[UInt8]] = ["Connected to ", "Re-using existing connection", sslPrefix, "ALPN"]
        .map { Array($0.utf8) } + resendPrefixes + [dohCompleted, dohFailed]
    /// The first byte of each prefix.
    private static let firstBytes = prefixes.map { $0[0] }

    /// True when a raw line of libcurl's text starts like one of the lines `parse` reads; checked on the bytes,
    /// so that the many other lines cost no String.
    package static func mayCarryFact(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Most lines are ruled out by their first byte before any prefix is compared.
        guard let first = bytes.first, firstBytes.contains(first) else { return false }
        return prefixes.contains { starts(bytes, with: $0) }
    }

    private static func starts(_ bytes: UnsafeBufferPointer<UInt8>, with prefix: [UInt8]) -> Bool {
        bytes.count >= prefix.count && prefix.indices.allSatisfy { bytes[$0] == prefix[$0] }
    }

    /// The fact in a raw line of libcurl's text: connection numbers are read from the bytes, and only the rare
    /// TLS and ALPN lines become Strings.
    package static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Fact? {
        guard mayCarryFact(bytes) else { return nil }
        if let resend = resendPrefixes.firstIndex(where: { starts(bytes, with: $0) }) {
            return .retryingFreshConnect(refusedStream: resend == 1)
        }
        if starts(bytes, with: dohCompleted) { return .dohRequestCompleted }
        if starts(bytes, with: dohFailed) {
            let reason = String(decoding: bytes[dohFailed.count...], as: UTF8.self)
            return .dohRequestFailed(reason.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        if bytes[0] == UInt8(ascii: "C") || bytes[0] == UInt8(ascii: "R") {
            guard let hash = bytes.firstIndex(of: UInt8(ascii: "#")) else { return nil }
            var id = 0
            var digits = 0
            var i = hash + 1
            while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57, digits < 18 {
                id = id * 10 + Int(bytes[i] - 48)
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            return bytes[0] == UInt8(ascii: "C") ? .connected(id: id) : .reused(id: id)
        }
        return parseTLS(Substring(String(decoding: bytes, as: UTF8.self)))
    }

    /// True when request header text sent by libcurl asks for `100-continue`.
    package static func asksForContinue(_ headerText: Substring) -> Bool {
        headerText.range(of: "expect: 100-continue", options: .caseInsensitive) != nil
    }
}
