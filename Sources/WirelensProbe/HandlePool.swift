import WirelensCurl

/// The engine's spare easy handles: a finished transfer's handle, reset, serves the next one (its connections live
/// in the multi handle, not in it), up to a limit.
struct HandlePool {
    /// The most handles kept (the engine's concurrency).
    let limit: Int
    private var spare: [CurlEasy] = []

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// A spare handle, or a new one.
    mutating func take() throws(CurlError) -> CurlEasy {
        if let handle = spare.popLast() { return handle }
        return try CurlEasy()
    }

    /// Resets a finished transfer's handle and keeps it while fewer than `limit` are kept.
    mutating func recycle(_ handle: CurlEasy) {
        // The reset also drops the handle's observer, the context (which holds the handle in turn).
        handle.reset()
        if spare.count < limit { spare.append(handle) }
    }

    /// Lets every spare handle go.
    mutating func removeAll() {
        spare.removeAll()
    }
}
