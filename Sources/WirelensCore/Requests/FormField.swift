/// One `--form` field as curl writes it: `name=value`, or `name=@path` with optional `;type=` and `;filename=`.
package struct FormField: Sendable, Equatable {
    /// What a field carries.
    package enum Value: Sendable, Equatable {
        case text(String)
        /// A file part; `contentType` and `filename` are nil when not given (guessed and taken from the path).
        case file(path: String, contentType: String?, filename: String?)
    }

    package var name: String
    package var value: Value

    package init(name: String, value: Value) {
        self.name = name
        self.value = value
    }

    /// A field that could not be parsed, with a one-line reason.
    package struct ParseError: Error, Equatable {
        package let message: String
    }

    /// Parses `name=value`, `name=@path`, `name=@path;type=image/jpeg;filename=photo.jpg`.
    package static func parse(_ text: String) throws(ParseError) -> FormField {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw ParseError(message: "--form '\(text)' has no name; write name=value or name=@file")
        }
        let name = String(text[..<equals])
        let rest = text[text.index(after: equals)...]
        guard rest.first == "@" else { return FormField(name: name, value: .text(String(rest))) }
        var attributes = rest.dropFirst().split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        let path = attributes.removeFirst()
        guard !path.isEmpty else {
            throw ParseError(message: "--form '\(text)' names no file after '@'; write name=@path")
        }
        var type: String?
        var filename: String?
        for attribute in attributes {
            if attribute.hasPrefix("type=") {
                type = String(attribute.dropFirst(5))
            } else if attribute.hasPrefix("filename=") {
                filename = String(attribute.dropFirst(9))
            } else {
                throw ParseError(message: "--form '\(text)': unknown attribute '\(attribute)'; use ;type= or ;filename=")
            }
        }
        if let type, !type.contains("/") {
            throw ParseError(message: "--form '\(text)': type '\(type)' is not a media type; write e.g. type=image/jpeg")
        }
        return FormField(name: name, value: .file(path: path, contentType: type, filename: filename))
    }
}
