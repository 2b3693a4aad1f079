import ArgumentParser
import Foundation
import WirelensCore

/// Parses the command line and turns every outcome into a one-line message and a documented exit code.
enum CommandLineEntry {
    static func run(_ arguments: [String]) async -> Int32 {
        do {
            let command = try Wirelens.parseAsRoot(arguments)
            if let probe = command as? ProbeCommand {
                return await probe.execute()
            }
            if let render = command as? RenderCommand {
                return render.execute()
            }
            var other = command
            try other.run()
            return ExitStatus.success.rawValue
        } catch {
            let code = Wirelens.exitCode(for: error)
            if code == .success {
                print(Wirelens.fullMessage(for: error))
                return ExitStatus.success.rawValue
            }
            let message = Wirelens.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            Console.error("\(message) (see 'wirelens help probe')")
            return ExitStatus.usage.rawValue
        }
    }
}
