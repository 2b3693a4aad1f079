import Foundation

/// A JSON answer of the target server's segment protocol, read by the uploader: one Codable type per answer,
/// so the server writes and the client reads the same definition.
///
/// Conforming types hold strings, integers, arrays and nested wire types only, so their JSON never fails.
package protocol WireAnswer: Codable, Sendable, Equatable {}

extension WireAnswer {
    /// The answer's compact JSON, members in declaration order (the bytes the target sends).
    package var jsonBytes: [UInt8] { JSONValue.bytes(of: self) }

    /// Decodes an answer's body; nil when it is not this answer's JSON.
    package static func decode(_ body: [UInt8]) -> Self? {
        try? JSONDecoder().decode(Self.self, from: Data(body))
    }
}
