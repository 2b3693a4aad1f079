import XCTest
@testable import WirelensCapture

/// Link-layer and IP decoding down to TCP segments, on hand-built frames.
final class PacketDecoderTests: XCTestCase {
    private let v4a = IPAddress(v4: 192, 168, 1, 10)
    private let v4b = IPAddress(v4: 10, 20, 30, 40)
    private let v6a = IPAddress(v6High: 0x2001_0db8_0000_0000, low: 0x0000_0000_0000_0001)
    private let v6b = IPAddress(v6High: 0, low: 1)

    private func decode(_ frame: [UInt8], _ linkType: LinkType,
                        check: (TCPSegment) -> Void = { _ in }) -> String {
        frame.withUnsafeBytes { bytes in
            switch PacketDecoder.decode(bytes, linkType: linkType) {
            case .tcp(let segment):
                check(segment)
                return "tcp \(segment.source) > \(segment.destination) seq \(segment.sequence) ack "
                    + "\(segment.acknowledgement) flags \(segment.flags.rawValue) len \(segment.payloadLength) "
                    + "captured \(segment.payload.count) payload \(String(decoding: segment.payload, as: UTF8.self))"
            case .notTCP: return "not tcp"
            case .truncated: return "truncated"
            }
        }
    }

    private func segment(_ payload: String = "GET", flags: TCPFlags = [.ack, .psh]) -> [UInt8] {
        FrameBuilder.tcp(from: 51000, to: 8080, seq: 0xffff_fff0, ack: 77, flags: flags, payload: Array(payload.utf8))
    }

    func testEveryLinkTypeDecodesTheSameIPv4Segment() {
        let ip = FrameBuilder.ipv4(v4a, v4b, segment())
        let expected = "tcp 192.168.1.10:51000 > 10.20.30.40:8080 seq 4294967280 ack 77 flags 24 len 3 captured 3 payload GET"
        XCTAssertEqual(decode(FrameBuilder.ethernet(ip), .ethernet), expected)
        XCTAssertEqual(decode(FrameBuilder.ethernet(ip, vlan: true), .ethernet), expected)
        XCTAssertEqual(decode(FrameBuilder.linuxCooked(ip), .linuxCooked), expected)
        XCTAssertEqual(decode(FrameBuilder.linuxCooked2(ip), .linuxCooked2), expected)
        XCTAssertEqual(decode(FrameBuilder.null(ip), .null), expected)
        XCTAssertEqual(decode([0, 0, 0, 2] + ip, .loop), expected)
        XCTAssertEqual(decode([0, 0, 0, 2] + ip, .null), expected, "big-endian DLT_NULL family")
        XCTAssertEqual(decode(ip, .raw), expected)
        XCTAssertEqual(decode(ip, .ipv4), expected)
    }

    func testIPv6WithAndWithoutExtensionHeaders() {
        let expected = "tcp [2001:db8::1]:51000 > [::1]:8080 seq 4294967280 ack 77 flags 24 len 3 captured 3 payload GET"
        let plain = FrameBuilder.ipv6(v6a, v6b, segment())
        let hop = FrameBuilder.ipv6(v6a, v6b, segment(), hopByHop: true)
        XCTAssertEqual(decode(FrameBuilder.ethernet(plain, v6: true), .ethernet), expected)
        XCTAssertEqual(decode(FrameBuilder.ethernet(hop, v6: true), .ethernet), expected)
        XCTAssertEqual(decode(FrameBuilder.linuxCooked2(hop, v6: true), .linuxCooked2), expected)
        XCTAssertEqual(decode(FrameBuilder.null(plain, v6: true), .null), expected)
        XCTAssertEqual(decode(plain, .raw), expected)
        XCTAssertEqual(decode(plain, .ipv6), expected)
    }

    func testSnapshotCutKeepsTheWireLengthAndTheCapturedPart() {
        let frame = FrameBuilder.ethernet(FrameBuilder.ipv4(v4a, v4b, segment("HELLO WORLD")))
        let cut = Array(frame.prefix(frame.count - 6))
        XCTAssertEqual(decode(cut, .ethernet) { XCTAssertEqual($0.missingPayload, 6) },
                       "tcp 192.168.1.10:51000 > 10.20.30.40:8080 seq 4294967280 ack 77 flags 24 len 11 captured 5 payload HELLO")
        // Cut inside the TCP header: nothing to decode.
        XCTAssertEqual(decode(Array(frame.prefix(14 + 20 + 10)), .ethernet), "truncated")
        XCTAssertEqual(decode(Array(frame.prefix(10)), .ethernet), "truncated")
    }

    func testOtherTrafficIsNotTCP() {
        let udp = FrameBuilder.ipv4(v4a, v4b, [0, 53, 0, 53, 0, 8, 0, 0], protocolNumber: 17)
        XCTAssertEqual(decode(FrameBuilder.ethernet(udp), .ethernet), "not tcp")
        var arp = [UInt8](repeating: 0, count: 12) + [0x08, 0x06] + [UInt8](repeating: 0, count: 28)
        XCTAssertEqual(decode(arp, .ethernet), "not tcp")
        arp[12] = 0x86
        XCTAssertEqual(decode(arp, .ethernet), "not tcp")
        // A fragment (more-fragments bit set) is not reassembled.
        var fragment = FrameBuilder.ipv4(v4a, v4b, segment())
        fragment[6] = 0x20
        XCTAssertEqual(decode(fragment, .raw), "not tcp")
    }

    /// An IPv4 header (with `options`) around `tcp`, its total length field `total` (the true length unless told)
    /// and its flags/fragment-offset field `fragment`.
    private func ipv4(_ tcp: [UInt8], options: [UInt8] = [], total: Int? = nil, fragment: UInt16 = 0x4000,
                      version: UInt8 = 4, headerWords: Int? = nil) -> [UInt8] {
        let header = 20 + options.count
        var bytes: [UInt8] = [version << 4 | UInt8(headerWords ?? header / 4), 0]
            + FrameBuilder.be16(UInt16(total ?? header + tcp.count)) + [0, 1] + FrameBuilder.be16(fragment) + [64, 6, 0, 0]
        bytes += FrameBuilder.be32(UInt32(v4a.low)) + FrameBuilder.be32(UInt32(v4b.low))
        return bytes + options + tcp
    }

    /// Untagged Ethernet carrying IPv4, the frames decoded inline, decode as their headers say in every corner:
    /// IP options, offload's zero total length, Ethernet padding, fragments, bad versions and lengths.
    func testEthernetIPv4FramesDecodeAsTheirHeadersSay() {
        let get = "tcp 192.168.1.10:51000 > 10.20.30.40:8080 seq 4294967280 ack 77 flags 24 len 3 captured 3 payload GET"
        XCTAssertEqual(decode(FrameBuilder.ethernet(ipv4(segment(), options: [1, 1, 1, 0, 7, 3, 4, 0])), .ethernet), get)
        // Padding after the IP packet (a short frame) is not payload; with a zero total length it is.
        XCTAssertEqual(decode(FrameBuilder.ethernet(ipv4(segment())) + [0x58, 0x59, 0, 0], .ethernet), get)
        XCTAssertEqual(decode(FrameBuilder.ethernet(ipv4(segment("HELLO"), total: 0)), .ethernet),
                       "tcp 192.168.1.10:51000 > 10.20.30.40:8080 seq 4294967280 ack 77 flags 24 len 5 captured 5 payload HELLO")
        XCTAssertEqual(decode(FrameBuilder.ethernet(ipv4(segment("HELLO"), total: 0)) + [0x58, 0x59], .ethernet),
                       "tcp 192.168.1.10:51000 > 10.20.30.40:8080 seq 4294967280 ack 77 flags 24 len 7 captured 7 payload HELLOXY")
        XCTAssertEqual(decode(FrameBuilder.ethernet(ipv4(segment(""))) + [0, 0, 0, 0, 0, 0], .ethernet),
                       "tcp 192.168.1.10:51000 > 10.20.30.40:8080 seq 4294967280 ack 77 flags 24 len 0 captured 0 payload ")
        // Don't-fragment is no fragment; an offset or more-fragments is one.
        XCTAssertEqual(decode(FrameBuilder.ethernet(ipv4(segment(), fragment: 0)), .ethernet), get)
        XCTAssertEqual(decode(FrameBuilder.ethernet(ipv4(segment(), fragment: 0x0001)), .ethernet), "not tcp")
        XCTAssertEqual(decode(FrameBuilder.ethernet(ipv4(segment(), fragment: 0x2000)), .ethernet), "not tcp")
        XCTAssertEqual(decode(FrameBuilder.ethernet(ipv4(segment(), version: 6)), .ethernet), "not tcp")
        XCTAssertEqual(decode(FrameBuilder.ethernet(ipv4(segment(), headerWords: 4)), .ethernet), "truncated")
        XCTAssertEqual(decode(FrameBuilder.ethernet(ipv4(segment(), total: 19)), .ethernet), "truncated")
        // A TCP segment shorter than its fixed header, or than the header its data offset gives.
        XCTAssertEqual(decode(FrameBuilder.ethernet(ipv4(segment(), total: 20 + 19)), .ethernet), "truncated")
        var shortOffset = segment()
        shortOffset[12] = 4 << 4
        XCTAssertEqual(decode(FrameBuilder.ethernet(ipv4(shortOffset)), .ethernet), "truncated")
        var longOffset = segment()
        longOffset[12] = 6 << 4  // 24 bytes of header in a 23-byte segment
        XCTAssertEqual(decode(FrameBuilder.ethernet(ipv4(longOffset)), .ethernet), "truncated")
        // Cut: inside the IP options, inside the fixed TCP header, before the IP header ends.
        let withOptions = FrameBuilder.ethernet(ipv4(segment(), options: [1, 1, 1, 1]))
        XCTAssertEqual(decode(Array(withOptions.prefix(14 + 24 + 19)), .ethernet), "truncated")
        XCTAssertEqual(decode(Array(withOptions.prefix(14 + 22)), .ethernet), "truncated")
        XCTAssertEqual(decode(Array(withOptions.prefix(14 + 19)), .ethernet), "truncated")
        XCTAssertEqual(decode(Array(withOptions.prefix(14)), .ethernet), "truncated")
        XCTAssertEqual(decode(Array(withOptions.prefix(13)), .ethernet), "truncated")
        XCTAssertEqual(decode([], .ethernet), "truncated")
    }

    /// A snapshot cut inside the TCP options keeps the segment (no payload captured) and drops a window scale
    /// option it cut; a scale above 14 counts as 14 (RFC 7323).
    func testCutInsideTheTCPOptions() {
        let syn = FrameBuilder.ethernet(ipv4(FrameBuilder.tcp(from: 1, to: 2, seq: 5, ack: 0, flags: .syn,
                                                              windowScale: 7, payload: Array("ABC".utf8))))
        let cutScale = decode(Array(syn.prefix(14 + 20 + 22)), .ethernet) { XCTAssertNil($0.windowScale) }
        XCTAssertEqual(cutScale, "tcp 192.168.1.10:1 > 10.20.30.40:2 seq 5 ack 0 flags 2 len 3 captured 0 payload ")
        let keptScale = decode(Array(syn.prefix(14 + 20 + 24)), .ethernet) { XCTAssertEqual($0.windowScale, 7) }
        XCTAssertEqual(keptScale, "tcp 192.168.1.10:1 > 10.20.30.40:2 seq 5 ack 0 flags 2 len 3 captured 0 payload ")
        let large = FrameBuilder.tcp(from: 1, to: 2, seq: 5, ack: 0, flags: .syn, windowScale: 20)
        _ = decode(FrameBuilder.ethernet(ipv4(large)), .ethernet) { XCTAssertEqual($0.windowScale, 14) }
    }

    /// Two stacked VLAN tags (802.1ad then 802.1Q) are skipped; five are more than the decoder looks through, and
    /// a frame cut inside a tag is truncated.
    func testStackedVLANTags() {
        let ip = ipv4(segment())
        let qinq = [UInt8](repeating: 0xaa, count: 12) + [0x88, 0xa8, 0, 1, 0x81, 0x00, 0, 2, 0x08, 0x00] + ip
        XCTAssertEqual(decode(qinq, .ethernet),
                       "tcp 192.168.1.10:51000 > 10.20.30.40:8080 seq 4294967280 ack 77 flags 24 len 3 captured 3 payload GET")
        let five = [UInt8](repeating: 0xaa, count: 12) + Array([[UInt8]](repeating: [0x81, 0x00, 0, 1], count: 5).joined())
            + [0x08, 0x00] + ip
        XCTAssertEqual(decode(five, .ethernet), "not tcp")
        XCTAssertEqual(decode(Array(qinq.prefix(17)), .ethernet), "truncated")
    }

    func testWindowScaleOptionOfASYN() {
        let syn = FrameBuilder.tcp(from: 1, to: 2, seq: 5, ack: 0, flags: .syn, windowScale: 7)
        _ = decode(FrameBuilder.ethernet(FrameBuilder.ipv4(v4a, v4b, syn)), .ethernet) {
            XCTAssertEqual($0.windowScale, 7)
            XCTAssertEqual($0.flags, .syn)
        }
    }

    func testIPv6TextFollowsRFC5952() {
        XCTAssertEqual(IPAddress(v6High: 0x2001_0db8_0000_0000, low: 0x0000_0000_0000_0001).description, "2001:db8::1")
        XCTAssertEqual(IPAddress(v6High: 0, low: 0).description, "::")
        XCTAssertEqual(IPAddress(v6High: 0x2001_0db8_0000_0001, low: 0x0000_0001_0000_0001).description,
                       "2001:db8:0:1:0:1:0:1")
        XCTAssertEqual(IPAddress(v6High: 0xfe80_0000_0000_0000, low: 0x0000_0000_0000_0000).description, "fe80::")
        XCTAssertEqual(IPAddress(v4: 127, 0, 0, 1).description, "127.0.0.1")
    }
}
