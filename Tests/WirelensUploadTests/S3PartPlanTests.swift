import Foundation
import WirelensTestSupport
import XCTest
@testable import WirelensUpload

/// S3's part rules as `S3PartPlan` applies them, against aws-cli's own: s3transfer's limits (`MAX_PARTS`,
/// `MIN_UPLOAD_CHUNKSIZE`, `MAX_SINGLE_UPLOAD_SIZE`) and its `ChunksizeAdjuster`, run by the venv's Python
/// (scripts/deps.sh) on the same sizes.
final class S3PartPlanTests: XCTestCase {
    private static let mib: Int64 = 1 << 20
    private static let gib: Int64 = 1 << 30

    /// Runs `code` in the venv's Python with s3transfer imported; its stdout parsed as JSON.
    private func s3transfer(_ code: String) throws -> Any {
        let outcome = try ProcessRunner.run("\(MotoServer.venv)/bin/python",
                                            ["-c", "import json, s3transfer.utils as u\n" + code], timeout: 60)
        XCTAssertEqual(outcome.status, 0, "the venv's python with s3transfer (scripts/deps.sh): \(outcome.stderr)")
        return try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8))
    }

    func testLimitsAreS3TransfersLimits() throws {
        let limits = try XCTUnwrap(try s3transfer(
            "print(json.dumps([u.MAX_PARTS, u.MIN_UPLOAD_CHUNKSIZE, u.MAX_SINGLE_UPLOAD_SIZE]))") as? [Int])
        XCTAssertEqual(limits, [S3PartPlan.maximumParts, Int(S3PartPlan.minimumPartSize),
                                Int(S3PartPlan.maximumPartSize)])
    }

    /// Part sizes in bounds, on files from the threshold to ones needing more than 10,000 parts: the same size
    /// s3transfer's ChunksizeAdjuster picks, and a part count within S3's maximum.
    func testPartSizeIsChunksizeAdjustersOnTheSameFiles() throws {
        let cases: [(part: Int64, file: Int64)] = [
            (8 * Self.mib, 8 * Self.mib), (8 * Self.mib, 64 * Self.mib), (8 * Self.mib, 64 * Self.mib + 1),
            (5 * Self.mib, 5 * Self.mib * 10_000), (5 * Self.mib, 5 * Self.mib * 10_000 + 1),
            (8 * Self.mib, 200 * Self.gib), (7 * Self.mib + 3, 1000 * Self.gib), (5 * Self.gib, 6 * Self.gib),
            (16 * Self.mib, 100 * Self.mib - 1),
        ]
        let list = cases.map { "[\($0.part), \($0.file)]" }.joined(separator: ", ")
        let theirs = try XCTUnwrap(try s3transfer(
            "a = u.ChunksizeAdjuster()\nprint(json.dumps([a.adjust_chunksize(c, f) for c, f in [\(list)]]))")
            as? [Int])
        XCTAssertEqual(theirs.count, cases.count)
        for (index, given) in cases.enumerated() {
            let plan = try S3PartPlan(fileSize: given.file, partSize: given.part)
            XCTAssertFalse(plan.single)
            XCTAssertEqual(Int(plan.partSize), theirs[index], "part \(given.part), file \(given.file)")
            XCTAssertLessThanOrEqual(plan.partCount, S3PartPlan.maximumParts)
            let last = plan.range(ofPart: plan.partCount)
            XCTAssertEqual(last.offset + last.length, given.file, "the parts cover the file")
            XCTAssertGreaterThan(last.length, 0)
        }
    }

    /// A 64 MiB file in aws-cli's default 8 MiB parts: 8 parts, the done-when shape.
    func testSixtyFourMiBIsEightParts() throws {
        let plan = try S3PartPlan(fileSize: 64 * Self.mib)
        XCTAssertEqual(plan.partCount, 8)
        XCTAssertEqual(plan.range(ofPart: 8).offset, 56 * Self.mib)
        XCTAssertEqual(plan.range(ofPart: 8).length, 8 * Self.mib)
    }

    /// Below the threshold a file is one PutObject, the empty file included.
    func testSmallFilesAreOnePutObject() throws {
        for size: Int64 in [0, 1, 8 * Self.mib - 1] {
            let plan = try S3PartPlan(fileSize: size, partSize: 5 * Self.mib)
            XCTAssertTrue(plan.single, "\(size)")
            XCTAssertEqual(plan.partCount, 1)
            XCTAssertEqual(plan.range(ofPart: 1).length, size)
        }
    }

    /// Part sizes outside S3's bounds and files too large for 10,000 parts of 5 GiB are refused up front.
    func testOutOfBoundsAreRefused() {
        XCTAssertThrowsError(try S3PartPlan(fileSize: 64 * Self.mib, partSize: 5 * Self.mib - 1)) {
            XCTAssertEqual($0 as? S3PartPlanError, .partTooSmall(5 * Self.mib - 1))
        }
        XCTAssertThrowsError(try S3PartPlan(fileSize: 64 * Self.gib, partSize: 5 * Self.gib + 1)) {
            XCTAssertEqual($0 as? S3PartPlanError, .partTooLarge(5 * Self.gib + 1))
        }
        let huge = 5 * Self.gib * 10_000 + 1
        XCTAssertThrowsError(try S3PartPlan(fileSize: huge, partSize: 8 * Self.mib)) {
            XCTAssertEqual($0 as? S3PartPlanError, .tooLarge(huge))
        }
    }
}
