import XCTest

extension WirelensCLI {
    /// Runs `wirelens` with the arguments and asserts how bad input fails: the exit code `code`, stderr exactly one
    /// line naming `mention`, and no crash.
    public static func assertFails<Code: RawRepresentable>(_ arguments: [String], code: Code, mention: String,
                                                           file: StaticString = #filePath, line: UInt = #line) throws
    where Code.RawValue == Int32 {
        let outcome = try run(arguments)
        XCTAssertEqual(outcome.status, code.rawValue, "stderr: \(outcome.stderr)", file: file, line: line)
        let lines = outcome.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, "one-line error expected, got: \(outcome.stderr)", file: file, line: line)
        XCTAssertTrue(outcome.stderr.contains(mention), "'\(mention)' not in: \(outcome.stderr)", file: file, line: line)
        XCTAssertFalse(outcome.stderr.contains("Fatal error"), file: file, line: line)
    }
}
