import ArgumentParser
import Foundation
import WirelensCore
import WirelensReport

/// `-w/--write-out FORMAT`, shared by `probe`, `download` and `upload`: curl's per-transfer line, per task.
struct WriteOutFlags: ParsableArguments {
    @Option(name: [.customShort("w"), .customLong("write-out")],
            help: ArgumentHelp("After each task, print FORMAT with curl's %{variables} (and Wirelens' own) to stdout; @FILE reads it from a file, @- from stdin.",
                               discussion: "Times come from Wirelens' own instants: an upload's time_starttransfer is its first response byte, not its first upload byte (see docs/curl-compatibility.md). With -w, the report goes only to --report FILE.",
                               valueName: "FORMAT"))
    var format: String?

    /// Checks what can be checked before the run without reading stdin: the format itself (not an `@FILE`), and that
    /// a report in another format than text has a `--report FILE` to go to, as stdout carries the write-out.
    func check(report format: ReportFormat, reportPath: String?) throws(UsageError) {
        guard let text = self.format else { return }
        if format != .text, reportPath == nil {
            throw UsageError("-w prints to stdout: give --report FILE for the \(format.rawValue) report")
        }
        if !text.hasPrefix("@") { _ = try parsed() }
    }

    /// The parsed format, reading `@FILE` (or `@-`, stdin); nil without -w. An unreadable file or a malformed format
    /// is a usage error.
    func parsed() throws(UsageError) -> WriteOut? {
        guard let format else { return nil }
        let text: String
        if format.hasPrefix("@") {
            let path = String(format.dropFirst())
            let data: Data?
            if path == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                data = FileManager.default.contents(atPath: path)
            }
            guard let data, let decoded = String(data: data, encoding: .utf8) else {
                throw UsageError("-w @\(path): cannot read the format file; give a readable UTF-8 file, or the format itself")
            }
            text = decoded
        } else {
            text = format
        }
        do throws(WriteOut.ParseError) { return try WriteOut(parsing: text) } catch { throw UsageError(error.message) }
    }
}
