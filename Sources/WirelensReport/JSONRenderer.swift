import Foundation
import WirelensCore

/// Writes a report as the `wirelens.report/1` JSON document and reads such a document back.
///
/// The shape of the document is defined by `Report+Codable.swift` in WirelensCore and described in
/// `docs/report-schema.md`; this type only fixes the output formatting.
public enum JSONRenderer {
    /// The report as pretty-printed JSON text, slashes unescaped, ending with a newline.
    ///
    /// Keys keep the order the types encode them in (a transaction's timeline in time order); the summary's
    /// maps write their keys in a fixed order, so the same report always gives the same bytes.
    public static func render(_ report: Report) throws -> String {
        String(decoding: try renderBytes(report), as: UTF8.self)
    }

    /// The same document as UTF-8 bytes, without the copy into a String (large runs write tens of MB).
    ///
    /// Reports of more than `compactAbove` tasks are written compact (no indentation): 20 000 tasks make a document
    /// of tens of MB, a third of it spaces. `wirelens render REPORT --format json` indents any report.
    public static func renderBytes(_ report: Report, compactAbove: Int = Int.max) throws -> [UInt8] {
        var whole: [UInt8] = []
        try render(report, compactAbove: compactAbove) { whole.append(contentsOf: $0) }
        return whole
    }

    /// The same document handed to `emit` in pieces of about `chunkSize` bytes, so that a report of tens
    /// of MB is written through one small buffer instead of being held whole in memory.
    public static func render(_ report: Report, compactAbove: Int = Int.max, chunkSize: Int = 1 << 20,
                              emit: ([UInt8]) throws -> Void) throws {
        guard report.tasks.count > compactAbove else {
            var bytes = try StreamingJSONEncoder(prettyPrinted: true).encode(report)
            bytes.append(UInt8(ascii: "\n"))
            return try emit(bytes)
        }
        // Compact: everything but the tasks through Codable, ending in `"tasks":[]}`; the tasks, the bulk of a
        // large report, through TaskJSONWriter in between.
        var shell = report
        shell.tasks = []
        var bytes = try StreamingJSONEncoder(prettyPrinted: false).encode(shell)
        guard bytes.suffix(2).elementsEqual("]}".utf8) else { throw RenderError.unexpectedShape }
        bytes.removeLast(2)
        var array = TaskArray(opening: bytes, chunkSize: chunkSize)
        for i in report.tasks.indices { try array.add(report.tasks[i], emit: emit) }
        try array.close(with: Array("]}\n".utf8), emit: emit)
    }

    /// A report written while its run goes on: its head, each task as it ends, then the rest. Compact, with the
    /// tasks right after `configuration` (`Report.StreamedPart`); the bytes go to `emit` in pieces of about
    /// `chunkSize`, so what is held does not grow with the tasks.
    public struct Stream {
        private var array: TaskArray

        /// Starts the document of `report`: `schema` to `startedAt`, and `configuration`.
        public init(head report: Report, chunkSize: Int = 1 << 20) throws {
            var bytes = try StreamingJSONEncoder(prettyPrinted: false).encode(Report.StreamedPart(report, .head))
            guard bytes.last == UInt8(ascii: "}") else { throw RenderError.unexpectedShape }
            bytes.removeLast()
            bytes.append(contentsOf: ",\"tasks\":[".utf8)
            array = TaskArray(opening: bytes, chunkSize: chunkSize)
        }

        /// Appends one task.
        public mutating func add(_ task: TaskRecord, emit: ([UInt8]) throws -> Void) throws {
            try array.add(task, emit: emit)
        }

        /// Hands over what has gathered so far.
        public mutating func flush(emit: ([UInt8]) throws -> Void) throws {
            try array.flush(emit: emit)
        }

        /// Ends the document with `report`'s `endedAt`, `interrupted`, `caveats`, `summary` and `upload`.
        public mutating func finish(_ report: Report, emit: ([UInt8]) throws -> Void) throws {
            var tail = try StreamingJSONEncoder(prettyPrinted: false).encode(Report.StreamedPart(report, .tail))
            guard tail.first == UInt8(ascii: "{") else { throw RenderError.unexpectedShape }
            tail[0] = UInt8(ascii: ",")
            try array.close(with: Array("]".utf8) + tail + Array("\n".utf8), emit: emit)
        }
    }

    /// A JSON array of tasks after some opening bytes, written compact by `TaskJSONWriter` and handed to `emit`
    /// whenever about `chunkSize` bytes have gathered.
    private struct TaskArray {
        private var bytes: [UInt8]
        private var count = 0
        private let chunkSize: Int

        init(opening: [UInt8], chunkSize: Int) {
            bytes = opening
            self.chunkSize = chunkSize
            bytes.reserveCapacity(chunkSize + (1 << 16))
        }

        mutating func add(_ task: TaskRecord, emit: ([UInt8]) throws -> Void) throws {
            if count > 0 { bytes.append(UInt8(ascii: ",")) }
            count += 1
            TaskJSONWriter.append(task, to: &bytes)
            if bytes.count >= chunkSize { try flush(emit: emit) }
        }

        mutating func flush(emit: ([UInt8]) throws -> Void) throws {
            guard !bytes.isEmpty else { return }
            try emit(bytes)
            bytes.removeAll(keepingCapacity: true)
        }

        /// Appends `closing` and hands over what is left.
        mutating func close(with closing: [UInt8], emit: ([UInt8]) throws -> Void) throws {
            bytes.append(contentsOf: closing)
            try emit(bytes)
            bytes = []
        }
    }

    /// The report's Codable form did not end with its tasks array, which the compact path splices into.
    enum RenderError: Error { case unexpectedShape }

    /// Reads a `wirelens.report/1` document; throws a `DecodingError` for any other document.
    public static func decode(_ data: Data) throws -> Report {
        try JSONDecoder().decode(Report.self, from: data)
    }
}
