/// The TCP header's flag bits.
package struct TCPFlags: OptionSet, Sendable, Hashable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    package static let fin = TCPFlags(rawValue: 0x01)
    package static let syn = TCPFlags(rawValue: 0x02)
    package static let rst = TCPFlags(rawValue: 0x04)
    package static let psh = TCPFlags(rawValue: 0x08)
    package static let ack = TCPFlags(rawValue: 0x10)
}
