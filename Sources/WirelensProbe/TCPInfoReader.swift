#if canImport(Glibc)
import Glibc
#endif
import WirelensCore

/// Reads the kernel's TCP facts of a socket (`getsockopt(TCP_INFO)`), with the length the running kernel returns.
///
/// glibc's `struct tcp_info` is older and shorter than the kernel's, so the socket is asked for a buffer larger
/// than any kernel's struct and the returned length says which fields exist.
public enum TCPInfoReader {
    /// Larger than the kernel's struct today (about 280 bytes on 6.x): the kernel copies at most what it has.
    static let bufferLength = 512

    /// The socket's snapshot, or nil when it is not a TCP socket, is closed, or this is not Linux.
    public static func read(socket: Int32) -> TCPInfo? {
        #if os(Linux)
        withUnsafeTemporaryAllocation(byteCount: bufferLength, alignment: 8) { buffer in
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            var length = socklen_t(bufferLength)
            guard getsockopt(socket, Int32(IPPROTO_TCP), TCP_INFO, buffer.baseAddress, &length) == 0 else { return nil }
            return TCPInfo(kernelBytes: UnsafeRawBufferPointer(buffer), length: Int(length))
        }
        #else
        nil
        #endif
    }

    /// The socket's send buffer as the kernel reports it (`SO_SNDBUF`: double what was set, or the auto-tuned size),
    /// or nil when it cannot be read.
    public static func sendBuffer(socket: Int32) -> Int? {
        #if os(Linux)
        var size: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(socket, SOL_SOCKET, SO_SNDBUF, &size, &length) == 0, size > 0 else { return nil }
        return Int(size)
        #else
        nil
        #endif
    }
}
