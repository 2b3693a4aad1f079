import WirelensCaptureModel
import WirelensConcurrency
import WirelensCore

/// Runs a capture's analysis to its report, as `ProbeSession` runs a probe: a file checked against a probe run, a
/// file streamed connection by connection to a consumer on a thread of its own, or a live capture stopped and
/// checked against the run it watched.
package enum CaptureSession {
    /// Reads `file` to its end (or until `stop`), keeping every connection, and checks `probe` against it: the
    /// verification joins transactions to connections, and a probe run's connections are few.
    package static func verify(_ file: PacketFile, probe: Report, until stop: StopRequest? = nil,
                              keyLog: KeyLog? = nil) -> CaptureAnalyzer.Outcome {
        var all: [TCPConnection] = []
        var outcome = CaptureAnalyzer.analyze(file, until: stop, keyLog: keyLog) { all.append($0) }
        all.sort { $0.index < $1.index }
        outcome.report.connections = all
        outcome.report.verification = ProbeVerifier.verify(probe, against: outcome.report)
        return outcome
    }

    /// Stops `capture` and checks `probe`, the run it watched, against what it saw; `file` names the capture in
    /// the report. Returns the report (its `verification` set), the verification, and the kernel's packet counts.
    package static func verify(_ capture: LiveCapture, probe: Report, file: String)
        -> (report: CaptureReport, verification: ProbeVerification, kernel: LiveCapture.KernelCounts) {
        var (report, kernel) = capture.stop(file: file, interrupted: probe.interrupted)
        let verification = ProbeVerifier.verify(probe, against: report)
        report.verification = verification
        return (report, verification, kernel)
    }

    /// Reads `file` to its end (or until `stop`), handing each connection as it finishes to `consume`, which runs
    /// on a thread of its own while the reading goes on (`WriteBehind`: batches of about 1024 exchanges, at most
    /// six on their way, so memory follows the connections open at a time). Returns once every connection was
    /// consumed; the first error `consume` throws is thrown then, and later connections are not consumed.
    package static func stream(_ file: PacketFile, until stop: StopRequest? = nil, keyLog: KeyLog? = nil,
                              consume: @escaping (TCPConnection) throws -> Void) throws -> CaptureAnalyzer.Outcome {
        let behind = WriteBehind<TCPConnection>(name: "wirelens-json-write", batchWeight: 1024,
                                                weight: { 1 + $0.exchanges.count }, consume: consume)
        let outcome = CaptureAnalyzer.analyze(file, until: stop, keyLog: keyLog) { behind.add($0) }
        try behind.finish()
        return outcome
    }
}
