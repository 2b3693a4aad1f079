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
