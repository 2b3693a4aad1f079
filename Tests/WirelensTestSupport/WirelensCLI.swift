import Foundation

/// The built `wirelens` executable, run end to end by the CLI tests.
public enum WirelensCLI {
    /// The executable, built next to the test bundle; `WIRELENS_BIN` names another (e.g. main's, to see a new test fail there).
    public static var path: String {
        if let other = ProcessInfo.processInfo.environment["WIRELENS_BIN"], !other.isEmpty { return other }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("wirelens").path
    }

    /// Runs `wirelens` with the arguments, bounded by `timeout`.
    public static func run(_ arguments: [String], timeout: TimeInterval = 60,
                           afterStart: ((pid_t) -> Void)? = nil) throws -> ProcessRunner.Outcome {
        try ProcessRunner.run(path, arguments, timeout: timeout, afterStart: afterStart)
    }

    /// A fresh path in the temporary directory (nothing is created).
    public static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("wl-\(UUID().uuidString)-\(name)").path
    }
}
