import Synchronization
import XCTest
@testable import WirelensCurl

/// The loop thread without any transfer: commands arrive in order, shutdown is explicit and waits for the thread.
final class CurlLoopTests: XCTestCase {
    /// A driver that records what it hears; it reports to a Sendable log, never shared itself.
    final class Recorder: CurlLoopDriver {
        let multi: CurlMulti
        let log: Log
        private var seen: [Int] = []

        init(multi: CurlMulti, log: Log) {
            self.multi = multi
            self.log = log
        }

        func receive(_ command: Int) { seen.append(command) }
        func pass() -> Int32 { 1000 }
        func failed(_ error: CurlError) { log.failures.withLock { $0 += 1 } }
        func stop() { log.received.withLock { $0 = seen } }
    }

    final class Log: Sendable {
        let received = Mutex<[Int]?>(nil)
        let failures = Mutex(0)
    }

    private let settings = CurlMulti.Settings(maxHostConnections: nil, maxTotalConnections: nil, multiplex: false,
                                              connectionCache: 8)

    func testEveryAcceptedCommandArrivesInOrderBeforeTheLoopEnds() async throws {
        let log = Log()
        let loop = try CurlLoop<Int>.start(name: "test-loop", settings: settings) { multi in
            Recorder(multi: multi, log: log)
        }
        for i in 0..<1000 { XCTAssertTrue(loop.post(i)) }
        await loop.shutdown()
        XCTAssertEqual(log.received.withLock { $0 }, Array(0..<1000))
        XCTAssertFalse(loop.post(1000), "a loop that ended takes no command")
        XCTAssertEqual(log.failures.withLock { $0 }, 0, "no curl_multi_poll failed")
        await loop.shutdown()
    }

    func testScopedLoopEndsWithItsBody() async throws {
        let log = Log()
        let posted = try await withCurlLoop(name: "test-loop", settings: settings, makeDriver: { multi in
            Recorder(multi: multi, log: log)
        }) { loop in
            loop.post(7) && loop.post(8)
        }
        XCTAssertTrue(posted)
        XCTAssertEqual(log.received.withLock { $0 }, [7, 8], "the loop had ended (stop ran) when withCurlLoop returned")
    }

    func testAFailingFactoryIsThrownFromStart() {
        let refused = CurlError("test factory", message: "refused")
        XCTAssertThrowsError(try CurlLoop<Int>.start(name: "test-loop", settings: settings) { (_) throws(CurlError) -> Recorder in
            throw refused
        }) { XCTAssertEqual($0 as? CurlError, refused) }
    }
}
