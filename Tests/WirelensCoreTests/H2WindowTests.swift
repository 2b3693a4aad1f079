import XCTest
import WirelensCore
import WirelensTestSupport

/// The `h2-window` rule of `Diagnosis.of(_:)` on crafted samples: an HTTP/2 upload whose body was ready, the kernel
/// with nothing unsent and room in every TCP limit, against the same samples where something else explains them.
final class H2WindowTests: XCTestCase {
    /// An upload's facts: 40 samples 100 ms apart over a 41 ms round trip, `unacked` segments of 1448 bytes in flight
    /// (cycling through `inFlight`), `notSent` bytes waiting (cycling too), a congestion window of `cwnd`, a 3 MB peer window and a
    /// 4 MiB send buffer, all of the send time busy (what the kernel showed for nghttpd's 64 KiB windows).
    private func facts(inFlight: [UInt32] = [45, 20, 0, 33], notSent: [UInt32] = [0], cwnd: UInt32 = 80,
                       shared: Bool = false) -> TCPFacts {
        var builder = TCPFacts.Builder()
        builder.noteSendBuffer(4 << 20)
        builder.add(Fixture.tcpInfo(rtt: 41_000, cwnd: 10, window: 3_000_000, minRTT: 40_500), at: 0)
        for step in 1...40 {
            builder.add(Fixture.tcpInfo(acked: UInt64(step) * 75_000, rtt: 41_000, cwnd: cwnd, window: 3_000_000,
                                        busy: UInt64(step) * 100_000, unacked: inFlight[step % inFlight.count],
                                        notSent: notSent[step % notSent.count], minRTT: 40_500),
                        at: Int64(step) * 100_000)
        }
        var f = builder.finish()!
        f.shared = shared
        return f
    }

    /// A 3 MB upload whose send phase lasted 4 s.
    private func upload(_ tcp: TCPFacts, http2ReadyBody: Bool = true) -> Diagnosis {
        var input = Diagnosis.Input(phases: Phases(connect: 41_000, send: 4_000_000, wait: 41_000, receive: 100,
                                                   total: 4_082_100),
                                    requestBodyBytes: 3_000_000, responseBodyBytes: 100, tcp: tcp)
        input.http2ReadyBody = http2ReadyBody
        return Diagnosis.of(input)
    }

    func testAReadyBodyTheKernelHadNothingOfIsTheH2Window() throws {
        let d = upload(facts())
        XCTAssertEqual(d.verdict, .h2Window, d.explanation)
        XCTAssertEqual(d.evidence.nothingUnsentShare ?? 0, 1, accuracy: 1e-9)
        XCTAssertEqual(d.evidence.inFlightMax, 45 * 1448)
        for part in ["every TCP limit had room for what libcurl had written in 100% of the samples", "at most 63.6 KiB in flight per 41.0ms round trip",
                     "750 KB/s", "larger windows"] {
            XCTAssertTrue(d.explanation.contains(part), "\(part): \(d.explanation)")
        }
        // Several streams on the connection: the facts are the connection's, and the sentence says so.
        let shared = upload(facts(shared: true))
        XCTAssertEqual(shared.verdict, .h2Window)
        XCTAssertTrue(shared.explanation.contains("shared with other transfers"), shared.explanation)
    }

    func testTheSameSamplesWithoutAReadyHTTP2BodyAreWhatTheyWere() {
        // HTTP/1.1, or a pipe that may have had nothing: the stopwatches decide, as before.
        let d = upload(facts(), http2ReadyBody: false)
        XCTAssertEqual(d.verdict, .network)
        XCTAssertNil(d.evidence.nothingUnsentShare)
    }

    func testBytesWaitingOrAFullCongestionWindowAreNotTheH2Window() {
        // nginx opens its window as it reads: the socket holds bytes unsent (the path is the limit).
        let waiting = upload(facts(notSent: [200_000]))
        XCTAssertEqual(waiting.verdict, .network)
        XCTAssertNil(waiting.evidence.inFlightMax)
        // Nothing unsent, but the congestion window was full: the path.
        XCTAssertEqual(upload(facts(inFlight: [45], cwnd: 45)).verdict, .network)
        // 750 KB/s is 30 KB a round trip: far less than 300 segments in flight would carry (a peer taking bytes as
        // fast as they come, sampled between its bursts), so not the window.
        XCTAssertEqual(upload(facts(inFlight: [300, 0], cwnd: 400)).verdict, .network)
    }

    /// nghttpd's 64 KiB windows across 40 ms as the kernel showed them: the looks come right after libcurl ran, and
    /// half of them caught bytes it had just written (a WINDOW_UPDATE's worth, 6.7-27 kB) not yet all sent, with the
    /// congestion window (119 segments) and the peer's window far from full. Those bytes were on their way, not held:
    /// still the window (the rule that wanted nothing unsent saw 50% here and the verdict went to the busy loop).
    func testBytesJustWrittenThatFitEveryTCPLimitAreStillTheH2Window() throws {
        let d = upload(facts(inFlight: [46, 42, 30, 27, 39, 46], notSent: [0, 0, 26_994, 9618, 0, 6721], cwnd: 119))
        XCTAssertEqual(d.verdict, .h2Window, d.explanation)
        XCTAssertEqual(d.evidence.nothingUnsentShare ?? 0, 1, accuracy: 1e-9)
        XCTAssertEqual(d.evidence.inFlightMax, 46 * 1448)
        // The same bytes unsent beyond what the congestion window had room for: TCP held them, not the window.
        XCTAssertNotEqual(upload(facts(inFlight: [46, 42, 30, 27, 39, 46], notSent: [0, 0, 26_994, 9618, 0, 6721],
                                       cwnd: 40)).verdict, .h2Window)
    }
}
