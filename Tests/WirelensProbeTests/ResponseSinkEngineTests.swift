import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
import WirelensProbe

/// A memory sink through the engine against nginx: the body that comes back with the record is the file nginx
/// served (read from its document root), cut at the limit with the cut marked; a redirect chain keeps the last
/// hop's body only (nginx's configured text).
final class ResponseSinkEngineTests: XCTestCase {
    func testMemorySinkReturnsTheServedBody() async throws {
        let servers = try TestServers.get()
        let small = try Data(contentsOf: URL(fileURLWithPath: servers.nginxDir + "/www/small.txt"))
        let big = try Data(contentsOf: URL(fileURLWithPath: servers.nginxDir + "/www/bytes/1m.bin"))
        let engine = try Engine(options: ProbeOptions())
        let records = await engine.run([
            TaskSpec(url: servers.http("/small.txt"), response: .memory(limit: 1 << 20)),
            TaskSpec(url: servers.http("/bytes/1m.bin"), response: .memory(limit: 1000)),
            TaskSpec(url: servers.http("/hops/3"), response: .memory(limit: 1 << 20)),
            TaskSpec(url: servers.http("/small.txt")),
        ])
        XCTAssertEqual(records.count, 4)
        XCTAssertEqual(records[0].responseBody, ResponseBody(bytes: Array(small), truncated: false))
        XCTAssertEqual(records[1].responseBody?.bytes, Array(big.prefix(1000)))
        XCTAssertEqual(records[1].responseBody?.truncated, true)
        XCTAssertEqual(records[1].transactions.last?.responseBodyBytes, Int64(big.count), "the transfer went on")
        XCTAssertNil(records[1].error)
        XCTAssertEqual(records[2].responseBody?.text, "arrived after redirects\n")
        XCTAssertEqual(records[2].redirectCount, 2)
        XCTAssertNil(records[3].responseBody, "a discarded body is not kept")
    }
}
