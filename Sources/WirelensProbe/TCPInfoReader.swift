#if canImport(Glibc)
import Glibc
#endif
import WirelensCore

/// Reads the kernel's TCP facts of a socket (`getsockopt(TCP_INFO)`), with the length the running kernel returns.
///
/// glibc's `struct tcp_info` is older and shorter than the kernel's, so the socket is asked for the bytes of every
/// field read (`TCPInfo.byteCount`) and the returned length says which of them the running kernel has.
package enum TCPInfoReader {
    /// The socket's snapshot, or nil when it is not a TCP socket, is closed, or this is not Linux.
    ///
    /// The kernel fills the snapshot's own bytes: it copies at most the length asked for (`TCPInfo.byteCount`, every
    /// field read here) and returns how much it had, so a kernel with a shorter struct leaves the later fields out.
    package static func read(socket: Int32) -> TCPInfo? {
        #if os(Linux)
        TCPInfo { buffer, capacity in
            var length = socklen_t(capacity)
            guard getsockopt(socket, Int32(IPPROTO_TCP), TCP_INFO, buffer, &length) == 0 else { return nil }
            return Int(length)
        }
        #else
        nil
        #endif
    }

    /// The socket's send buffer as the kernel reports it (`SO_SNDBUF`: double what was set, or the auto-tuned size),
    /// or nil when it cannot be read.
    package static func sendBuffer(socket: Int32) -> Int? {
        #if os(Linux)
        buffer(socket: socket, SO_SNDBUF)
        #else
        nil
        #endif
    }

    /// The socket's receive buffer as the kernel reports it (`SO_RCVBUF`: double what was set, or the auto-tuned
    /// size), or nil when it cannot be read.
    package static func receiveBuffer(socket: Int32) -> Int? {
        #if os(Linux)
        buffer(socket: socket, SO_RCVBUF)
        #else
        nil
        #endif
    }

    #if os(Linux)
    /// A socket buffer's size (`SOL_SOCKET` option `option`), or nil when it cannot be read.
    private static func buffer(socket: Int32, _ option: Int32) -> Int? {
        var size: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(socket, SOL_SOCKET, option, &size, &length) == 0, size > 0 else { return nil }
        return Int(size)
    }
    #endif
}
