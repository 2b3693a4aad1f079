import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import WirelensCore
import WirelensStore

/// `wirelens serve`: runs every configured check on its schedule and serves their latest results on /metrics,
/// plus /probe?target=NAME, an on-demand run of a configured check (never an arbitrary URL).
public final class CheckService: Sendable {
    /// The default interval of a check without `every:`.
    public static let defaultInterval: Int64 = 60_000_000
    /// The Content-Type of the exposition format.
    public static let exposition = "text/plain; version=0.0.4; charset=utf-8"

    private let config: CheckConfig
    private let runner = CheckRunner()
    public let board: ResultBoard
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let schedulers: [Task<Void, Never>]

    /// The port the server listens on (the one asked for, or the one the system chose for port 0).
    public let port: Int

    /// Binds the server and starts the schedules; `problem` receives history write failures (one line each).
    public init(config: CheckConfig, host: String, port: Int, history: CheckHistory?,
                problem: @escaping @Sendable (String) -> Void) async throws {
        self.config = config
        let board = ResultBoard(order: config.checks.map(\.name), history: history)
        self.board = board
        let runner = self.runner
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.group = group
        let respond: @Sendable (HTTPMethod, String) async -> MetricsHTTPHandler.Response = { method, uri in
            await Self.respond(method: method, uri: uri, config: config, runner: runner, board: board)
        }
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.backlog, value: 64)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(MetricsHTTPHandler(respond: respond))
                    }
                }
                .bind(host: host, port: port).get()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        self.port = channel.localAddress?.port ?? port
        schedulers = config.checks.map { check in
            Task {
                let schedule = Schedule(interval: check.every ?? Self.defaultInterval)
                // Spread the first runs over a tenth of the interval, so that checks do not all start at once.
                let offset = Int64(Double(schedule.interval) * schedule.jitter * Double.random(in: 0..<1))
                try? await Task.sleep(nanoseconds: UInt64(offset) * 1000)
                while !Task.isCancelled {
                    let result = await runner.run(check)
                    await board.record(result)
                    if let trouble = await board.historyProblem { problem(trouble) }
                    try? await Task.sleep(nanoseconds: UInt64(schedule.nextDelay()) * 1000)
                }
            }
        }
    }

    /// Stops the schedules (a check running now finishes first) and the server.
    public func stop() async {
        for task in schedulers { task.cancel() }
        for task in schedulers { await task.value }
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    /// The answer to one request.
    static func respond(method: HTTPMethod, uri: String, config: CheckConfig, runner: CheckRunner,
                        board: ResultBoard) async -> MetricsHTTPHandler.Response {
        let text = "text/plain; charset=utf-8"
        guard method == .GET else {
            return .init(status: .methodNotAllowed, contentType: text, body: "only GET\n")
        }
        let components = URLComponents(string: uri)
        switch components?.path ?? uri {
        case "/metrics":
            return .init(status: .ok, contentType: exposition, body: PrometheusRenderer.render(await board.results()))
        case "/probe":
            let names = config.checks.map(\.name)
            guard let target = components?.queryItems?.first(where: { $0.name == "target" })?.value else {
                return .init(status: .badRequest, contentType: text,
                             body: "give ?target=NAME, one of: \(names.joined(separator: ", "))\n")
            }
            guard let check = config.checks.first(where: { $0.name == target }) else {
                return .init(status: .notFound, contentType: text,
                             body: "no configured check named '\(target)'; /probe runs configured checks only: \(names.joined(separator: ", "))\n")
            }
            let result = await runner.run(check)
            await board.record(result)
            return .init(status: .ok, contentType: exposition, body: PrometheusRenderer.render([result]))
        case "/":
            return .init(status: .ok, contentType: text,
                         body: "wirelens serve: /metrics (latest results), /probe?target=NAME (run a configured check)\n")
        default:
            return .init(status: .notFound, contentType: text, body: "not found; try /metrics\n")
        }
    }
}
