import Foundation
import WirelensTestSupport
import XCTest

/// Every command the README shows runs as shown: its `console` blocks are run against the built executable and the
/// target server the README starts, each must exit 0, and each labelled line of its sample output must be in what
/// it printed. The target listens on a free port instead of 8080; the `yaml` blocks headed `# FILE` are written
/// first, as a reader would save them.
final class ReadmeCommandsTests: XCTestCase {
    /// The README's address for the target, replaced by the port it really got.
    private static let readmeAddress = "127.0.0.1:8080"

    /// One `$ command` line of a console block and the sample output below it.
    struct Step {
        var command: String
        var sample: [String]
    }

    /// The console blocks' steps, in the order the README gives them.
    static func steps(in readme: String) -> [Step] {
        var steps: [Step] = []
        var inConsole = false
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                inConsole = line == "```console"
                continue
            }
            guard inConsole else { continue }
            if line.hasPrefix("$ ") {
                steps.append(Step(command: String(line.dropFirst(2)), sample: []))
            } else if !steps.isEmpty {
                steps[steps.count - 1].sample.append(line)
            }
        }
        return steps
    }

    /// The files the README asks a reader to save: `yaml` blocks whose first line is `# NAME`.
    static func files(in readme: String) -> [String: String] {
        var files: [String: String] = [:]
        var current: (name: String?, lines: [String])?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if current == nil, line == "```yaml" {
                current = (nil, [])
            } else if var block = current {
                if line.hasPrefix("```") {
                    if let name = block.name { files[name] = block.lines.joined(separator: "\n") + "\n" }
                    current = nil
                } else {
                    if block.name == nil && block.lines.isEmpty && line.hasPrefix("# ") {
                        block.name = String(line.dropFirst(2))
                    }
                    block.lines.append(line)
                    current = block
                }
            }
        }
        return files
    }

    /// The labels of a sample: the text before the first run of two spaces on a line that has one, without digits
    /// (a number, a port or a wrapped sentence differs from run to run; a label does not).
    static func labels(_ sample: [String]) -> [String] {
        sample.compactMap { line in
            let trimmed = line.drop { $0 == " " }
            guard let gap = trimmed.range(of: "  ") else { return nil }
            let label = String(trimmed[..<gap.lowerBound])
            guard !label.isEmpty, label.contains(where: \.isLetter), !label.contains(where: \.isNumber) else { return nil }
            return label
        }
    }

    func testTheParserFindsLabelsAndNotNumbers() {
        let sample = ["  Tasks         200 ok", "  h1    1   655 MB/s", "                send time and closed in 71%",
                      "PASS  small  200", "Recommendation", "  Queue wait     68µs  │▏"]
        XCTAssertEqual(Self.labels(sample), ["Tasks", "PASS", "Queue wait"])
        let steps = Self.steps(in: "x\n```console\n$ a b\none  two\n$ c\n```\n```sh\n$ not this\n```\n")
        XCTAssertEqual(steps.map(\.command), ["a b", "c"])
        XCTAssertEqual(steps.first?.sample, ["one  two"])
        XCTAssertEqual(Self.files(in: "```yaml\n# f.yaml\nk: v\n```\n```yaml\nno: name\n```\n"), ["f.yaml": "# f.yaml\nk: v\n"])
    }

    func testEveryReadmeCommandRunsAsShown() throws {
        let readme = try String(contentsOf: TestServers.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let steps = Self.steps(in: readme)
        XCTAssertGreaterThanOrEqual(steps.count, 5, "the README's first steps")
        let first = try XCTUnwrap(steps.first)
        XCTAssertTrue(first.command.hasPrefix("wirelens target ") && first.command.hasSuffix(" &"),
                      "the first step starts the target in the background: \(first.command)")

        let directory = CLIHarness.temporaryPath("readme")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        // The target as the README starts it, on a free port.
        let targetCommand = first.command.dropLast(2).replacingOccurrences(of: Self.readmeAddress, with: "127.0.0.1:0")
        let target = try ServerProcess("/bin/sh", ["-c", "exec " + shellLine(targetCommand)])
        defer { _ = target.stop() }
        let port = try XCTUnwrap(target.announcedPort(), "the target did not announce its port: \(target.stderr)")
        let address = "127.0.0.1:\(port)"
        for (name, text) in Self.files(in: readme) {
            try text.replacingOccurrences(of: Self.readmeAddress, with: address)
                .write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }
        XCTAssertEqual(target.stdout.split(separator: "\n").first.map(String.init),
                       first.sample.first?.replacingOccurrences(of: Self.readmeAddress, with: address))

        for step in steps.dropFirst() {
            let line = "cd '\(directory)' && " + shellLine(step.command.replacingOccurrences(of: Self.readmeAddress, with: address))
            let outcome = try ProcessRunner.run("/bin/sh", ["-c", line], timeout: 120)
            XCTAssertEqual(outcome.status, 0, "\(step.command)\n\(outcome.stderr)")
            let printed = Set(outcome.stdout.split(separator: "\n").map { line in
                let trimmed = line.drop { $0 == " " }
                return String(trimmed[..<(trimmed.range(of: "  ")?.lowerBound ?? trimmed.endIndex)])
            })
            for label in Self.labels(step.sample) {
                XCTAssertTrue(printed.contains(label), "\(step.command): no '\(label)' line in:\n\(outcome.stdout)")
            }
        }
    }

    /// A README command as the shell runs it: `wirelens` is the built executable.
    private func shellLine(_ command: String) -> String {
        command.hasPrefix("wirelens ") ? "'\(WirelensCLI.path)' " + command.dropFirst("wirelens ".count) : command
    }
}
