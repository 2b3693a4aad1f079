import Foundation

/// Writes the command's own messages to stderr, one line each, prefixed with the program name.
enum Console {
    static func error(_ line: String) {
        FileHandle.standardError.write(Data("wirelens: \(line)\n".utf8))
    }

    /// True when the file descriptor is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }
}
