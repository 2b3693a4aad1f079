import Foundation

/// Splits text like `10MiB` or `1.5s` into its non-negative number and its lowercased unit.
enum QuantityText {
    static func split(_ text: String) -> (number: Double, unit: String)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        let digitsEnd = trimmed.firstIndex(where: { !($0.isNumber || $0 == ".") }) ?? trimmed.endIndex
        guard let number = Double(trimmed[..<digitsEnd]), number >= 0, number.isFinite else { return nil }
        return (number, trimmed[digitsEnd...].trimmingCharacters(in: .whitespaces).lowercased())
    }
}
