import WirelensCore
import WirelensCurl

/// The engine's per-connection tables: the sockets of its connections and the transfers in flight on each (so that a
/// transfer finds its own socket and hears when libcurl closes it), and the TLS facts of each connection by libcurl's
/// number, for the transactions that reuse it. Every entry goes when libcurl closes the connection's socket.
///
/// libcurl 7.88 names a transfer's socket (`CURLINFO_ACTIVESOCKET`) only after the transfer ends; the sockopt
/// callback sees each new socket and the close-socket callback each close, so the table holds exactly the open
/// ones. Confined to the engine's loop thread: libcurl calls those callbacks from `curl_multi_perform`, and from
/// `curl_multi_cleanup` once the loop has stopped (both on the loop thread).
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
        /// libcurl's number for the connection, once a transfer on it was ready.
        var connectionId: Int?
        /// When libcurl made the socket (monotonic ns).
        var openedAt: Int64 = 0
    }

    /// The TLS facts of a connection.
    typealias TLSFacts = (version: String?, cipher: String?, alpn: String?)

    private var entries: [Int32: Entry] = [:]
    /// Open sockets by their local port, once known.
    private var byPort: [Int: Int32] = [:]
    /// The TLS facts of each open connection by libcurl's number. Pruned when the connection's socket closes; a
    /// connection whose socket was never found is dropped by age (`RecentTable`), so a run of fresh connections
    /// (--no-reuse) does not grow this with every one either way.
    private var tls = RecentTable<Int, TLSFacts>(limit: ConnectionSockets.connectionMemory)
    /// Connections remembered per generation of `tls`: far more than libcurl's connection cache holds (`MAXCONNECTS`,
    /// the concurrency) unless the concurrency is in the thousands.
    static let connectionMemory = 8192

    /// The open sockets by the number of their connection, once a transfer on it was ready.
    private var byConnection: [Int: Int32] = [:]

    /// The entries held, for tests that hold the tables bounded.
    var counts: (sockets: Int, ports: Int, connections: Int, tls: Int) {
        (entries.count, byPort.count, byConnection.count, tls.count)
    }

    /// Remembers the TLS facts of connection `id` for the transactions that reuse it, unless the connection is closed
    /// already (libcurl closes a connection it may not reuse before its transfer is read as done). `socketKnown`
    /// false: the transfer never found its socket, so whether the connection is open is unknown; the facts are kept
    /// and age out of the table.
    func remember(tls facts: TLSFacts, connection id: Int, socketKnown: Bool) {
        guard !socketKnown || byConnection[id] != nil else { return }
        tls[id] = facts
    }

    /// The TLS facts remembered for connection `id`, while it is open.
    func tls(connection id: Int) -> TLSFacts? {
        tls[id]
    }

    /// How old an idle connection's last snapshot may be to serve as the next transfer's first (ns): counters of an
    /// idle pooled connection do not move, but its RTT estimate ages.
    static let idleSnapshotAge: Int64 = 200_000_000

    /// A socket libcurl just made, at `now`.
    func opened(_ socket: Int32, at now: Int64) {
        let entry = Entry()
        entry.openedAt = now
        entries[socket] = entry
    }

    /// When libcurl made an open socket (monotonic ns).
    func openedAt(_ socket: Int32) -> Int64? {
        entries[socket]?.openedAt
    }

    /// The open socket bound to `localPort`, looking at `hint` (the socket the transfer made itself) first.
    ///
    /// libcurl may have made sockets that lost a happy-eyeballs race: only the one whose local port is the
    /// transfer's is its connection. The socket is noted as connection `id`'s, whose facts go when it closes.
    func socket(localPort: Int, hint: Int32?, connection id: Int?) -> Int32? {
        guard let found = find(localPort: localPort, hint: hint) else { return nil }
        if let id, let entry = entries[found], entry.connectionId != id {
            entry.connectionId = id
            byConnection[id] = found
        }
        return found
    }

    private func find(localPort: Int, hint: Int32?) -> Int32? {
        if let hint, port(of: hint) == localPort { return hint }
        if let known = byPort[localPort], entries[known]?.port == localPort { return known }
        for socket in Array(entries.keys) where port(of: socket) == localPort { return socket }
        return nil
    }

    /// Adds a transfer to the users of its socket and gives its first snapshot when the table has one: the snapshot
    /// the connection's previous transfer ended with, when recent; or, on a connection that carries one transfer at
    /// a time, one read now that ends the transfers still listed on it and starts this one.
    ///
    /// libcurl hands a connection to the next transfer as soon as the previous one's response is in, within the
    /// same `curl_multi_perform`, before the engine reads that the previous one ended: on HTTP/1.1 (or HTTP/2 that
    /// may not multiplex) a transfer still listed here has finished on the wire, and its end must not take in the
    /// next one's bytes. Only where streams may run at once (`multiplexes`, and the connection speaks h2) do the
    /// users share the connection's figures.
    func attach(_ ctx: TransferContext, to socket: Int32, at now: Int64, multiplexes: Bool) -> TCPInfo? {
        guard let entry = entries[socket] else { return nil }
        if !entry.users.isEmpty {
            // Whether the connection speaks h2 is asked only where streams may run at once (a run over HTTP/1.1 never
            // looks its TLS facts up).
            guard multiplexes, ctx.connection.alpn == "h2" || ctx.kernel.speaksPriorKnowledge
                    || entry.users.contains(where: { $0.connection.alpn == "h2" })
                    || entry.connectionId.flatMap({ tls[$0]?.alpn }) == "h2" else {
                let info = TCPInfoReader.read(socket: socket)
                for done in entry.users { done.endTCP(with: info, at: now) }
                // The array's storage is kept: a keep-alive connection hands itself over once per transfer.
                entry.users.removeAll(keepingCapacity: true)
                entry.users.append(ctx)
                entry.idle = nil
                return info
            }
            entry.users.append(ctx)
            entry.idle = nil
            entry.users.forEach { $0.kernel.shared = true }
            return nil
        }
        entry.users.append(ctx)
        let idle = entry.idle
        entry.idle = nil
        guard let idle, now - idle.at <= Self.idleSnapshotAge else { return nil }
        return idle.info
    }

    /// Removes a finished transfer from its socket's users, keeping its last snapshot for the next transfer.
    func detach(_ ctx: TransferContext) {
        guard let socket = ctx.kernel.socket, let entry = entries[socket] else { return }
        entry.users.removeAll { $0 === ctx }
        if entry.users.isEmpty, let last = ctx.kernel.tcp.lastSnapshot { entry.idle = (last, ctx.kernel.sampledAt) }
        ctx.kernel.socket = nil
    }

    /// libcurl is closing `socket`: the transfers still on it take their last snapshot and note the close (the end of
    /// the connection's span), then it and its connection's facts are forgotten.
    func closing(_ socket: Int32, at now: Int64) {
        guard let entry = entries.removeValue(forKey: socket) else { return }
        for ctx in entry.users {
            ctx.sampleTCP(at: now, last: true)
            ctx.kernel.socket = nil
            ctx.marks.connectionClosed = now
        }
        if entry.port > 0, byPort[entry.port] == socket { byPort[entry.port] = nil }
        if let id = entry.connectionId {
            tls[id] = nil
            if byConnection[id] == socket { byConnection[id] = nil }
        }
    }

    /// The local port of an open socket, looked up once.
    private func port(of socket: Int32) -> Int? {
        guard let entry = entries[socket] else { return nil }
        if entry.port > 0 { return entry.port }
        guard let port = SocketQuery.localPort(socket) else { return nil }
        entry.port = port
        byPort[port] = socket
        return port
    }
}
