import ArgumentParser
import Foundation
import WirelensCapture
import WirelensConcurrency
import WirelensCore
import WirelensReport

/// `wirelens capture analyze FILE`: the TCP connections and HTTP/1.x exchanges of a .pcap or .pcapng file.
struct CaptureAnalyzeCommand: RunnableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Analyse a .pcap or .pcapng file: TCP connections and their HTTP/1.x and HTTP/2 exchanges.",
        discussion: "Reads the file once, streaming. Link types: Ethernet (802.1Q), Linux cooked v1/v2 "
            + "('tcpdump -i any'), BSD loopback, raw IP. The JSON report is wirelens.capture/1 "
            + "(docs/capture-schema.md). With --keylog, TLS 1.2 and 1.3 connections (AES-GCM, ChaCha20-Poly1305) are "
            + "decrypted and read like clear text; without it their exchanges are inferred from record directions. "
            + "A damaged or cut file still gets a report of the packets before the "
            + "damage, and exit code \(ExitStatus.localFile.rawValue). SIGINT or SIGTERM stops the reading: the report "
            + "then covers the packets read until then, marked interrupted, and the exit code is "
            + "\(ExitStatus.interrupted.rawValue) (\(ExitStatus.terminated.rawValue) after SIGTERM).")

    @Argument(help: "The capture file (.pcap or .pcapng).")
    var path: String

    @Option(help: "A BPF filter applied while reading, as for tcpdump (for example 'tcp port 8080').")
    var filter: String?

    @Option(name: .customLong("probe"), help: ArgumentHelp(
        "Check this probe report (wirelens.report/1 JSON) against the capture.", valueName: "report.json"))
    var probePath: String?

    @Option(name: .customLong("keylog"), help: ArgumentHelp(
        "Decrypt TLS with this NSS key log (the SSLKEYLOGFILE format of curl, browsers and Wireshark).",
        valueName: "file"))
    var keyLogPath: String?

    @OptionGroup var output: ReportFlags<CaptureFormat>

    /// Analyses the file and writes the report.
    func run() async throws {
        try output.check()
        AllocatorPolicy.keepBatchMemory()
        var probe: Report?
        if let probePath {
            do {
                probe = try JSONRenderer.decode(Data(contentsOf: URL(fileURLWithPath: probePath)))
            } catch is DecodingError {
                throw CommandFailure(.usage, "'\(probePath)' is not a \(Report.schemaID) report; give the JSON that "
                    + "'wirelens probe --format json' wrote")
            } catch {
                throw CommandFailure(.localFile, "cannot read probe report '\(probePath)': \(error.localizedDescription)")
            }
        }
        // SIGINT or SIGTERM stops the reading; what was read is analysed and written, marked interrupted. A pipe
        // whose writer stopped in the middle of a record keeps the reading thread waiting: a second signal ends
        // the process at once.
        let stop = StopRequest()
        let trap = SignalTrap {
            stop.request()
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
        }
        defer { withExtendedLifetime(trap) {} }
        let file: PacketFile
        do {
            file = try PacketFile(path: path, filter: filter)
        } catch {
            if case .badFilter = error { throw CommandFailure(.usage, error.description) }
            throw CommandFailure(.localFile, error.description)
        }
        var keyLog: KeyLog?
        if let keyLogPath {
            do {
                keyLog = try KeyLog(path: keyLogPath)
            } catch {
                throw CommandFailure(.localFile, error.description)
            }
            if let warning = keyLog?.warning { Console.error("warning: \(warning)") }
        }
        var outcome: CaptureAnalyzer.Outcome
        let status: Int32
        if let probe {
            outcome = CaptureSession.verify(file, probe: probe, until: stop, keyLog: keyLog)
            status = output.deliver(outcome.report)
        } else {
            // Streamed: connections are written as they finish, and memory does not grow with the file.
            let streamed = output.deliver(streaming: file, until: stop, keyLog: keyLog)
            guard let last = streamed.outcome else { return try ErrorExit.end(streamed.status) }
            status = streamed.status
            outcome = last
        }
        if let error = outcome.readError {
            throw CommandFailure(.localFile, error.description)
        }
        if outcome.report.interrupted {
            Console.error("interrupted: the report covers the \(outcome.report.packets.total) packets read before the "
                + "signal (\(outcome.report.summary.connections) connections)")
            try ErrorExit.end(status == ExitStatus.success.rawValue ? ExitStatus.interrupted.rawValue : status)
        }
        if status == ExitStatus.success.rawValue, let disagreements = outcome.report.verification?.disagreements,
           let first = disagreements.first {
            let more = disagreements.count > 1 ? " (and \(disagreements.count - 1) more)" : ""
            throw CommandFailure(.wireDisagreement, "the capture disagrees with the probe report: \(first)\(more)")
        }
        try ErrorExit.end(status)
    }
}
