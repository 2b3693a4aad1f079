/// One end of a TCP connection: an address and a port.
public struct Endpoint: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var address: IPAddress
    public var port: UInt16

    public init(address: IPAddress, port: UInt16) {
        self.address = address
        self.port = port
    }

    /// By address, then port. Inlinable: the capture's flow table orders the two ends of every packet's 4-tuple
    /// with it.
    @inlinable
    public static func < (lhs: Endpoint, rhs: Endpoint) -> Bool {
        (lhs.address, lhs.port) < (rhs.address, rhs.port)
    }

    /// `address:port`, with IPv6 addresses in brackets.
    public var description: String {
        address.isIPv6 ? "[\(address)]:\(port)" : "\(address):\(port)"
    }
}
