import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import WirelensProbe

/// One engine, tasks with options of their own (`TaskOptions`): each task's headers reach the server as Python's
/// parser reads them (slowpeer's /echo-headers), each task's total timeout bounds it alone (the target's delay), and
/// reuse follows each task's options (nginx's own connection serial numbers in its log).
final class TaskOptionsTests: XCTestCase {
    func testEachTaskCarriesItsOwnOptionsOnOneEngine() async throws {
        let s = try TestServers.get()
        let engine = try Engine(options: { var o = ProbeOptions(); o.concurrency = 8; return o }())
        var first = ProbeOptions()
        first.headers = [HeaderField(name: "X-Check", value: "first")]
        first.userAgent = "agent-one"
        var second = ProbeOptions()
        second.headers = [HeaderField(name: "X-Check", value: "second")]
        second.totalTimeout = 200_000
        let one = try TaskOptions(first)
        let two = try TaskOptions(second)
        async let echoOne = engine.run([TaskSpec(url: s.peer("/echo-headers"), response: .memory(limit: 65536))], options: one)
        async let echoTwo = engine.run([TaskSpec(url: s.peer("/echo-headers"), response: .memory(limit: 65536))], options: two)
        async let slowOne = engine.run([TaskSpec(url: s.target("/delay/1000"))], options: one)
        async let slowTwo = engine.run([TaskSpec(url: s.target("/delay/1000"))], options: two)
        let (a, b, c, d) = await (echoOne, echoTwo, slowOne, slowTwo)

        func headers(_ records: [TaskRecord]) throws -> [String: String] {
            let text = try XCTUnwrap(records.first?.responseBody?.text)
            return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String], text)
        }
        let seenOne = try headers(a)
        let seenTwo = try headers(b)
        XCTAssertEqual(seenOne["X-Check"], "first")
        XCTAssertEqual(seenOne["User-Agent"], "agent-one")
        XCTAssertEqual(seenTwo["X-Check"], "second")
        XCTAssertEqual(seenTwo["User-Agent"], ProbeOptions().userAgent)

        XCTAssertEqual(c.first?.statusCode, 200, "no timeout: the delayed answer arrives")
        XCTAssertNil(c.first?.error)
        XCTAssertEqual(d.first?.error?.errorClass, .totalTimeout, "the 200 ms timeout is the second task's alone")
        await engine.shutdown()
    }

    func testReuseFollowsEachTasksOptions() async throws {
        let s = try TestServers.get()
        let engine = try Engine(options: ProbeOptions())
        let key = UUID().uuidString
        var fresh = ProbeOptions()
        fresh.reuseConnections = false
        let kept = try TaskOptions(ProbeOptions())
        let once = try TaskOptions(fresh)
        for _ in 0..<3 {
            _ = await engine.run([TaskSpec(url: s.http("/conn/small.txt?o=kept-\(key)"))], options: kept)
            _ = await engine.run([TaskSpec(url: s.http("/conn/small.txt?o=fresh-\(key)"))], options: once)
        }
        await engine.shutdown()
        let log = try String(contentsOfFile: s.uploadRoot + "/connections.log", encoding: .utf8)
        func connections(_ tag: String) -> [String] {
            log.split(separator: "\n").filter { $0.hasSuffix("o=\(tag)-\(key)") }.compactMap { $0.split(separator: " ").first.map(String.init) }
        }
        XCTAssertEqual(connections("kept").count, 3, log)
        XCTAssertEqual(Set(connections("kept")).count, 1, "the reusing task's three requests on one connection")
        XCTAssertEqual(Set(connections("fresh")).count, 3, "each request of the other on a fresh connection")
        XCTAssertTrue(Set(connections("fresh")).isDisjoint(with: connections("kept")), "never on the kept one")
    }
}
