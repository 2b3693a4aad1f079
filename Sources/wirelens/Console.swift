import Foundation
import WirelensCore
import WirelensProbe

/// Writes the command's own messages to stderr, one line each, prefixed with the program name.
enum Console {
    static func error(_ line: String) {
        FileHandle.standardError.write(Data("wirelens: \(line)\n".utf8))
    }

    /// True when text on stdout may be coloured: stdout is a terminal, and neither --no-color nor NO_COLOR says no.
    static func colorsStdout(noColor: Bool) -> Bool {
        !noColor && isTerminal(STDOUT_FILENO) && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    }

    /// Prints a failure found before anything ran as one line and returns its exit code: usage errors 2, the
    /// probe's own errors their documented code, anything else internal.
    static func fail(_ error: any Error) -> Int32 {
        switch error {
        case let usage as UsageError:
            Console.error(usage.message)
            return ExitStatus.usage.rawValue
        case let probe as ProbeError:
            Console.error(probe.description)
            return probe.exitStatus.rawValue
        default:
            Console.error("\(error)")
            return ExitStatus.internalError.rawValue
        }
    }

    /// True when the file descriptor is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}
