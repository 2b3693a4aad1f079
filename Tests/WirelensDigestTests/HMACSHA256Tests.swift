import XCTest
import WirelensDigest

/// HMAC-SHA256 against RFC 4231's test vectors.
final class HMACSHA256Tests: XCTestCase {
    func testRFC4231Vectors() {
        XCTAssertEqual(HMACSHA256.hex(key: Array("Jefe".utf8), message: "what do ya want for nothing?"),
                       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        XCTAssertEqual(HMACSHA256.hex(key: [UInt8](repeating: 0x0b, count: 20), message: "Hi There"),
                       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        // A key longer than the block size is hashed first (test case 6).
        XCTAssertEqual(HMACSHA256.hex(key: [UInt8](repeating: 0xaa, count: 131),
                                      message: "Test Using Larger Than Block-Size Key - Hash Key First"),
                       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }
}
