import Foundation
import WirelensCore
import WirelensDigest
import WirelensTestSupport
import XCTest
@testable import WirelensProbe

/// Request bodies beyond a whole file: multipart forms, file ranges, per-task headers, resumed output.
final class UploadBodiesTests: XCTestCase {
    private func run(_ specs: [TaskSpec], _ configure: (inout ProbeOptions) -> Void = { _ in }) async throws -> [TaskRecord] {
        var options = ProbeOptions()
        configure(&options)
        return try await Engine(options: options).run(specs)
    }

    private func temporaryFile(_ name: String, bytes: Int, seed: UInt8 = 7) -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wl-\(UUID().uuidString)-\(name)").path
        _ = FileManager.default.createFile(atPath: path, contents: Data((0..<bytes).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ Int(seed)) }))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// The form the probe sends is read by Python's email parser (slowpeer /form) exactly as `curl -F`'s is.
    func testFormMatchesCurlAsParsedByPythonsStandardLibrary() async throws {
        let servers = try TestServers.get()
        let photo = temporaryFile("photo.jpg", bytes: 300_000)
        let notes = temporaryFile("notes.txt", bytes: 0)
        let fields = ["title=Hello wörld \"quoted\"", "photo=@\(photo)",
                      "notes=@\(notes);type=text/plain;filename=my notes.txt", "empty="]
        let plan = try ProbePlan(urls: [servers.peer("/form")], method: nil, uploadPath: nil, uploadSize: nil,
                                 repeatCount: 1, outputPath: temporaryFile("answer.json", bytes: 0),
                                 form: fields.map { try FormField.parse($0) })
        XCTAssertEqual(plan.method, "POST")
        let tasks = try await run(plan.round) { $0.expectContinue = false }
        let task = try XCTUnwrap(tasks.first)
        XCTAssertEqual(task.statusCode, 200, "\(String(describing: task.error))")
        let ours = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: plan.outputPath ?? "")))
            as? [[String: Any]]
        let curl = try ProcessRunner.run("/usr/bin/curl", ["-sS", "--fail"] + fields.flatMap { ["-F", $0] } + [servers.peer("/form")])
        XCTAssertEqual(curl.status, 0, curl.stderr)
        let theirs = try JSONSerialization.jsonObject(with: Data(curl.stdout.utf8)) as? [[String: Any]]
        let parts = try XCTUnwrap(ours)
        XCTAssertEqual(parts.count, 4)
        XCTAssertEqual(parts.map { $0["name"] as? String }, ["title", "photo", "notes", "empty"])
        XCTAssertEqual(parts[1]["size"] as? Int, 300_000)
        XCTAssertEqual(parts[1]["sha256"] as? String, try SHA256Digest.hex(ofFile: photo))
        XCTAssertEqual(parts[1]["contentType"] as? String, "image/jpeg")
        XCTAssertEqual(parts[2]["filename"] as? String, "my notes.txt")
        XCTAssertEqual(parts[2]["size"] as? Int, 0)
        // Field by field the same as curl's (curl names the photo by its path's last component too).
        let describe = { (list: [[String: Any]]?) in
            (list ?? []).map { part in ["name", "filename", "contentType", "size", "sha256"].map { "\(part[$0] ?? "nil")" } }
        }
        XCTAssertEqual(describe(parts), describe(theirs))
        XCTAssertEqual(task.transactions.first?.requestBodyBytes, plan.body.size)
    }

    /// The target server's multipart parser reads the probe's form as Python's does: names, filenames, types, sizes
    /// and SHA-256 of every part.
    func testFormIsParsedByTheTargetServer() async throws {
        let target = try SegmentPeer.start()
        defer { target.stop() }
        let photo = temporaryFile("IMG_0001.HEIC", bytes: 700_000)
        let answer = temporaryFile("target.json", bytes: 0)
        let fields = ["caption=Sunset \"at\" sea", "photo=@\(photo);type=image/heic;filename=IMG_0001.HEIC"]
        let plan = try ProbePlan(urls: [target.url("/upload/form-\(UUID().uuidString)")], method: nil, uploadPath: nil,
                                 uploadSize: nil, repeatCount: 1, outputPath: answer,
                                 form: fields.map { try FormField.parse($0) })
        let tasks = try await run(plan.round)
        XCTAssertEqual(tasks.first?.statusCode, 200, "\(String(describing: tasks.first?.error))")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: answer))) as? [String: Any]
        let parts = try XCTUnwrap(json?["parts"] as? [[String: Any]])
        XCTAssertEqual(parts.map { $0["name"] as? String }, ["caption", "photo"])
        XCTAssertEqual(parts[0]["size"] as? Int, "Sunset \"at\" sea".utf8.count)
        XCTAssertEqual(parts[0]["sha256"] as? String, SHA256Digest.hex(of: Array("Sunset \"at\" sea".utf8)))
        XCTAssertEqual(parts[1]["filename"] as? String, "IMG_0001.HEIC")
        XCTAssertEqual(parts[1]["contentType"] as? String, "image/heic")
        XCTAssertEqual(parts[1]["size"] as? Int, 700_000)
        XCTAssertEqual(parts[1]["sha256"] as? String, try SHA256Digest.hex(ofFile: photo))
        XCTAssertEqual(json?["bytes"] as? Int, Int(plan.body.size))
    }

    /// On a slow link a body waits in the kernel's send queue after libcurl wrote it: that time is send, not server
    /// wait. The target caps the connection at 300 KB/s with a small receive buffer, so 600 KB need about 2 s.
    func testUploadTimeOnASlowLinkIsSendNotServerWait() async throws {
        let target = try SegmentPeer.start(rate: 300_000)
        defer { target.stop() }
        let tasks = try await run([TaskSpec(url: target.url("/upload/slow"), method: "PUT", body: .generated(size: 600_000))]) {
            $0.expectContinue = false
        }
        let tx = try XCTUnwrap(tasks.first?.transactions.first)
        XCTAssertEqual(tx.statusCode, 200, "\(String(describing: tx.error))")
        let send = try XCTUnwrap(tx.phases.send)
        let wait = try XCTUnwrap(tx.phases.wait)
        XCTAssertGreaterThanOrEqual(send, 1_200_000, "600 KB at 300 KB/s is sent over ~2 s, not handed to the kernel at once")
        XCTAssertLessThan(wait, send, "send \(send) µs, wait \(wait) µs")
    }

    /// A file range goes up as exactly those bytes (nginx refuses a PUT with Content-Range, so the header is X-Segment).
    func testFileRangeUploadsOnlyItsSlice() async throws {
        let servers = try TestServers.get()
        let path = temporaryFile("whole.bin", bytes: 1_000_000)
        let name = "slice-\(UUID().uuidString).bin"
        let spec = TaskSpec(url: servers.http("/upload/\(name)"), method: "PUT",
                            body: .fileRange(path: path, offset: 123_457, length: 400_000),
                            headers: [HeaderField(name: "X-Segment", value: "bytes 123457-523456/1000000")])
        let tasks = try await run([spec])
        let task = try XCTUnwrap(tasks.first)
        XCTAssertTrue(task.succeeded, "\(String(describing: task.error))")
        let stored = try XCTUnwrap(FileManager.default.enumerator(atPath: servers.uploadRoot)?
            .compactMap { $0 as? String }.first { $0.hasSuffix(name) })
        let storedData = try Data(contentsOf: URL(fileURLWithPath: servers.uploadRoot).appendingPathComponent(stored))
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(storedData, whole.subdata(in: 123_457..<523_457))
    }

    /// A task's header replaces the run's header of the same name; the run's others stay.
    func testTaskHeadersReplaceRunHeadersByName() async throws {
        let servers = try TestServers.get()
        let output = temporaryFile("echo.txt", bytes: 0)
        let spec = TaskSpec(url: servers.http("/echo/headers"), outputPath: output,
                            headers: [HeaderField(name: "x-trace", value: "task")])
        let tasks = try await run([spec]) {
            $0.headers = [HeaderField(name: "X-Trace", value: "run"), HeaderField(name: "User-Agent", value: "ua/1")]
        }
        XCTAssertEqual(tasks.first?.statusCode, 200)
        let echo = try String(contentsOfFile: output, encoding: .utf8)
        XCTAssertTrue(echo.contains("x-trace=task\n"), echo)
        XCTAssertTrue(echo.contains("user-agent=ua/1\n"), echo)
    }

    /// Pieces read at every offset and in odd-sized chunks give the body's bytes in order.
    func testBodyReaderReadsPiecesAtAnyOffset() throws {
        let path = temporaryFile("piece.bin", bytes: 5000)
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        let body = BodyPieces([.bytes(Array("head".utf8)), .file(path: path, offset: 100, length: 3000), .bytes([]),
                               .file(path: path, offset: 0, length: 7), .bytes(Array("tail".utf8))])
        let expected = Array("head".utf8) + Array(file[100..<3100]) + Array(file[0..<7]) + Array("tail".utf8)
        for chunk in [1, 3, 4096] {
            var reader = BodyReader(.pieces(body))
            var got: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: chunk)
            for _ in 0..<10_000 {
                let n = try buffer.withUnsafeMutableBytes { try reader.read(into: $0.baseAddress!, count: chunk, at: Int64(got.count)) }
                if n == 0 { break }
                got += buffer[0..<n]
            }
            reader.close()
            XCTAssertEqual(got, expected, "chunk \(chunk)")
        }
        var missing = BodyReader(.fileRange(path: "/nonexistent/x", offset: 0, length: 4))
        var byte: UInt8 = 0
        XCTAssertThrowsError(try missing.read(into: &byte, count: 1, at: 0)) { error in
            XCTAssertTrue((error as? BodyReader.Failure)?.message.contains("/nonexistent/x") ?? false)
        }
    }
}
