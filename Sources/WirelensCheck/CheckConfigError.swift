/// A mistake in a check configuration, with the file, line and key at fault.
package struct CheckConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configuration file's path as given.
    package var file: String
    /// The 1-based line of the key or value at fault (0 when the file could not be read at all).
    package var line: Int
    /// The key's path, e.g. `checks[0].expect.ttfb.max`; empty for the whole file.
    package var key: String
    /// What is wrong and what to write instead.
    package var message: String

    package init(file: String, line: Int, key: String, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    /// One line: `FILE:LINE: KEY: MESSAGE`.
    package var description: String {
        let place = line > 0 ? "\(file):\(line)" : file
        return key.isEmpty ? "\(place): \(message)" : "\(place): \(key): \(message)"
    }
}
