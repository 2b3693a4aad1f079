/// How a target server listens, shapes its connections and which faults it injects on every request.
public struct TargetConfig: Sendable, Equatable {
    /// The address to bind; 127.0.0.1 by default.
    public var host = "127.0.0.1"
    /// The port; 0 picks any free port (read it back from `TargetServer.port`).
    public var port = 0
    /// Where segment uploads are kept; nil makes a fresh temporary directory removed when the server stops.
    public var dataDirectory: String?
    /// Added before each response, in microseconds.
    public var latencyMicros: Int64 = 0
    /// A per-connection cap in bytes per second, on request bodies and on response bodies (each direction).
    public var rateBytesPerSecond: Int64?
    /// The kernel receive buffer of accepted connections (SO_RCVBUF, bytes); nil: the kernel's default, or about
    /// 20 ms of `rateBytesPerSecond` on a shaped target. A small one makes the server's window the bottleneck.
    public var receiveBuffer: Int?
    /// Requests served on one connection before the server answers with `Connection: close`.
    public var maxRequestsPerConnection: Int?
    /// When false, every response closes its connection.
    public var keepAlive = true
    /// Faults applied to every request unless its query overrides them.
    public var faults = FaultPlan()
    /// The fraction of part uploads answered with 503 and its seed.
    public var partFailures = PartFailurePolicy(fraction: 0, seed: 0)
    /// Event-loop threads.
    public var threads = 2

    public init() {}
}
