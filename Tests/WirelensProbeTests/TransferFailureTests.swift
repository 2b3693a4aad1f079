import WirelensCore
import XCTest
@testable import WirelensProbe

/// `TransferFailure.error` makes a transaction's error without a transfer. Oracle: libcurl's CURLcode list
/// (6 COULDNT_RESOLVE_HOST, 7 COULDNT_CONNECT, 23 WRITE_ERROR, 28 OPERATION_TIMEDOUT, 42 ABORTED_BY_CALLBACK) and the
/// report schema's error classes (docs/report-schema.md): the engine's own failure is `other`, a refused hop
/// `protocol`, a local file `file`.
final class TransferFailureTests: XCTestCase {
    private let rules = LifecycleFixtures.rules()

    private func error(_ failure: TransferFailure, curl: TransferFailure.Curl?, refusal: String? = nil,
                       connected: Bool = true, dohURL: String? = nil, dohFailure: String? = nil) -> TransferError? {
        failure.error(curl: curl, refusal: refusal, connected: connected, dohURL: dohURL, dohFailure: dohFailure,
                      abortError: rules.abortError)
    }

    func testNothingFailedIsNoError() {
        XCTAssertNil(error(TransferFailure(), curl: nil))
    }

    func testAFailingLibcurlCallComesFirst() {
        var failure = TransferFailure()
        failure.engine = "curl_multi_remove_handle: bad easy handle"
        failure.abortReason = .idleTimeout
        failure.local = "cannot write output file '/x'"
        let e = error(failure, curl: TransferFailure.Curl(code: 23, text: "Failure writing output"))
        XCTAssertEqual(e?.errorClass, .other)
        XCTAssertNil(e?.curlCode)
        XCTAssertEqual(e?.message, "curl_multi_remove_handle: bad easy handle")
    }

    func testTheEnginesAbortIsItsReasonWhateverLibcurlSaid() {
        var failure = TransferFailure()
        failure.abortReason = .totalTimeout
        XCTAssertEqual(error(failure, curl: nil)?.errorClass, .totalTimeout)
    }

    func testARefusedHopIsAProtocolErrorAndALocalFileAFileError() {
        let curl = TransferFailure.Curl(code: 7, text: "Couldn't connect to server")
        let refused = error(TransferFailure(), curl: curl, refusal: "refused: link-local", connected: false)
        XCTAssertEqual(refused, TransferError(errorClass: .protocol, curlCode: 7, message: "refused: link-local"))
        var failure = TransferFailure()
        failure.local = "cannot write output file '/x': No space left on device"
        let local = error(failure, curl: TransferFailure.Curl(code: 23, text: "Failure writing output"))
        XCTAssertEqual(local?.errorClass, .file)
        XCTAssertEqual(local?.curlCode, 23)
        XCTAssertEqual(local?.message, "cannot write output file '/x': No space left on device")
    }

    func testLibcurlsCodeIsClassifiedAndATimeoutBeforeAConnectionIsAConnectTimeout() {
        let curl = TransferFailure.Curl(code: 28, text: "Connection timed out after 1000 milliseconds")
        XCTAssertEqual(error(TransferFailure(), curl: curl, connected: false)?.errorClass, .connectTimeout)
        XCTAssertEqual(error(TransferFailure(), curl: curl, connected: true)?.errorClass, .totalTimeout)
    }

    func testADoHLookupThatFailedSaysWhy() {
        let curl = TransferFailure.Curl(code: 6, text: "Could not resolve host: a.example")
        let e = error(TransferFailure(), curl: curl, connected: false, dohURL: "https://127.0.0.1:8443/dns-query",
                      dohFailure: "HTTP 500")
        XCTAssertEqual(e?.errorClass, .dns)
        XCTAssertEqual(e?.curlCode, 6)
        XCTAssertTrue(e?.message.contains("DNS over HTTPS via https://127.0.0.1:8443/dns-query failed: HTTP 500") ?? false,
                      e?.message ?? "")
        XCTAssertTrue(e?.message.hasSuffix("(Could not resolve host: a.example)") ?? false)
        let plain = error(TransferFailure(), curl: curl, connected: false)
        XCTAssertEqual(plain?.message, "Could not resolve host: a.example", "without DoH libcurl's text stands")
    }
}
