import Foundation

/// Writes a report file atomically: a reader never sees half a report.
enum ReportFile {
    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
