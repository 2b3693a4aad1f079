import ArgumentParser
import Foundation
import WirelensCore

/// Parses the command line and turns every outcome into a one-line message and a documented exit code.
enum CommandLineEntry {
    static func run(_ arguments: [String]) async -> Int32 {
        // `wirelens` alone names no command: the overview of commands, and the usage exit code.
        if arguments.isEmpty {
            print(Wirelens.helpMessage())
            return ExitStatus.usage.rawValue
        }
        do {
            let command = try Wirelens.parseAsRoot(arguments)
            if let runnable = command as? any AsyncCommand {
                return interruption(await runnable.execute())
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
            let name = (command(in: arguments)).map { " \($0)" } ?? ""
            Console.error("\(message) (see 'wirelens help\(name)')")
            return ExitStatus.usage.rawValue
        }
    }

    /// A run that ended because of a signal exits 130 for SIGINT and 143 for SIGTERM (commands report 130 for both).
    static func interruption(_ code: Int32) -> Int32 {
        guard code == ExitStatus.interrupted.rawValue, SignalTrap.caught.load(ordering: .relaxed) == SIGTERM else { return code }
        return ExitStatus.terminated.rawValue
    }

    /// The subcommand named on the command line, if any, for the pointer to its help.
    private static func command(in arguments: [String]) -> String? {
        let names = Wirelens.configuration.subcommands.map { $0.configuration.commandName ?? "" }
        return arguments.first { names.contains($0) }
    }
}
