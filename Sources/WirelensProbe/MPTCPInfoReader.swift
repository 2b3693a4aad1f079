#if canImport(Glibc)
import Glibc
#endif
import WirelensCore

/// Reads the Multipath TCP facts of a socket (`getsockopt` at `SOL_MPTCP`: `MPTCP_INFO`, `MPTCP_TCPINFO`,
/// `MPTCP_SUBFLOW_ADDRS`); the bytes are decoded by `MPTCPFacts.of` and the types it uses.
package enum MPTCPInfoReader {
    /// `IPPROTO_MPTCP`, and the level and options of `<linux/mptcp.h>`.
    private static let protocolNumber: Int32 = 262
    private static let level: Int32 = 284
    private static let infoOption: Int32 = 1
    private static let tcpInfoOption: Int32 = 2
    private static let addressesOption: Int32 = 3
    /// The most subflows read: the in-kernel path manager allows 8 (`ip mptcp limits`).
    private static let subflowCapacity = 8

    /// The facts of `socket`, or nil when it is not a Multipath TCP socket (`SO_PROTOCOL` is not 262: plain TCP,
    /// as the kernel gave when it refused MPTCP) or this is not Linux. A connection that fell back to TCP answers
    /// `MPTCP_INFO` with EOPNOTSUPP: its facts say `negotiated: false`.
    package static func read(socket: Int32, sendsBody: Bool) -> MPTCPFacts? {
        #if os(Linux)
        var proto: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(socket, SOL_SOCKET, SO_PROTOCOL, &proto, &length) == 0, proto == protocolNumber else {
            return nil
        }
        let info = bytes(socket, infoOption, [UInt8](repeating: 0, count: 128)).flatMap { MPTCPInfo(kernelBytes: $0[...]) }
        let tcpInfo = subflowData(socket, tcpInfoOption, elementSize: TCPInfo.byteCount)
        let addresses = subflowData(socket, addressesOption, elementSize: SubflowAddresses.byteCount)
        return MPTCPFacts.of(info: info, tcpInfo: tcpInfo, addresses: addresses, sendsBody: sendsBody)
        #else
        nil
        #endif
    }

    #if os(Linux)
    /// The answer to an option that lists the subflows, asked for elements of `elementSize` bytes.
    private static func subflowData(_ socket: Int32, _ option: Int32, elementSize: Int) -> MPTCPSubflowData? {
        let request = MPTCPSubflowData.request(elementSize: elementSize, capacity: subflowCapacity)
        guard let answer = bytes(socket, option, request) else { return nil }
        return MPTCPSubflowData(kernelBytes: answer, length: answer.count)
    }

    /// The bytes the kernel wrote for `option`, starting from `buffer` (what the option reads first), cut to the
    /// length it returned; nil when it refused.
    private static func bytes(_ socket: Int32, _ option: Int32, _ buffer: [UInt8]) -> [UInt8]? {
        var buffer = buffer
        var length = socklen_t(buffer.count)
        let result = buffer.withUnsafeMutableBytes { getsockopt(socket, level, option, $0.baseAddress, &length) }
        guard result == 0 else { return nil }
        return Array(buffer.prefix(Int(length)))
    }
    #endif
}
