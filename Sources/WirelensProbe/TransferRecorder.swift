import WirelensCore
import WirelensCurl

/// Ends a finished transfer on libcurl's side and makes its record: the last kernel snapshot before its connection
/// may go back to the pool, its handle out of the multi handle and of the transfers in flight, libcurl's facts read,
/// and its transaction with those of the attempts libcurl resent.
///
/// It decides nothing about the task: the loop hands what it returns to the task's `TaskLifecycle`.
struct TransferRecorder {
    let multi: CurlMulti
    let anchor: ClockAnchor
    /// True when libcurl decodes response bodies (`--compressed`): the bytes received on the wire are read apart.
    let compressed: Bool

    /// What a finished transfer recorded.
    struct Recorded {
        /// The current attempt's transaction.
        let metrics: TransactionMetrics
        /// The attempts libcurl gave up on before it, in order.
        let resent: [TransactionMetrics]
        /// Where a redirect points, with its origin by libcurl's parser (judged before anything connects there).
        let location: TaskLifecycle.Location?
        /// When the transfer was ended (monotonic ns).
        let end: Int64
    }

    /// Ends `ctx`, whose libcurl `result` is given (nil when the engine ended the transfer itself), taking it out of
    /// `transfers`.
    func end(_ ctx: TransferContext, result: Result<Void, CurlError>?, in transfers: inout TransfersInFlight)
        -> Recorded {
        let easy = ctx.handle
        ctx.settleOpener()
        // The last snapshot before the connection may go back to the pool (or be closed by the removal).
        ctx.sampleTCP(last: true)
        ctx.sockets?.detach(ctx)
        do {
            try multi.remove(easy)
        } catch {
            ctx.failure.engine = ctx.failure.engine ?? error.description
        }
        transfers.remove(ctx)
        if ctx.request.unacknowledgedCounted != 0 {
            // Ended: its bytes are acknowledged, or (failed) counted as wasted by whoever shows the progress.
            ctx.progress?.unacknowledged(changedBy: -ctx.request.unacknowledgedCounted)
            ctx.request.unacknowledgedCounted = 0
        }
        let end = MonotonicClock.now()
        let info: EasyInfo
        do {
            info = try EasyInfo(easy, addresses: ctx.connection.localIP == nil || ctx.connection.remoteIP == nil,
                                receivedBody: compressed)
        } catch {
            info = EasyInfo()
            ctx.failure.engine = ctx.failure.engine ?? error.description
        }
        // The TLS facts of a connection are kept by its number for the transfers that reuse it.
        ctx.settleTLSFacts(reused: info.numConnects == 0)
        let throughProxy = ctx.task.profile.rules.throughProxy
        let seen = ctx.observation(info: info, numConnects: info.numConnects, error: ctx.transferError(result: result),
                                   end: end)
        return Recorded(
            metrics: seen.metrics(anchor: anchor, throughProxy: throughProxy),
            resent: ctx.deadAttempts.map { $0.metrics(anchor: anchor, throughProxy: throughProxy) },
            location: info.redirectURL.map { TaskLifecycle.Location(url: $0, origin: try? TargetURL.origin(of: $0)) },
            end: end)
    }
}
