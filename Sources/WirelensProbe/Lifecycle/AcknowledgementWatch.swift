/// Decides when an upload's request body counts as sent: the moment its last byte reached the server, as
/// `BodyArrival` estimates it from the kernel's TCP facts looked at after the last body byte was handed to the kernel.
///
/// Bytes written but still queued in the kernel, or in a slow path's queue, are not sent yet: on a slow link they
/// would otherwise count as the server's wait; and the peer's acknowledgement of the last byte may come up to 40 ms
/// after it arrived (a delayed ACK), which would count server wait as send. The engine looks at each upload in flight
/// after every `curl_multi_perform` until its whole body was handed over, then when `nextLook` is due; each look is
/// a short conversation: `look` says what to read next (how much libcurl uploaded, then the socket's TCP facts), and
/// the reading comes back as the next event. No clock is read here: the instants come with the events.
struct AcknowledgementWatch: Equatable {
    /// The watch's stage.
    enum State: Equatable {
        /// The body is being sent, or the engine has not looked yet.
        case sending
        /// A look asked how many body bytes libcurl handed over (`uploaded`).
        case countingUpload
        /// A look asked for the socket's TCP facts (`socket`).
        case readingSocket
        /// The whole body was written and the looks so far (`body`) follow its end on its way.
        case following
        /// The body's last byte reached the server at this instant (monotonic ns).
        case arrived(Int64)
        /// The response began before a look saw the body's end leave and no look bounds it: the written end stands.
        case missed
    }

    /// What the engine does after an event.
    enum Step: Equatable {
        /// Nothing to watch on this look (the body is still being read, or the response began).
        case idle
        /// Read how many body bytes libcurl uploaded and answer with `uploaded`.
        case readUploaded
        /// Read the socket's TCP facts and answer with `socket`.
        case readSocket
        /// Still following the body's end: look again soon.
        case waiting
        /// Decided: `arrival` holds the instant, or nil when none was seen.
        case settled
        /// The event cannot happen in this state (a bug in the caller); nothing changed.
        case invalid
    }

    private(set) var state: State = .sending
    /// What the looks saw of the body's end since the whole body was written (kept beside the state, so that a look
    /// changes it in place).
    private(set) var body: BodyArrival?

    /// The largest gap (ns) between the last look and the response's first byte for which the response's first byte
    /// is taken as the body's end when no look saw the last byte leave (a few poll periods).
    static let slack: Int64 = 5_000_000

    /// When the body's last byte reached the server (monotonic ns), if the looks could tell.
    var arrival: Int64? {
        if case .arrived(let at) = state { at } else { nil }
    }

    /// When the next look is due (monotonic ns) while the body's end is followed; nil: the engine's default.
    var nextLook: Int64? {
        state == .following ? body?.nextLook : nil
    }

    /// True once nothing more is to be watched.
    var isSettled: Bool {
        switch state {
        case .arrived, .missed: true
        default: false
        }
    }

    /// A look after libcurl ran: `responseStart` is the response's first byte, `bodyReadEnd` the moment the whole
    /// body was read (nil while it is being read, or after a rewind).
    mutating func look(responseStart: Int64?, bodyReadEnd: Int64?) -> Step {
        switch state {
        case .arrived, .missed:
            return .settled
        case .countingUpload, .readingSocket:
            return .invalid
        case .sending, .following:
            break
        }
        if let response = responseStart {
            // The response began between two looks. The looks place the body's end when one saw its last byte
            // leave; otherwise the response's first byte bounds it when the last look was recent, and the last look
            // is all that is known when it was not.
            if state == .following, let body {
                state = .arrived(body.arrival(responseStart: response)
                    ?? (response - body.lastLook <= Self.slack ? response : body.lastLook))
            } else {
                state = .missed
            }
            body = nil
            return .settled
        }
        guard bodyReadEnd != nil else {
            // Being read (again, after a rewind): what earlier looks followed was another send of it.
            state = .sending
            body = nil
            return .idle
        }
        state = .countingUpload
        return .readUploaded
    }

    /// How many body bytes libcurl handed to the connection: all of them (`complete`) or not yet, and whether the
    /// connection's socket is known (libcurl 7.88 names it only after the transfer ends: the engine's socket table
    /// found it when the connection was ready).
    mutating func uploaded(complete: Bool, socketKnown: Bool, bodyReadEnd: Int64) -> Step {
        guard state == .countingUpload else { return .invalid }
        guard complete else {
            // Not all handed over (again, after a rewind): the looks start over once it is.
            state = .sending
            body = nil
            return .waiting
        }
        guard socketKnown else {
            state = .arrived(bodyReadEnd)
            body = nil
            return .settled
        }
        state = .readingSocket
        return .readSocket
    }

    /// The socket's TCP facts at this look (nil: the kernel cannot tell, and the written end stands).
    mutating func socket(_ sample: BodyArrival.Sample?, bodyReadEnd: Int64) -> Step {
        guard state == .readingSocket else { return .invalid }
        guard let sample else {
            state = .arrived(bodyReadEnd)
            body = nil
            return .settled
        }
        if body == nil { body = BodyArrival(written: bodyReadEnd) }
        guard body?.add(sample) == true, let settled = body else {
            state = .following
            return .waiting
        }
        state = .arrived(settled.arrival(responseStart: nil) ?? sample.at)
        body = nil
        return .settled
    }
}
