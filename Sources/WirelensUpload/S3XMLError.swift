/// Why an S3 XML answer could not be read: a code, the byte offset where reading stopped, and the element that
/// was wanted when one was missing. `description` is a one-line message without the document's text.
package struct S3XMLError: Error, Equatable, CustomStringConvertible {
    /// What went wrong, as a value new cases can join without breaking callers.
    package struct Code: Sendable, Equatable {
        fileprivate let name: String

        package static let tooLarge = Code(name: "the answer is larger than 4 MiB")
        package static let noRoot = Code(name: "the answer is not XML")
        package static let trailing = Code(name: "text follows the root element")
        package static let badTag = Code(name: "a malformed tag")
        package static let truncated = Code(name: "the answer ends inside an element")
        package static let mismatchedEnd = Code(name: "an end tag does not match its start")
        package static let tooDeep = Code(name: "elements nest too deep")
        package static let badEntity = Code(name: "an unknown character reference")
        package static let unexpectedRoot = Code(name: "the answer is another document")
        package static let missingElement = Code(name: "an element is missing")
        package static let badValue = Code(name: "an element's value is not what S3 sends")
    }

    package var code: Code
    /// The byte offset in the document (0 for a missing element).
    package var offset: Int
    /// The element wanted or found, for `unexpectedRoot`, `missingElement` and `badValue`.
    package var element: String?

    package init(_ code: Code, at offset: Int, element: String? = nil) {
        self.code = code
        self.offset = offset
        self.element = element
    }

    package var description: String {
        if let element { return "\(code.name): \(element)" }
        return "\(code.name) (byte \(offset))"
    }
}
