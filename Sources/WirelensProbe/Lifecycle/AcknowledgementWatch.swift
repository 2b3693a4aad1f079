/// Decides when an upload's request body counts as acknowledged by the peer: the moment its socket's send queue
/// was seen empty after the last body byte was handed to the kernel.
///
/// Bytes written but still queued in the kernel are not sent yet: on a slow link they would otherwise count as the
/// server's wait. The engine looks at each upload in flight after every `curl_multi_perform` (and every
/// `EngineLoop.acknowledgementPollMillis` while one waits); each look is a short conversation: `look` says what to read
/// next (how much libcurl uploaded, then the socket's send queue), and the reading comes back as the next event.
/// No clock is read here: the instants come with the events.
struct AcknowledgementWatch: Equatable {
    /// The watch's stage.
    enum State: Equatable {
        /// The body is being sent, or the engine has not looked yet.
        case sending
        /// A look asked how many body bytes libcurl handed over (`uploaded`); `lastQueued` is when an earlier look
        /// saw the body still queued.
        case countingUpload(lastQueued: Int64?)
        /// A look asked for the socket's send queue (`sendQueue`).
        case readingQueue
        /// The whole body was written and part of it was still queued at this instant (monotonic ns).
        case queued(at: Int64)
        /// The peer had acknowledged the whole body at this instant (monotonic ns).
        case acknowledged(Int64)
        /// The response began before an acknowledgement was seen and no look bounds it: the written end stands.
        case missed
    }

    /// What the engine does after an event.
    enum Step: Equatable {
        /// Nothing to watch on this look (the body is still being read, or the response began).
        case idle
        /// Read how many body bytes libcurl uploaded and answer with `uploaded`.
        case readUploaded
        /// Read the socket's unacknowledged bytes and answer with `sendQueue`.
        case readSendQueue
        /// Still waiting for the peer: look again soon.
        case waiting
        /// Decided: `acknowledged` holds the instant, or nil when none was seen.
        case settled
        /// The event cannot happen in this state (a bug in the caller); nothing changed.
        case invalid
    }

    private(set) var state: State = .sending

    /// The largest gap (ns) between the last look that saw the body still queued and the response's first byte for
    /// which the response's first byte is taken as the acknowledgement (a few poll periods).
    static let slack: Int64 = 5_000_000

    /// When the peer had acknowledged the whole body (monotonic ns), if seen before the response began.
    var acknowledged: Int64? {
        if case .acknowledged(let at) = state { at } else { nil }
    }

    /// True once nothing more is to be watched.
    var isSettled: Bool {
        switch state {
        case .acknowledged, .missed: true
        default: false
        }
    }

    /// A look after libcurl ran: `responseStart` is the response's first byte, `bodyReadEnd` the moment the whole
    /// body was read (nil while it is being read, or after a rewind).
    mutating func look(responseStart: Int64?, bodyReadEnd: Int64?) -> Step {
        switch state {
        case .acknowledged, .missed:
            return .settled
        case .countingUpload, .readingQueue:
            return .invalid
        case .sending, .queued:
            break
        }
        if let response = responseStart {
            // The response began between two looks: the body was acknowledged in between. Its first byte bounds the
            // moment when the last look was recent; otherwise the last look is all that is known.
            if case .queued(let queued) = state {
                state = .acknowledged(response - queued <= Self.slack ? response : queued)
            } else {
                state = .missed
            }
            return .settled
        }
        guard bodyReadEnd != nil else { return .idle }
        if case .queued(let queued) = state { state = .countingUpload(lastQueued: queued) } else {
            state = .countingUpload(lastQueued: nil)
        }
        return .readUploaded
    }

    /// How many body bytes libcurl handed to the connection: all of them (`complete`) or not yet, and whether the
    /// connection's socket is known (libcurl 7.88 names it only after the transfer ends: the engine's socket table
    /// found it when the connection was ready).
    mutating func uploaded(complete: Bool, socketKnown: Bool, bodyReadEnd: Int64) -> Step {
        guard case .countingUpload(let lastQueued) = state else { return .invalid }
        guard complete else {
            state = lastQueued.map { .queued(at: $0) } ?? .sending
            return .waiting
        }
        guard socketKnown else {
            state = .acknowledged(bodyReadEnd)
            return .settled
        }
        state = .readingQueue
        return .readSendQueue
    }

    /// The socket's unacknowledged bytes at `now` (nil: the socket cannot tell, and the written end stands).
    mutating func sendQueue(_ bytes: Int?, at now: Int64, bodyReadEnd: Int64) -> Step {
        guard state == .readingQueue else { return .invalid }
        switch bytes {
        case nil:
            state = .acknowledged(bodyReadEnd)
            return .settled
        case 0?:
            state = .acknowledged(now)
            return .settled
        default:
            state = .queued(at: now)
            return .waiting
        }
    }
}
