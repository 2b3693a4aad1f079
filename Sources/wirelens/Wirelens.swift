import ArgumentParser
import Foundation
import WirelensCapture
import WirelensCore
import WirelensCurl
import WirelensDigest
import WirelensProbe

/// The root command: `wirelens <subcommand>`.
@main
struct Wirelens: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wirelens",
        abstract: "Measure where the time of HTTP(S) uploads and downloads goes, transaction by transaction.",
        discussion: ExitStatus.allCases.map { "  \($0.rawValue)\t\($0.meaning)" }
            .joined(separator: "\n").prefixedWith("Exit codes:\n"),
        // `--version` first is answered by main() with `versionText()`: evaluated here, for every command line,
        // it loaded libpcap (see CPcapShim) into every process just to be ready for it.
        version: "wirelens \(WirelensVersion.current)",
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

    /// "wirelens VERSION (libcurl V, OpenSSL V, nghttp2 V, libpcap V)": each library's version as the library itself
    /// reports it at run time, so the line names what this process runs with, not what it was built against.
    static func versionText() -> String {
        let libraries = [
            "libcurl \(Libcurl.description.version)",
            "OpenSSL \(Libcrypto.version)",
            "nghttp2 \(Nghttp2Library.version)",
            "libpcap \(PcapLibrary.version)",
        ]
        return "wirelens \(WirelensVersion.current) (\(libraries.joined(separator: ", ")))"
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
        if arguments.first == "--version" {
            print(versionText())
            end(ExitStatus.success.rawValue)
        }
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            end(ErrorExit.code(parsing: error, arguments: arguments))
        }
        // -s without -S: a command line that parsed writes no error of its run (a usage error above was written).
        let runnable = command as? any RunnableCommand
        if runnable?.silencesErrors == true {
            Console.silenced.store(true, ordering: .relaxed)
        }
        var code = ExitStatus.success.rawValue
        do {
            if var runnable {
                try await runnable.run()
            } else {
                try command.run()
            }
        } catch {
            code = ErrorExit.code(running: error)
        }
        // Engines the command let go of may still be freeing their handles on their loop threads: exiting under
        // them runs libcurl's and OpenSSL's exit handlers while they work.
        await CurlLoops.shutdownAll()
        end(code)
    }

    /// Ends the process with `code` once its output is flushed, without the libraries' exit handlers: OpenSSL's
    /// cleanup frees its global and per-thread state, and a thread of the concurrency pool that touched OpenSSL and
    /// is ending at that moment runs its thread-stop handler into it (a crash at the end of a DoH download in one
    /// CI run). Everything the process writes is written by then; nothing it keeps needs tearing down.
    static func end(_ code: Int32) -> Never {
        fflush(nil)
        _exit(code)
    }
}

extension String {
    /// The string with `prefix` in front of it.
    func prefixedWith(_ prefix: String) -> String { prefix + self }
}
