/// A subflow's 4-tuple, read from the kernel's `struct mptcp_subflow_addrs`: two 128-byte `sockaddr_storage`
/// unions, the local address then the remote one, each a `sockaddr_in` or `sockaddr_in6`.
public struct SubflowAddresses: Sendable, Equatable {
    public var localAddress: String
    public var localPort: Int
    public var remoteAddress: String
    public var remotePort: Int

    /// The size of one `sockaddr_storage`.
    public static let storageSize = 128

    /// The size of `struct mptcp_subflow_addrs`: the element size to ask the kernel for.
    public static let byteCount = 2 * storageSize

    public init(localAddress: String, localPort: Int, remoteAddress: String, remotePort: Int) {
        self.localAddress = localAddress
        self.localPort = localPort
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
    }

    /// Reads the two addresses; nil when the bytes are short or either is neither IPv4 nor IPv6.
    public init?(kernelBytes bytes: ArraySlice<UInt8>) {
        guard bytes.count >= Self.byteCount else { return nil }
        let start = bytes.startIndex
        guard let local = Self.address(bytes[start..<(start + Self.storageSize)]),
              let remote = Self.address(bytes[(start + Self.storageSize)..<(start + Self.byteCount)]) else { return nil }
        self.init(localAddress: local.address, localPort: local.port, remoteAddress: remote.address,
                  remotePort: remote.port)
    }

    /// A `sockaddr_in` (family 2: port at 2, address at 4) or `sockaddr_in6` (family 10: port at 2, address at 8)
    /// as text and port; the family is in host order (little-endian on the machines this reads).
    static func address(_ storage: ArraySlice<UInt8>) -> (address: String, port: Int)? {
        let port = Int(KernelBytes.networkU16(storage, at: 2))
        let start = storage.startIndex
        switch KernelBytes.u16(storage, at: 0) {
        case 2: return LinkLocalAddress.text(of: storage[(start + 4)..<(start + 8)]).map { ($0, port) }
        case 10: return LinkLocalAddress.text(of: storage[(start + 8)..<(start + 24)]).map { ($0, port) }
        default: return nil
        }
    }
}
