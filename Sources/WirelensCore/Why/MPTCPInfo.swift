/// The head of the kernel's `struct mptcp_info` for a Multipath TCP socket (`getsockopt(SOL_MPTCP, MPTCP_INFO)`,
/// `<linux/mptcp.h>`): the facts that say whether MPTCP runs on the connection.
///
/// Linux only appends to the struct, so these fields lie at the same offsets on every kernel that has it (5.16 on).
public struct MPTCPInfo: Sendable, Equatable {
    /// The subflows the connection has besides its first (`mptcpi_subflows`).
    public let additionalSubflows: UInt8
    /// `mptcpi_flags`: bit 0 `MPTCP_INFO_FLAG_FALLBACK`, bit 1 `MPTCP_INFO_FLAG_REMOTE_KEY_RECEIVED`.
    public let flags: UInt32
    /// The connection's local token (`mptcpi_token`).
    public let token: UInt32

    /// The bytes the fields read here need: up to `mptcpi_token`.
    public static let minimumLength = 16

    /// Reads the struct's head from the bytes the kernel filled; nil when too short to hold it.
    public init?(kernelBytes bytes: ArraySlice<UInt8>) {
        guard bytes.count >= Self.minimumLength else { return nil }
        additionalSubflows = bytes[bytes.startIndex]
        flags = KernelBytes.u32(bytes, at: 8)
        token = KernelBytes.u32(bytes, at: 12)
    }

    /// True when the connection fell back to plain TCP (the peer did not answer MP_CAPABLE).
    public var fellBack: Bool { flags & 1 != 0 }
}
