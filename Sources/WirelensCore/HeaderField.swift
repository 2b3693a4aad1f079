import Foundation

/// One HTTP header line as a name and a value.
public struct HeaderField: Sendable, Codable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Parses `Name: value`; returns nil when there is no colon or no name.
    public static func parse(_ line: String) -> HeaderField? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, !name.contains(" ") else { return nil }
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        return HeaderField(name: name, value: value)
    }
}
