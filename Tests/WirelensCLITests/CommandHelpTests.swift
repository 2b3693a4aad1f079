import Foundation
import Synchronization
import WirelensTestSupport
import XCTest

/// Every option a command's `--help` lists is one the command accepts, and the formats its `--format` lists are
/// the ones it accepts: a command never shows a flag it then refuses.
///
/// The oracle is the help text against the command's own behaviour. Each command is run with a sentinel input that
/// it refuses only after every option was checked (an ftp:// URL, a file that does not exist); a run whose error
/// names the sentinel accepted the option under test, a run that stops before it refused it.
final class CommandHelpTests: XCTestCase {
    /// A command, the arguments that end its run at the sentinel, and sample values for its options.
    private struct Subject {
        let path: [String]
        let arguments: [String]
        /// Options to give with the one under test, keyed by it (an option that needs another).
        var companions: [String: [String]] = [:]
        /// Sample values of this command's own, where the common one does not suit it.
        var samples: [String: String] = [:]
    }

    private static let sentinel = "wirelens-sentinel"
    private static let formats = ["json", "text", "har", "html", "prometheus"]

    private var scratch: String!
    private var file: String!

    override func setUpWithError() throws {
        scratch = CLIHarness.temporaryPath("help-options")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        file = scratch + "/body.bin"
        try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: file))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// The commands, each with arguments that reach the sentinel once its options are checked.
    private func subjects() -> [String: Subject] {
        let url = "ftp://127.0.0.1/\(Self.sentinel)"
        let missing = "/nonexistent/\(Self.sentinel)"
        return [
            "probe": Subject(path: ["probe"], arguments: [url]),
            "download": Subject(path: ["download"], arguments: [url, "-o", scratch + "/out.bin"],
                                companions: ["--retry": ["--resume"]]),
            "upload": Subject(path: ["upload"], arguments: [file, url]),
            "compare": Subject(path: ["compare"], arguments: [url]),
            "render": Subject(path: ["render"], arguments: [missing + ".json"]),
            "check": Subject(path: ["check"], arguments: [missing + ".yaml"]),
            "history": Subject(path: ["history"], arguments: ["--history", missing + ".sqlite"],
                               samples: ["--history": missing + ".sqlite"]),
            "serve": Subject(path: ["serve"], arguments: ["--config", missing + ".yaml", "--listen", "127.0.0.1:0"]),
            "target": Subject(path: ["target"], arguments: ["--data-dir", "/proc/\(Self.sentinel)", "--listen", "127.0.0.1:0"]),
            "capture analyze": Subject(path: ["capture", "analyze"], arguments: [missing + ".pcap"]),
        ]
    }

    /// Options to give with the one under test on every command that takes it (`--aws-sigv4` needs a key pair).
    private static let companions = ["--aws-sigv4": ["-u", "AKIAEXAMPLE:secret"]]

    /// A valid value for each option that takes one (the option's own checks must pass).
    private func sample(_ option: String) -> String? {
        let file: String = file, scratch: String = scratch
        let samples: [String: String] = [
            "--header": "X-Test: 1", "--max-host-connections": "2", "--max-connections": "2",
            "--connect-timeout": "1s", "--idle-timeout": "1s", "--timeout": "1s", "--tcp-sample": "100ms",
            "--sndbuf": "64KiB", "--max-redirs": "3", "--retry-max-wait": "1s", "--proxy": "http://127.0.0.1:9",
            "--cacert": file, "--report": scratch + "/report.out", "--request": "GET", "--upload": file,
            "--upload-size": "1KiB", "--form": "a=b", "--output": scratch + "/out.bin", "--repeat": "2",
            "--concurrency": "2", "--retries": "1", "--capture-file": scratch + "/c.pcap",
            "--capture-report": scratch + "/c.json", "--capture-interface": "lo", "--segment-size": "64KiB",
            "--parallel": "2", "--preset": "ios", "--part-url": "http://127.0.0.1:9/p/{index}",
            "--complete-url": "http://127.0.0.1:9/c", "--journal": scratch + "/journal.sqlite",
            "--limits": "1,2", "--modes": "h1", "--workload": "requests:2", "--every": "60s",
            "--history": scratch + "/history.sqlite", "--history-keep": "90d", "--since": "1h", "--config": "/nonexistent/\(Self.sentinel).yaml",
            "--listen": "127.0.0.1:0", "--header-timeout": "5s", "--data-dir": "/proc/\(Self.sentinel)",
            "--latency": "1ms", "--rate": "1MiB/s", "--rcvbuf": "64KiB", "--max-requests": "5",
            "--reset-after": "1MiB", "--stall": "1s", "--fault-status": "503", "--retry-after": "1",
            "--fail-parts": "0.5", "--fail-seed": "7", "--threads": "2", "--filter": "tcp port 8080",
            "--probe": scratch + "/probe.json", "--keylog": file, "--format": "text", "--write-out": "%{http_code}",
            "--retry": "1", "--retry-max-time": "10s", "--max-time": "10s", "--user-agent": "agent/1",
            "--user": "user:password", "--resolve": "a.test:80:127.0.0.1", "--connect-to": "a.test:80:127.0.0.1:8080",
            "--data": "a=1", "--data-binary": "@" + file, "--upload-file": file,
            "--vantage": "eu-west-1", "--shard": "1/2", "--expect100-timeout": "2",
            "--aws-sigv4": "aws:amz:us-east-1:s3", "--endpoint-url": "http://127.0.0.1:9",
            "--addressing-style": "path",
            "--tls-max": "1.2", "--interface": "127.0.0.1", "--cookie": "a=1", "--cookie-jar": scratch + "/jar.txt",
            "--doh-url": "https://127.0.0.1:9/dns-query", "--detail": "full",
        ]
        return samples[option]
    }

    /// One option of a help text: its long name, whether it takes a value, and its description on one line.
    private struct ListedOption {
        let name: String
        let takesValue: Bool
        let description: String
    }

    /// The options a help text lists: entries start with two spaces and a dash; continuation lines are indented
    /// further.
    private static func options(inHelp help: String) -> [ListedOption] {
        var entries: [(head: String, text: String)] = []
        var open = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  -") {
                entries.append((String(line), String(line)))
                open = true
            } else if open, line.hasPrefix("    ") {
                entries[entries.count - 1].text += " " + line.trimmingCharacters(in: .whitespaces)
            } else {
                open = false  // a blank line or a section header ends the entry
            }
        }
        return entries.compactMap { entry in
            let words = entry.head.split(separator: " ", omittingEmptySubsequences: true)
            guard let long = words.first(where: { $0.hasPrefix("--") }) else { return nil }
            let name = String(long.trimmingCharacters(in: CharacterSet(charactersIn: ",")))
            // The names (`-m, --max-time, --timeout`) come first, then the value's `<name>` if it takes one.
            let names = words.prefix { $0.hasPrefix("-") || $0.hasPrefix("<") }
            let takesValue = names.contains { $0.hasPrefix("<") }
            return ListedOption(name: name, takesValue: takesValue, description: entry.text)
        }
    }

    /// The subcommands a help text lists (the lines under SUBCOMMANDS:).
    private static func subcommands(inHelp help: String) -> [String] {
        guard let range = help.range(of: "SUBCOMMANDS:\n") else { return [] }
        var names: [String] = []
        for line in help[range.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("  "), !line.hasPrefix("  See ") else { break }
            // An entry starts two spaces in; its description's further lines are indented deeper.
            guard !line.hasPrefix("   "), let name = line.split(separator: " ").first else { continue }
            names.append(String(name))
        }
        return names
    }

    /// Every command path (`probe`, `capture analyze`, ...) from `wirelens --help` down.
    private func commandPaths() throws -> [[String]] {
        var paths: [[String]] = []
        var pending: [[String]] = [[]]
        var visited = 0
        while let path = pending.popLast(), visited < 50 {
            visited += 1
            let help = try CLIHarness.run(path + ["--help"])
            XCTAssertEqual(help.status, 0, "\(path) --help: \(help.stderr)")
            let children = Self.subcommands(inHelp: help.stdout).filter { $0 != "help" }
            if children.isEmpty { paths.append(path) } else { pending += children.map { path + [$0] } }
        }
        return paths
    }

    /// Runs a command with the sentinel arguments and `extra`; true when the run got as far as the sentinel.
    private func reachesSentinel(_ subject: Subject, _ extra: [String]) throws -> (Bool, String) {
        let outcome = try CLIHarness.run(subject.path + subject.arguments + extra, timeout: 30)
        return (outcome.stderr.contains(Self.sentinel), "exit \(outcome.status): \(outcome.stderr)")
    }

    /// Writes a probe report (a run against a closed loopback port) for `capture analyze --probe`.
    private func writeProbeReport() throws {
        let outcome = try CLIHarness.run(["probe", "http://127.0.0.1:9/", "--format", "json",
                                          "--report", scratch + "/probe.json", "-q"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: scratch + "/probe.json"), outcome.stderr)
    }

    /// Options that need the linked libcurl to have a feature, by the name `curl-config --features` gives it: where it
    /// lacks the feature, the option is listed and refused with the one line saying so.
    private static let featureOptions = ["--http3": "HTTP3", "--http3-only": "HTTP3"]

    /// The features of the libcurl Wirelens is built with, as `curl-config --features` lists them.
    private func libcurlFeatures() throws -> Set<String> {
        let features = try ProcessRunner.run("/usr/bin/env", ["curl-config", "--features"], timeout: 10)
        XCTAssertEqual(features.status, 0, features.stderr)
        return Set(features.stdout.split(separator: "\n").map(String.init))
    }

    func testEveryOptionAHelpListsIsAccepted() throws {
        try writeProbeReport()
        let features = try libcurlFeatures()
        let subjects = subjects()
        let paths = try commandPaths()
        XCTAssertGreaterThanOrEqual(paths.count, 10, "\(paths)")
        // Every run first, as many at once as there are CPUs (each is a process start and a parse), then the checks.
        var runs: [(what: String, arguments: [String])] = []
        for path in paths {
            let key = path.joined(separator: " ")
            guard let subject = subjects[key] else {
                XCTFail("no sentinel for 'wirelens \(key)': add it to subjects()")
                continue
            }
            runs.append(("wirelens \(key) with its sentinel alone", subject.path + subject.arguments))
            let help = try CLIHarness.run(path + ["--help"]).stdout
            let listed = Self.options(inHelp: help).filter { !["--help", "--version"].contains($0.name) }
            XCTAssertFalse(listed.isEmpty, "no options in the help of \(key)")
            for option in listed {
                var extra = [option.name]
                if option.takesValue {
                    guard let value = subject.samples[option.name] ?? sample(option.name) else {
                        XCTFail("no sample value for \(option.name) of \(key): add it to sample(_:)")
                        continue
                    }
                    extra.append(value)
                }
                extra += subject.companions[option.name] ?? Self.companions[option.name] ?? []
                // -s keeps the run's error (the sentinel) off stderr; -S brings it back.
                if option.name == "--silent" { extra.append("--show-error") }
                if let feature = Self.featureOptions[option.name], !features.contains(feature) {
                    let outcome = try CLIHarness.run(subject.path + subject.arguments + extra, timeout: 30)
                    XCTAssertEqual(outcome.status, 2, "\(key) \(option.name): \(outcome.stderr)")
                    XCTAssertTrue(outcome.stderr.contains("has no HTTP/3"), "\(key) \(option.name): \(outcome.stderr)")
                    continue
                }
                runs.append(("wirelens \(key) --help lists \(option.name), which it refuses",
                             subject.path + subject.arguments + extra))
            }
        }
        let outcomes = Self.runAll(runs.map(\.arguments))
        for (run, outcome) in zip(runs, outcomes) {
            switch outcome {
            case .success(let result):
                XCTAssertTrue(result.stderr.contains(Self.sentinel), "\(run.what): exit \(result.status): \(result.stderr)")
            case .failure(let error):
                XCTFail("\(run.what): \(error)")
            }
        }
    }

    /// Runs wirelens with each argument list, as many at once as there are CPUs; the outcomes in the lists' order.
    private static func runAll(_ lists: [[String]]) -> [Result<ProcessRunner.Outcome, any Error>] {
        let outcomes = Mutex([Result<ProcessRunner.Outcome, any Error>?](repeating: nil, count: lists.count))
        let next = Mutex(0)
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let index = next.withLock { value -> Int in
                    defer { value += 1 }
                    return value
                }
                guard index < lists.count else { return }
                let outcome = Result<ProcessRunner.Outcome, any Error> { try CLIHarness.run(lists[index], timeout: 30) }
                outcomes.withLock { $0[index] = outcome }
            }
        }
        return outcomes.withLock { $0.map { $0 ?? .failure(CocoaError(.featureUnsupported)) } }
    }

    func testTheFormatsAHelpListsAreTheOnesAccepted() throws {
        let subjects = subjects()
        for path in try commandPaths() {
            let key = path.joined(separator: " ")
            guard let subject = subjects[key] else { continue }
            let help = try CLIHarness.run(path + ["--help"]).stdout
            guard let option = Self.options(inHelp: help).first(where: { $0.name == "--format" }) else { continue }
            let range = try XCTUnwrap(option.description.range(of: "(values: "), "\(key): \(option.description)")
            let values = option.description[range.upperBound...].prefix { $0 != ")" && $0 != ";" }
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            XCTAssertFalse(values.isEmpty, "\(key): \(option.description)")
            for format in Self.formats {
                let (accepted, why) = try reachesSentinel(subject, ["--format", format])
                if values.contains(format) {
                    XCTAssertTrue(accepted, "wirelens \(key) --help lists --format \(format), which it refuses: \(why)")
                } else {
                    XCTAssertFalse(accepted, "wirelens \(key) accepts --format \(format), which its help omits: \(why)")
                }
            }
        }
    }
}
