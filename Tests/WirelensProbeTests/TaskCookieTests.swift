import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import WirelensProbe

/// Cookie engines on one engine, one per task options (nginx's `$http_cookie` the oracle): a login hop's cookie goes
/// to its redirect; options whose runs start afresh (a check's) forget it between runs, others keep it; and tasks
/// without an engine never send another profile's cookies, though they reuse its easy handles.
final class TaskCookieTests: XCTestCase {
    func testEachProfileHasItsOwnCookieEngine() async throws {
        let nginx = try OwnNginx([OwnNginx.Server(tls: false, directives: """
            location = /login { add_header Set-Cookie "sid=s1; Path=/"; return 302 /small.txt?after-$arg_who; }
            """)])
        let engine = try Engine(options: ProbeOptions())
        var perRun = ProbeOptions()
        perRun.cookies.engine = true
        perRun.cookies.clearedPerRun = true
        var kept = ProbeOptions()
        kept.cookies.engine = true
        let fresh = try TaskOptions(perRun)
        let keeping = try TaskOptions(kept)
        let none = try TaskOptions(ProbeOptions())
        func run(_ who: String, _ options: TaskOptions) async {
            let records = await engine.run([TaskSpec(url: nginx.url(0, "/login?who=\(who)", tls: false))], options: options)
            XCTAssertEqual(records.first?.statusCode, 200, who)
        }
        await run("fresh1", fresh)
        await run("fresh2", fresh)
        await run("kept1", keeping)
        await run("kept2", keeping)
        await run("none", none)
        func cookie(_ uri: String) -> [String] { nginx.logged(uri).map(\.cookie) }
        XCTAssertEqual(cookie("/small.txt?after-fresh1"), ["sid=s1"])
        XCTAssertEqual(cookie("/login?who=fresh2"), ["-"], "a run that starts afresh")
        XCTAssertEqual(cookie("/small.txt?after-fresh2"), ["sid=s1"])
        XCTAssertEqual(cookie("/login?who=kept2"), ["sid=s1"], "kept from the run before")
        XCTAssertEqual(cookie("/small.txt?after-none"), ["-"], "no engine, no other profile's cookie")
        await engine.shutdown()
    }
}
