import Foundation
import WirelensCore
import WirelensProbe

/// Runs checks through the probe engine and evaluates their assertions.
///
/// Each check runs as one probe task on an engine with its own options. By default every run gets a new engine,
/// so connect and TLS are measured each time; a check with `keep_alive: true` keeps its engine (and its
/// connection pool) across rounds.
public actor CheckRunner {
    private var engines: [String: Engine] = [:]
    /// The most bytes of a response body kept for `body_contains`.
    public static let bodyLimit = 1 << 20

    public init() {}

    /// Runs every check once, concurrently, and returns the results in configuration order.
    public func runRound(_ checks: [CheckDefinition]) async -> [CheckResult] {
        await withTaskGroup(of: (Int, CheckResult).self) { group in
            for (index, check) in checks.enumerated() {
                group.addTask { (index, await self.run(check)) }
            }
            var results = [CheckResult?](repeating: nil, count: checks.count)
            for await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
    }

    /// Runs one check once.
    public func run(_ check: CheckDefinition) async -> CheckResult {
        let started = Int64(Date().timeIntervalSince1970 * 1e6)
        let engine: Engine
        do {
            engine = try self.engine(for: check)
        } catch {
            return CheckResult(name: check.name, url: check.url, startedAt: started, record: nil,
                               failure: error.description, assertions: [], certificateExpiry: nil)
        }
        let bodyPath = check.readsBody
            ? FileManager.default.temporaryDirectory.appendingPathComponent("wirelens-check-\(UUID().uuidString)").path
            : nil
        defer { if let bodyPath { unlink(bodyPath) } }
        async let certificate: Result<Int64, ProbeError>? = check.certificateDays == nil ? nil
            : CertificateExpiry.earliest(url: check.url, options: check.options)
        let records = await engine.run([check.taskSpec(outputPath: bodyPath)])
        let expiry = await certificate
        guard let record = records.first else {
            return CheckResult(name: check.name, url: check.url, startedAt: started, record: nil,
                               failure: "the engine returned no record", assertions: [], certificateExpiry: nil)
        }
        var extras = CheckEvaluator.Extras(now: Int64(Date().timeIntervalSince1970 * 1e6))
        if let bodyPath, let handle = FileHandle(forReadingAtPath: bodyPath) {
            let data = (try? handle.read(upToCount: Self.bodyLimit)) ?? nil
            try? handle.close()
            extras.body = String(decoding: data ?? Data(), as: UTF8.self)
        }
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
        guard check.keepAlive else { return try Engine(options: check.options) }
        if let engine = engines[check.name] { return engine }
        let engine = try Engine(options: check.options)
        engines[check.name] = engine
        return engine
    }
}
