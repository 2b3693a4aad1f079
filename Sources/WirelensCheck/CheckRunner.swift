import Foundation
import WirelensCore
import WirelensProbe

/// Runs checks through one long-lived probe engine and evaluates their assertions.
///
/// Every check of the process (scheduled runs, `/probe`, a `check` round) runs as one probe task on the same engine:
/// one loop thread and one connection pool, whatever the number of checks. Each check's task carries the check's own
/// options (`TaskOptions`: headers, timeouts, TLS, HTTP version), and its `keep_alive` governs its part of the pool:
/// by default a run opens a fresh connection and closes it after (CURLOPT_FRESH_CONNECT and FORBID_REUSE), so connect
/// and TLS are measured every time; a check with `keep_alive: true` reuses pooled connections across rounds.
///
/// `stop()` cancels the runs in flight and refuses new ones: they return nil, no result.
package actor CheckRunner {
    /// The engine, made at the first run; nil until then, or when it could not be made (`engineFailure`).
    private var engine: Engine?
    private var engineFailure: ProbeError?
    /// Each check's task options, built once per check (by name, made again when its options change).
    private var taskOptions: [String: TaskOptions] = [:]
    private var stopped = false
    /// The engine's limit of checks in flight at once; runs beyond it wait inside the engine, their timeout not started.
    package let inFlightLimit: Int
    /// The most bytes of a response body kept for `body_contains`.
    package static let bodyLimit = 1 << 20
    /// The default `inFlightLimit`: the engine's connections (and so file descriptors) stay below it plus its pool.
    package static let defaultInFlightLimit = 256

    /// The most connections the pool holds, in use or idle (CURLMOPT_MAXCONNECTS): one per configured check. libcurl
    /// closes the oldest idle connection when a run ends beyond it, so a burst of `/probe` runs leaves no more
    /// connections open than a round of every check needs, while a round of them all keeps each `keep_alive`
    /// check's connection for the next.
    package let keptConnections: Int

    package init(inFlightLimit: Int = CheckRunner.defaultInFlightLimit, keptConnections: Int = 8) {
        self.inFlightLimit = max(1, inFlightLimit)
        self.keptConnections = max(1, keptConnections)
    }

    /// Makes the shared engine now rather than at the first run, so that its descriptors (the loop's wake-up
    /// descriptors) are there from the start instead of appearing with the first request.
    package func prepare() {
        _ = try? sharedEngine()
    }

    /// The pool size for `checks`: one connection per check, within the in-flight limit.
    package static func keptConnections(for checks: [CheckDefinition], inFlightLimit: Int = defaultInFlightLimit) -> Int {
        min(max(1, checks.count), max(1, inFlightLimit))
    }

    /// The options of the shared engine: its concurrency and its pool of kept connections; the checks bring the rest.
    static func engineOptions(inFlightLimit: Int) -> ProbeOptions {
        var options = ProbeOptions()
        options.concurrency = inFlightLimit
        return options
    }

    /// Runs every check once, concurrently, and returns the results in configuration order (after `stop()`, the
    /// results of the checks that finished).
    package func runRound(_ checks: [CheckDefinition]) async -> [CheckResult] {
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
    package func stop() {
        stopped = true
        engine?.cancel()
    }

    /// Runs one check once; nil when the runner was stopped before or during the run.
    package func run(_ check: CheckDefinition) async -> CheckResult? {
        guard !stopped else { return nil }
        let started = Int64(Date().timeIntervalSince1970 * 1e6)
        let engine: Engine
        let options: TaskOptions
        do {
            engine = try sharedEngine()
            options = try self.options(for: check)
        } catch {
            return CheckResult(name: check.name, url: check.url, startedAt: started, record: nil,
                               failure: error.description, assertions: [], certificateExpiry: nil)
        }
        async let certificate: Result<Int64, ProbeError>? = check.certificateDays == nil ? nil
            : CertificateExpiry.earliest(url: check.url, options: check.options)
        let records = await engine.run([check.taskSpec(bodyLimit: Self.bodyLimit)], options: options)
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

    /// The engine every check runs on, made at the first run.
    private func sharedEngine() throws(ProbeError) -> Engine {
        if let engine { return engine }
        if let engineFailure { throw engineFailure }
        do {
            let made = try Engine(options: Self.engineOptions(inFlightLimit: inFlightLimit), connectionCache: keptConnections)
            engine = made
            return made
        } catch {
            engineFailure = error
            throw error
        }
    }

    /// The check's task options: made once, again only when the check's options changed.
    private func options(for check: CheckDefinition) throws(ProbeError) -> TaskOptions {
        let wanted = check.engineOptions
        if let known = taskOptions[check.name], known.options == wanted { return known }
        let made = try TaskOptions(wanted)
        taskOptions[check.name] = made
        return made
    }
}
