import WirelensCheck
import WirelensCore
import WirelensProbe

/// Reports an error found before a command's work started: one line on stderr and its documented exit code.
enum SetupFailure {
    /// Prints the error's one-line message and returns its exit code (usage errors and configuration errors: 2).
    static func report(_ error: any Error) -> Int32 {
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
            return ExitStatus.usage.rawValue
        }
    }
}
