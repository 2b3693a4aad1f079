import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens
#if canImport(Glibc)
import Glibc
#endif

/// The `client` verdict, made on purpose: the body comes from a pipe (`--upload FIFO --upload-size N`) that the test
/// feeds slowly, so the sender has nothing to send most of the time; the kernel's stopwatch says so.
final class SlowSourceVerdictTests: XCTestCase {
    /// The chunks the test writes into the pipe, and the pause after each.
    private static let chunk = 16 * 1024
    private static let chunks = 16
    private static let pause = 0.1

    /// A FIFO in a fresh temporary directory; removed by the caller.
    private func makeFIFO() throws -> String {
        let directory = CLIHarness.temporaryPath("fifo")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let fifo = directory + "/body"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0, String(cString: strerror(errno)))
        return fifo
    }

    /// Starts a writer (python, a process of its own) that opens `fifo`, writes `chunks` chunks of `chunk` bytes
    /// with `pause` seconds after each but the last, closes it and prints the microseconds from its first write to its
    /// last. The caller stops it (`waitForExit`, then `kill`).
    private func writer(_ fifo: String, chunk: Int, chunks: Int, pause: Double) throws -> ServerProcess {
        let script = """
            import os, sys, time
            fd = os.open(sys.argv[1], os.O_WRONLY)
            first = time.monotonic()
            for i in range(\(chunks)):
                os.write(fd, b"a" * \(chunk))
                if i < \(chunks) - 1:
                    time.sleep(\(pause))
            span = time.monotonic() - first
            os.close(fd)
            print(int(span * 1e6), flush=True)
            """
        return try ServerProcess("/usr/bin/env", ["python3", "-c", script, fifo])
    }

    /// 256 KiB from a pipe written 16 KiB every 100 ms, to the unshaped target on loopback: each chunk is sent and
    /// acknowledged within a millisecond or two (the target reads at once, and a read of a full segment sends the
    /// ACK without delay), so the socket has nothing queued or in flight most of the 1.5 s: `client`. The threshold
    /// 0.8 leaves each chunk 20 ms of busy time, ten times what loopback needs and half of a delayed ACK (40 ms)
    /// that would still not change the verdict.
    func testABodySourceSlowerThanTheNetworkIsTheClient() throws {
        let fifo = try makeFIFO()
        defer { try? FileManager.default.removeItem(atPath: (fifo as NSString).deletingLastPathComponent) }
        let peer = try SegmentPeer.start()
        defer { peer.stop() }
        let size = Self.chunk * Self.chunks
        let output = CLIHarness.temporaryPath("slow-answer.json")
        let report = CLIHarness.temporaryPath("slow.json")
        defer { unlink(output); unlink(report) }
        let feeder = try writer(fifo, chunk: Self.chunk, chunks: Self.chunks, pause: Self.pause)
        defer { feeder.kill() }
        let outcome = try CLIHarness.run(["probe", "--upload", fifo, "--upload-size", String(size), "-o", output,
                                          peer.uploadURL("slow"), "--format", "json", "--report", report, "-q"],
                                         timeout: 60)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(feeder.waitForExit(seconds: 10), 0, feeder.stderr)
        let writerSpan = try XCTUnwrap(Double(feeder.stdout.trimmingCharacters(in: .whitespacesAndNewlines)),
                                       "the writer's span: \(feeder.stdout)")
        // The target received the whole body, as the test wrote it.
        let answer = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output))) as? [String: Any])
        XCTAssertEqual(answer["bytes"] as? Int, size)
        let tx = try CLIHarness.firstTransaction(ofReport: report).transaction
        XCTAssertEqual(tx["requestBodyBytes"] as? Int, size)
        // The body cannot have left faster than the test wrote it.
        let send = try XCTUnwrap((tx["phasesMs"] as? [String: Any])?["send"] as? Double)
        XCTAssertGreaterThanOrEqual(send, writerSpan / 1000 - 5, "send phase against the writer's own span")
        let (verdict, evidence) = try CLIHarness.diagnosis(tx)
        XCTAssertEqual(verdict, "client", "\(evidence)")
        XCTAssertGreaterThan(try XCTUnwrap(evidence["idleShare"] as? Double), 0.8, "\(evidence)")

        // The same body from a source that is always ready is not the client's fault.
        let (ready, _) = try probeReady(size: size, peer: peer)
        XCTAssertNotEqual(try CLIHarness.diagnosis(ready).verdict, "client")
    }

    private func probeReady(size: Int, peer: SegmentPeer) throws -> (transaction: [String: Any], task: [String: Any]) {
        let report = CLIHarness.temporaryPath("ready.json")
        defer { unlink(report) }
        let outcome = try CLIHarness.run(["probe", "--upload-size", String(size), peer.uploadURL("ready"),
                                          "--format", "json", "--report", report, "-q"], timeout: 60)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        return try CLIHarness.firstTransaction(ofReport: report)
    }

    /// A pipe body is read once: a regular file with --upload-size, more than one task, or retries are refused with
    /// one line; a pipe that ends early fails the task, saying how far it got.
    func testAPipeBodyIsReadOnceAndItsBadUsesAreRefused() throws {
        let fifo = try makeFIFO()
        defer { try? FileManager.default.removeItem(atPath: (fifo as NSString).deletingLastPathComponent) }
        let file = CLIHarness.temporaryPath("regular.bin")
        FileManager.default.createFile(atPath: file, contents: Data(count: 100))
        defer { unlink(file) }
        let url = "http://127.0.0.1:9/upload/x"
        try CLIHarness.assertFails(["probe", "--upload", file, "--upload-size", "100", url], code: .localFile,
                                   mention: "not a pipe")
        try CLIHarness.assertFails(["probe", "--upload", fifo, "--upload-size", "100", "--repeat", "2", url],
                                   code: .usage, mention: "reads the pipe once")
        try CLIHarness.assertFails(["probe", "--upload", fifo, "--upload-size", "100", "--retries", "1", url],
                                   code: .usage, mention: "reads the pipe once")

        let peer = try SegmentPeer.start()
        defer { peer.stop() }
        let feeder = try writer(fifo, chunk: 1000, chunks: 1, pause: 0)
        defer { feeder.kill() }
        let report = CLIHarness.temporaryPath("short-pipe.json")
        defer { unlink(report) }
        let outcome = try CLIHarness.run(["probe", "--upload", fifo, "--upload-size", "5000", peer.uploadURL("short"),
                                          "--format", "json", "--report", report, "-q"], timeout: 60)
        XCTAssertNotEqual(outcome.status, 0, "a body 4000 bytes short is a failed task")
        let (_, task) = try CLIHarness.firstTransaction(ofReport: report)
        let message = String(describing: task["error"] ?? "")
        XCTAssertTrue(message.contains("ended after 1000 of 5000 bytes"), message)
    }

    /// A pipe whose writer never comes holds the run only as long as it is let: `--idle-timeout` ends the task, and
    /// SIGINT ends the run (the engine waits for the pipe on its loop thread, and the wait looks for the cancel).
    func testAPipeWithoutAWriterEndsAtTheIdleTimeoutOrOnSIGINT() throws {
        let fifo = try makeFIFO()
        defer { try? FileManager.default.removeItem(atPath: (fifo as NSString).deletingLastPathComponent) }
        let peer = try SegmentPeer.start()
        defer { peer.stop() }
        let report = CLIHarness.temporaryPath("idle-pipe.json")
        defer { unlink(report) }
        let idle = try CLIHarness.run(["probe", "--upload", fifo, "--upload-size", "1000", "--idle-timeout", "1s",
                                       peer.uploadURL("idle"), "--format", "json", "--report", report, "-q"], timeout: 30)
        XCTAssertNotEqual(idle.status, 0, "no byte came: the task failed")
        let (_, task) = try CLIHarness.firstTransaction(ofReport: report)
        let message = String(describing: task["error"] ?? "")
        XCTAssertTrue(message.contains("gave no bytes for 1000 ms (--idle-timeout)"), message)

        let interrupted = try ProcessRunner.run(WirelensCLI.path, ["probe", "--upload", fifo, "--upload-size", "1000",
                                                                   peer.uploadURL("int"), "-q"], timeout: 30,
                                                afterStart: { pid in
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) { kill(pid, SIGINT) }
        })
        XCTAssertFalse(interrupted.signaled, "ended by its own exit, not by the harness: \(interrupted.stderr)")
        XCTAssertEqual(interrupted.status, 130, "SIGINT's exit code: \(interrupted.stderr)")
    }
}
