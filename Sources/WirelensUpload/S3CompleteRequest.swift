/// The body of CompleteMultipartUpload: every part's number and the ETag its UploadPart answered, in part order.
package struct S3CompleteRequest: Sendable, Equatable {
    /// A part as the request names it.
    package struct Part: Sendable, Equatable {
        package var number: Int
        package var etag: S3ETag

        package init(number: Int, etag: S3ETag) {
            self.number = number
            self.etag = etag
        }
    }

    /// The parts, sorted by number whatever order they finished in (S3 refuses another order).
    package private(set) var parts: [Part]

    package init(parts: [Part]) {
        self.parts = parts.sorted { $0.number < $1.number }
    }

    /// The XML S3 takes, each ETag quoted as S3 served it.
    package var body: String {
        var xml = "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        for part in parts {
            xml += "<Part><PartNumber>\(part.number)</PartNumber><ETag>&quot;\(Self.escape(part.etag.value))&quot;</ETag></Part>"
        }
        return xml + "</CompleteMultipartUpload>"
    }

    /// Text as XML character data (an ETag is hex, but a look-alike's could hold anything).
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
