/// Where an S3 object lives: `s3://BUCKET/KEY` as given, and its URL on a custom endpoint, path-style
/// (`ENDPOINT/BUCKET/KEY`) or virtual-hosted (`SCHEME://BUCKET.HOST/KEY`), the key URI-encoded as SigV4 canonical
/// requests encode it.
package struct S3ObjectAddress: Sendable, Equatable, CustomStringConvertible {
    package var bucket: String
    /// The object's key, unencoded (`dir/a file é.bin`).
    package var key: String

    /// Parses `s3://BUCKET/KEY`; throws a one-line error for another scheme, a bucket name S3 refuses, or no key.
    package init(_ text: String) throws(S3AddressError) {
        guard text.hasPrefix("s3://") else { throw .notS3(text) }
        let rest = text.dropFirst(5)
        guard let slash = rest.firstIndex(of: "/") else { throw .noKey(text) }
        let bucket = String(rest[..<slash])
        let key = String(rest[rest.index(after: slash)...])
        guard Self.isValidBucket(bucket) else { throw .badBucket(bucket) }
        guard !key.isEmpty else { throw .noKey(text) }
        self.bucket = bucket
        self.key = key
    }

    /// `s3://BUCKET/KEY`, the key unencoded.
    package var description: String { "s3://\(bucket)/\(key)" }

    /// The URL of the object on `endpoint` (`http://host:port`, a trailing slash dropped): path-style, or with
    /// `virtualHosted` the bucket as the first label of the endpoint's host (as AWS and OSS address buckets).
    package func url(endpoint: String, virtualHosted: Bool = false) -> String {
        var base = Substring(endpoint)
        while base.hasSuffix("/") { base = base.dropLast() }
        guard virtualHosted, let scheme = base.range(of: "://") else { return "\(base)/\(bucket)/\(Self.encode(key))" }
        return "\(base[..<scheme.upperBound])\(bucket).\(base[scheme.upperBound...])/\(Self.encode(key))"
    }

    /// S3's bucket-name rules: 3 to 63 characters of lowercase letters, digits, dots and hyphens, beginning and
    /// ending with a letter or digit.
    package static func isValidBucket(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count) else { return false }
        func alphanumeric(_ byte: UInt8) -> Bool { (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte) }
        guard let first = bytes.first, let last = bytes.last, alphanumeric(first), alphanumeric(last) else {
            return false
        }
        return bytes.allSatisfy { alphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
    }

    /// A key as SigV4 encodes an S3 path: every byte of its UTF-8 percent-encoded (upper-case hex) except the
    /// unreserved `A-Z a-z 0-9 - . _ ~` and the `/` between segments.
    package static func encode(_ key: String) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in key.utf8 {
            switch byte {
            case 0x41...0x5a, 0x61...0x7a, 0x30...0x39, UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Why an `s3://` destination was refused: each case's description is the one-line error the CLI prints.
package enum S3AddressError: Error, Equatable, CustomStringConvertible {
    case notS3(String)
    case noKey(String)
    case badBucket(String)

    package var description: String {
        switch self {
        case .notS3(let text): "'\(text)' is not an s3:// address: give s3://BUCKET/KEY"
        case .noKey(let text): "'\(text)' names no object key: give s3://BUCKET/KEY"
        case .badBucket(let name):
            "bucket '\(name)' is not a valid S3 bucket name: 3-63 lowercase letters, digits, dots and hyphens"
        }
    }
}
