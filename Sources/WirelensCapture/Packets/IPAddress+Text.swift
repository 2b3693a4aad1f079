import WirelensCaptureModel

#if canImport(Glibc)
import Glibc
#endif

extension IPAddress {
    /// Parses IPv4 dotted-quad or IPv6 text (as the probe's report writes addresses); nil when it is neither.
    package init?(text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            let value = UInt32(bigEndian: v4.s_addr)
            self.init(v4: UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff))
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        let words = bytes.withUnsafeBytes { (ByteReader.u64($0, 0), ByteReader.u64($0, 8)) }
        self.init(v6High: words.0, low: words.1)
    }
}
