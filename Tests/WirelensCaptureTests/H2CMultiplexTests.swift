import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest

/// HTTP/2 in clear text with prior knowledge multiplexes as h2 over TLS does (issue 15 item 3): against nginx's h2c
/// listener, a capture of the run (read by tshark) shows one TCP connection carrying every request.
final class H2CMultiplexTests: CapturedRunTestCase {
    /// tshark's count of HTTP/2 requests (HEADERS with a :path) per TCP stream.
    private func requestsPerConnection(_ path: String) throws -> [Int] {
        let rows = try TsharkOracle.values(path, filter: "http2.headers.path", field: "tcp.stream",
                                           decodeAs: "tcp.port==\(servers.h2cPort),http2")
        var counts: [String: Int] = [:]
        // One frame may carry several HEADERS frames: tshark then repeats nothing in tcp.stream, so count the paths.
        let paths = try TsharkOracle.values(path, filter: "http2.headers.path", field: "http2.headers.path",
                                            decodeAs: "tcp.port==\(servers.h2cPort),http2")
        for (stream, list) in zip(rows, paths) { counts[stream, default: 0] += list.split(separator: ",").count }
        return counts.values.sorted()
    }

    func testPriorKnowledgeRunCarriesEveryRequestOnOneConnection() throws {
        let report = WirelensCLI.temporaryPath("h2c.json")
        toRemove.append(report)
        var outcome: ProcessRunner.Outcome?
        let capture = try record(port: servers.h2cPort) {
            outcome = try WirelensCLI.run(["probe", servers.h2c("/small.txt"), "--http2-prior-knowledge",
                                           "--repeat", "30", "--concurrency", "10", "--format", "json",
                                           "--report", report, "-q"], timeout: 60)
        }
        XCTAssertEqual(outcome?.status, 0, outcome?.stderr ?? "")
        // The wire: one connection (one SYN), 30 requests on it.
        XCTAssertEqual(try TsharkOracle.clientPorts(capture).count, 1, "connections opened on the wire")
        XCTAssertEqual(try requestsPerConnection(capture), [30], "requests per connection on the wire")
        // The report agrees, and says how the connection was shared.
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))
                                 as? [String: Any])
        let tasks = try XCTUnwrap(json["tasks"] as? [[String: Any]])
        let transactions = tasks.flatMap { ($0["transactions"] as? [[String: Any]]) ?? [] }
        XCTAssertEqual(transactions.count, 30)
        XCTAssertTrue(transactions.allSatisfy { $0["error"] == nil || $0["error"] is NSNull }, "\(transactions)")
        XCTAssertEqual(Set(transactions.compactMap { $0["networkProtocolName"] as? String }), ["h2"])
        XCTAssertEqual(transactions.filter { ($0["reusedConnection"] as? Bool) == false }.count, 1)
        let caveats = (json["caveats"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        XCTAssertFalse(caveats.contains("h2c-no-reuse"), "\(caveats)")
        XCTAssertTrue(caveats.contains("h2c-joins"), "\(caveats)")
        XCTAssertTrue(caveats.contains("h2-phases"), "\(caveats)")
    }

    func testCompareH2OnAnHTTPURLKeepsOneConnectionPerRun() throws {
        let document = WirelensCLI.temporaryPath("compare.json")
        toRemove.append(document)
        var outcome: ProcessRunner.Outcome?
        let capture = try record(port: servers.h2cPort) {
            outcome = try WirelensCLI.run(["compare", servers.h2c("/small.txt"), "--modes", "h2", "--limits", "1,4",
                                           "--workload", "requests:12", "--repeat", "1", "--format", "json",
                                           "--report", document, "-q"], timeout: 90)
        }
        XCTAssertEqual(outcome?.status, 0, outcome?.stderr ?? "")
        // Two runs (limits 1 and 4), each on a connection of its own: two connections, 12 requests each.
        XCTAssertEqual(try TsharkOracle.clientPorts(capture).count, 2, "connections opened on the wire")
        XCTAssertEqual(try requestsPerConnection(capture), [12, 12], "requests per connection on the wire")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: document)))
                                 as? [String: Any])
        let results = try XCTUnwrap(json["results"] as? [[String: Any]])
        XCTAssertEqual(results.compactMap { $0["connectionsOpened"] as? Int }, [1, 1], "\(results)")
    }
}
