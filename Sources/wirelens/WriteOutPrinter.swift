import Foundation
import WirelensCore
import WirelensReport

/// Prints a parsed `-w` format for each task, to stdout or stderr as the format switches.
struct WriteOutPrinter: Sendable {
    let format: WriteOut

    /// A printer; warns once, in one line on stderr, about the format's unknown variables.
    init(_ format: WriteOut) {
        self.format = format
        if let warning = format.unknownWarning { Console.error(warning) }
    }

    /// Prints the format for one task; `exitCode` is the task's own (nil: what its failure decides).
    func print(_ task: TaskRecord, exitCode: ExitStatus? = nil) {
        let code = exitCode ?? ExitStatus.forTasks([task], interrupted: false)
        for (stream, text) in format.render(WriteOutValues(task: task, exitCode: code.rawValue)) {
            _ = ReportFile.writeAll(Array(text.utf8), to: stream == .stdout ? STDOUT_FILENO : STDERR_FILENO)
        }
    }
}
