import WirelensCore

/// What one transfer takes in of its response: the head (status and kept lines), the body's bytes counted and
/// written to the task's sink, and the time those writes took.
///
/// The body of a 3xx answer the transfer will follow is counted but not written: only the final answer's body
/// reaches the output, as with `curl -L`.
struct ResponseIntake {
    /// True when a 3xx answer of this transfer will be followed.
    let followsRedirects: Bool
    /// The status and the kept header lines of the response being received.
    var head: ResponseHead
    /// Where the response body goes (the task's sink).
    var writer: ResponseWriter
    /// Response body bytes libcurl handed over (after decoding), every answer's.
    private(set) var bodyBytes: Int64 = 0
    /// The time the response body's writes to its sink took (ns): the client was not reading then.
    var writeTime: Int64 = 0

    init(sink: ResponseSink, capturesHeaders: Bool, followsRedirects: Bool) {
        self.followsRedirects = followsRedirects
        head = ResponseHead(capturesHeaders: capturesHeaders)
        writer = ResponseWriter(sink)
    }

    /// True when the body's bytes go to the sink: it keeps them, and the answer is not a redirect to follow.
    var writesBody: Bool {
        !writer.discards && !(followsRedirects && head.isRedirect)
    }

    /// Takes a chunk of the body handed over at `start` (monotonic ns); `clock` reads the time after the write (a
    /// file, a pipe or a slow disk may hold it: that time the client did not read).
    mutating func takeBody(_ data: UnsafeRawPointer?, count: Int, at start: Int64, clock: () -> Int64)
        throws(ResponseWriter.Failure) {
        bodyBytes += Int64(count)
        guard let data, writesBody else { return }
        try writer.write(data, count: count, status: head.status)
        writeTime += clock() - start
    }
}
