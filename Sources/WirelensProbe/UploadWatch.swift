import WirelensCore
import WirelensCurl

/// The loop's watch over the request bodies in flight: when each body's last byte reached the server, and how many
/// bytes handed over the server has not acknowledged yet (for the progress display).
///
/// Owned by `EngineLoop` and used on its thread only, like the transfers it looks at.
struct UploadWatch {
    /// Transfers in flight that send a body (only these are looked at).
    var active = 0
    /// Uploads whose body's end was still on its way at the last look, and when the earliest of them is due for its
    /// next look (monotonic ns).
    private(set) var awaitingAcknowledgement = 0
    private var nextLook = Int64.max
    /// When the unacknowledged bytes are next counted (monotonic ns).
    private var nextUnacknowledgedCount: Int64 = 0

    /// How often the progress display's unacknowledged bytes are counted (ns).
    static let unacknowledgedInterval: Int64 = 100_000_000

    /// How often the TCP facts of uploads whose body's end is on its way are looked at when the watch cannot say
    /// when its next look is due (`BodyArrival.nextLook` spaces them 2 to 10 ms apart, closer as the end nears):
    /// the resolution of their request end.
    static let acknowledgementPollMillis: Int32 = 2

    /// Uploads whose body is all written: the moment their last byte reached the server ends their request, as each
    /// transfer's `AcknowledgementWatch` estimates it from the socket's TCP facts (`BodyArrival`). Looked at after each
    /// perform until the body is handed over, then when each watch's next look is due (2 to 10 ms apart, closer as
    /// the end nears); bodyless transfers are never looked at.
    mutating func watchAcknowledgements<Transfers: Sequence<TransferContext>>(_ transfers: Transfers) {
        guard active > 0 else {
            awaitingAcknowledgement = 0
            return
        }
        var waiting = 0
        var now: Int64?
        var nextLook = Int64.max
        for ctx in transfers where ctx.request.isSent && !ctx.marks.acknowledgement.isSettled {
            // A body whose end is followed is looked at when its look is due (or its response began), not after every
            // perform: a perform for another transfer's bytes tells it nothing.
            if ctx.marks.responseStart == nil, let due = ctx.marks.acknowledgement.nextLook {
                let stamp = now ?? MonotonicClock.now()
                now = stamp
                if stamp < due {
                    waiting += 1
                    nextLook = min(nextLook, due)
                    continue
                }
            }
            guard ctx.marks.acknowledgement.look(responseStart: ctx.marks.responseStart, bodyReadEnd: ctx.request.readEnd) == .readUploaded,
                  let readEnd = ctx.request.readEnd else { continue }
            // A count libcurl cannot give (CURLINFO_SIZE_UPLOAD_T failing) counts as a body not all written yet.
            let complete = (try? ctx.handle.uploadedBytes()).map { $0 >= ctx.request.source.size } ?? false
            // libcurl 7.88 names a transfer's socket (CURLINFO_ACTIVESOCKET) only after it ends: the socket table
            // found it by its local port when the connection was ready.
            var step = ctx.marks.acknowledgement.uploaded(complete: complete, socketKnown: ctx.kernel.socket != nil,
                                                    bodyReadEnd: readEnd)
            if step == .readSocket, let socket = ctx.kernel.socket {
                var sample: BodyArrival.Sample?
                if let info = TCPInfoReader.read(socket: socket) {
                    let stamp = now ?? MonotonicClock.now()
                    now = stamp
                    sample = BodyArrival.Sample(info, at: stamp)
                }
                step = ctx.marks.acknowledgement.socket(sample, bodyReadEnd: readEnd)
            }
            if step == .waiting {
                waiting += 1
                let due = ctx.marks.acknowledgement.nextLook
                    ?? (now ?? MonotonicClock.now()) + Int64(Self.acknowledgementPollMillis) * 1_000_000
                nextLook = min(nextLook, due)
            }
        }
        awaitingAcknowledgement = waiting
        self.nextLook = nextLook
    }

    /// The milliseconds from `now` to the earliest look due, rounded up (an earlier wake would look too soon).
    func millisToNextLook(at now: Int64) -> Int64 {
        max(0, (nextLook - now + 999_999) / 1_000_000)
    }

    /// Refreshes the progress display's count of request body bytes the server has not acknowledged yet, at most every
    /// `unacknowledgedInterval`: each upload's bytes handed to libcurl less those acknowledged (written to the socket
    /// by libcurl, CURLINFO_SIZE_UPLOAD_T, less what its send queue still holds unacknowledged, SIOCOUTQ). Without
    /// uploads, nothing is read.
    mutating func countUnacknowledged<Transfers: Sequence<TransferContext>>(_ transfers: Transfers,
                                                                          into progress: TransferProgress) {
        guard active > 0 else { return }
        let now = MonotonicClock.now()
        guard now >= nextUnacknowledgedCount else { return }
        nextUnacknowledgedCount = now + Self.unacknowledgedInterval
        for ctx in transfers where ctx.request.isSent {
            let written = (try? ctx.handle.uploadedBytes()) ?? 0
            let queued = ctx.kernel.socket.flatMap(SocketQuery.unacknowledgedBytes).map(Int64.init) ?? 0
            let pending = max(0, ctx.request.offset - max(0, written - queued))
            progress.unacknowledged(changedBy: pending - ctx.request.unacknowledgedCounted)
            ctx.request.unacknowledgedCounted = pending
        }
    }
}
