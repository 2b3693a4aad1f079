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
    /// What is known of one open socket (a class: the table's entries are changed in place, never copied out).
    private final class Entry {
        /// The local port, -1 until first looked at (the sockopt callback runs before connect).
        var port = -1
        /// The transfers in flight on it.
        var users: [TransferContext] = []
        /// The last snapshot of the transfer that used it last, and when (monotonic ns): the next transfer on the
        /// idle connection starts from it instead of asking the kernel again.
        var idle: (info: TCPInfo, at: Int64)?
    }

    private var entries: [Int32: Entry] = [:]
    /// Open sockets by their local port, once known.
    private var byPort: [Int: Int32] = [:]

    /// How old an idle connection's last snapshot may be to serve as the next transfer's first (ns): counters of an
    /// idle pooled connection do not move, but its RTT estimate ages.
    static let idleSnapshotAge: Int64 = 200_000_000

    /// A socket libcurl just made.
    func opened(_ socket: Int32) {
        entries[socket] = Entry()
    }

    /// The open socket bound to `localPort`, looking at `hint` (the socket the transfer made itself) first.
    ///
    /// libcurl may have made sockets that lost a happy-eyeballs race: only the one whose local port is the
    /// transfer's is its connection.
    func socket(localPort: Int, hint: Int32?) -> Int32? {
        if let hint, port(of: hint) == localPort { return hint }
        if let known = byPort[localPort], entries[known]?.port == localPort { return known }
        for socket in Array(entries.keys) where port(of: socket) == localPort { return socket }
        return nil
    }

    /// Adds a transfer to the users of its socket (when others are in flight on it, all of them share it), and gives
    /// the snapshot the connection's previous transfer ended with, when it is recent and no one else is on it.
    func attach(_ ctx: TransferContext, to socket: Int32, at now: Int64) -> TCPInfo? {
        guard let entry = entries[socket] else { return nil }
        entry.users.append(ctx)
        let idle = entry.idle
        entry.idle = nil
        guard entry.users.count == 1 else {
            entry.users.forEach { $0.tcpShared = true }
            return nil
        }
        guard let idle, now - idle.at <= Self.idleSnapshotAge else { return nil }
        return idle.info
    }

    /// Removes a finished transfer from its socket's users, keeping its last snapshot for the next transfer.
    func detach(_ ctx: TransferContext) {
        guard let socket = ctx.tcpSocket, let entry = entries[socket] else { return }
        entry.users.removeAll { $0 === ctx }
        if entry.users.isEmpty, let last = ctx.tcp.lastSnapshot { entry.idle = (last, ctx.tcpSampledAt) }
        ctx.tcpSocket = nil
    }

    /// libcurl is closing `socket`: the transfers still on it take their last snapshot, then it is forgotten.
    func closing(_ socket: Int32, at now: Int64) {
        guard let entry = entries.removeValue(forKey: socket) else { return }
        for ctx in entry.users {
            ctx.sampleTCP(at: now, last: true)
            ctx.tcpSocket = nil
        }
        if entry.port > 0, byPort[entry.port] == socket { byPort[entry.port] = nil }
    }

    /// The local port of an open socket, looked up once.
    private func port(of socket: Int32) -> Int? {
        guard let entry = entries[socket] else { return nil }
        if entry.port > 0 { return entry.port }
        let port = Int(wl_socket_local_port(socket))
        guard port > 0 else { return nil }
        entry.port = port
        byPort[port] = socket
        return port
    }
}
