import ArgumentParser
import Foundation
import WirelensCheck
import WirelensCore
import WirelensStore

/// `wirelens serve --config CONFIG --listen 127.0.0.1:9469`: scheduled checks, /metrics and /probe?target=NAME.
struct ServeCommand: AsyncCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the configured checks on their schedules and serve the results to Prometheus.",
        discussion: """
            GET /metrics: the latest result of every check (Prometheus exposition text). GET /probe?target=NAME: \
            runs the configured check NAME now and answers with its result; only configured checks can be run, \
            never an arbitrary URL. Each check runs every its 'every:' (default 60s), with ±10% jitter. \
            SIGINT or SIGTERM stop it after the checks in flight.
            """)

    @Option(help: "The checks' configuration (YAML).")
    var config: String

    @Option(help: "The address to listen on: HOST:PORT (port 0 picks a free one).")
    var listen = "127.0.0.1:9469"

    @OptionGroup(title: "History")
    var history: HistoryFlags

    /// Serves until SIGINT/SIGTERM; exit 0 then, 2 on a configuration error.
    func execute() async -> Int32 {
        let checks: CheckConfig
        let address: (host: String, port: Int)
        let store: CheckHistory?
        do {
            address = try Self.parseListen(listen)
            checks = try CheckConfig.load(path: config, environment: ProcessInfo.processInfo.environment)
            store = try history.open()
        } catch {
            return InputFailure.exitCode(error)
        }
        let service: CheckService
        do {
            service = try await CheckService(config: checks, host: address.host, port: address.port,
                                             history: store, problem: { Console.error($0) })
        } catch {
            Console.error("cannot listen on \(listen): \(error)")
            return ExitStatus.usage.rawValue
        }
        Console.error("serving \(checks.checks.count) checks on http://\(Self.urlHost(address.host)):\(service.port)/metrics")
        let stopped = AsyncStream<Void>.makeStream()
        let trap = SignalTrap { stopped.continuation.yield() }
        for await _ in stopped.stream { break }
        _ = trap
        await service.stop()
        Console.error("stopped")
        return ExitStatus.success.rawValue
    }

    /// `HOST:PORT` or `[IPv6]:PORT`.
    static func parseListen(_ text: String) throws(UsageError) -> (host: String, port: Int) {
        let bad = UsageError("--listen '\(text)' is not HOST:PORT; write e.g. 127.0.0.1:9469 or [::1]:9469")
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (0...65535).contains(port) else { throw bad }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw bad }
        return (host, port)
    }

    /// A host for a URL: IPv6 addresses in brackets.
    static func urlHost(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
}
