import WirelensUpload
import XCTest

/// `S3ResumePlan` over ListParts answers, with RFC 1321's MD5 test vectors as the file's parts' MD5s: a part is kept
/// only when its number, size and ETag are the plan's and the file's.
final class S3ResumePlanTests: XCTestCase {
    /// RFC 1321 A.5: MD5("abc") and MD5("message digest").
    private static let abc = "900150983cd24fb0d6963f7d28e17f72"
    private static let message = "f96b697d7cb7938d525a2f31aaf161d0"

    private func bytes(_ hex: String) -> [UInt8] {
        stride(from: 0, to: hex.count, by: 2).map {
            let start = hex.index(hex.startIndex, offsetBy: $0)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16) ?? 0
        }
    }

    func testKeepsOnlyPartsOfThePlansSizeAndTheFilesMD5() throws {
        // 20 MiB in 8 MiB parts: 8, 8 and 4 MiB.
        let parts = try S3PartPlan(fileSize: 20 << 20, partSize: 8 << 20)
        let listed = [
            S3ListPartsAnswer.Part(number: 1, etag: S3ETag(served: "\"\(Self.abc)\""), size: 8 << 20),
            S3ListPartsAnswer.Part(number: 2, etag: S3ETag(served: "\"\(Self.abc)\""), size: 8 << 20),
            S3ListPartsAnswer.Part(number: 3, etag: S3ETag(served: "\"\(Self.message)\""), size: 8 << 20),
            S3ListPartsAnswer.Part(number: 9, etag: S3ETag(served: "\"\(Self.abc)\""), size: 8 << 20),
        ]
        XCTAssertEqual(S3ResumePlan.sizedAsPlanned(listed, parts: parts), [1, 2])
        let plan = S3ResumePlan(parts: parts, listed: listed,
                                localMD5s: [1: bytes(Self.abc), 2: bytes(Self.message), 3: bytes(Self.message)])
        XCTAssertEqual(plan.kept.map(\.number), [1])
        XCTAssertEqual(plan.kept.first?.etag.value, Self.abc)
        // Part 2's ETag is not the file's MD5 there; part 3 is 8 MiB where the file has 4 MiB left.
        XCTAssertEqual(plan.differing, [2, 3])
        XCTAssertEqual(plan.missing, [2, 3])
    }

    func testNothingListedMeansEveryPartGoes() throws {
        let parts = try S3PartPlan(fileSize: 64 << 20, partSize: 8 << 20)
        let plan = S3ResumePlan(parts: parts, listed: [], localMD5s: [:])
        XCTAssertEqual(plan.missing, Array(1...8))
        XCTAssertEqual(plan.kept, [])
        XCTAssertEqual(plan.differing, [])
    }

    /// A part listed twice (overlapping pages) counts once, the last listing.
    func testAPartListedTwiceCountsOnce() throws {
        let parts = try S3PartPlan(fileSize: 16 << 20, partSize: 8 << 20)
        let listed = [
            S3ListPartsAnswer.Part(number: 1, etag: S3ETag(served: "\"\(Self.message)\""), size: 8 << 20),
            S3ListPartsAnswer.Part(number: 1, etag: S3ETag(served: "\"\(Self.abc)\""), size: 8 << 20),
        ]
        let plan = S3ResumePlan(parts: parts, listed: listed, localMD5s: [1: bytes(Self.abc)])
        XCTAssertEqual(plan.kept.map(\.number), [1])
        XCTAssertEqual(plan.missing, [2])
    }
}
