import XCTest
import WirelensCore

final class ExitStatusTests: XCTestCase {
    private func task(_ index: Int, _ error: ErrorClass?, status: Int? = nil) -> TaskRecord {
        Fixture.task(index: index, startedAt: Fixture.epoch, endedAt: Fixture.epoch + 1_000, status: status,
                     error: error.map { Fixture.error($0) })
    }

    func testAllOkIsSuccess() {
        XCTAssertEqual(ExitStatus.forTasks([task(0, nil, status: 200), task(1, nil, status: 204)], interrupted: false),
                       .success)
        XCTAssertEqual(ExitStatus.success.rawValue, 0)
        XCTAssertEqual(ExitStatus.forTasks([], interrupted: false), .success)
    }

    func testHTTPErrorAlone() {
        let status = ExitStatus.forTasks([task(0, nil, status: 200), task(1, .http, status: 404)], interrupted: false)
        XCTAssertEqual(status, .httpError)
        XCTAssertEqual(status.rawValue, 4)
    }

    func testTransportErrorBeatsHTTPErrorEvenWhenLater() {
        let tasks = [task(0, .http, status: 500), task(1, nil, status: 200), task(2, .dns)]
        XCTAssertEqual(ExitStatus.forTasks(tasks, interrupted: false), .dns)
    }

    func testFirstTransportErrorInTaskOrderWins() {
        XCTAssertEqual(ExitStatus.forTasks([task(0, .tls), task(1, .dns), task(2, .connect)], interrupted: false), .tls)
        XCTAssertEqual(ExitStatus.forTasks([task(0, nil), task(1, .idleTimeout), task(2, .tls)], interrupted: false),
                       .timeout)
    }

    func testInterruptedWins() {
        XCTAssertEqual(ExitStatus.forTasks([task(0, .dns), task(1, .http, status: 500)], interrupted: true),
                       .interrupted)
        XCTAssertEqual(ExitStatus.forTasks([], interrupted: true).rawValue, 130)
    }

    func testErrorClassMapping() {
        let expected: [ErrorClass: ExitStatus] = [
            .dns: .dns, .connect: .connect, .proxy: .connect, .network: .connect, .tls: .tls,
            .connectTimeout: .timeout, .idleTimeout: .timeout, .totalTimeout: .timeout, .http: .httpError,
            .file: .localFile, .cancelled: .interrupted, .protocol: .transfer, .other: .transfer,
        ]
        XCTAssertEqual(Set(expected.keys), Set(ErrorClass.allCases), "every error class is mapped")
        for (errorClass, status) in expected {
            XCTAssertEqual(ExitStatus.forError(errorClass), status, errorClass.rawValue)
        }
    }
}
