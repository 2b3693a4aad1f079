import WirelensCaptureModel

/// Decodes link-layer frames down to TCP segments: pure functions over the captured bytes.
///
/// The usual frame, Ethernet carrying IPv4 without a VLAN tag, is decoded by code inlined into the caller (a
/// batch's loop), which then stores the outcome where it keeps it; the other link types, tagged frames and IPv6
/// go through `decodeOther`. Header fields are read with one load each once the header's length is checked.
package enum PacketDecoder {
    /// What a frame turned out to be.
    package enum Outcome {
        /// A TCP segment (its payload points into the frame).
        case tcp(TCPSegment)
        /// A well-formed frame that is not TCP over IP (ARP, UDP, ICMP, IP fragments...).
        case notTCP
        /// The capture cut the frame before the end of the TCP header, or a length field is inconsistent.
        case truncated
    }

    /// Decodes one frame of the given link type.
    package static func decode(_ frame: UnsafeRawBufferPointer, linkType: LinkType) -> Outcome {
        var outcome = Outcome.notTCP
        decode(frame, linkType: linkType, into: &outcome)
        return outcome
    }

    /// Decodes one frame of the given link type into `outcome` (a batch's record).
    ///
    /// A TCP segment of untagged Ethernet carrying IPv4, whole up to the end of its TCP header, is decoded and
    /// stored here, inline (a SYN's, whose options are walked for the window scale, out of line); every other
    /// frame goes to `decodeOther`, which decodes it from its start with the same functions, so both paths give
    /// the same outcome.
    @inline(__always)
    static func decode(_ frame: UnsafeRawBufferPointer, linkType: LinkType, into outcome: inout Outcome) {
        if linkType == .ethernet, frame.count >= 14, ByteReader.u16(frame, 12) == 0x0800,
           case .segment(let at, let length) = ipv4Span(frame, at: 14),
           let headerLength = tcpHeaderLength(frame, at: at, length: length) {
            if flags(frame, at: at).contains(.syn) {
                storeSegment(frame, ip: 14, tcp: at, headerLength: headerLength, length: length, into: &outcome)
            } else {
                outcome = .tcp(ipv4Segment(frame, ip: 14, tcp: at, headerLength: headerLength, length: length))
            }
        } else {
            decodeOther(frame, linkType: linkType, into: &outcome)
        }
    }

    /// The segment of the IPv4 packet at `offset` whose TCP header (`headerLength` bytes, its fixed part captured)
    /// starts `at`, in a segment `length` bytes long.
    @inline(__always)
    private static func ipv4Segment(_ frame: UnsafeRawBufferPointer, ip offset: Int, tcp at: Int, headerLength: Int,
                                    length: Int) -> TCPSegment {
        segment(frame, at: at, headerLength: headerLength, length: length,
                source: IPAddress.v4(frame, at: offset &+ 12), destination: IPAddress.v4(frame, at: offset &+ 16))
    }

    /// `ipv4Segment` out of line, stored into `outcome`: the inline path keeps no values across the option walk.
    @inline(never)
    private static func storeSegment(_ frame: UnsafeRawBufferPointer, ip offset: Int, tcp at: Int, headerLength: Int,
                                     length: Int, into outcome: inout Outcome) {
        outcome = .tcp(ipv4Segment(frame, ip: offset, tcp: at, headerLength: headerLength, length: length))
    }

    /// `decodeOther` out of line: stores its outcome itself, so that the inline path's store stays its own.
    @inline(never)
    private static func decodeOther(_ frame: UnsafeRawBufferPointer, linkType: LinkType,
                                    into outcome: inout Outcome) {
        outcome = decodeOther(frame, linkType: linkType)
    }

    /// Decodes a frame of any link type, down every path.
    private static func decodeOther(_ frame: UnsafeRawBufferPointer, linkType: LinkType) -> Outcome {
        switch linkType {
        case .ethernet: return ethernet(frame)
        case .linuxCooked:
            guard frame.count >= 16 else { return .truncated }
            return network(frame, etherType: ByteReader.u16(frame, 14), at: 16)
        case .linuxCooked2:
            guard frame.count >= 20 else { return .truncated }
            return network(frame, etherType: ByteReader.u16(frame, 0), at: 20)
        case .null, .loop:
            guard frame.count >= 4 else { return .truncated }
            let big = ByteReader.u32(frame, 0)
            // DLT_NULL is in the capturing host's order: a family above 0xffff read big-endian is little-endian.
            let family = linkType == .loop || big <= 0xffff ? big : big.byteSwapped
            switch family {
            case 2: return ipv4(frame, at: 4)
            case 10, 24, 28, 30: return ipv6(frame, at: 4)  // AF_INET6 on Linux, NetBSD/OpenBSD, FreeBSD, Darwin
            default: return .notTCP
            }
        case .raw: return ipByVersion(frame, at: 0)
        case .ipv4: return ipv4(frame, at: 0)
        case .ipv6: return ipv6(frame, at: 0)
        }
    }

    private static func ethernet(_ frame: UnsafeRawBufferPointer) -> Outcome {
        var offset = 12
        // 802.1Q (0x8100), 802.1ad (0x88a8) and the old QinQ 0x9100 tags: skip each 4-byte tag.
        for _ in 0..<4 {
            guard frame.count >= offset + 2 else { return .truncated }
            let type = ByteReader.u16(frame, offset)
            if type == 0x8100 || type == 0x88a8 || type == 0x9100 {
                offset += 4
                continue
            }
            return network(frame, etherType: type, at: offset + 2)
        }
        return .notTCP
    }

    private static func network(_ frame: UnsafeRawBufferPointer, etherType: UInt16, at offset: Int) -> Outcome {
        switch etherType {
        case 0x0800: ipv4(frame, at: offset)
        case 0x86dd: ipv6(frame, at: offset)
        default: .notTCP
        }
    }

    private static func ipByVersion(_ frame: UnsafeRawBufferPointer, at offset: Int) -> Outcome {
        guard frame.count > offset else { return .truncated }
        switch frame[offset] >> 4 {
        case 4: return ipv4(frame, at: offset)
        case 6: return ipv6(frame, at: offset)
        default: return .notTCP
        }
    }

    /// Where an IPv4 packet's TCP segment lies, or why it has none.
    private enum Span {
        /// The TCP header starts `at` in the frame; the segment is `length` bytes long, header included.
        case segment(at: Int, length: Int)
        case notTCP
        case truncated
    }

    private static func ipv4(_ frame: UnsafeRawBufferPointer, at offset: Int) -> Outcome {
        switch ipv4Span(frame, at: offset) {
        case .segment(let at, let length):
            return tcp(frame, at: at, length: length, source: IPAddress.v4(frame, at: offset + 12),
                       destination: IPAddress.v4(frame, at: offset + 16))
        case .notTCP: return .notTCP
        case .truncated: return .truncated
        }
    }

    /// The TCP segment of the IPv4 packet at `offset`, unless the packet is no whole unfragmented TCP packet.
    @inline(__always)
    private static func ipv4Span(_ frame: UnsafeRawBufferPointer, at offset: Int) -> Span {
        guard frame.count >= offset &+ 20 else { return .truncated }
        let first = frame.load(fromByteOffset: offset, as: UInt8.self)
        guard first >> 4 == 4 else { return .notTCP }
        let headerLength = Int(first & 0x0f) &* 4
        guard headerLength >= 20 else { return .truncated }
        guard frame.load(fromByteOffset: offset &+ 9, as: UInt8.self) == 6 else { return .notTCP }
        // Fragments (offset set, or more-fragments set) are not reassembled.
        guard ByteReader.u16(frame, offset &+ 6) & 0x3fff == 0 else { return .notTCP }
        var total = Int(ByteReader.u16(frame, offset &+ 2))
        // A zero total length comes from TCP segmentation offload; the captured frame is then the packet.
        if total == 0 { total = frame.count &- offset }
        guard total >= headerLength else { return .truncated }
        return .segment(at: offset &+ headerLength, length: total &- headerLength)
    }

    private static func ipv6(_ frame: UnsafeRawBufferPointer, at offset: Int) -> Outcome {
        guard frame.count >= offset + 40 else { return .truncated }
        guard frame[offset] >> 4 == 6 else { return .notTCP }
        var remaining = Int(ByteReader.u16(frame, offset + 4))
        if remaining == 0 { remaining = frame.count - offset - 40 }  // jumbogram or offload
        var next = frame[offset + 6]
        var position = offset + 40
        // Skip hop-by-hop (0), routing (43) and destination-options (60) headers; a fragment header (44) ends it.
        for _ in 0..<8 {
            switch next {
            case 6:
                return tcp(frame, at: position, length: remaining, source: IPAddress.v6(frame, at: offset + 8),
                           destination: IPAddress.v6(frame, at: offset + 24))
            case 0, 43, 60:
                guard frame.count >= position + 2 else { return .truncated }
                let length = (Int(frame[position + 1]) + 1) * 8
                guard remaining >= length else { return .truncated }
                next = frame[position]
                position += length
                remaining -= length
            default:
                return .notTCP
            }
        }
        return .notTCP
    }

    private static func tcp(_ frame: UnsafeRawBufferPointer, at offset: Int, length: Int, source: IPAddress,
                            destination: IPAddress) -> Outcome {
        guard let headerLength = tcpHeaderLength(frame, at: offset, length: length) else { return .truncated }
        return .tcp(segment(frame, at: offset, headerLength: headerLength, length: length, source: source,
                            destination: destination))
    }

    /// The length of the TCP header at `offset` of a segment `length` bytes long, nil when the capture cut the
    /// header's fixed part or the lengths disagree.
    @inline(__always)
    private static func tcpHeaderLength(_ frame: UnsafeRawBufferPointer, at offset: Int, length: Int) -> Int? {
        guard frame.count >= offset &+ 20, length >= 20 else { return nil }
        let headerLength = Int(frame.load(fromByteOffset: offset &+ 12, as: UInt8.self) >> 4) &* 4
        guard headerLength >= 20, length >= headerLength else { return nil }
        return headerLength
    }

    /// The flags of the TCP header at `offset` (its fixed part captured).
    @inline(__always)
    private static func flags(_ frame: UnsafeRawBufferPointer, at offset: Int) -> TCPFlags {
        TCPFlags(rawValue: frame.load(fromByteOffset: offset &+ 13, as: UInt8.self) & 0x1f)
    }

    /// The segment whose TCP header (`headerLength` bytes, its fixed part captured) starts at `offset`.
    @inline(__always)
    private static func segment(_ frame: UnsafeRawBufferPointer, at offset: Int, headerLength: Int, length: Int,
                                source: IPAddress, destination: IPAddress) -> TCPSegment {
        let flags = flags(frame, at: offset)
        var scale: UInt8?
        if flags.contains(.syn) { scale = windowScale(frame, from: offset &+ 20, to: offset &+ headerLength) }
        // The payload is what the capture kept of the segment: none of it when the cut fell in the options.
        let payloadStart = min(offset &+ headerLength, frame.count)
        let payloadLength = length &- headerLength
        let captured = min(payloadLength, frame.count &- payloadStart)
        return TCPSegment(
            source: Endpoint(address: source, port: ByteReader.u16(frame, offset)),
            destination: Endpoint(address: destination, port: ByteReader.u16(frame, offset &+ 2)),
            sequence: ByteReader.u32(frame, offset &+ 4), acknowledgement: ByteReader.u32(frame, offset &+ 8),
            flags: flags, window: ByteReader.u16(frame, offset &+ 14), windowScale: scale,
            payloadLength: payloadLength,
            payload: UnsafeRawBufferPointer(start: frame.baseAddress.unsafelyUnwrapped + payloadStart,
                                            count: captured))
    }

    /// The window scale option among the TCP options in `start..<end`, if present and captured.
    private static func windowScale(_ frame: UnsafeRawBufferPointer, from start: Int, to end: Int) -> UInt8? {
        var i = start
        let limit = min(end, frame.count)
        while i < limit {
            let kind = frame[i]
            if kind == 0 { return nil }
            if kind == 1 {
                i += 1
                continue
            }
            guard i + 1 < limit else { return nil }
            let length = Int(frame[i + 1])
            guard length >= 2 else { return nil }
            if kind == 3 && length == 3 && i + 2 < limit { return min(frame[i + 2], 14) }
            i += length
        }
        return nil
    }
}
