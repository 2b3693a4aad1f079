import WirelensCore
import WirelensCurl

/// The transfers on the engine's multi handle, by easy handle, and the looks the loop takes at them between performs:
/// kernel snapshots every `--tcp-sample`, the upload bodies' way to the server (`UploadWatch`), the timeouts.
///
/// Owned by `EngineLoop` and used on its thread only.
struct TransfersInFlight {
    private var byHandle: [ObjectIdentifier: TransferContext] = [:]
    /// The request bodies in flight: when their last byte reached the server, and their bytes not acknowledged yet.
    private var uploads = UploadWatch()

    var count: Int { byHandle.count }
    var isEmpty: Bool { byHandle.isEmpty }

    /// The transfers as they are now (ending one while going through them changes the table, not this).
    var all: [TransferContext] { Array(byHandle.values) }

    /// The transfer of a libcurl easy handle.
    subscript(_ easy: CurlEasy) -> TransferContext? {
        byHandle[ObjectIdentifier(easy)]
    }

    mutating func insert(_ ctx: TransferContext) {
        byHandle[ObjectIdentifier(ctx.handle)] = ctx
        if ctx.request.isSent { uploads.active += 1 }
    }

    mutating func remove(_ ctx: TransferContext) {
        byHandle[ObjectIdentifier(ctx.handle)] = nil
        if ctx.request.isSent { uploads.active -= 1 }
    }

    /// The look after a perform: the uploads' acknowledgements, and the bytes not acknowledged for `progress`.
    mutating func lookAtUploads(progress: TransferProgress?) {
        uploads.watchAcknowledgements(byHandle.values)
        if let progress { uploads.countUnacknowledged(byHandle.values, into: progress) }
    }

    /// Takes a kernel snapshot of each transfer's connection whose last one is `tcpSampleInterval` old.
    func sampleConnections() {
        guard !byHandle.isEmpty else { return }
        let now = MonotonicClock.now()
        for ctx in byHandle.values where ctx.task.profile.samplesTCP
            && ctx.kernel.isDue(at: now, intervalMicros: ctx.task.profile.options.tcpSampleInterval) {
            ctx.sampleTCP(at: now)
        }
    }

    /// The transfers whose task passed its total timeout or that moved no byte for the idle timeout, at `now`.
    func expired(at now: Int64) -> [(TransferContext, ErrorClass)] {
        var expired: [(TransferContext, ErrorClass)] = []
        for ctx in byHandle.values where ctx.task.profile.rules.hasTimeouts {
            if case .abort(let reason) = ctx.task.lifecycle.checkTimeouts(at: now, activity: ctx.marks.activity) {
                expired.append((ctx, reason))
            }
        }
        return expired
    }

    /// The earliest instant (monotonic ns) a transfer needs the loop: its next kernel snapshot or timeout.
    var nextDeadline: Int64? {
        var next = Int64.max
        for ctx in byHandle.values {
            let profile = ctx.task.profile
            if profile.samplesTCP, let due = ctx.kernel.nextSample(intervalMicros: profile.options.tcpSampleInterval) {
                next = min(next, due)
            }
            if profile.rules.hasTimeouts {
                next = min(next, ctx.task.lifecycle.nextTimeout(activity: ctx.marks.activity))
            }
        }
        return next == .max ? nil : next
    }

    /// True when an upload's body's end is on its way: the loop looks again soon (`millisToNextLook`).
    var awaitsAcknowledgement: Bool { uploads.awaitingAcknowledgement > 0 }

    /// The milliseconds from `now` to the earliest upload look due.
    func millisToNextLook(at now: Int64) -> Int64 {
        uploads.millisToNextLook(at: now)
    }
}
