import Foundation
import WirelensDigest
import WirelensWire
import WirelensCore
import XCTest
@testable import WirelensTarget

/// The upload store on a temporary directory: totals, replacement, overlapping parts, completion, reload.
final class UploadStoreTests: XCTestCase {
    private var root = ""

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("wl-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Stores `bytes` as part `index` at `first` of an upload of `total` bytes.
    private func put(_ store: UploadStore, _ id: String, _ index: Int, first: Int64, _ bytes: [UInt8], total: Int64) throws {
        _ = try store.begin(id: id, index: index, total: total).get()
        let path = try store.temporaryPath(id: id, index: index)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let range = ContentRangeHeader(first: first, last: first + Int64(bytes.count) - 1, total: total)
        try store.record(id: id, index: index, range: range, temporaryPath: path).get()
    }

    func testOverlappingPartsAssembleInOffsetOrder() throws {
        let content = PatternBytes.bytes(offset: 0, count: 1000)
        let store = UploadStore(root: root)
        try put(store, "o", 0, first: 0, Array(content[0..<600]), total: 1000)
        try put(store, "o", 1, first: 400, Array(content[400..<1000]), total: 1000)
        try put(store, "o", 2, first: 100, Array(content[100..<200]), total: 1000)
        guard case .compute(let version, let total, let parts) = store.completion(id: "o") else { return XCTFail("not complete") }
        XCTAssertEqual(try UploadStore.assembledDigest(total: total, parts: parts), SHA256Digest.hex(of: content))
        let answer = CompleteAnswer(id: "o", size: 1000, sha256: "done", parts: 3)
        store.remember(id: "o", version: version, answer: answer)
        guard case .done(answer) = store.completion(id: "o") else { return XCTFail("answer not remembered") }
        // A replaced part forgets the remembered answer.
        try put(store, "o", 2, first: 100, Array(content[100..<200]), total: 1000)
        guard case .compute = store.completion(id: "o") else { return XCTFail("stale answer kept") }
    }

    func testTotalsMustAgreeAndAttemptsCount() throws {
        let store = UploadStore(root: root)
        XCTAssertEqual(try store.begin(id: "t", index: 0, total: 10).get(), 1)
        XCTAssertEqual(try store.begin(id: "t", index: 0, total: 10).get(), 2)
        XCTAssertEqual(try store.begin(id: "t", index: 1, total: 10).get(), 1)
        XCTAssertThrowsError(try store.begin(id: "t", index: 2, total: 11).get())
        guard case .missing(let gaps) = store.completion(id: "t") else { return XCTFail("no parts yet") }
        XCTAssertEqual(gaps, [0...9])
        guard case .unknown = store.completion(id: "never") else { return XCTFail("unknown id") }
    }

    func testAReloadedStoreKnowsItsPartsAndDropsUnfinishedOnes() throws {
        let content = PatternBytes.bytes(offset: 0, count: 300)
        do {
            let store = UploadStore(root: root)
            try put(store, "r", 0, first: 0, Array(content[0..<200]), total: 300)
            try put(store, "r", 0, first: 0, Array(content[0..<100]), total: 300)  // replaced: shorter
            try put(store, "r", 1, first: 100, Array(content[100..<300]), total: 300)
            // An unfinished part's temporary file, as a server killed mid-part leaves it.
            XCTAssertTrue(FileManager.default.createFile(atPath: try store.temporaryPath(id: "r", index: 5), contents: Data([1])))
        }
        let reloaded = UploadStore(root: root)
        XCTAssertEqual(reloaded.listing(id: "r").map { String(decoding: $0.jsonBytes, as: UTF8.self) },
                       #"{"id":"r","total":300,"ranges":[[0,299]],"parts":[{"index":0,"offset":0,"length":100},{"index":1,"offset":100,"length":200}]}"#)
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: root + "/r").contains { $0.contains(".tmp") })
        guard case .compute(_, let total, let parts) = reloaded.completion(id: "r") else { return XCTFail("not complete") }
        XCTAssertEqual(try UploadStore.assembledDigest(total: total, parts: parts), SHA256Digest.hex(of: content))
    }
}
