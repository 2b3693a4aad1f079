import Foundation
import Synchronization
import WirelensCore

/// Writes the command's own messages to stderr, one line each, prefixed with the program name.
enum Console {
    /// Writes one line, with the URLs in it redacted (whatever produced the message).
    static func error(_ line: String) {
        guard !silenced.load(ordering: .relaxed) else { return }
        FileHandle.standardError.write(Data("wirelens: \(Redactor.urls(in: line))\n".utf8))
    }

    /// Set once the command line asked for silence (`-s` without `-S`): `error(_:)` writes nothing from then on.
    static let silenced = Atomic<Bool>(false)

    /// True when text on stdout may be coloured: stdout is a terminal, and neither --no-color nor NO_COLOR says no.
    static func colorsStdout(noColor: Bool) -> Bool {
        !noColor && isTerminal(STDOUT_FILENO) && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    }

    /// True when the file descriptor is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}
