import Yams

/// Where a key given twice in one YAML mapping stands: its path (`checks[0].every`), the line of its second
/// occurrence and the line of its first.
///
/// Yams refuses such a document with the first occurrence's position only. The first occurrence's key is renamed
/// in the text (a rename keeps the document's structure: a block mapping's indentation follows a key's column, not
/// its length), the document is composed again, and the renamed key's path and its twin's line are read off the
/// tree.
struct DuplicateKey: Equatable {
    var path: String
    var line: Int
    var firstLine: Int

    /// The name the first occurrence is given while the document is composed again.
    private static let placeholder = "\"wirelens duplicate key\""

    /// The duplicate `name` whose first occurrence Yams marked at `mark`, or nil when the document cannot be read
    /// that way (the key is not a scalar at that mark, or another mistake stands in the document).
    static func locate(name: String, mark: Mark, in text: String) -> DuplicateKey? {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0.unicodeScalars) }
        let row = mark.line - 1
        let column = mark.column - 1
        guard lines.indices.contains(row), lines[row].indices.contains(column),
              let end = keyEnd(lines[row], from: column) else { return nil }
        lines[row].replaceSubrange(column..<end, with: Array(placeholder.unicodeScalars))
        let renamed = lines.map { String(String.UnicodeScalarView($0)) }.joined(separator: "\n")
        guard let root = try? Yams.compose(yaml: renamed) else { return nil }
        return search(root, path: "", name: name, firstLine: mark.line)
    }

    /// The end (exclusive) of the scalar key starting at `start`: through the closing quote of a quoted key, else up
    /// to the `:` that ends a plain one.
    private static func keyEnd(_ line: [Unicode.Scalar], from start: Int) -> Int? {
        let first = line[start]
        if first == "\"" || first == "'" {
            var i = start + 1
            while i < line.count {
                if line[i] == "\\" && first == "\"" { i += 2; continue }
                if line[i] == first { return i + 1 }
                i += 1
            }
            return nil
        }
        var i = start
        while i < line.count, line[i] != ":" { i += 1 }
        while i > start, line[i - 1] == " " { i -= 1 }
        return i > start ? i : nil
    }

    /// The mapping holding the renamed key, searched depth first; its twin named `name` gives the line.
    private static func search(_ node: Node, path: String, name: String, firstLine: Int) -> DuplicateKey? {
        switch node {
        case .mapping(let mapping):
            let keys = mapping.map(\.key)
            if keys.contains(where: { $0.string == "wirelens duplicate key" && $0.mark?.line == firstLine }),
               let twin = keys.first(where: { $0.string == name }), let line = twin.mark?.line {
                return DuplicateKey(path: path.isEmpty ? name : "\(path).\(name)", line: line, firstLine: firstLine)
            }
            for (key, value) in mapping {
                guard let child = key.string else { continue }
                if let found = search(value, path: path.isEmpty ? child : "\(path).\(child)", name: name,
                                      firstLine: firstLine) {
                    return found
                }
            }
            return nil
        case .sequence(let sequence):
            for (index, item) in sequence.enumerated() {
                if let found = search(item, path: "\(path)[\(index)]", name: name, firstLine: firstLine) {
                    return found
                }
            }
            return nil
        case .scalar, .alias:
            return nil
        }
    }
}
