/// A value with one rule for its text, shared by the flags and the check configuration that take it.
package protocol TextParsable: Sendable {
    /// Parses `text`, or refuses it with one line that starts with the quoted text.
    init(parsing text: String) throws(ValueRefusal)
}
