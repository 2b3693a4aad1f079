import WirelensCore
import XCTest

/// `--form` parsing and the RFC 7578 body layout, byte for byte.
final class MultipartFormTests: XCTestCase {
    func testParsesCurlStyleFields() throws {
        XCTAssertEqual(try FormField.parse("title=Hello=World"), FormField(name: "title", value: .text("Hello=World")))
        XCTAssertEqual(try FormField.parse("empty="), FormField(name: "empty", value: .text("")))
        XCTAssertEqual(try FormField.parse("photo=@/tmp/a.jpg"),
                       FormField(name: "photo", value: .file(path: "/tmp/a.jpg", contentType: nil, filename: nil)))
        XCTAssertEqual(try FormField.parse("doc=@x.bin;type=image/heic;filename=IMG_1.HEIC"),
                       FormField(name: "doc", value: .file(path: "x.bin", contentType: "image/heic", filename: "IMG_1.HEIC")))
        for bad in ["novalue", "=value", "f=@", "f=@x;size=3", "f=@x;type=jpeg"] {
            XCTAssertThrowsError(try FormField.parse(bad), bad) { error in
                XCTAssertTrue((error as? FormField.ParseError)?.message.contains(bad) ?? false, "\(error)")
            }
        }
    }

    func testBodyLayoutIsExactlyRFC7578() {
        let form = MultipartForm(parts: [
            .init(name: "title", content: .text("hi")),
            .init(name: "photo", content: .file(path: "/p/a.jpg", size: 5, filename: "a \"b\".jpg", contentType: "image/jpeg")),
        ], boundary: "XYZ")
        XCTAssertEqual(form.contentType, "multipart/form-data; boundary=XYZ")
        let body = form.body
        var text = ""
        for piece in body.pieces {
            switch piece {
            case .bytes(let bytes): text += String(decoding: bytes, as: UTF8.self)
            case .file(let path, let offset, let length): text += "<\(path)@\(offset)+\(length)>"
            }
        }
        let expected = "--XYZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nhi\r\n"
            + "--XYZ\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a %22b%22.jpg\"\r\n"
            + "Content-Type: image/jpeg\r\n\r\n</p/a.jpg@0+5>\r\n--XYZ--\r\n"
        XCTAssertEqual(text, expected)
        XCTAssertEqual(body.size, Int64(expected.utf8.count - "</p/a.jpg@0+5>".utf8.count + 5))
    }

    func testPieceIndexFindsEveryOffsetAndSkipsEmptyPieces() {
        let body = BodyPieces([.bytes([1, 2]), .bytes([]), .file(path: "f", offset: 10, length: 3), .bytes([9])])
        XCTAssertEqual(body.size, 6)
        XCTAssertEqual((0..<6).map { body.pieceIndex(at: $0) }, [0, 0, 2, 2, 2, 3])
        XCTAssertNil(body.pieceIndex(at: 6))
        XCTAssertNil(body.pieceIndex(at: -1))
    }

    func testBoundaryAndMediaTypes() {
        var random = SystemRandomNumberGenerator()
        let a = MultipartForm.randomBoundary(using: &random)
        let b = MultipartForm.randomBoundary(using: &random)
        XCTAssertNotEqual(a, b)
        XCTAssertTrue(a.hasPrefix("wirelens-") && a.count == 33, a)
        XCTAssertEqual(MultipartForm.contentType(forFilename: "IMG.JPG"), "image/jpeg")
        XCTAssertEqual(MultipartForm.contentType(forFilename: "notes"), "application/octet-stream")
        XCTAssertEqual(MultipartForm.contentType(forFilename: ".bashrc"), "application/octet-stream")
        XCTAssertEqual(MultipartForm.quoted("a\"b\r\nc"), "a%22b%0D%0Ac")
    }
}
