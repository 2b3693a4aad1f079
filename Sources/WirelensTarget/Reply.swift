import NIOCore
import NIOHTTP1
import WirelensWire

/// A response the connection handler sends: status, headers, body, and how long to hold it back.
struct Reply: Sendable {
    var status: HTTPResponseStatus
    var headers: HTTPHeaders = [:]
    var body: ReplyBody = .empty
    /// An interim response (1xx) sent before this one.
    var informational: HTTPResponseStatus?
    /// Extra wait before answering (the `/delay/{ms}` endpoint), in microseconds.
    var delayMicros: Int64 = 0

    /// A JSON answer.
    static func json(_ status: HTTPResponseStatus, _ value: JSONValue, headers: HTTPHeaders = [:]) -> Reply {
        json(status, bytes: JSONValue.bytes(of: value), headers: headers)
    }

    /// The JSON answer of the segment protocol.
    static func json(_ status: HTTPResponseStatus, _ answer: some WireAnswer, headers: HTTPHeaders = [:]) -> Reply {
        json(status, bytes: answer.jsonBytes, headers: headers)
    }

    /// A JSON answer of `json`'s bytes and a newline.
    private static func json(_ status: HTTPResponseStatus, bytes json: [UInt8], headers: HTTPHeaders) -> Reply {
        var body = ByteBuffer(bytes: json)
        body.writeInteger(UInt8(ascii: "\n"))
        var reply = Reply(status: status, headers: headers, body: .bytes(body))
        reply.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        return reply
    }

    /// The JSON error answer `{"error": message, ...}` of a failure.
    static func failure(_ failure: TargetFailure, headers: HTTPHeaders = [:]) -> Reply {
        var text = "{\"error\":"
        JSONValue.quote(failure.message, into: &text)
        // Extra members arrive as encoded JSON values.
        for (name, value) in failure.extra {
            text += ","
            JSONValue.quote(name, into: &text)
            text += ":" + value
        }
        text += "}"
        var reply = Reply(status: failure.status, headers: headers, body: .bytes(ByteBuffer(string: text + "\n")))
        reply.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        return reply
    }
}
