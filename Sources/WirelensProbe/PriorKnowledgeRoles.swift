import WirelensCore
import WirelensCurl

/// Decides which h2c prior-knowledge transfers open a connection to their origin and which join the one open,
/// on a libcurl that cannot reuse such a connection itself (`LibcurlDescription.h2cReuseBroken`).
///
/// The first transfer to an origin opens; while its connection is being made or stays open, the others join it
/// (libcurl's PIPEWAIT makes them wait for it). The engine's loop thread alone uses it, as `ConnectionSockets`.
final class PriorKnowledgeRoles {
    /// Openers started whose socket is not made yet, per origin.
    private var opening: [Origin: Int] = [:]
    /// The open sockets of the openers' connections, and their origin.
    private var open: [Int32: Origin] = [:]

    /// The role of a transfer to `origin` about to start; an opener counts as opening until `opened` or `ended`.
    func role(for origin: Origin) -> PriorKnowledgeRole {
        if opening[origin, default: 0] > 0 || open.values.contains(origin) { return .joins }
        opening[origin, default: 0] += 1
        return .opens
    }

    /// The role of a joiner libcurl would have given a new connection (the open ones could take no more): it joins
    /// a connection another opener is making, if there is one and `mayJoin`; otherwise it opens one.
    func rejoinRole(for origin: Origin, mayJoin: Bool) -> PriorKnowledgeRole {
        if mayJoin, opening[origin, default: 0] > 0 { return .joins }
        opening[origin, default: 0] += 1
        return .opens
    }

    /// An opener for `origin` made a socket for its connection (`first`: its first one, which ends its opening;
    /// libcurl may try more than one address).
    func opened(_ socket: Int32, origin: Origin, first: Bool = true) {
        if first { settle(origin) }
        open[socket] = origin
    }

    /// An opener for `origin` ended without making a socket.
    func ended(withoutSocket origin: Origin) {
        settle(origin)
    }

    /// libcurl closed `socket`: the connection it belonged to is gone.
    func closed(_ socket: Int32) {
        open[socket] = nil
    }

    private func settle(_ origin: Origin) {
        guard let count = opening[origin] else { return }
        opening[origin] = count > 1 ? count - 1 : nil
    }
}
