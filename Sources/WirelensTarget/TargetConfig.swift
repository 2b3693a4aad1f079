/// How a target server listens, shapes its connections and which faults it injects on every request.
package struct TargetConfig: Sendable, Equatable {
    /// The address to bind; 127.0.0.1 by default.
    package var host = "127.0.0.1"
    /// The port; 0 picks any free port (read it back from `TargetServer.port`).
    package var port = 0
    /// Where segment uploads are kept; nil makes a fresh temporary directory removed when the server stops.
    package var dataDirectory: String?
    /// Added before each response, in microseconds.
    package var latencyMicros: Int64 = 0
    /// A per-connection cap in bytes per second, on request bodies and on response bodies (each direction).
    package var rateBytesPerSecond: Int64?
    /// The kernel receive buffer of accepted connections (SO_RCVBUF, bytes); nil: the kernel's default, or about
    /// 20 ms of `rateBytesPerSecond` on a shaped target. A small one makes the server's window the bottleneck.
    package var receiveBuffer: Int?
    /// Requests served on one connection before the server answers with `Connection: close`.
    package var maxRequestsPerConnection: Int?
    /// When false, every response closes its connection.
    package var keepAlive = true
    /// Faults applied to every request unless its query overrides them.
    package var faults = FaultPlan()
    /// The fraction of part uploads answered with 503 and its seed.
    package var partFailures = PartFailurePolicy(fraction: 0, seed: 0)
    /// Event-loop threads.
    package var threads = 2
    /// Listen with Multipath TCP (IPPROTO_MPTCP), or plain TCP where the kernel refuses it.
    package var multipath = false

    package init() {}
}
