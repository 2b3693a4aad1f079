/// The answer of a Multipath TCP socket to `MPTCP_TCPINFO` or `MPTCP_SUBFLOW_ADDRS` (`<linux/mptcp.h>`): the
/// 16-byte `struct mptcp_subflow_data` header, then one element per subflow, each `elementSize` bytes.
///
/// The caller fills the header (`request`) with the element size it can read; the kernel writes back how many
/// subflows the connection has, its own element size, and the size it used (the smaller of the two), then as many
/// elements as fit in the buffer.
public struct MPTCPSubflowData: Sendable, Equatable {
    /// The subflows the connection has (`num_subflows`); more than `elements` when the buffer held fewer.
    public let subflowCount: Int
    /// The kernel's own element size (`size_kernel`).
    public let kernelElementSize: Int
    /// Each element's bytes, as many as the answer holds, `size_user` bytes apart.
    public let elements: [ArraySlice<UInt8>]

    /// The header's size (`sizeof(struct mptcp_subflow_data)`).
    public static let headerSize = 16

    /// The bytes to hand the kernel: the header asking for elements of `elementSize` bytes (`size_subflow_data` 16,
    /// `num_subflows` and `size_kernel` 0 as the kernel requires), then room for `capacity` elements.
    public static func request(elementSize: Int, capacity: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: headerSize + elementSize * capacity)
        for (offset, value) in [(0, headerSize), (12, elementSize)] {
            for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
        }
        return bytes
    }

    /// Reads the answer from the `length` bytes the kernel filled; nil when it has no whole header or names an
    /// element size of 0 with subflows to show.
    public init?(kernelBytes bytes: [UInt8], length: Int) {
        let valid = bytes[..<min(max(length, 0), bytes.count)]
        guard valid.count >= Self.headerSize else { return nil }
        let headerSize = Int(KernelBytes.u32(valid, at: 0))
        let count = Int(KernelBytes.u32(valid, at: 4))
        let size = Int(KernelBytes.u32(valid, at: 12))
        guard headerSize >= Self.headerSize, headerSize <= valid.count else { return nil }
        guard size > 0 || count == 0 else { return nil }
        subflowCount = count
        kernelElementSize = Int(KernelBytes.u32(valid, at: 8))
        var elements: [ArraySlice<UInt8>] = []
        var start = headerSize
        while elements.count < count, start + size <= valid.count {
            elements.append(valid[start..<(start + size)])
            start += size
        }
        self.elements = elements
    }

    /// The elements as the kernel's `struct tcp_info` of each subflow (`MPTCP_TCPINFO`); one too short to read is
    /// left out.
    public var tcpInfos: [TCPInfo] {
        elements.compactMap { element in
            Array(element).withUnsafeBytes { TCPInfo(kernelBytes: $0, length: element.count) }
        }
    }

    /// The elements as each subflow's local and remote address (`MPTCP_SUBFLOW_ADDRS`); one of another family is nil.
    public var addresses: [SubflowAddresses?] {
        elements.map(SubflowAddresses.init(kernelBytes:))
    }
}
