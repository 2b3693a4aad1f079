import WirelensCore

/// The request body of one transfer as libcurl reads it: its source, the read position, when the reading reached the
/// end, and the bytes handed over so far.
///
/// libcurl's read callback fills its upload buffer from here (`read`), and its seek callback moves the position on
/// some redirects and retries of its own (`seek`). The instants come with the calls: no clock is read here.
struct RequestBody {
    let source: BodySource
    /// True when the transfer sends a body (`source != .none`, decided once: the callbacks ask often).
    let isSent: Bool
    var reader: BodyReader
    /// Where the next read starts.
    private(set) var offset: Int64 = 0
    /// When the read callback reached the body's end (nil while reading, and again after a seek).
    private(set) var readEnd: Int64?
    /// The body bytes handed to libcurl in the current attempt.
    var sentBytes: Int64 = 0
    /// The body bytes counted as not acknowledged in the progress display (`TransferProgress`).
    var unacknowledgedCounted: Int64 = 0

    init(_ source: BodySource) {
        self.source = source
        isSent = source != .none
        reader = BodyReader(source)
    }

    /// Fills `buffer` with up to `capacity` bytes from the read position; returns the count, 0 at the end of the body.
    /// `now` gives the instant a read reaches the end: libcurl does not ask again after the last byte of a body of
    /// known size, so the read that hands it over is the end.
    mutating func read(into buffer: UnsafeMutableRawPointer, capacity: Int, now: () -> Int64) throws(BodyReader.Failure)
        -> Int {
        let n = try reader.read(into: buffer, count: capacity, at: offset)
        if n == 0 {
            if readEnd == nil { readEnd = now() }
            return 0
        }
        offset += Int64(n)
        sentBytes = offset
        if offset >= source.size, readEnd == nil { readEnd = now() }
        return n
    }

    /// Moves the read position to `target` (libcurl's seek callback); false when the body cannot go there: outside
    /// the body, or anywhere but where it is for a pipe, which cannot go back.
    mutating func seek(to target: Int64) -> Bool {
        guard target >= 0, target <= source.size else { return false }
        if case .pipe = source, target != offset { return false }
        offset = target
        readEnd = nil
        return true
    }
}
