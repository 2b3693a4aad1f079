import CCurlShim
#if canImport(Glibc)
import Glibc
#endif
import WirelensCore

/// The sockets of the engine's connections and the transfers in flight on each, so that a transfer finds its own
/// socket and hears when libcurl closes it.
///
/// libcurl 7.88 names a transfer's socket (`CURLINFO_ACTIVESOCKET`) only after the transfer ends; the sockopt
/// callback sees each new socket and the close-socket callback each close, so the table holds exactly the open
/// ones. Confined to the engine's loop thread: libcurl calls those callbacks from `curl_multi_perform`, and from
/// `curl_multi_cleanup` once the loop has stopped.
final class ConnectionSockets {
    /// Open sockets and their local ports (nil until first looked at: the sockopt callback runs before connect).
    private var ports: [Int32: Int] = [:]
    /// The transfers in flight on each socket.
    private var users: [Int32: [TransferContext]] = [:]

    /// A socket libcurl just made.
    func opened(_ socket: Int32) {
        ports[socket] = -1
    }

    /// The open socket bound to `localPort`, looking at `hint` (the socket the transfer made itself) first.
    ///
    /// libcurl may have made sockets that lost a happy-eyeballs race: only the one whose local port is the
    /// transfer's is its connection.
    func socket(localPort: Int, hint: Int32?) -> Int32? {
        if let hint, ports[hint] != nil, port(of: hint) == localPort { return hint }
        for socket in Array(ports.keys) where port(of: socket) == localPort { return socket }
        return nil
    }

    /// Adds a transfer to the users of its socket; when others are in flight on it, all of them share it.
    func attach(_ ctx: TransferContext, to socket: Int32) {
        var list = users[socket, default: []]
        list.append(ctx)
        if list.count > 1 { list.forEach { $0.tcpShared = true } }
        users[socket] = list
    }

    /// Removes a finished transfer from its socket's users.
    func detach(_ ctx: TransferContext) {
        guard let socket = ctx.tcpSocket else { return }
        users[socket]?.removeAll { $0 === ctx }
        if users[socket]?.isEmpty == true { users[socket] = nil }
        ctx.tcpSocket = nil
    }

    /// libcurl is closing `socket`: the transfers still on it take their last snapshot, then it is forgotten.
    func closing(_ socket: Int32, at now: Int64) {
        for ctx in users[socket] ?? [] {
            ctx.sampleTCP(at: now, last: true)
            ctx.tcpSocket = nil
        }
        users[socket] = nil
        ports[socket] = nil
    }

    /// The local port of an open socket, looked up once.
    private func port(of socket: Int32) -> Int? {
        guard let known = ports[socket] else { return nil }
        if known >= 0 { return known }
        let port = Int(wl_socket_local_port(socket))
        guard port > 0 else { return nil }
        ports[socket] = port
        return port
    }
}
