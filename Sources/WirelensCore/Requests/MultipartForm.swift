/// A multipart/form-data body (RFC 7578) laid out as body pieces: delimiters and headers in memory, file parts
/// streamed from disk when the body is sent.
package struct MultipartForm: Sendable, Equatable {
    /// A field whose file, if any, has been found and measured.
    package struct Part: Sendable, Equatable {
        package var name: String
        package var content: Content

        package init(name: String, content: Content) {
            self.name = name
            self.content = content
        }

        /// A part's content.
        package enum Content: Sendable, Equatable {
            case text(String)
            case file(path: String, size: Int64, filename: String, contentType: String)
        }
    }

    package let boundary: String
    package let parts: [Part]

    /// A form with the given boundary, which must not occur in any part (a random one of 24 hex digits makes that
    /// as unlikely as curl's does).
    package init(parts: [Part], boundary: String) {
        self.parts = parts
        self.boundary = boundary
    }

    /// The request's Content-Type header value.
    package var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The body: for each part `--boundary CRLF`, its headers, an empty line, the content and CRLF; then
    /// `--boundary-- CRLF`.
    package var body: BodyPieces {
        var pieces: [BodyPiece] = []
        for part in parts {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.quoted(part.name))\""
            switch part.content {
            case .text(let value):
                head += "\r\n\r\n"
                pieces.append(.bytes(Array(head.utf8) + Array(value.utf8) + Array("\r\n".utf8)))
            case .file(let path, let size, let filename, let contentType):
                head += "; filename=\"\(Self.quoted(filename))\"\r\nContent-Type: \(contentType)\r\n\r\n"
                pieces.append(.bytes(Array(head.utf8)))
                pieces.append(.file(path: path, offset: 0, length: size))
                pieces.append(.bytes(Array("\r\n".utf8)))
            }
        }
        pieces.append(.bytes(Array("--\(boundary)--\r\n".utf8)))
        return BodyPieces(pieces)
    }

    /// A name or filename fit for a quoted header parameter, escaped as HTML forms and curl do: `"` as %22,
    /// CR as %0D, LF as %0A.
    package static func quoted(_ text: String) -> String {
        text.replacingScalars(["\"": "%22", "\r": "%0D", "\n": "%0A"])
    }

    /// A fresh boundary: "wirelens-" and 24 random hex digits.
    package static func randomBoundary<R: RandomNumberGenerator>(using random: inout R) -> String {
        let digits = Array("0123456789abcdef")
        return "wirelens-" + String((0..<24).map { _ in digits[Int(random.next() % 16)] })
    }

    /// The media type for a file name's extension, as curl guesses it; application/octet-stream otherwise.
    package static func contentType(forFilename name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "application/octet-stream" }
        switch name[name.index(after: dot)...].lowercased() {
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        case "gif": return "image/gif"
        case "heic": return "image/heic"
        case "webp": return "image/webp"
        case "svg": return "image/svg+xml"
        case "txt": return "text/plain"
        case "html", "htm": return "text/html"
        case "css": return "text/css"
        case "csv": return "text/csv"
        case "json": return "application/json"
        case "xml": return "application/xml"
        case "pdf": return "application/pdf"
        case "zip": return "application/zip"
        case "gz": return "application/gzip"
        case "mp4": return "video/mp4"
        case "mov": return "video/quicktime"
        case "mp3": return "audio/mpeg"
        default: return "application/octet-stream"
        }
    }
}
