/// The bottleneck a diagnosis names: one of a fixed, documented set.
public enum Verdict: String, Sendable, Equatable, Codable, CaseIterable {
    /// The peer's receive window held the sender back (rwnd-limited most of the send time).
    case serverWindow = "server-window"
    /// The client's socket send buffer was the limit (sndbuf-limited most of the send time).
    case sendBuffer = "send-buffer"
    /// The path: the sender was busy and limited by its congestion window (rate, loss, round-trip time).
    case network
    /// A short transfer dominated by handshakes and the first round trips: no window had time to matter.
    case roundTrips = "round-trips"
    /// The time went to the server's wait, not to moving bytes.
    case serverThink = "server-think"
    /// The sender had nothing to send most of the time: the body source was slower than the network.
    case client
    /// Not enough facts to tell; the diagnosis says why.
    case unknown
    /// A download held by the client's own receive window: the body came near that window over the round trip.
    case clientWindow = "client-window"
    /// A download the server sent slower than the client's window and the path allowed (no queue, no loss).
    case serverSend = "server-send"
    /// The measuring host: the engine's loop thread was on a CPU or waiting for one (a cgroup quota, other work on its
    /// CPUs) most of the moving phase.
    case clientCPU = "client-cpu"
    /// The peer's HTTP/2 flow-control window: an upload whose body was ready sent only what the stream's or the
    /// connection's window allowed, about a round trip at a time.
    case h2Window = "h2-window"
}
