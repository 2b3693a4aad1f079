import Foundation
import WirelensCore
import Yams

/// Reads typed values out of a composed YAML tree, turning every mistake into a `CheckConfigError` that names
/// the file, the line (from the node's mark) and the key's path.
struct ConfigReader {
    let file: String
    let environment: [String: String]

    /// An error at a node's line.
    func error(_ node: Node?, _ key: String, _ message: String) -> CheckConfigError {
        CheckConfigError(file: file, line: node?.mark?.line ?? 0, key: key, message: message)
    }

    /// The entries of a mapping with string keys, in file order, each with its key node (for its line).
    func mapping(_ node: Node, _ key: String) throws(CheckConfigError) -> [(name: String, keyNode: Node, value: Node)] {
        guard let mapping = node.mapping else { throw error(node, key, "must be a mapping of keys to values") }
        var seen = Set<String>()
        var entries: [(name: String, keyNode: Node, value: Node)] = []
        for (keyNode, value) in mapping {
            guard let name = keyNode.scalar?.string else { throw error(keyNode, key, "keys must be plain names") }
            guard seen.insert(name).inserted else { throw error(keyNode, path(key, name), "given twice") }
            entries.append((name, keyNode, value))
        }
        return entries
    }

    /// A scalar as text, with `${NAME}` replaced by the environment variable's value.
    func string(_ node: Node, _ key: String) throws(CheckConfigError) -> String {
        guard let scalar = node.scalar else { throw error(node, key, "must be a single value, not a list or mapping") }
        return try substitute(scalar.string, node, key)
    }

    /// A whole number within `range`.
    func int(_ node: Node, _ key: String, _ range: ClosedRange<Int>) throws(CheckConfigError) -> Int {
        let text = try string(node, key)
        guard let value = Int(text), range.contains(value) else {
            throw error(node, key, "'\(text)' is not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// true or false (YAML's yes/no/on/off included).
    func bool(_ node: Node, _ key: String) throws(CheckConfigError) -> Bool {
        let text = try string(node, key).lowercased()
        switch text {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw error(node, key, "'\(text)' is not true or false")
        }
    }

    /// A duration in µs (`500ms`, `2s`, `1m`, a bare number of seconds), greater than zero (`PositiveDuration`).
    func duration(_ node: Node, _ key: String) throws(CheckConfigError) -> Int64 {
        try parsed(node, key, as: PositiveDuration.self).micros
    }

    /// A byte count (`1MiB`, `512KB`, `4096`: `ByteCount`).
    func size(_ node: Node, _ key: String) throws(CheckConfigError) -> Int64 {
        try parsed(node, key, as: ByteCount.self).bytes
    }

    /// A rate in bytes per second (`1MB/s`, `512KiB/s`: `ByteRate`).
    func rate(_ node: Node, _ key: String) throws(CheckConfigError) -> Double {
        Double(try parsed(node, key, as: ByteRate.self).bytesPerSecond)
    }

    /// The value of a key by its type's one rule for its text; its refusal is the key's error.
    func parsed<Value: TextParsable>(_ node: Node, _ key: String, as type: Value.Type) throws(CheckConfigError) -> Value {
        let text = try string(node, key)
        do throws(ValueRefusal) {
            return try Value(parsing: text)
        } catch {
            throw self.error(node, key, error.message)
        }
    }

    /// A list of scalars; a single scalar counts as a list of one.
    func list(_ node: Node, _ key: String) throws(CheckConfigError) -> [Node] {
        if let sequence = node.sequence { return Array(sequence) }
        guard node.scalar != nil else { throw error(node, key, "must be a value or a list of values") }
        return [node]
    }

    /// Replaces every `${NAME}` with the variable's value; an unset variable is an error.
    func substitute(_ text: String, _ node: Node, _ key: String) throws(CheckConfigError) -> String {
        guard text.contains("${") else { return text }
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "${") {
            result += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].firstIndex(of: "}") else {
                throw error(node, key, "'${' without a closing '}'; write ${NAME}")
            }
            let name = String(rest[open.upperBound..<close])
            guard let first = name.first, first == "_" || first.isLetter,
                  name.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }) else {
                throw error(node, key, "'${\(name)}' is not an environment variable name")
            }
            guard let value = environment[name] else {
                throw error(node, key, "environment variable \(name) is not set; export it before running")
            }
            result += value
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// `parent.child`, or `child` at the top.
    /// Histogram bucket bounds: a list of durations (µs), strictly increasing, at most `Histogram.maxBuckets`.
    func buckets(_ node: Node, _ key: String) throws(CheckConfigError) -> [Int64] {
        guard let sequence = node.sequence, !sequence.isEmpty else {
            throw error(node, key, "must be a list of durations, e.g. [5ms, 50ms, 500ms, 5s]")
        }
        guard sequence.count <= Histogram.maxBuckets else {
            throw error(node, key, "has \(sequence.count) buckets; give at most \(Histogram.maxBuckets)")
        }
        var bounds: [Int64] = []
        for (index, item) in sequence.enumerated() {
            let bound = try duration(item, "\(key)[\(index)]")
            if let last = bounds.last, bound <= last {
                throw error(item, "\(key)[\(index)]", "must be larger than the bucket before it (\(DurationText.format(micros: last)))")
            }
            bounds.append(bound)
        }
        return bounds
    }

    func path(_ parent: String, _ child: String) -> String {
        parent.isEmpty ? child : "\(parent).\(child)"
    }
}
