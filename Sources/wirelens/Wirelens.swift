import ArgumentParser
import WirelensCore
import WirelensCurl
import WirelensProbe

/// The root command: `wirelens <subcommand>`.
struct Wirelens: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wirelens",
        abstract: "Measure where the time of HTTP(S) uploads and downloads goes, transaction by transaction.",
        discussion: ExitStatus.allCases.map { "  \($0.rawValue)\t\($0.meaning)" }
            .joined(separator: "\n").prefixedWith("Exit codes:\n"),
        version: versionText(),
        subcommands: [
            ProbeCommand.self,
            DownloadCommand.self,
            RenderCommand.self,
            CheckCommand.self,
            HistoryCommand.self,
            ServeCommand.self,
            TargetCommand.self,
            UploadCommand.self,
            CompareCommand.self,
            CaptureCommand.self,
        ]
    )

    static func versionText() -> String {
        let curl = Libcurl.description
        var parts = ["libcurl \(curl.version)"]
        if let ssl = curl.sslBackend { parts.append(ssl) }
        if let nghttp2 = curl.nghttp2 { parts.append("nghttp2/\(nghttp2)") }
        return "wirelens \(WirelensVersion.current) (\(parts.joined(separator: ", ")))"
    }
}

extension String {
    /// The string with `prefix` in front of it.
    func prefixedWith(_ prefix: String) -> String { prefix + self }
}
