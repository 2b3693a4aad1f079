import XCTest
import WirelensCore
import WirelensTestSupport

/// What a run's failed tasks tell (the CLI's exit code is made from it): the first transport failure in task order,
/// whatever order the tasks came in, and whether an HTTP error status happened.
final class TaskFailuresTests: XCTestCase {
    private func task(_ index: Int, _ error: ErrorClass?, status: Int? = 200) -> TaskRecord {
        Fixture.task(index: index, startedAt: Fixture.epoch, endedAt: Fixture.epoch + 1_000, status: status,
                     error: error.map { Fixture.error($0) })
    }

    func testNoFailures() {
        let failures = TaskFailures([task(0, nil), task(1, nil, status: 204)])
        XCTAssertNil(failures.firstTransportError)
        XCTAssertFalse(failures.sawHTTPError)
        XCTAssertEqual(failures.count, 0)
        XCTAssertNil(failures.first)
    }

    func testHTTPErrorIsNoTransportFailure() {
        let failures = TaskFailures([task(0, nil), task(1, .http, status: 404)])
        XCTAssertNil(failures.firstTransportError)
        XCTAssertTrue(failures.sawHTTPError)
        XCTAssertEqual(failures.first?.index, 1)
    }

    func testFirstTransportFailureInTaskOrderWhateverTheOrderGiven() {
        var failures = TaskFailures()
        for t in [task(3, .dns), task(1, .http, status: 500), task(2, .tls), task(0, nil)] { failures.add(t) }
        XCTAssertEqual(failures.firstTransportError, .tls)
        XCTAssertTrue(failures.sawHTTPError)
        XCTAssertEqual(failures.first?.index, 1)
        XCTAssertEqual(failures.count, 3)
    }

    func testCancelledIsATransportFailureButNotCounted() {
        let failures = TaskFailures([task(0, .cancelled, status: nil), task(1, .connect, status: nil)])
        XCTAssertEqual(failures.firstTransportError, .cancelled)
        XCTAssertEqual(failures.count, 1)
        XCTAssertEqual(failures.first?.index, 1)
    }
}
