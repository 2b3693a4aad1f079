import Foundation
import WirelensCore
import WirelensProbe

/// Runs checks through the probe engine and evaluates their assertions.
///
/// Each check runs as one probe task on an engine with its own options. By default every run gets a new engine,
/// so connect and TLS are measured each time; a check with `keep_alive: true` keeps its engine (and its
/// connection pool) across rounds.
///
/// `stop()` cancels the runs in flight and refuses new ones: they return nil, no result.
public actor CheckRunner {
    private var engines: [String: Engine] = [:]
    /// The engines of the runs in flight, so that `stop()` can cancel them.
    private var running: [UUID: Engine] = [:]
    private var stopped = false
    /// The most bytes of a response body kept for `body_contains`.
    public static let bodyLimit = 1 << 20

    public init() {}

    /// Runs every check once, concurrently, and returns the results in configuration order (after `stop()`, the
    /// results of the checks that finished).
    public func runRound(_ checks: [CheckDefinition]) async -> [CheckResult] {
        await withTaskGroup(of: (Int, CheckResult?).self) { group in
            for (index, check) in checks.enumerated() {
                group.addTask { (index, await self.run(check)) }
            }
            var results = [CheckResult?](repeating: nil, count: checks.count)
            for await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
    }

    /// Cancels the runs in flight (their transfers end at once) and every later run: they return nil.
    public func stop() {
        stopped = true
        for engine in running.values { engine.cancel() }
    }

    /// Runs one check once; nil when the runner was stopped before or during the run.
    public func run(_ check: CheckDefinition) async -> CheckResult? {
        guard !stopped else { return nil }
        let started = Int64(Date().timeIntervalSince1970 * 1e6)
        let engine: Engine
        do {
            engine = try self.engine(for: check)
        } catch {
            return CheckResult(name: check.name, url: check.url, startedAt: started, record: nil,
                               failure: error.description, assertions: [], certificateExpiry: nil)
        }
        async let certificate: Result<Int64, ProbeError>? = check.certificateDays == nil ? nil
            : CertificateExpiry.earliest(url: check.url, options: check.options)
        let id = UUID()
        running[id] = engine
        let records = await engine.run([check.taskSpec(bodyLimit: Self.bodyLimit)])
        running[id] = nil
        guard !stopped else { return nil }
        let expiry = await certificate
        guard let record = records.first else {
            return CheckResult(name: check.name, url: check.url, startedAt: started, record: nil,
                               failure: "the engine returned no record", assertions: [], certificateExpiry: nil)
        }
        var extras = CheckEvaluator.Extras(now: Int64(Date().timeIntervalSince1970 * 1e6))
        extras.body = record.responseBody?.text
        switch expiry {
        case .success(let date): extras.certificateExpiry = date
        case .failure(let error): extras.certificateProblem = error.description
        case nil: break
        }
        let assertions = CheckEvaluator.evaluate(check.expectations, record: record, extras: extras)
        return CheckResult(name: check.name, url: check.url, startedAt: started, record: record, failure: nil,
                           assertions: assertions, certificateExpiry: extras.certificateExpiry)
    }

    /// The check's engine: a kept one for `keep_alive` checks, else a new one.
    private func engine(for check: CheckDefinition) throws(ProbeError) -> Engine {
        guard check.keepAlive else { return try Engine(options: check.engineOptions) }
        if let engine = engines[check.name] { return engine }
        let engine = try Engine(options: check.engineOptions)
        engines[check.name] = engine
        return engine
    }
}
