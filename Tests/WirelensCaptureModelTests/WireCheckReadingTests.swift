import WirelensCaptureModel
import WirelensCore
import XCTest

/// The wire's checks of a verdict from their figures (a download's reading, an HTTP/2 upload's window), each case
/// built so that only one reading fits.
final class WireCheckReadingTests: XCTestCase {
    private func check(_ verdict: Verdict?, retransmissions: Int = 0, zeroWindows: Int = 0, windowFull: Int = 0,
                       window: Int64 = 65536, bytes: Int64 = 1_000_000, span: Int64 = 1_000_000,
                       roundTrip: Int64? = 40_000) -> DownloadWireCheck {
        var data = DirectionStats(), acks = DirectionStats()
        data.retransmissions = retransmissions
        data.windowFull = windowFull
        acks.zeroWindow = zeroWindows
        acks.advertisedWindowMax = window
        return DownloadWireCheck(verdict: verdict, data: data, acks: acks, bytes: bytes, span: span,
                                 roundTrip: roundTrip)
    }

    func testEachVerdictIsConfirmedByItsOwnReadingOnly() {
        // 1 MB over 1 s with a 40 ms round trip: 40 000 bytes a round trip, 61% of a 64 KiB window, 95% of 41 KiB.
        XCTAssertEqual(check(.network, retransmissions: 5).reading, .loss)
        XCTAssertTrue(check(.network, retransmissions: 5).confirms)
        XCTAssertFalse(check(.network).confirms, "no loss seen: a queue the wire does not weigh")
        XCTAssertTrue(check(.client, zeroWindows: 3).confirms)
        XCTAssertTrue(check(.client, windowFull: 7).confirms, "the reader's window held the data")
        XCTAssertFalse(check(.client).confirms)
        XCTAssertEqual(check(.clientWindow, window: 42_000).windowFill ?? 0, 40_000.0 / 42_000, accuracy: 1e-9)
        XCTAssertTrue(check(.clientWindow, window: 42_000).confirms)
        XCTAssertFalse(check(.clientWindow).confirms, "61% of the window")
        XCTAssertFalse(check(.clientWindow, retransmissions: 1, window: 42_000).confirms, "loss names the path")
        XCTAssertTrue(check(.serverSend).confirms)
        XCTAssertFalse(check(.serverSend, windowFull: 2).confirms)
        XCTAssertFalse(check(.serverThink).confirms, "the wire cannot see the server's think time")
        XCTAssertNil(check(.clientWindow, roundTrip: nil).windowFill, "no handshake, no round trip to weigh by")
        XCTAssertTrue(check(nil).finding.hasSuffix("the probe gave no verdict"))
        XCTAssertTrue(check(.network, retransmissions: 5).finding.hasSuffix("which confirms network"))
    }

    func testAnH2UploadIsWindowBoundWithinItsSharesOfTheWindowARoundTrip() {
        // 64 KiB a 40 ms round trip: 1.64 MB/s.
        func check(_ verdict: Verdict?, bytes: Int64, window: Int64? = nil) -> H2WindowWireCheck {
            H2WindowWireCheck(verdict: verdict, initialWindowSize: window, streamCredit: 0, connectionCredit: 0,
                              bytes: bytes, span: 1_000_000, roundTrip: 40_000)
        }
        XCTAssertEqual(check(.h2Window, bytes: 1_310_700).windowFill ?? 0, 0.8, accuracy: 1e-6)
        XCTAssertTrue(check(.h2Window, bytes: 1_310_700).confirms)
        XCTAssertFalse(check(.h2Window, bytes: 1_310_700, window: 1 << 20).confirms, "a 1 MiB window was not the limit")
        XCTAssertFalse(check(.h2Window, bytes: 3_000_000).windowBound, "faster than the window allows: not its pace")
        XCTAssertFalse(check(.h2Window, bytes: 400_000).windowBound, "far below it: something else held the body")
        XCTAssertTrue(check(.clientCPU, bytes: 1_310_700).windowBound)
        XCTAssertFalse(check(.clientCPU, bytes: 1_310_700).confirms, "only h2-window is confirmed here")
        XCTAssertTrue(check(.clientCPU, bytes: 1_310_700).finding.hasSuffix("the verdict is client-cpu, not h2-window"))
    }
}
