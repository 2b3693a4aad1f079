import Foundation
import WirelensCore
import XCTest
@testable import WirelensReport

/// A document written in parts (`JSONWriter.encodeMembers`, elements one by one) against Foundation's parser and
/// encoder, and the values it must refuse.
final class JSONWriterTests: XCTestCase {
    private struct Head: Encodable {
        var name = "a \"head\""
        var count = 3
        var nested = ["x": [1, 2]]
    }

    private struct Tail: Encodable {
        var done = true
        var note: String? = nil
    }

    private func parsed(_ bytes: [UInt8]) throws -> NSDictionary {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary)
    }

    /// Foundation's encoding of `value` as a dictionary (its members, with nulls kept).
    private func members<T: Encodable>(_ value: T) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
    }

    func testMembersInPartsMakeOneObject() throws {
        for pretty in [false, true] {
            var json = JSONWriter(pretty: pretty)
            let object = json.open(object: true)
            try json.encodeMembers(of: Head())
            json.beginMember(depth: object, key: "items")
            let items = json.open(object: false)
            for i in 0..<3 {
                json.beginMember(depth: items, key: nil)
                try json.encode(["i": i])
            }
            json.closeFrames(above: object)
            try json.encodeMembers(of: Tail())
            json.closeFrames(above: -1)

            var expected = try members(Head())
            expected["items"] = [["i": 0], ["i": 1], ["i": 2]]
            for (key, value) in try members(Tail()) { expected[key] = value }
            let oracle = try JSONSerialization.jsonObject(with: JSONSerialization.data(withJSONObject: expected))
            XCTAssertEqual(try parsed(json.bytes), oracle as? NSDictionary, "pretty: \(pretty)")
        }
    }

    func testNoMembersLeaveTheObjectAsItWas() throws {
        var json = JSONWriter(pretty: false)
        _ = json.open(object: true)
        try json.encodeMembers(of: Report.Members(Fixtures.report(tasks: []), []))
        json.closeFrames(above: -1)
        XCTAssertEqual(String(decoding: json.bytes, as: UTF8.self), "{}")
    }

    func testValuesThatAreNotMembersAreRefused() throws {
        var json = JSONWriter(pretty: false)
        XCTAssertThrowsError(try json.encodeMembers(of: Head()), "no object is open")
        _ = json.open(object: false)
        XCTAssertThrowsError(try json.encodeMembers(of: Head()), "an array is open, not an object")
        var object = JSONWriter(pretty: false)
        _ = object.open(object: true)
        XCTAssertThrowsError(try object.encodeMembers(of: [1, 2]), "an array has no members")
        XCTAssertThrowsError(try object.encodeMembers(of: "text"), "a string has no members")
    }

    /// Both layouts written by `JSONRenderer.Stream` hold the members of the Codable document, in their order.
    func testLayoutsHoldEveryMemberInTheirOrder() throws {
        let report = Fixtures.report(tasks: Fixtures.manyTasks(), interrupted: true)
        let codable = try parsed(try StreamingJSONEncoder(prettyPrinted: false).encode(report))
        for layout in [Report.Layout.stored, .streamed] {
            var bytes: [UInt8] = []
            var stream = try JSONRenderer.Stream(head: report, layout: layout, chunkSize: 256)
            for task in report.tasks { try stream.add(task, emit: { bytes += $0 }) }
            try stream.finish(report, emit: { bytes += $0 })
            XCTAssertEqual(try parsed(bytes), codable)
            let text = String(decoding: bytes, as: UTF8.self)
            let keys = ["\"configuration\":", "\"tasks\":[", "\"interrupted\":", "\"summary\":"]
            let positions = try keys.map { key in try XCTUnwrap(text.range(of: key)).lowerBound }
            switch layout {
            case .stored: XCTAssertEqual(positions.sorted(), [positions[2], positions[0], positions[3], positions[1]])
            case .streamed: XCTAssertEqual(positions.sorted(), positions)
            }
        }
    }
}
