@testable import WirelensCapture

/// Builds link-layer frames carrying one TCP segment, byte by byte, for the decoder and tracker tests.
struct FrameBuilder {
    var source = Endpoint(address: IPAddress(v4: 10, 0, 0, 1), port: 40000)
    var destination = Endpoint(address: IPAddress(v4: 10, 0, 0, 2), port: 80)

    /// A TCP header (with an optional window scale option) followed by the payload.
    static func tcp(from source: UInt16, to destination: UInt16, seq: UInt32, ack: UInt32, flags: TCPFlags,
                    window: UInt16 = 65535, windowScale: UInt8? = nil, payload: [UInt8] = []) -> [UInt8] {
        var options: [UInt8] = []
        if let windowScale { options = [1, 3, 3, windowScale] }
        let headerLength = 20 + options.count
        var bytes: [UInt8] = []
        bytes += be16(source) + be16(destination) + be32(seq) + be32(ack)
        bytes += [UInt8(headerLength / 4) << 4, flags.rawValue]
        bytes += be16(window) + [0, 0, 0, 0]
        return bytes + options + payload
    }

    /// An IPv4 header around `l4` (protocol 6 unless told).
    static func ipv4(_ src: IPAddress, _ dst: IPAddress, _ l4: [UInt8], protocolNumber: UInt8 = 6) -> [UInt8] {
        var bytes: [UInt8] = [0x45, 0] + be16(UInt16(20 + l4.count)) + [0, 1, 0x40, 0, 64, protocolNumber, 0, 0]
        bytes += be32(UInt32(truncatingIfNeeded: src.low)) + be32(UInt32(truncatingIfNeeded: dst.low))
        return bytes + l4
    }

    /// An IPv6 header around `l4`, with one hop-by-hop extension header when asked.
    static func ipv6(_ src: IPAddress, _ dst: IPAddress, _ l4: [UInt8], hopByHop: Bool = false) -> [UInt8] {
        let ext: [UInt8] = hopByHop ? [6, 0, 1, 4, 0, 0, 0, 0] : []
        var bytes: [UInt8] = [0x60, 0, 0, 0] + be16(UInt16(ext.count + l4.count)) + [hopByHop ? 0 : 6, 64]
        bytes += be64(src.high) + be64(src.low) + be64(dst.high) + be64(dst.low)
        return bytes + ext + l4
    }

    static func ethernet(_ ip: [UInt8], v6: Bool = false, vlan: Bool = false) -> [UInt8] {
        var bytes = [UInt8](repeating: 0xaa, count: 12)
        if vlan { bytes += [0x81, 0x00, 0x00, 0x05] }
        return bytes + (v6 ? [0x86, 0xdd] : [0x08, 0x00]) + ip
    }

    static func linuxCooked(_ ip: [UInt8], v6: Bool = false) -> [UInt8] {
        [0, 0, 0, 1, 0, 6] + [UInt8](repeating: 0, count: 8) + (v6 ? [0x86, 0xdd] : [0x08, 0x00]) + ip
    }

    static func linuxCooked2(_ ip: [UInt8], v6: Bool = false) -> [UInt8] {
        (v6 ? [0x86, 0xdd] : [0x08, 0x00]) + [0, 0, 0, 0, 0, 1, 0, 1, 0, 6] + [UInt8](repeating: 0, count: 8) + ip
    }

    /// DLT_NULL with the family in little-endian order (as a Linux or x86 BSD host writes it).
    static func null(_ ip: [UInt8], v6: Bool = false) -> [UInt8] {
        (v6 ? [30, 0, 0, 0] : [2, 0, 0, 0]) + ip
    }

    /// An Ethernet/IPv4 frame of a segment from `source` to `destination` (or back with `reverse`).
    func frame(seq: UInt32, ack: UInt32 = 0, flags: TCPFlags, window: UInt16 = 65535, windowScale: UInt8? = nil,
               payload: [UInt8] = [], reverse: Bool = false) -> [UInt8] {
        let (a, b) = reverse ? (destination, source) : (source, destination)
        let tcp = Self.tcp(from: a.port, to: b.port, seq: seq, ack: ack, flags: flags, window: window,
                           windowScale: windowScale, payload: payload)
        return Self.ethernet(Self.ipv4(a.address, b.address, tcp))
    }

    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xff)] }
    static func be32(_ v: UInt32) -> [UInt8] { be16(UInt16(v >> 16)) + be16(UInt16(v & 0xffff)) }
    static func be64(_ v: UInt64) -> [UInt8] { be32(UInt32(v >> 32)) + be32(UInt32(v & 0xffff_ffff)) }
}
