import ArgumentParser
import Foundation
import WirelensCheck
import WirelensCore
import WirelensStore

/// `wirelens serve --config CONFIG --listen 127.0.0.1:9469`: scheduled checks, /metrics and /probe?target=NAME.
struct ServeCommand: CheckedCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the configured checks on their schedules and serve the results to Prometheus.",
        discussion: """
            GET /metrics: the latest result of every check (Prometheus exposition text). GET /probe?target=NAME: \
            runs the configured check NAME now and answers with its result; only configured checks can be run, \
            never an arbitrary URL. Each check runs every its 'every:' (default 60s), at a place within the interval \
            fixed by its name (so checks spread out and keep their spacing across restarts), bounded by its \
            'timeout:' (default 10s); a run still going at its next tick skips that tick (counted in \
            wirelens_check_skipped_total). --vantage labels every sample; --shard K/N runs a share of the checks. \
            SIGINT or SIGTERM stop it at once: the checks in flight are cancelled (no result recorded). Results are \
            stored in the history in batches, off the checks' path; with --history-keep, runs older than that are \
            removed at the start and every 10 minutes, 10,000 rows per transaction. Exit codes: 0 after \
            SIGINT/SIGTERM, 12 when the history database could not be used meanwhile (the checks ran and were \
            served), 13 when the --listen address cannot be used, 2 a configuration error.
            """)

    @Option(help: "The checks' configuration (YAML).")
    var config: String

    @Option(help: "The address to listen on: HOST:PORT (port 0 picks a free one).")
    var listen = "127.0.0.1:9469"

    @Option(name: .customLong("header-timeout"),
            help: "Close a connection whose request has not arrived this long after it was accepted (slow clients).")
    var headerTimeout: FlagValue<PositiveDuration> = "10s"

    @Option(name: .customLong("idle-timeout"),
            help: "Close a connection on which nothing moved this long (not while its answer is being computed).")
    var idleTimeout: FlagValue<PositiveDuration> = "60s"

    @OptionGroup(title: "History")
    var history: HistoryFlags

    @OptionGroup(title: "Vantage points")
    var fleet: FleetFlags

    /// The checked flags: the address, the connection limits, the vantage and the configuration (this shard's
    /// checks).
    private func checked() throws(UsageError) -> (address: (host: String, port: Int), limits: ServeLimits,
                                                  checks: CheckConfig, vantage: String?) {
        var limits = ServeLimits()
        let address = try Self.parseListen(listen)
        limits.headerTimeout = try headerTimeout.value("--header-timeout").micros
        limits.idleTimeout = try idleTimeout.value("--idle-timeout").micros
        _ = try history.keep()
        let (vantage, shard) = try fleet.checked()
        do throws(CheckConfigError) {
            var checks = try CheckConfig.load(path: config, environment: ProcessInfo.processInfo.environment)
            if let shard { checks.checks = shard.select(checks.checks) }
            return (address, limits, checks, vantage)
        } catch {
            throw UsageError(error.description)
        }
    }

    func checkFlags() throws(UsageError) {
        _ = try checked()
    }

    /// Serves until SIGINT/SIGTERM; exit 0 then (12 when the history could not be used), 2 on a configuration
    /// error, 13 when the address cannot be used.
    func run() async throws {
        let (address, limits, checks, vantage) = try checked()
        let opened = history.open()
        // Results are stored in batches from a thread of their own, the runs older than --history-keep removed
        // between them; each new kind of trouble is one warning line.
        let writer = try opened.store.map { store throws(UsageError) in
            HistoryWriter(history: store, policy: HistoryWriter.Policy(keep: try history.keep()),
                          problem: { Console.error($0.description) })
        }
        let board = ResultBoard(checks: checks.checks, history: writer, historyFailed: opened.unavailable,
                                vantage: vantage)
        let service = try await CheckService(config: checks, host: address.host, port: address.port, limits: limits,
                                             board: board)
        Console.error("serving \(checks.checks.count) checks on http://\(Self.urlHost(address.host)):\(service.port)/metrics")
        await SignalTrap.wait()
        await service.stop()
        writer?.finish()
        Console.error("stopped")
        if await board.historyFailed { throw ExitCode(ExitStatus.historyUnavailable.rawValue) }
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
