import ArgumentParser
import Foundation
import WirelensCore
import WirelensCurl
import WirelensProbe

/// The root command: `wirelens <subcommand>`.
@main
struct Wirelens: AsyncParsableCommand {
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

    /// `wirelens` alone names no command: the overview of commands, and the usage exit code.
    func run() throws {
        print(Self.helpMessage())
        throw ExitCode(ExitStatus.usage.rawValue)
    }

    /// Parses the command line, runs the command, and exits with the documented code: every error goes through
    /// `ErrorExit`, which writes its one line.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            Foundation.exit(ErrorExit.code(parsing: error, arguments: arguments))
        }
        var code = ExitStatus.success.rawValue
        do {
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            code = ErrorExit.code(running: error)
        }
        // Engines the command let go of may still be freeing their handles on their loop threads: exiting under
        // them runs libcurl's and OpenSSL's exit handlers while they work.
        await CurlLoops.shutdownAll()
        Foundation.exit(code)
    }
}

extension String {
    /// The string with `prefix` in front of it.
    func prefixedWith(_ prefix: String) -> String { prefix + self }
}
