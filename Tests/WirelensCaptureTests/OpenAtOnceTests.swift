import Foundation
import WirelensTestSupport
import XCTest

/// `summary.connections.maxOpenAtOnce` of a probe run against nginx under a connection limit, held against a capture
/// of the run read by tshark: the most connections between their SYN and their first FIN or RST at any moment.
final class OpenAtOnceTests: XCTestCase {
    private var toRemove: [String] = []

    override func tearDown() {
        for path in toRemove { unlink(path) }
        toRemove = []
    }

    /// nginx closes each connection after its third request (`keepalive_requests 3`, the /keepalive3/ location).
    func testConnectionsClosedByTheServerAfterThreeRequestsNeverExceedTheLimit() throws {
        try checkOpenAtOnce(["--repeat", "30", "--concurrency", "4", "--max-host-connections", "2"],
                            path: "/keepalive3/small.txt")
    }

    func testFreshConnectionsPerRequestNeverExceedTheLimit() throws {
        try checkOpenAtOnce(["--no-reuse", "--repeat", "10", "--concurrency", "4", "--max-host-connections", "2"],
                            path: "/small.txt")
    }

    private func checkOpenAtOnce(_ arguments: [String], path: String) throws {
        let servers = try TestServers.get()
        let report = LoopbackCapture.temporaryPath("open.json")
        toRemove.append(report)
        let capture = try LoopbackCapture.record(filter: "tcp port \(servers.httpPort)") {
            let run = try WirelensCLI.run(["probe", "--format", "json", "--report", report, "-q"] + arguments
                + [servers.http(path)])
            guard run.status == 0 else { throw LoopbackCapture.Failure(description: "probe failed: \(run.stderr)") }
        }
        toRemove.append(capture)
        let wire = try Self.mostOpenAtOnce(capture)
        XCTAssertLessThanOrEqual(wire, 2, "libcurl keeps the limit on the wire")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))
            as? [String: Any])
        let connections = try XCTUnwrap((json["summary"] as? [String: Any])?["connections"] as? [String: Any])
        let claimed = try XCTUnwrap(connections["maxOpenAtOnce"] as? Int)
        XCTAssertEqual(claimed, wire, "the report's figure is the wire's: \(connections)")
        XCTAssertLessThanOrEqual(claimed, 2, "never more than the limit")
    }

    /// tshark's frames in order: a connection (tshark's stream) opens at its first SYN without ACK and closes at its
    /// first FIN or RST; the most open at once.
    static func mostOpenAtOnce(_ capture: String) throws -> Int {
        let outcome = try ProcessRunner.run("/usr/bin/tshark", [
            "-r", capture, "-T", "fields", "-E", "separator=,", "-e", "tcp.stream", "-e", "tcp.flags.syn",
            "-e", "tcp.flags.ack", "-e", "tcp.flags.fin", "-e", "tcp.flags.reset",
        ], timeout: 60)
        guard outcome.status == 0 else { throw LoopbackCapture.Failure(description: "tshark: \(outcome.stderr)") }
        func set(_ flag: Substring) -> Bool { flag == "1" || flag == "True" }
        var opened = Set<Int>()
        var closed = Set<Int>()
        var open = 0
        var most = 0
        for line in outcome.stdout.split(separator: "\n") {
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            guard f.count == 5, let stream = Int(f[0]) else { continue }
            if set(f[1]), !set(f[2]), !opened.contains(stream) {
                opened.insert(stream)
                open += 1
                most = max(most, open)
            } else if set(f[3]) || set(f[4]), opened.contains(stream), !closed.contains(stream) {
                closed.insert(stream)
                open -= 1
            }
        }
        return most
    }
}
