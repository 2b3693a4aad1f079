/// Splits text like `10MiB` or `1.5s` into its non-negative number and its lowercased unit.
///
/// Spaces and tabs around the number and the unit are ignored (Unicode space separators and tab, as Foundation's
/// `.whitespaces`), without Foundation: every probe parses its `--tcp-sample` default, and Foundation's character
/// sets cost a run about a million instructions to set up.
enum QuantityText {
    static func split(_ text: String) -> (number: Double, unit: String)? {
        let trimmed = trimmed(Substring(text))
        guard !trimmed.isEmpty else { return nil }
        let digitsEnd = trimmed.firstIndex(where: { !($0.isNumber || $0 == ".") }) ?? trimmed.endIndex
        guard let number = Double(trimmed[..<digitsEnd]), number >= 0, number.isFinite else { return nil }
        return (number, String(Self.trimmed(trimmed[digitsEnd...])).lowercased())
    }

    /// `text` without leading and trailing space separators and tabs.
    private static func trimmed(_ text: Substring) -> Substring {
        func isSpace(_ c: Character) -> Bool {
            c.unicodeScalars.allSatisfy { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
        }
        var view = text
        while let c = view.first, isSpace(c) { view.removeFirst() }
        while let c = view.last, isSpace(c) { view.removeLast() }
        return view
    }
}
