/// The name of the place an instance checks from (`--vantage NAME`): the `vantage` label of every sample and the
/// `vantage` of every history row.
///
/// A Prometheus label value may hold any UTF-8, but this one also lands in history rows, log lines and PromQL typed
/// by people, so it is held to a documented set: 1 to 64 of ASCII letters, digits, `-`, `_`, `.` and `:` (e.g.
/// `eu-west-1`, `office.berlin`, `dc1:rack4`). No space, quote, backslash or control character: nothing to escape
/// anywhere, and one instance cannot forge another's label.
package enum Vantage {
    /// The longest vantage name.
    package static let maxLength = 64

    /// The name when it is fit to be a vantage, else why not (one line).
    package static func check(_ name: String) -> Result<String, Refusal> {
        guard !name.isEmpty else {
            return .failure(Refusal(name: name, reason: "is empty; name the place this instance checks from, e.g. eu-west-1"))
        }
        guard name.unicodeScalars.count <= maxLength else {
            return .failure(Refusal(name: name, reason: "is longer than \(maxLength) characters"))
        }
        guard name.unicodeScalars.allSatisfy(allowed) else {
            return .failure(Refusal(name: name, reason:
                "has a character outside letters, digits, '-', '_', '.' and ':' (the vantage is a label value typed in PromQL)"))
        }
        return .success(name)
    }

    /// True for the scalars a vantage name may hold.
    static func allowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".", ":": true
        default: false
        }
    }

    /// Why a `--vantage` name was refused; the name is shown with control characters escaped.
    package struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        package let name: String
        package let reason: String

        package var description: String {
            let shown = name.unicodeScalars.map { $0.properties.generalCategory == .control ? $0.escaped(asASCII: true) : String($0) }
                .joined()
            return "--vantage '\(shown)' \(reason)"
        }
    }
}
