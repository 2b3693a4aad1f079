import Foundation
import WirelensTestSupport
import XCTest

/// A probe's `connections` against nginx's own account of the same run: the connections it served (`$connection`,
/// by the client's port), how many requests each carried (`$connection_requests`), and the bytes it sent for each
/// (`$bytes_sent`, against the kernel's count of bytes received during that transaction).
final class ProbeConnectionsTests: XCTestCase {
    /// One request as nginx logged it.
    private struct Logged {
        var connection: Int
        var request: Int
        var port: Int
        var bytesSent: UInt64
    }

    /// The lines of nginx's connection log for the requests whose query carries `token`.
    private func logged(_ servers: TestServers, token: String) throws -> [Logged] {
        let path = servers.nginxDir + "/connections.log"
        // nginx writes a line when the response is done; the probe has exited, so every line is there.
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ")
            guard f.count == 5, f[4].contains(token), let c = Int(f[0]), let r = Int(f[1]), let p = Int(f[2]),
                  let b = UInt64(f[3]) else { return nil }
            return Logged(connection: c, request: r, port: p, bytesSent: b)
        }
    }

    func testConnectionsAndTheirTransactionsMatchNginx() throws {
        let servers = try TestServers.get()
        let token = "run-\(UUID().uuidString)"
        let report = CLIHarness.temporaryPath("connections.json")
        let outcome = try CLIHarness.run([
            "probe", servers.http("/conn/small.txt?\(token)"), "--repeat", "60", "--concurrency", "4",
            "--max-host-connections", "4", "--format", "json", "--report", report, "--quiet"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        try CLIHarness.assertValid(report, schema: "report.schema.json")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))
                                 as? [String: Any])
        let connections = try XCTUnwrap(json["connections"] as? [[String: Any]])
        let tasks = try XCTUnwrap(json["tasks"] as? [[String: Any]])
        let lines = try logged(servers, token: token)
        XCTAssertEqual(lines.count, 60)

        // nginx's connections, by the client's port.
        var nginx: [Int: [Logged]] = [:]
        for line in lines { nginx[line.port, default: []].append(line) }
        XCTAssertEqual(Set(lines.map(\.connection)).count, nginx.count, "a port reused by two of nginx's connections")
        XCTAssertEqual(connections.count, nginx.count, "connections: \(connections.count), nginx: \(nginx.count)")

        for connection in connections {
            let port = try XCTUnwrap(connection["localPort"] as? Int)
            let served = try XCTUnwrap(nginx[port], "nginx served no connection from port \(port)")
                .sorted { $0.request < $1.request }
            let count = try XCTUnwrap(connection["transactionCount"] as? Int)
            XCTAssertEqual(count, served.count, "port \(port)")
            XCTAssertEqual(served.map(\.request), Array(1...served.count), "port \(port): nginx's request numbers")
            XCTAssertEqual(connection["shared"] as? Bool, false, "HTTP/1.1 carries one request at a time")
            XCTAssertEqual(connection["networkProtocolName"] as? String, "http/1.1")
            let refs = try XCTUnwrap(connection["transactions"] as? [[String: Int]])
            XCTAssertEqual(refs.count, count)
            // Its transactions in the order they were sent, each against nginx's request of the same number.
            var sent: [(start: String, tx: [String: Any])] = []
            for ref in refs {
                let task = try XCTUnwrap(tasks.first { $0["index"] as? Int == ref["task"] })
                let tx = try XCTUnwrap((task["transactions"] as? [[String: Any]])?[try XCTUnwrap(ref["transaction"])])
                XCTAssertEqual(tx["localPort"] as? Int, port)
                let stamps = try XCTUnwrap(tx["timestamps"] as? [String: Any])
                sent.append((try XCTUnwrap(stamps["requestStart"] as? String), tx))
            }
            sent.sort { $0.start < $1.start }
            for (i, (_, tx)) in sent.enumerated() {
                let tcp = try XCTUnwrap(tx["tcp"] as? [String: Any])
                XCTAssertEqual(tcp["shared"] as? Bool, false, "port \(port) request \(i + 1)")
                XCTAssertEqual((tcp["bytesReceived"] as? NSNumber)?.uint64Value, served[i].bytesSent,
                               "port \(port) request \(i + 1): the kernel's bytes received against nginx's bytes sent")
            }
            let totals = try XCTUnwrap(connection["totals"] as? [String: Any])
            XCTAssertEqual((totals["bytesReceived"] as? NSNumber)?.uint64Value, served.reduce(0) { $0 + $1.bytesSent },
                           "port \(port): the connection's bytes received over its life")
            XCTAssertNotNil(connection["handshakeRTT"] as? Int, "every connection was opened by this run")
        }
    }
}
