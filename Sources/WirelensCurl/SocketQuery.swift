internal import CCurlShim

/// Facts of a connection's socket that need a C call Swift cannot make directly (getsockname through the shim).
package enum SocketQuery {
    /// The local port a socket is bound to, or nil (getsockname, IPv4 or IPv6).
    package static func localPort(_ socket: Int32) -> Int? {
        let port = wl_socket_local_port(socket)
        return port > 0 ? Int(port) : nil
    }

    /// The bytes written to a TCP socket that its peer has not acknowledged yet, sent or not (SIOCOUTQ), or nil.
    package static func unacknowledgedBytes(_ socket: Int32) -> Int? {
        let bytes = wl_socket_unacknowledged(socket)
        return bytes >= 0 ? Int(bytes) : nil
    }

    /// The bytes that arrived on a TCP socket and the application has not read yet (SIOCINQ), or nil.
    package static func unreadBytes(_ socket: Int32) -> Int? {
        let bytes = wl_socket_unread(socket)
        return bytes >= 0 ? Int(bytes) : nil
    }
}
