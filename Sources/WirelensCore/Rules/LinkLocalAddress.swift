#if canImport(Glibc)
import Glibc
#endif

/// The link-local address ranges, 169.254.0.0/16 and fe80::/10: where cloud metadata services answer
/// (169.254.169.254), never a public server's home.
package enum LinkLocalAddress {
    /// True when the address (4 bytes of IPv4 or 16 of IPv6, network order) is link-local; an IPv4-mapped
    /// IPv6 address (::ffff:a.b.c.d) is judged by its IPv4 address, since connecting to it reaches that.
    package static func contains<Bytes: Collection>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        let b = Array(bytes)
        switch b.count {
        case 4:
            return b[0] == 169 && b[1] == 254
        case 16:
            if b[0] == 0xfe && (b[1] & 0xc0) == 0x80 { return true }
            let mapped = b[0..<10].allSatisfy { $0 == 0 } && b[10] == 0xff && b[11] == 0xff
            return mapped && contains(b[12..<16])
        default:
            return false
        }
    }

    /// True when `host` is an IPv4 or IPv6 literal (IPv6 with or without brackets) in a link-local range; a name
    /// is not resolved and gives false.
    package static func contains(literal host: String) -> Bool {
        bytes(ofLiteral: host).map { contains($0) } ?? false
    }

    /// The bytes of an IPv4 dotted quad or an IPv6 literal (brackets and a zone index allowed), nil for anything else.
    package static func bytes(ofLiteral host: String) -> [UInt8]? {
        var text = Substring(host)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let percent = text.firstIndex(of: "%") { text = text[..<percent] }
        var v4 = in_addr()
        if inet_pton(AF_INET, String(text), &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, String(text), &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    /// An address's text (dotted quad, or IPv6 as inet_ntop writes it); nil unless 4 or 16 bytes.
    package static func text<Bytes: Collection>(of bytes: Bytes) -> String? where Bytes.Element == UInt8 {
        var raw = Array(bytes)
        let family: Int32
        switch raw.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return nil
        }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(family, &raw, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
