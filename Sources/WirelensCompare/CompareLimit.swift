import WirelensCore

/// One per-host connection limit compared: a number, or a real client's preset (`ios` is 4 per host).
public struct CompareLimit: Sendable, Equatable, Codable {
    /// The limit as given: "4" or a preset's name.
    public var label: String
    /// Connections per host and tasks (or segments) in flight at once.
    public var value: Int

    public init(label: String, value: Int) {
        self.label = label
        self.value = value
    }

    /// The limits of `--limits 1,2,ios,8`: numbers of 1 or more and preset names (their connections per host,
    /// or their parts in flight when the preset sets no connection limit). Duplicates are refused.
    public static func parseList(_ text: String) throws(CompareParseError) -> [CompareLimit] {
        var limits: [CompareLimit] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = item.trimmingSpaces
            let limit: CompareLimit
            if let number = Int(name) {
                guard number >= 1 else { throw CompareParseError("--limits: '\(name)' must be 1 or more") }
                limit = CompareLimit(label: String(number), value: number)
            } else if let preset = UploadPreset.named(name), let value = preset.maxHostConnections ?? preset.parallel {
                limit = CompareLimit(label: preset.name, value: value)
            } else {
                let names = UploadPreset.all.map(\.name).joined(separator: ", ")
                throw CompareParseError("--limits: '\(name)' is neither a number nor a preset (\(names)); write e.g. 1,2,4,ios,8")
            }
            guard !limits.contains(where: { $0.label == limit.label }) else {
                throw CompareParseError("--limits: '\(name)' is given twice")
            }
            limits.append(limit)
        }
        guard !limits.isEmpty else { throw CompareParseError("--limits is empty; write e.g. 1,2,4,6,8") }
        return limits
    }

    /// "4" for a number, "ios (4)" for a preset.
    public var display: String {
        label == String(value) ? label : "\(label) (\(value))"
    }
}

extension Substring {
    /// The text without leading and trailing spaces.
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
