/// Why an S3 XML answer could not be read: a code, the byte offset where reading stopped, and the element that
/// was wanted when one was missing. `description` is a one-line message without the document's text.
public struct S3XMLError: Error, Equatable, CustomStringConvertible {
    /// What went wrong, as a value new cases can join without breaking callers.
    public struct Code: Sendable, Equatable {
        fileprivate let name: String

        public static let tooLarge = Code(name: "the answer is larger than 4 MiB")
        public static let noRoot = Code(name: "the answer is not XML")
        public static let trailing = Code(name: "text follows the root element")
        public static let badTag = Code(name: "a malformed tag")
        public static let truncated = Code(name: "the answer ends inside an element")
        public static let mismatchedEnd = Code(name: "an end tag does not match its start")
        public static let tooDeep = Code(name: "elements nest too deep")
        public static let badEntity = Code(name: "an unknown character reference")
        public static let unexpectedRoot = Code(name: "the answer is another document")
        public static let missingElement = Code(name: "an element is missing")
        public static let badValue = Code(name: "an element's value is not what S3 sends")
    }

    public var code: Code
    /// The byte offset in the document (0 for a missing element).
    public var offset: Int
    /// The element wanted or found, for `unexpectedRoot`, `missingElement` and `badValue`.
    public var element: String?

    public init(_ code: Code, at offset: Int, element: String? = nil) {
        self.code = code
        self.offset = offset
        self.element = element
    }

    public var description: String {
        if let element { return "\(code.name): \(element)" }
        return "\(code.name) (byte \(offset))"
    }
}
