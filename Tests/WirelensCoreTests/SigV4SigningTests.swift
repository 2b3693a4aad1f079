import WirelensCore
import XCTest

/// `SigV4Signing`'s provider and credential rules, against curl's `--aws-sigv4` syntax
/// (`provider1[:provider2[:region[:service]]]`, as curl's manual gives it) and aws-cli's variables.
final class SigV4SigningTests: XCTestCase {
    func testRegionAndServiceFillOnlyWhatIsMissing() throws {
        XCTAssertEqual(try SigV4Signing.provider("aws:amz", region: "eu-west-1"), "aws:amz:eu-west-1")
        XCTAssertEqual(try SigV4Signing.provider("aws:amz", region: "eu-west-1", service: "s3"), "aws:amz:eu-west-1:s3")
        XCTAssertEqual(try SigV4Signing.provider("aws:amz:us-west-2", region: "eu-west-1", service: "s3"),
                       "aws:amz:us-west-2:s3")
        XCTAssertEqual(try SigV4Signing.provider("aws:amz:us-west-2:s3", region: "eu-west-1", service: "sts"),
                       "aws:amz:us-west-2:s3")
        XCTAssertEqual(try SigV4Signing.provider("aws:amz", region: nil), "aws:amz")
        XCTAssertEqual(try SigV4Signing.provider("goog", region: "x"), "goog")
        for bad in ["", "aws:", ":amz", "aws:amz:us-east-1:s3:extra", "aws:amz:us east", "aws:amz:é"] {
            XCTAssertThrowsError(try SigV4Signing.provider(bad, region: nil), bad)
        }
        XCTAssertThrowsError(try SigV4Signing.provider("aws:amz", region: "eu west"))
        XCTAssertEqual(SigV4Signing.service(of: "aws:amz:eu-west-1:S3"), "s3")
        XCTAssertNil(SigV4Signing.service(of: "aws:amz:eu-west-1"))
    }

    func testKeyPairsAndTheirSecrecy() throws {
        let pair = try SigV4Signing.keyPair("AKIAEXAMPLE:se:cret/+")
        XCTAssertEqual(pair.accessKey, "AKIAEXAMPLE")
        XCTAssertEqual(pair.secretKey, "se:cret/+")
        for bad in ["AKIAEXAMPLE", "AKIAEXAMPLE:", ":secret", "AKIA\nX:secret", "AKIA:sec\rret"] {
            XCTAssertThrowsError(try SigV4Signing.keyPair(bad), bad) { error in
                XCTAssertFalse("\(error)".contains("secret") && "\(error)".contains(bad), "\(error)")
            }
        }
        let environment = ["AWS_ACCESS_KEY_ID": "ASIAEXAMPLE", "AWS_SECRET_ACCESS_KEY": "s3cr3t",
                           "AWS_SESSION_TOKEN": "tok", "AWS_DEFAULT_REGION": "eu-west-1"]
        let keys = try SigV4Signing.environmentKeys(environment)
        XCTAssertEqual([keys.accessKey, keys.secretKey, keys.token], ["ASIAEXAMPLE", "s3cr3t", "tok"])
        XCTAssertEqual(SigV4Signing.environmentRegion(environment), "eu-west-1")
        XCTAssertEqual(SigV4Signing.environmentRegion(environment.merging(["AWS_REGION": "ap-south-1"]) { $1 }),
                       "ap-south-1")
        XCTAssertThrowsError(try SigV4Signing.environmentKeys(["AWS_ACCESS_KEY_ID": "A"]))
        let signing = SigV4Signing(provider: "aws:amz:eu-west-1:s3", accessKey: "ASIAEXAMPLE", secretKey: "s3cr3t")
        XCTAssertFalse("\(signing)".contains("ASIAEXAMPLE") || "\(signing)".contains("s3cr3t"), "\(signing)")
        // The header carrying the token is one the redactor masks, and the payload hash header one it keeps.
        XCTAssertTrue(Redactor.isSensitive(name: SigV4Signing.tokenHeader))
        XCTAssertFalse(Redactor.isSensitive(name: SigV4Signing.payloadHashHeader.name))
    }
}
