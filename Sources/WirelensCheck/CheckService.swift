import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import WirelensCore
import WirelensStore

/// `wirelens serve`: runs every configured check on its schedule and serves their latest results on /metrics,
/// plus /probe?target=NAME, an on-demand run of a configured check (never an arbitrary URL).
///
/// All checks run on one `CheckRunner` (one engine, one loop thread, one connection pool). Each check has a
/// lightweight task that sleeps until its next tick (`Schedule`: spread over the interval by the check's name),
/// runs the check, and counts the ticks it missed while the run went on as skipped: runs never queue up.
package final class CheckService: Sendable {
    /// The default interval of a check without `every:`.
    package static let defaultInterval: Int64 = CheckDefinition.defaultInterval
    /// The Content-Type of the exposition format.
    package static let exposition = "text/plain; version=0.0.4; charset=utf-8"

    private let config: CheckConfig
    private let runner: CheckRunner
    package let board: ResultBoard
    private let answers = AnswerCount()
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let schedulers: [Task<Void, Never>]

    /// The port the server listens on (the one asked for, or the one the system chose for port 0).
    package let port: Int

    /// Binds the server and starts the schedules; throws ListenFailure when the address cannot be used.
    ///
    /// `board` holds the results (and hands them to the history's writer, which reports its own trouble).
    package init(config: CheckConfig, host: String, port: Int, limits: ServeLimits = ServeLimits(), board: ResultBoard,
                inFlightLimit: Int = CheckRunner.defaultInFlightLimit) async throws(ListenFailure) {
        self.config = config
        self.board = board
        let runner = CheckRunner(inFlightLimit: inFlightLimit,
                                 keptConnections: CheckRunner.keptConnections(for: config.checks, inFlightLimit: inFlightLimit))
        await runner.prepare()
        self.runner = runner
        let answers = self.answers
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.group = group
        let respond: @Sendable (HTTPMethod, String) async -> MetricsHTTPHandler.Response = { method, uri in
            await Self.respond(method: method, uri: uri, config: config, runner: runner, board: board)
        }
        let decoderLimits = {
            var decoder = NIOHTTPDecoderLimitConfiguration()
            decoder.maxHeaderFieldSize = limits.maxHeadBytes
            decoder.maxHeaderListSize = limits.maxHeadBytes
            return decoder
        }()
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.backlog, value: 64)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        try pipeline.addHandler(IdleStateHandler(allTimeout: .microseconds(limits.idleTimeout)))
                        // One request per connection, answered with Connection: close: no pipelining to assist; the
                        // handler answers protocol errors itself (431 for a head beyond the cap).
                        try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: false,
                                                                 withEncoderConfiguration: .init(),
                                                                 withDecoderLimitConfiguration: decoderLimits)
                        try pipeline.addHandler(MetricsHTTPHandler(limits: limits, answers: answers, respond: respond))
                    }
                }
                .bind(host: host, port: port).get()
        } catch {
            try? await group.shutdownGracefully()
            throw ListenFailure(host: host, port: port, errorNumber: (error as? IOError)?.errnoCode, detail: "\(error)")
        }
        self.port = channel.localAddress?.port ?? port
        schedulers = config.checks.map { check in
            Task { await Self.schedule(check, runner: runner, board: board) }
        }
    }

    /// Runs one check at its ticks until cancelled or the runner stops; a tick that passes while the check's run
    /// is still going is skipped and counted, never queued.
    static func schedule(_ check: CheckDefinition, runner: CheckRunner, board: ResultBoard) async {
        let schedule = Schedule(interval: check.interval)
        let offset = schedule.offset(name: check.name)
        var tick = schedule.tick(atOrAfter: wallClock(), offset: offset)
        while !Task.isCancelled {
            let wait = tick - wallClock()
            if wait > 0 { try? await Task.sleep(nanoseconds: UInt64(wait) * 1000) }
            guard !Task.isCancelled, let result = await runner.run(check) else { return }
            let next = schedule.tick(atOrAfter: wallClock(), offset: offset)
            let skipped = schedule.skippedTicks(tick: tick, next: next)
            await board.record(result, skipped: skipped)
            tick = next
        }
    }

    /// Now, wall-clock µs since the epoch.
    static func wallClock() -> Int64 { Int64(Date().timeIntervalSince1970 * 1e6) }

    /// Stops: cancels the checks in flight (their results are dropped, not recorded as failures) and the schedules,
    /// closes the listener, lets the answers under way finish (a cancelled /probe is answered 503; bounded: 2 s),
    /// then closes every connection.
    package func stop() async {
        await runner.stop()
        for task in schedulers { task.cancel() }
        for task in schedulers { await task.value }
        try? await channel.close()
        for _ in 0..<100 where !answers.idle {
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        try? await group.shutdownGracefully()
    }

    /// The answer to one request.
    static func respond(method: HTTPMethod, uri: String, config: CheckConfig, runner: CheckRunner,
                        board: ResultBoard) async -> MetricsHTTPHandler.Response {
        guard method == .GET else {
            return .text(.methodNotAllowed, "only GET\n")
        }
        let components = URLComponents(string: uri)
        switch components?.path ?? uri {
        case "/metrics":
            return .init(status: .ok, contentType: exposition, body: await board.exposition())
        case "/probe":
            let names = config.checks.map(\.name)
            guard let target = components?.queryItems?.first(where: { $0.name == "target" })?.value else {
                return .text(.badRequest, "give ?target=NAME, one of: \(names.joined(separator: ", "))\n")
            }
            guard let check = config.checks.first(where: { $0.name == target }) else {
                return .text(.notFound, "no configured check named '\(target)'; /probe runs configured checks only: \(names.joined(separator: ", "))\n")
            }
            guard let result = await runner.run(check) else {
                return .text(.serviceUnavailable, "serve is stopping; the check was cancelled\n")
            }
            await board.record(result)
            return .init(status: .ok, contentType: exposition, body: PrometheusRenderer.render([result], vantage: board.vantage))
        case "/":
            return .text(.ok, "wirelens serve: /metrics (latest results), /probe?target=NAME (run a configured check)\n")
        default:
            return .text(.notFound, "not found; try /metrics\n")
        }
    }
}
