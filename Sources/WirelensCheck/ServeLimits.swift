/// What `serve`'s HTTP listener allows a client: how long it may take to send its request, how long a connection
/// may sit idle, how large a request may be. A client beyond them is answered 431 or 413, or closed.
package struct ServeLimits: Sendable, Equatable {
    /// The request (head and any body) must have arrived within this long of the connection's accept, µs; then the
    /// connection is closed without an answer (slowloris clients).
    package var headerTimeout: Int64 = 10_000_000
    /// A connection on which no byte moves for this long, µs, is closed, except while its answer is being computed
    /// (a /probe runs its check, bounded by the check's timeout): a client that stops reading its answer, say.
    package var idleTimeout: Int64 = 60_000_000
    /// The largest request head (request line and header fields), bytes; a larger one is answered 431.
    package var maxHeadBytes = 8192
    /// The largest request body, bytes (/metrics and /probe need none); a larger one is answered 413.
    package var maxBodyBytes = 65536

    package init() {}
}
