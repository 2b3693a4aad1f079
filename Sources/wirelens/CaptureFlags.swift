import ArgumentParser
import Foundation
import WirelensCapture
import WirelensCore
import WirelensReport

/// The probe's live-capture options: capture the run's packets, and check the report against them.
struct CaptureFlags: ParsableArguments {
    @Flag(name: .customLong("capture"), help: "Capture the run's packets (libpcap) and check the report against the wire.")
    var enabled = false

    @Option(name: .customLong("capture-file"), help: ArgumentHelp("Also write the captured packets to this pcap file (implies --capture).", valueName: "file"))
    var filePath: String?

    @Option(name: .customLong("capture-report"), help: ArgumentHelp("Write the wire analysis and verification (wirelens.capture/1 JSON) to this file (implies --capture).", valueName: "file"))
    var reportPath: String?

    @Option(name: .customLong("capture-interface"), help: ArgumentHelp("Capture on this interface instead of the one that routes to the targets.", valueName: "name"))
    var interface: String?

    @Option(name: .customLong("keylog"), help: ArgumentHelp("Keep the TLS key log of the run's HTTPS connections in this file (mode 0600; implies --capture). Without it the key log is a temporary file, deleted after the analysis.", valueName: "file"))
    var keyLogPath: String?

    /// True when any capture option was given.
    var wanted: Bool { enabled || filePath != nil || reportPath != nil || interface != nil || keyLogPath != nil }

    /// Checks, before anything runs, that the capture report file can be written (`ReportFile.checkWritable`).
    func check() throws(CommandFailure) {
        if let reportPath { try ReportFile.checkReport(reportPath) }
    }

    /// Sets up the key log libcurl writes for the run's HTTPS connections (before libcurl is initialised); nil when
    /// no capture is wanted or no URL is HTTPS.
    func prepareKeyLog(urls: [String]) throws(CommandFailure) -> CaptureKeyLog? {
        guard wanted else { return nil }
        return try CaptureKeyLog.prepare(keep: keyLogPath, urls: urls)
    }

    /// Starts capturing the traffic to `urls`' servers; nil (after one line on stderr) when capture is not
    /// wanted or not possible: the probe runs either way.
    func start(urls: [String], keyLog: CaptureKeyLog? = nil) -> LiveCapture? {
        guard wanted else { return nil }
        var servers: [Endpoint] = []
        for text in urls {
            guard let url = URL(string: text), let host = url.host else { continue }
            let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
            let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
            for address in CaptureTarget.resolve(host: bare) {
                servers.append(Endpoint(address: address, port: UInt16(clamping: port)))
            }
        }
        var target = CaptureTarget.plan(servers: servers)
        if let interface { target.interface = interface }
        do {
            // The key log is read as libcurl writes it (empty now).
            let capture = try LiveCapture(interface: target.interface, filter: target.filter, filePath: filePath,
                                          keyLogPath: keyLog?.path)
            capture.start()
            return capture
        } catch {
            Console.error("\(error.description); probing without a capture")
            return nil
        }
    }

    /// Stops the capture, checks `report` against it and writes the results; returns the exit code to use
    /// instead of `status` (the probe's own), which a capture report that cannot be written (3) or a disagreement
    /// changes.
    func finish(_ capture: LiveCapture, report: Report, status: Int32, textToStdout: Bool) -> Int32 {
        let (analysis, verification, kernel) = CaptureSession.verify(capture, probe: report,
                                                                     file: filePath ?? "(live on \(capture.interface))")
        var unwritten = false
        if let reportPath {
            do {
                let bytes = try CaptureJSONRenderer.render(analysis)
                try ReportFile.write(to: reportPath) { emit in try emit(bytes) }
            } catch {
                Console.error("cannot write capture report '\(reportPath)': \(error)")
                unwritten = true
            }
        }
        if textToStdout {
            ReportFile.writeAll(Array(("\n" + CaptureTextRenderer(color: false).render(verification)).utf8),
                                to: STDOUT_FILENO)
        }
        var line = "capture on \(capture.interface): \(analysis.packets.total) packets, \(kernel.dropped) dropped by the kernel"
        let unverified = verification.notVerifiable.reduce(0) { $0 + $1.transactions }
        if let first = verification.disagreements.first {
            line += "; the wire disagrees with the report: \(first)"
            if verification.disagreements.count > 1 { line += " (and \(verification.disagreements.count - 1) more)" }
        } else if unverified > 0 {
            line += "; \(unverified) transactions on TLS connections not verifiable without keys"
        } else {
            line += "; the wire agrees with the report"
        }
        Console.error(line)
        if unwritten { return ExitStatus.localFile.rawValue }
        if status == ExitStatus.success.rawValue && !verification.disagreements.isEmpty {
            return ExitStatus.wireDisagreement.rawValue
        }
        return status
    }
}
