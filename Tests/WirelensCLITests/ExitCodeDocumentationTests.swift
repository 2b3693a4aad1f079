import Foundation
import WirelensCore
import XCTest
@testable import wirelens

/// The exit codes as the README and docs/ state them agree with `ExitStatus`, so that they cannot drift apart.
final class ExitCodeDocumentationTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func text(_ relative: String) throws -> String {
        try String(contentsOf: Self.root.appendingPathComponent(relative), encoding: .utf8)
    }

    /// The rows `| a | b | …` of the first table after the heading `heading`, header and rule left out.
    private func table(after heading: String, in text: String) -> [[String]] {
        guard let start = text.range(of: "\n\(heading)\n") else { return [] }
        var rows: [[String]] = []
        var inTable = false
        for line in text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("|") {
                inTable = true
                rows.append(line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) })
            } else if inTable || line.hasPrefix("#") {
                break
            }
        }
        return rows.count > 2 ? Array(rows.dropFirst(2)) : []
    }

    func testReadmeTableIsExitStatusCodeForCodeAndMeaningForMeaning() throws {
        let rows = table(after: "## Exit codes", in: try text("README.md"))
        XCTAssertEqual(rows.map { $0.first ?? "" }, ExitStatus.allCases.map { String($0.rawValue) }, "the codes, in order")
        for (row, status) in zip(rows, ExitStatus.allCases) {
            XCTAssertEqual(row.count, 2, "\(row)")
            XCTAssertEqual(row.last, status.meaning, "code \(status.rawValue)")
        }
    }

    /// The report schema's error classes give the exit code `ExitStatus.forError` gives.
    func testReportSchemaErrorClassesGiveTheirExitCodes() throws {
        let doc = try text("docs/report-schema.md")
        guard let start = doc.range(of: "| Class | Meaning | Exit code | Retryable |") else {
            return XCTFail("no error class table in docs/report-schema.md")
        }
        var seen: Set<ErrorClass> = []
        for line in doc[start.upperBound...].split(separator: "\n").dropFirst() {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let name = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let errorClass = try XCTUnwrap(ErrorClass(rawValue: name), name)
            XCTAssertEqual(cells[2], String(ExitStatus.forError(errorClass).rawValue), name)
            XCTAssertEqual(cells[3].hasPrefix("yes") || cells[3].contains("5xx"), errorClass.isTransient || errorClass == .http,
                           "\(name): retryable")
            seen.insert(errorClass)
        }
        XCTAssertEqual(seen, Set(ErrorClass.allCases), "every class documented")
    }

    /// Every exit code the docs name in a table or a sentence is one of `ExitStatus`, and a capture's disagreement
    /// with a probe report is `wireDisagreement` wherever it is mentioned.
    func testDocsNameOnlyRealCodesAndTheDisagreementCode() throws {
        let files = ["README.md"] + (try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("docs").path))
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        let codes = Set(ExitStatus.allCases.map(\.rawValue))
        let sentence = try NSRegularExpression(pattern: #"(?:exit code|exits? with|exits?|code) (?:is |into |of )?`?(\d+)`?"#,
                                               options: [.caseInsensitive])
        var checked = 0
        for file in files {
            let doc = try text(file)
            for rows in [table(after: "## Exit codes", in: doc)] {
                for row in rows {
                    let code = try XCTUnwrap(Int32(row.first ?? ""), "\(file): \(row)")
                    XCTAssertTrue(codes.contains(code), "\(file): \(row)")
                    if row.joined().contains("disagree") {
                        XCTAssertEqual(code, ExitStatus.wireDisagreement.rawValue, "\(file): \(row)")
                    }
                    checked += 1
                }
            }
            for line in doc.split(separator: "\n") where !line.hasPrefix("|") {
                let text = String(line)
                for match in sentence.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    guard let range = Range(match.range(at: 1), in: text), let code = Int32(text[range]) else { continue }
                    XCTAssertTrue(codes.contains(code), "\(file): \(text)")
                    if text.contains("disagree") {
                        XCTAssertEqual(code, ExitStatus.wireDisagreement.rawValue, "\(file): \(text)")
                    }
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 20)
    }
}
