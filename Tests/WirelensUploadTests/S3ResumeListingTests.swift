import Foundation
import WirelensCore
import WirelensProbe
import WirelensStore
import WirelensTestSupport
import WirelensUpload
import XCTest

/// `S3Upload`'s resume against parts aws-cli put on moto: ListParts read in pages of 2 (the next page from
/// `NextPartNumberMarker`), a part whose bytes are not the file's sent again, the missing one sent, the kept ones'
/// ETags (ListParts') in the Complete. Oracles: aws-cli's create-multipart-upload and upload-part (what the server
/// holds before), head-object's ETag (`-4`), `aws s3 cp` back compared by `cmp`, and the SQLite journal's entry gone.
final class S3ResumeListingTests: XCTestCase {
    private let directory = WirelensCLI.temporaryPath("s3listing")
    private static let bucket = "wirelens-pages"
    private static let key = "paged.bin"
    private static let partSize = 5 << 20

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Uploads `bytes` as part `number` of `uploadId` with aws-cli.
    private func putPart(_ server: MotoServer, uploadId: String, number: Int, bytes: Data) throws {
        let body = "\(directory)/part\(number).bin"
        try bytes.write(to: URL(fileURLWithPath: body))
        let put = try server.aws(["s3api", "upload-part", "--bucket", Self.bucket, "--key", Self.key, "--part-number",
                                  "\(number)", "--upload-id", uploadId, "--body", body])
        XCTAssertEqual(put.status, 0, put.stderr)
    }

    func testResumeListsEveryPageAndSendsOnlyWhatTheServerLacks() async throws {
        let server = try MotoServer()
        try server.createBucket(Self.bucket)
        // 20 MiB in 5 MiB parts: 4 parts. aws-cli puts part 1 and 3 from the file, part 2 from other bytes.
        let path = "\(directory)/file.bin"
        try SplitMix64.writeFile(path, bytes: 4 * Self.partSize, seed: 20)
        let other = "\(directory)/other.bin"
        try SplitMix64.writeFile(other, bytes: Self.partSize, seed: 21)
        let created = try server.aws(["s3api", "create-multipart-upload", "--bucket", Self.bucket, "--key", Self.key])
        XCTAssertEqual(created.status, 0, created.stderr)
        let uploadId = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8))
                                      as? [String: Any])?["UploadId"] as? String)
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        for number in [1, 3] {
            try putPart(server, uploadId: uploadId, number: number,
                        bytes: file.subdata(in: (number - 1) * Self.partSize ..< number * Self.partSize))
        }
        try putPart(server, uploadId: uploadId, number: 2, bytes: try Data(contentsOf: URL(fileURLWithPath: other)))

        // The journal entry a killed run would have left.
        let address = try S3ObjectAddress("s3://\(Self.bucket)/\(Self.key)")
        let journal = try UploadJournal(path: "\(directory)/journal.sqlite")
        let identity = try FileIdentity.read(path)
        let journalKey = UploadJournalKey(file: identity, url: address.url(endpoint: server.endpoint))
        try journal.begin(journalKey, segmentSize: Int64(Self.partSize), remoteUploadId: uploadId)

        var options = ProbeOptions()
        options.concurrency = 2
        options.maxHostConnections = 2
        options.includeResponseHeaders = true
        let credentials = MotoServer.credentials
        options.sigV4 = SigV4Signing(provider: "aws:amz:\(credentials.region):s3", accessKey: credentials.key,
                                     secretKey: credentials.secret)
        options.headers.append(SigV4Signing.payloadHashHeader)
        let upload = S3Upload(address: address, endpoint: server.endpoint, filePath: path,
                              parts: try S3PartPlan(fileSize: identity.size, partSize: Int64(Self.partSize)),
                              parallel: 2, maxRetries: 1, retryMaxTime: nil, keepsParts: false, preset: nil,
                              engine: try Engine(options: options), journal: journal, fileIdentity: identity,
                              resume: true, listPageSize: 2)
        let outcome = await upload.run()
        XCTAssertEqual(outcome.ending, .completed, outcome.section.failure ?? "")

        // Two pages of ListParts, the second from part 2 on; parts 2 (other bytes) and 4 (missing) sent.
        let listings = outcome.tasks.map(\.url).filter { $0.contains("max-parts=2") }
        XCTAssertEqual(listings.count, 2, "\(listings)")
        XCTAssertTrue(listings.last?.contains("part-number-marker=2") == true, "\(listings)")
        let sent = outcome.section.attempts.filter(\.succeeded).map { $0.segment + 1 }.sorted()
        XCTAssertEqual(sent, [2, 4])
        XCTAssertEqual(outcome.section.resumedSegmentsSkipped, 2)
        XCTAssertTrue(outcome.notes.contains { $0.contains("part 2 on the server differ") }, "\(outcome.notes)")
        XCTAssertEqual(outcome.section.s3?.uploadId, uploadId)
        XCTAssertEqual(outcome.section.s3?.etagMatches, true)

        let head = try server.aws(["s3api", "head-object", "--bucket", Self.bucket, "--key", Self.key])
        XCTAssertEqual(head.status, 0, head.stderr)
        let etag = (try JSONSerialization.jsonObject(with: Data(head.stdout.utf8)) as? [String: Any])?["ETag"] as? String
        XCTAssertEqual(etag, "\"\(outcome.section.s3?.objectETag ?? "?")\"")
        XCTAssertTrue(etag?.hasSuffix("-4\"") == true, etag ?? "no ETag")
        let back = "\(directory)/back.bin"
        let copy = try server.aws(["s3", "cp", "s3://\(Self.bucket)/\(Self.key)", back, "--only-show-errors"], timeout: 120)
        XCTAssertEqual(copy.status, 0, copy.stderr)
        XCTAssertEqual(try ProcessRunner.run("/usr/bin/cmp", ["-s", path, back], timeout: 30).status, 0)
        XCTAssertNil(try journal.entry(for: journalKey), "the entry goes once the object completed")
    }
}
