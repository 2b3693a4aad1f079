internal import CCurlShim

/// Facts of a connection's socket that need a C call Swift cannot make directly (ioctl is variadic).
public enum SocketQuery {
    /// Bytes in a TCP socket's send queue not yet acknowledged by the peer (Linux SIOCOUTQ); nil when it cannot tell.
    public static func unacknowledgedBytes(_ socket: Int32) -> Int? {
        let queued = wl_socket_unacknowledged_bytes(socket)
        return queued < 0 ? nil : Int(queued)
    }

    /// The local port a socket is bound to, or nil (getsockname, IPv4 or IPv6).
    public static func localPort(_ socket: Int32) -> Int? {
        let port = wl_socket_local_port(socket)
        return port > 0 ? Int(port) : nil
    }
}
