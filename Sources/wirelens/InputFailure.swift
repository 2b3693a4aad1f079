import WirelensCheck
import WirelensCore
import WirelensProbe

/// What a command does with an error found while checking its input: one line on stderr, and its exit code.
enum InputFailure {
    /// Writes the error's one line and returns the documented exit code (usage 2, a local file 3, ...).
    static func exitCode(_ error: any Error) -> Int32 {
        switch error {
        case let error as UsageError:
            Console.error(error.message)
            return ExitStatus.usage.rawValue
        case let error as CheckConfigError:
            Console.error(error.description)
            return ExitStatus.usage.rawValue
        case let error as ProbeError:
            Console.error(error.description)
            return error.exitStatus.rawValue
        default:
            Console.error("\(error)")
            return ExitStatus.internalError.rawValue
        }
    }
}
