/// Why the text of a value (a flag's, a check configuration key's) was refused: one line that starts with the quoted
/// text, for the caller to put after the flag's or the key's name.
package struct ValueRefusal: Error, Sendable, Equatable {
    package let message: String
    package init(_ message: String) { self.message = message }
}
