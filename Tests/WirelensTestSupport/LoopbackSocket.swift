import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP socket on 127.0.0.1 for tests that need what an HTTP client will not do: a listener that holds a
/// port, or a client that sends half a request and watches for the server's close.
public final class LoopbackSocket {
    public let fd: Int32
    /// The local port (for a listener: the port it holds).
    public let port: Int

    private init(fd: Int32, port: Int) {
        self.fd = fd
        self.port = port
    }

    deinit { close(fd) }

    /// A socket listening on 127.0.0.1 at a port the kernel picks: the port is in use while it lives.
    public static func listener() throws -> LoopbackSocket {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestServerError(message: "socket: errno \(errno)") }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard ok else {
            close(fd)
            throw TestServerError(message: "cannot listen on 127.0.0.1: errno \(errno)")
        }
        return LoopbackSocket(fd: fd, port: Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A socket connected to 127.0.0.1:`port`.
    public static func connect(port: Int) throws -> LoopbackSocket {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestServerError(message: "socket: errno \(errno)") }
        var address = loopback(port: port)
        let ok = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                Glibc.connect(fd, raw, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard ok else {
            close(fd)
            throw TestServerError(message: "cannot connect to 127.0.0.1:\(port): errno \(errno)")
        }
        return LoopbackSocket(fd: fd, port: port)
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    /// Sends the text; false when the peer has gone (EPIPE, ECONNRESET).
    @discardableResult
    public func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { buffer in
            Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) == buffer.count
        }
    }

    /// True when the peer has closed the connection: a read returns end of file or a reset (waits at most
    /// `milliseconds` for something to read; bytes that arrive are read and dropped).
    public func peerClosed(waitingMilliseconds milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, milliseconds) == 1 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        return n == 0 || (n < 0 && errno == ECONNRESET)
    }
}
