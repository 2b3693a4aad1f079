extension String {
    /// The text with each Unicode scalar that `replacements` names written as its replacement.
    package func replacingScalars(_ replacements: [Unicode.Scalar: String]) -> String {
        var out = ""
        for scalar in unicodeScalars {
            if let replacement = replacements[scalar] { out += replacement } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }
}
