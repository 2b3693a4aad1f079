/// One element of an S3 XML answer: its local name (any `prefix:` dropped), its text and its child elements.
///
/// `parse` reads the small documents S3 and its look-alikes answer (InitiateMultipartUploadResult, ListPartsResult,
/// CompleteMultipartUploadResult, Error): elements, attributes (skipped), character data with the five named
/// entities and numeric references, CDATA, comments, processing instructions and a DOCTYPE without an internal
/// subset. It is tolerant of what it does not need and refuses, with `S3XMLError`, a document it cannot read to its end.
package struct S3XMLElement: Sendable, Equatable {
    /// The element's name without a namespace prefix (`ETag`).
    package var name: String
    /// The character data directly inside the element, entities decoded (whitespace kept).
    package var text: String
    package var children: [S3XMLElement]

    package init(name: String, text: String = "", children: [S3XMLElement] = []) {
        self.name = name
        self.text = text
        self.children = children
    }

    /// The first child named `name`.
    package func child(_ name: String) -> S3XMLElement? { children.first { $0.name == name } }

    /// Every child named `name`, in document order.
    package func children(_ name: String) -> [S3XMLElement] { children.filter { $0.name == name } }

    /// The text of the first child named `name`, without surrounding whitespace; nil when there is no such child.
    package func value(_ name: String) -> String? { child(name).map { trimmed($0.text) } }

    /// The largest document `parse` reads, and the deepest nesting: S3's answers are a few KiB and 3 levels deep
    /// (a ListParts page of 1,000 parts is about 200 KiB).
    package static let maximumBytes = 4 << 20
    package static let maximumDepth = 32

    /// The non-empty text of the first child named `name`, without surrounding whitespace; `S3XMLError`
    /// (`missingElement`) when there is none.
    package func required(_ name: String) throws(S3XMLError) -> String {
        guard let text = value(name), !text.isEmpty else { throw S3XMLError(.missingElement, at: 0, element: name) }
        return text
    }

    /// The root of a document that must be named one of `names` (S3's own first; a look-alike may differ, as moto
    /// 5.2 answers ListParts with `ListPartsResponse`); `S3XMLError` (`unexpectedRoot`) for another document.
    package static func parse(_ bytes: [UInt8], rootNamed names: String...) throws(S3XMLError) -> S3XMLElement {
        let root = try parse(bytes)
        guard names.contains(root.name) else { throw S3XMLError(.unexpectedRoot, at: 0, element: root.name) }
        return root
    }

    /// The document's root element.
    package static func parse(_ bytes: [UInt8]) throws(S3XMLError) -> S3XMLElement {
        guard bytes.count <= maximumBytes else { throw S3XMLError(.tooLarge, at: maximumBytes) }
        var reader = Reader(bytes: bytes)
        return try reader.document()
    }

    /// `parse` of a string's UTF-8.
    package static func parse(_ text: String) throws(S3XMLError) -> S3XMLElement { try parse(Array(text.utf8)) }

    private struct Reader {
        let bytes: [UInt8]
        var at = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
            // A UTF-8 byte order mark.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { at = 3 }
        }

        mutating func document() throws(S3XMLError) -> S3XMLElement {
            try skipMisc()
            guard at < bytes.count, bytes[at] == lt else { throw S3XMLError(.noRoot, at: at) }
            let root = try element(depth: 0)
            try skipMisc()
            guard at == bytes.count else { throw S3XMLError(.trailing, at: at) }
            return root
        }

        /// White space, comments, processing instructions and a DOCTYPE, before and after the root.
        mutating func skipMisc() throws(S3XMLError) {
            while true {
                while at < bytes.count, isSpace(bytes[at]) { at += 1 }
                if starts("<?") {
                    try skip(past: Array("?>".utf8))
                } else if starts("<!--") {
                    try skip(past: Array("-->".utf8))
                } else if starts("<!DOCTYPE") {
                    try skip(past: [gt])
                } else {
                    return
                }
            }
        }

        /// An element starting at `<`, through its end tag.
        mutating func element(depth: Int) throws(S3XMLError) -> S3XMLElement {
            guard depth < S3XMLElement.maximumDepth else { throw S3XMLError(.tooDeep, at: at) }
            at += 1
            let qualified = name()
            guard !qualified.isEmpty else { throw S3XMLError(.badTag, at: at) }
            var result = S3XMLElement(name: Self.local(qualified))
            // Attributes: skipped, quoted values honoured (a '>' may sit inside one).
            while true {
                guard at < bytes.count else { throw S3XMLError(.truncated, at: at) }
                let byte = bytes[at]
                if byte == gt { at += 1; break }
                if byte == slash {
                    guard at + 1 < bytes.count, bytes[at + 1] == gt else { throw S3XMLError(.badTag, at: at) }
                    at += 2
                    return result
                }
                if byte == quote || byte == apostrophe {
                    at += 1
                    guard let close = bytes[at...].firstIndex(of: byte) else { throw S3XMLError(.truncated, at: at) }
                    at = close + 1
                } else {
                    at += 1
                }
            }
            var text: [UInt8] = []
            while true {
                guard at < bytes.count else { throw S3XMLError(.truncated, at: at) }
                if bytes[at] != lt {
                    let end = bytes[at...].firstIndex(of: lt) ?? bytes.count
                    try Self.decode(bytes[at..<end], into: &text, offset: at)
                    at = end
                } else if starts("</") {
                    at += 2
                    let closing = name()
                    guard closing == qualified else { throw S3XMLError(.mismatchedEnd, at: at) }
                    while at < bytes.count, isSpace(bytes[at]) { at += 1 }
                    guard at < bytes.count, bytes[at] == gt else { throw S3XMLError(.badTag, at: at) }
                    at += 1
                    result.text = String(decoding: text, as: UTF8.self)
                    return result
                } else if starts("<![CDATA[") {
                    let start = at + 9
                    try skip(past: Array("]]>".utf8))
                    text += bytes[start..<(at - 3)]
                } else if starts("<!--") {
                    try skip(past: Array("-->".utf8))
                } else if starts("<?") {
                    try skip(past: Array("?>".utf8))
                } else {
                    result.children.append(try element(depth: depth + 1))
                }
            }
        }

        /// A tag name at `at` (up to white space, `/`, `>`).
        mutating func name() -> String {
            let start = at
            while at < bytes.count, !isSpace(bytes[at]), bytes[at] != slash, bytes[at] != gt, bytes[at] != lt { at += 1 }
            return String(decoding: bytes[start..<at], as: UTF8.self)
        }

        func starts(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard at + count <= bytes.count else { return false }
            let prefix = UnsafeBufferPointer(start: text.utf8Start, count: count)
            return bytes[at..<(at + count)].elementsEqual(prefix)
        }

        /// Moves past the next `terminator`; a document that ends first is truncated.
        mutating func skip(past terminator: [UInt8]) throws(S3XMLError) {
            var i = at
            while i + terminator.count <= bytes.count {
                if bytes[i] == terminator[0], bytes[i..<(i + terminator.count)].elementsEqual(terminator) {
                    at = i + terminator.count
                    return
                }
                i += 1
            }
            throw S3XMLError(.truncated, at: at)
        }

        static func local(_ qualified: String) -> String {
            guard let colon = qualified.lastIndex(of: ":") else { return qualified }
            return String(qualified[qualified.index(after: colon)...])
        }

        /// Character data with `&name;` and `&#N;` / `&#xN;` references decoded.
        static func decode(_ raw: ArraySlice<UInt8>, into text: inout [UInt8], offset: Int) throws(S3XMLError) {
            var i = raw.startIndex
            while i < raw.endIndex {
                let byte = raw[i]
                guard byte == UInt8(ascii: "&") else {
                    text.append(byte)
                    i += 1
                    continue
                }
                guard let semicolon = raw[i...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                    throw S3XMLError(.badEntity, at: i)
                }
                let entity = String(decoding: raw[(i + 1)..<semicolon], as: UTF8.self)
                switch entity {
                case "amp": text.append(UInt8(ascii: "&"))
                case "lt": text.append(UInt8(ascii: "<"))
                case "gt": text.append(UInt8(ascii: ">"))
                case "quot": text.append(UInt8(ascii: "\""))
                case "apos": text.append(UInt8(ascii: "'"))
                default:
                    guard entity.hasPrefix("#") else { throw S3XMLError(.badEntity, at: i) }
                    let digits = entity.dropFirst()
                    let value = digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
                    guard let value, let scalar = Unicode.Scalar(value) else { throw S3XMLError(.badEntity, at: i) }
                    text += Array(String(Character(scalar)).utf8)
                }
                i = semicolon + 1
            }
        }
    }
}

private let lt = UInt8(ascii: "<"), gt = UInt8(ascii: ">"), slash = UInt8(ascii: "/"), quote = UInt8(ascii: "\""),
            apostrophe = UInt8(ascii: "'")

private func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0a || b == 0x0d }

private func trimmed(_ text: String) -> String {
    var slice = Substring(text)
    while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
    while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
    return String(slice)
}
