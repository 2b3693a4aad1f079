import Foundation
import WirelensReport
import WirelensCore
import XCTest
@testable import WirelensCapture

/// The values of a capture document at the edges of the fast writer's shortcuts (instants that repeat the last
/// one or share its second, strings copied eight bytes at a time, digits written in pairs, the usual method and
/// version as static text) read back as what they are: checked against Foundation (its calendar, its JSON parser)
/// and against the Codable encoding, byte for byte.
final class CaptureJSONWriterValueTests: XCTestCase {
    private let encoder = StreamingJSONEncoder(prettyPrinted: false)

    /// Instants around the boundaries of a second, minute, hour, day, month, leap day, year, century and the
    /// epoch (before it too), in runs that repeat the last instant, share its second or change it, are the
    /// calendar's text of each (Foundation's Gregorian calendar in UTC), and the Codable encoding's bytes.
    func testInstantsAcrossBoundariesAreTheirCalendarText() throws {
        let seconds: [Int64] = [
            0, 60, 3600, 86_400, -31_536_000, -2_208_988_800,  // the epoch, a minute, an hour, a day, 1969, 1900
            951_782_400, 1_709_164_800, 1_709_251_200,  // 2000-02-29, 2024-02-29, 2024-03-01
            1_798_761_600, 4_102_444_800, 253_402_300_799,  // 2027-01-01, 2100-01-01, 9999-12-31T23:59:59
        ]
        let offsets: [Int64] = [-60_000_001, -1_000_001, -1_000_000, -999_999, -1, -1, 0, 0, 1, 999_999, 1_000_000,
                                59_999_999, 60_000_000]
        var instants: [Int64] = []
        for second in seconds {
            for offset in offsets { instants.append(second * 1_000_000 + offset) }
        }
        // 22 instants a connection: the last one repeated to fill the last connection.
        while instants.count % 22 != 0 { instants.append(instants[instants.count - 1]) }
        // Five instants an exchange (interim, request start and end, response start and end), in connections
        // of three exchanges (each with its own seven instants first).
        var connections: [TCPConnection] = []
        var remaining = instants[...]
        func next() -> Int64? { remaining.popFirst() }
        while !remaining.isEmpty {
            var c = Self.connection(index: connections.count, firstPacketAt: next() ?? 0)
            c.lastPacketAt = next() ?? c.firstPacketAt
            c.synAt = next()
            c.synAckAt = next()
            c.handshakeAckAt = next()
            c.closeStartedAt = next()
            c.idleGaps = [.init(startAt: next() ?? 0, duration: 1)]
            c.exchanges = (0..<3).map { i in
                var e = HTTPExchange(index: i)
                e.interimAt = next()
                e.requestStartAt = next()
                e.requestEndAt = next()
                e.responseStartAt = next()
                e.responseEndAt = next()
                return e
            }
            connections.append(c)
        }
        var written: [String] = []
        var writer = CaptureConnectionJSONWriter()
        for c in connections {
            let bytes = try assertCodable(c, &writer)
            written += Self.instants(in: try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes))))
        }
        XCTAssertEqual(written.count, instants.count)
        for (micros, text) in zip(instants, written) {
            XCTAssertEqual(text, Self.calendarText(micros), "\(micros) µs")
        }
    }

    /// Instants whose year does not take four digits (before year 0, from year 10000 on) are written as the
    /// Codable encoding writes them, before and after instants that do.
    func testInstantsBeyondFourDigitYearsAreTheirCodableText() throws {
        let instants: [Int64] = [
            253_402_300_799_999_999, 253_402_300_800_000_000, 253_402_300_800_000_000, 253_402_300_799_999_999,
            -62_167_219_200_000_000, -62_167_219_200_000_001, -62_167_219_200_000_000, 1_700_000_000_000_000,
            253_402_300_800_000_001, 1_700_000_000_000_000,
        ]
        var writer = CaptureConnectionJSONWriter()
        for (i, micros) in instants.enumerated() {
            var c = Self.connection(index: i, firstPacketAt: micros)
            var e = HTTPExchange(index: 0)
            e.requestStartAt = micros
            e.responseEndAt = instants[(i + 1) % instants.count]
            c.exchanges = [e]
            try assertCodable(c, &writer)
        }
    }

    /// Targets of every length from 0 to 40 bytes with a byte that needs escaping (or a multi-byte character, or
    /// none) at the start, in the middle or at the end, and methods and versions that are or are not the usual
    /// ones, read back (Foundation's JSON parser) as the strings they are, in the Codable encoding's bytes.
    func testStringsOfEveryLengthWithEscapesAnywhereReadBackAsThemselves() throws {
        let specials = ["\"", "\\", "\u{01}", "\n", "\t", "\u{1f}", "\u{7f}", "é", "😀", "/", "a"]
        let methods: [String?] = ["GET", "POST", "get", "GET\"", "GETTING-LONGER-THAN-FIFTEEN", nil]
        let versions: [String?] = ["HTTP/1.1", "HTTP/1.0", "HTTP/1.1\n", nil]
        var writer = CaptureConnectionJSONWriter()
        var index = 0
        for length in 0...40 {
            for special in specials {
                for position in Set([0, length / 2, max(0, length - 1)]) {
                    var target = String(repeating: "x", count: length)
                    if length > 0 {
                        let at = target.index(target.startIndex, offsetBy: position)
                        target.replaceSubrange(at...at, with: special)
                    }
                    var c = Self.connection(index: index, firstPacketAt: 1_700_000_000_000_000)
                    var e = HTTPExchange(index: 0)
                    e.method = methods[index % methods.count]
                    e.target = target
                    e.httpVersion = versions[index % versions.count]
                    c.exchanges = [e]
                    c.notes = [target]
                    index += 1
                    let bytes = try assertCodable(c, &writer)
                    let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
                    let exchange = try XCTUnwrap((object["exchanges"] as? [[String: Any]])?.first)
                    XCTAssertEqual(exchange["target"] as? String, target)
                    XCTAssertEqual(exchange["method"] as? String, e.method)
                    XCTAssertEqual(exchange["httpVersion"] as? String, e.httpVersion)
                    XCTAssertEqual(object["notes"] as? [String], [target])
                }
            }
        }
    }

    /// Integers at the edges of their digit counts (and of Int64) and waits (µs, written as ms) with every
    /// shape of fraction, negative ones and those from 2^50 µs on, read back (Foundation's JSON parser) as the
    /// numbers they are, in the Codable encoding's bytes.
    func testIntegersAndWaitsAtTheirEdgesReadBackAsTheirValues() throws {
        let integers: [Int64] = [0, 1, 9, 10, 11, 99, 100, 101, 200, 999, 1000, 1001, 9999, 10_000, 99_999, 100_000,
                                 1_048_576, 123_456_789, 9_999_999_999, 10_000_000_000, 1 << 50, .max,
                                 -1, -9, -10, -99, -100, -999, -1000, -123_456_789, .min + 1, .min]
        let waits: [Int64] = [0, 1, 9, 10, 99, 100, 120, 123, 999, 1000, 1001, 1010, 1100, 1120, 1234, 45_763, 999_999,
                              (1 << 50) - 1, 1 << 50, (1 << 50) + 1, 1 << 55,
                              -1, -10, -100, -999, -1000, -1001, -45_763, -(1 << 50) + 1, -(1 << 50), -(1 << 55)]
        let base: Int64 = 1_700_000_000_000_000
        var writer = CaptureConnectionJSONWriter()
        for (i, value) in integers.enumerated() {
            var c = Self.connection(index: i, firstPacketAt: base)
            c.clientToServer.bytes = value
            var e = HTTPExchange(index: Int(value))
            e.statusCode = Int(value)
            e.requestHeaderBytes = Int(value)
            e.requestBodyBytes = value
            e.responseBodyBytes = value
            e.pipelineDepth = Int(value)
            e.stream = Int(value)
            e.requestEndAt = base
            e.responseStartAt = base + waits[i % waits.count]
            c.exchanges = [e]
            let bytes = try assertCodable(c, &writer)
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            let exchange = try XCTUnwrap((object["exchanges"] as? [[String: Any]])?.first)
            for key in ["index", "statusCode", "requestHeaderBytes", "requestBodyBytes", "responseBodyBytes",
                        "pipelineDepth", "stream"] {
                XCTAssertEqual((exchange[key] as? NSNumber)?.int64Value, value, "\(key) of \(value)")
            }
            XCTAssertEqual(((object["clientToServer"] as? [String: Any])?["bytes"] as? NSNumber)?.int64Value, value)
        }
        for (i, wait) in waits.enumerated() {
            var c = Self.connection(index: i, firstPacketAt: base)
            c.lastPacketAt = base + abs(wait)
            var e = HTTPExchange(index: i)
            e.requestEndAt = base
            e.responseStartAt = base + wait
            c.exchanges = [e]
            let bytes = try assertCodable(c, &writer)
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            let exchange = try XCTUnwrap((object["exchanges"] as? [[String: Any]])?.first)
            XCTAssertEqual((exchange["waitMs"] as? NSNumber)?.doubleValue, Double(wait) / 1000, "\(wait) µs")
            XCTAssertEqual((object["durationMs"] as? NSNumber)?.doubleValue, Double(abs(wait)) / 1000)
        }
    }

    /// Writes `connection` alone and asserts its bytes are its Codable encoding; returns them.
    @discardableResult
    private func assertCodable(_ connection: TCPConnection, _ writer: inout CaptureConnectionJSONWriter,
                               file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
        var bytes: [UInt8] = []
        writer.append(connection, to: &bytes)
        let expected = try encoder.encode(connection)
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), String(decoding: expected, as: UTF8.self),
                       "connection \(connection.index)", file: file, line: line)
        return bytes
    }

    private static func connection(index: Int, firstPacketAt: Int64) -> TCPConnection {
        var c = TCPConnection(client: Endpoint(address: IPAddress(v4: 10, 0, 0, 1), port: 40000),
                              server: Endpoint(address: IPAddress(v4: 10, 0, 0, 2), port: 80),
                              firstPacketAt: firstPacketAt)
        c.index = index
        return c
    }

    /// The instants of one connection's JSON object, in the order it writes them.
    private static func instants(in json: Any) -> [String] {
        guard let c = json as? [String: Any] else { return [] }
        let handshake = c["handshake"] as? [String: Any] ?? [:]
        var texts = [c["firstPacketAt"], c["lastPacketAt"], handshake["synAt"], handshake["synAckAt"],
                     handshake["ackAt"], c["closeStartedAt"]]
        texts += (c["idleGaps"] as? [[String: Any]] ?? []).map { $0["startAt"] }
        for e in c["exchanges"] as? [[String: Any]] ?? [] {
            texts += [e["interimAt"], e["requestStartAt"], e["requestEndAt"], e["responseStartAt"], e["responseEndAt"]]
        }
        return texts.compactMap { $0 as? String }
    }

    /// `micros` since the epoch as `YYYY-MM-DDTHH:MM:SS.ffffffZ`, from Foundation's Gregorian calendar in UTC.
    private static func calendarText(_ micros: Int64) -> String {
        let second = micros >= 0 ? micros / 1_000_000 : -((-micros + 999_999) / 1_000_000)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let date = Date(timeIntervalSince1970: TimeInterval(second))
        let f = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04ld-%02ld-%02ldT%02ld:%02ld:%02ld.%06ldZ", f.year!, f.month!, f.day!, f.hour!, f.minute!,
                      f.second!, Int(micros - second * 1_000_000))
    }
}
