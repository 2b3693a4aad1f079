import Foundation
import WirelensCore
import WirelensCurl

/// Runs HTTP transfers through one libcurl multi handle owned by a single loop thread.
///
/// The rest of the code talks to it with async/await (`run(_:)`) and `cancel()`. Redirects and retries are
/// followed by the engine itself, so each hop and each attempt is its own transaction. The engine holds only the
/// loop's inbox (`CurlLoop`): everything the transfers touch lives in an `EngineLoop` made on the loop thread and
/// unreachable from any other. `Engine.with(options:)` scopes an engine and shuts it down explicitly; an engine
/// released without `shutdown()` asks its loop to end and returns at once (its `deinit` never waits).
package final class Engine: Sendable {
    package let options: ProbeOptions
    /// The clock pairing used to turn the engine's monotonic stamps into wall-clock time.
    package let anchor: ClockAnchor
    /// Byte counters for a progress display, when one was asked for.
    package let progress: TransferProgress?

    private let loop: CurlLoop<EngineLoop.Command>
    /// Raised by `cancel()` for a pipe body's reader, which waits on the loop thread.
    private let pipeStop = PipeStop()

    /// Makes the multi handle with the run's connection limits on a new loop thread.
    ///
    /// - Parameter progress: counters the transfers bump as bytes move, for a progress display (nil: none).
    /// - Parameter connectionCache: the most connections the pool keeps (CURLMOPT_MAXCONNECTS: beyond it the oldest
    ///   idle one is closed as a transfer ends); nil keeps as many as the run can have in flight, and at least 8.
    package init(options: ProbeOptions, progress: TransferProgress? = nil, connectionCache: Int? = nil) throws(ProbeError) {
        self.progress = progress
        self.options = options
        // The CLI and the check configuration refuse these already; an engine made otherwise refuses them too
        // rather than let libcurl send a header that splits the request.
        try TaskOptions.checkHeaders(options)
        let anchor = MonotonicClock.anchor()
        self.anchor = anchor
        let settings = CurlMulti.Settings(
            maxHostConnections: options.maxHostConnections, maxTotalConnections: options.maxConnections,
            multiplex: options.multiplex, connectionCache: connectionCache.map { max($0, 1) }
                ?? max(options.concurrency, options.maxConnections ?? 0, 8))
        let stop = pipeStop
        do {
            loop = try CurlLoop.start(name: "wirelens-engine", settings: settings) { multi throws(CurlError) in
                try EngineLoop(options: options, progress: progress, anchor: anchor, multi: multi, pipeStop: stop)
            }
        } catch {
            throw ProbeError.curl(error)
        }
    }

    deinit {
        loop.requestShutdown()
    }

    /// Runs `body` with a new engine and shuts the engine down (transfers in flight cancelled, the loop thread ended
    /// and its handles freed) when the body returns or throws.
    package static func with<Result>(options: ProbeOptions, progress: TransferProgress? = nil,
                                    _ body: (Engine) async throws -> Result) async throws -> Result {
        let engine = try Engine(options: options, progress: progress)
        do {
            let result = try await body(engine)
            await engine.shutdown()
            return result
        } catch {
            await engine.shutdown()
            throw error
        }
    }

    /// Ends the loop: transfers in flight end as cancelled, runs waiting get what was gathered, and this returns once
    /// the loop thread has freed its handles. The engine takes no work afterwards.
    package func shutdown() async {
        await loop.shutdown()
    }

    /// Runs the tasks, at most `options.concurrency` at a time, and returns their records in task order.
    ///
    /// The specs run `rounds` times over, in order (task i is `specs[i % specs.count]`), without a spec per task
    /// being made up front. After `cancel()`, in-flight tasks end as cancelled, tasks not yet started are
    /// dropped, and this returns what was gathered.
    ///
    /// - Parameters:
    ///   - taskOptions: the tasks' own options (see `TaskOptions`); nil runs them with the engine's.
    ///   - onTaskFinished: called on the engine's loop thread with each task as it ends, in the order they end.
    ///   - keepsRecords: false returns no records: each went to `onTaskFinished` only, so a run of any length
    ///     holds only the tasks in flight.
    package func run(_ specs: [TaskSpec], options taskOptions: TaskOptions? = nil, rounds: Int = 1, keepsRecords: Bool = true,
                    onTaskFinished: (@Sendable (TaskRecord) -> Void)? = nil) async -> [TaskRecord] {
        let count = specs.count * max(0, rounds)
        guard count > 0 else { return [] }
        return await withCheckedContinuation { continuation in
            let order = EngineLoop.Order(specs: specs, taskOptions: taskOptions, count: count, keepsRecords: keepsRecords,
                                         onTaskFinished: onTaskFinished) { continuation.resume(returning: $0) }
            // An engine shut down takes no work: the run gets no records.
            if !loop.post(.submit(order)) { continuation.resume(returning: []) }
        }
    }

    /// Stops the run: transfers in flight end as cancelled and no new task starts. Safe from any thread.
    package func cancel() {
        pipeStop.raise()
        loop.post(.cancel(final: true))
    }

    /// Ends the runs in progress as `cancel()` does, but keeps the engine taking work: tasks submitted afterwards run
    /// (an upload that gave up on a part still sends its abort). Safe from any thread. Unlike `cancel()`, it does not
    /// wake a pipe body's reader waiting for its writer (the loop reads its inbox once that read returns).
    package func cancelRuns() {
        loop.post(.cancel(final: false))
    }

    /// The sizes of the loop's per-connection tables, read on the loop thread (for tests that hold them bounded).
    func tableCounts() async -> EngineLoop.TableCounts {
        await withCheckedContinuation { continuation in
            if !loop.post(.inspect { continuation.resume(returning: $0) }) {
                continuation.resume(returning: EngineLoop.TableCounts(sockets: 0, ports: 0, connections: 0, tls: 0, active: 0))
            }
        }
    }
}
