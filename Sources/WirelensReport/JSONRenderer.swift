import Foundation
import WirelensCore

/// Writes a report as the `wirelens.report/2` JSON document and reads such a document (or a `wirelens.report/1` one)
/// back.
///
/// The shape of the document is defined by `Report+Codable.swift` in WirelensCore and described in
/// `docs/report-schema.md`; this type only fixes the output formatting.
package enum JSONRenderer {
    /// The report as pretty-printed JSON text, slashes unescaped, ending with a newline.
    ///
    /// Keys keep the order the types encode them in (a transaction's timeline in time order); the summary's
    /// maps write their keys in a fixed order, so the same report always gives the same bytes.
    package static func render(_ report: Report) throws -> String {
        String(decoding: try renderBytes(report), as: UTF8.self)
    }

    /// The same document as UTF-8 bytes, without the copy into a String (large runs write tens of MB).
    ///
    /// Reports of more than `compactAbove` tasks are written compact (no indentation): 20 000 tasks make a document
    /// of tens of MB, a third of it spaces. `wirelens render REPORT --format json` indents any report.
    package static func renderBytes(_ report: Report, compactAbove: Int = Int.max) throws -> [UInt8] {
        var whole: [UInt8] = []
        try render(report, compactAbove: compactAbove) { whole.append(contentsOf: $0) }
        return whole
    }

    /// The same document handed to `emit` in pieces of about `chunkSize` bytes, so that a report of tens
    /// of MB is written through one small buffer instead of being held whole in memory.
    package static func render(_ report: Report, compactAbove: Int = Int.max, chunkSize: Int = 1 << 18,
                              emit: ([UInt8]) throws -> Void) throws {
        var stream = try Stream(head: report, layout: .stored, pretty: report.tasks.count <= compactAbove,
                                chunkSize: chunkSize)
        for i in report.tasks.indices { try stream.add(report.tasks[i], emit: emit) }
        try stream.finish(report, emit: emit)
    }

    /// A report's document written in parts: the members before the tasks, each task as it comes, then the
    /// members after them, in the order of a `Report.Layout`. The bytes go to `emit` in pieces of about
    /// `chunkSize`, so what is held does not grow with the tasks.
    ///
    /// The only writer of a compact report: a run's report written while the run goes on (`.streamed`, the
    /// default: the tasks right after `configuration`), and a stored report of many tasks (`.stored`). The tasks
    /// go through their one writer (`TaskJSONWriter`), indented when the document is (`pretty`); the other
    /// members through their Codable form.
    package struct Stream {
        private var json: JSONWriter
        private let after: [Report.Section]
        /// The depth of the tasks array in `json`.
        private let tasksDepth: Int
        private let chunkSize: Int
        /// The head report's `detail`: what each task's transactions hold.
        private let detail: ReportDetail

        /// Starts the document of `report`: the members before the tasks (for `.streamed`, `schema` to
        /// `startedAt`, and `configuration`), and the tasks array.
        package init(head report: Report, layout: Report.Layout = .streamed, pretty: Bool = false,
                     chunkSize: Int = 1 << 18) throws {
            json = JSONWriter(pretty: pretty, capacity: 0)
            let sections = layout.sections
            let before = sections.prefix { $0 != .tasks }
            after = Array(sections.dropFirst(before.count + 1))
            self.chunkSize = chunkSize
            detail = report.detail
            json.bytes.reserveCapacity(chunkSize + (1 << 16))
            let object = json.open(object: true)
            try json.encodeMembers(of: Report.Members(report, Array(before)))
            json.beginMember(depth: object, key: Report.tasksKey)
            tasksDepth = json.open(object: false)
        }

        /// Appends one task.
        package mutating func add(_ task: TaskRecord, emit: ([UInt8]) throws -> Void) throws {
            json.beginMember(depth: tasksDepth, key: nil)
            json.append(compact: TaskCoding(task: task, detail: detail))
            if json.bytes.count >= chunkSize { try flush(emit: emit) }
        }

        /// Hands over what has gathered so far.
        package mutating func flush(emit: ([UInt8]) throws -> Void) throws {
            guard !json.bytes.isEmpty else { return }
            try emit(json.bytes)
            json.bytes.removeAll(keepingCapacity: true)
        }

        /// Ends the document with the members after the tasks, from `report` (for `.streamed`: `endedAt`,
        /// `interrupted`, `caveats`, `summary`, `upload` and `connections`), and hands over the rest.
        package mutating func finish(_ report: Report, emit: ([UInt8]) throws -> Void) throws {
            json.closeFrames(above: tasksDepth - 1)
            // The connections through their own writer (a run of fresh connections lists thousands), the rest
            // through Codable.
            var pending: [Report.Section] = []
            for section in after {
                guard section == .connections, !json.pretty else {
                    pending.append(section)
                    continue
                }
                try json.encodeMembers(of: Report.Members(report, pending))
                pending = []
                json.beginMember(depth: tasksDepth - 1, key: Report.connectionsKey)
                try ConnectionRecordJSONWriter.append(report.connections, to: &json.bytes, chunkSize: chunkSize) { bytes in
                    try emit(bytes)
                    bytes.removeAll(keepingCapacity: true)
                }
            }
            try json.encodeMembers(of: Report.Members(report, pending))
            json.closeFrames(above: -1)
            json.bytes.append(UInt8(ascii: "\n"))
            try emit(json.bytes)
            json.bytes = []
        }
    }

    /// Reads a `wirelens.report/2` document, or converts a `wirelens.report/1` one (read at `ReportDetail.full`);
    /// throws a `DecodingError` for any other document.
    package static func decode(_ data: Data) throws -> Report {
        try JSONDecoder().decode(Report.self, from: data)
    }
}
