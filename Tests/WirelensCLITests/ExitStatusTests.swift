import XCTest
import WirelensCore
import WirelensUpload
@testable import wirelens

/// The exit codes the CLI gives for the libraries' typed outcomes: a run's failed tasks, an upload's ending.
final class ExitStatusTests: XCTestCase {
    private func task(_ index: Int, _ error: ErrorClass?, status: Int? = nil) -> TaskRecord {
        TaskRecord(index: index, url: "https://example.com/", method: "GET", startedAt: 1_700_000_000_000_000,
                   endedAt: 1_700_000_000_001_000, redirectCount: 0, retries: 0, statusCode: status,
                   error: error.map { TransferError(errorClass: $0, curlCode: nil, message: "\($0.rawValue) failure") },
                   transactions: [])
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

    func testTasksHandedOverInAnyOrderGiveTheCodeOfTasksInOrder() {
        var failures = TaskFailures()
        for t in [task(2, .connect), task(0, .http, status: 500), task(1, .tls)] { failures.add(t) }
        XCTAssertEqual(ErrorExit.status(of: failures, interrupted: false), .tls)
    }

    func testUploadEndingMapping() {
        let expected: [(UploadEnding, ExitStatus)] = [
            (.completed, .success), (.interrupted, .interrupted), (.refused, .httpError),
            (.unreadableAnswer, .transfer), (.verificationFailed, .verification),
            (.transportFailed(.dns), .dns), (.transportFailed(.connect), .connect), (.transportFailed(.proxy), .connect),
            (.transportFailed(.network), .connect), (.transportFailed(.tls), .tls),
            (.transportFailed(.connectTimeout), .timeout), (.transportFailed(.idleTimeout), .timeout),
            (.transportFailed(.totalTimeout), .timeout), (.transportFailed(.file), .localFile),
            (.transportFailed(.cancelled), .interrupted), (.transportFailed(.protocol), .transfer),
            (.transportFailed(.other), .transfer),
        ]
        for (ending, status) in expected {
            XCTAssertEqual(ErrorExit.status(of: ending), status, "\(ending)")
        }
    }
}
