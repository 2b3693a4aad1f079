/// How libcurl signs every request of a run with AWS Signature Version 4 (curl's `--aws-sigv4`): the provider
/// string of CURLOPT_AWS_SIGV4 and the key pair of CURLOPT_USERNAME / CURLOPT_PASSWORD.
///
/// The key pair is a secret: it never reaches a report, a log or a journal (`ProbeOptions` does not encode it, and
/// `description` masks it), and libcurl signs only transfers that keep credentials (`RedirectPolicy`).
public struct SigV4Signing: Sendable, Equatable, CustomStringConvertible {
    /// `provider1[:provider2[:region[:service]]]`, e.g. `aws:amz:us-east-1:s3`, as curl's `--aws-sigv4` takes it.
    public var provider: String
    /// The access key ID.
    public var accessKey: String
    /// The secret access key.
    public var secretKey: String

    /// A signing with a provider already checked (`provider(_:region:)`) and a key pair (`keyPair(_:)`).
    public init(provider: String, accessKey: String, secretKey: String) {
        self.provider = provider
        self.accessKey = accessKey
        self.secretKey = secretKey
    }

    /// The provider and a mask: never the key pair.
    public var description: String { "SigV4(\(provider), \(Redactor.mask))" }

    /// The provider's colon-separated parts: `provider1`, `provider2`, `region`, `service`.
    public static let partNames = ["provider1", "provider2", "region", "service"]

    /// The provider string libcurl gets: `text` checked (1 to 4 non-empty parts of letters, digits, `-`, `_` and
    /// `.`), and `region` (AWS_REGION or AWS_DEFAULT_REGION) put in when the text names none: a two-part provider
    /// such as `aws:amz` gains `:REGION`, then `:SERVICE` when `service` is given; otherwise libcurl takes what is
    /// missing from the host name, as curl does.
    public static func provider(_ text: String, region: String?, service: String? = nil) throws(SigV4Problem) -> String {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { throw .badProvider(text) }
        for part in parts {
            guard !part.isEmpty, part.utf8.allSatisfy(isProviderByte) else { throw .badProvider(text) }
        }
        var result = text
        if parts.count == 2, let region, !region.isEmpty {
            guard region.utf8.allSatisfy(isProviderByte) else { throw .badRegion(region) }
            result += ":" + region
        }
        if parts.count == 3 || (parts.count == 2 && result != text), let service { result += ":" + service }
        return result
    }

    /// `KEY:SECRET` (from `-u`) split at its first colon; each must be non-empty and free of control characters.
    public static func keyPair(_ text: String) throws(SigV4Problem) -> (accessKey: String, secretKey: String) {
        guard let colon = text.firstIndex(of: ":") else { throw .noSecret }
        let key = String(text[..<colon])
        let secret = String(text[text.index(after: colon)...])
        try checkKey(key, secret: secret)
        return (key, secret)
    }

    /// The key pair from aws-cli's environment variables: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, and
    /// `AWS_SESSION_TOKEN` for temporary (STS) credentials, sent as the `x-amz-security-token` header.
    public static func environmentKeys(_ environment: [String: String])
        throws(SigV4Problem) -> (accessKey: String, secretKey: String, token: String?) {
        guard let key = environment["AWS_ACCESS_KEY_ID"], !key.isEmpty,
              let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else {
            throw .noKeys
        }
        try checkKey(key, secret: secret)
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        if let token, token.unicodeScalars.contains(where: isControl) { throw .badToken }
        return (key, secret, token)
    }

    /// The region aws-cli would use: `AWS_REGION`, else `AWS_DEFAULT_REGION`, else nil.
    public static func environmentRegion(_ environment: [String: String]) -> String? {
        [environment["AWS_REGION"], environment["AWS_DEFAULT_REGION"]].lazy.compactMap { $0 }.first { !$0.isEmpty }
    }

    /// The header that carries a session token.
    public static let tokenHeader = "x-amz-security-token"

    /// The payload hash header S3 wants on every signed request, saying the body is not hashed into the signature.
    public static let payloadHashHeader = HeaderField(name: "x-amz-content-sha256", value: "UNSIGNED-PAYLOAD")

    /// The service a provider string names (its fourth part, lowercased), or nil when libcurl takes it from the host.
    public static func service(of provider: String) -> String? {
        let parts = provider.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 4 ? parts[3].lowercased() : nil
    }

    private static func checkKey(_ key: String, secret: String) throws(SigV4Problem) {
        guard !key.isEmpty, !key.unicodeScalars.contains(where: isControl) else { throw .badKey }
        guard !secret.isEmpty, !secret.unicodeScalars.contains(where: isControl) else { throw .noSecret }
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.value < 0x20 || scalar.value == 0x7f }

    private static func isProviderByte(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7a) || (b >= 0x41 && b <= 0x5a) || (b >= 0x30 && b <= 0x39)
            || b == UInt8(ascii: "-") || b == UInt8(ascii: "_") || b == UInt8(ascii: ".")
    }
}

/// Why a SigV4 signing could not be set up: each case's description is the one-line error the CLI prints (never a
/// key, secret or token).
public enum SigV4Problem: Error, Equatable, CustomStringConvertible {
    case badProvider(String)
    case badRegion(String)
    case noKeys
    case badKey
    case noSecret
    case badToken

    public var description: String {
        switch self {
        case .badProvider(let text):
            "--aws-sigv4 '\(text)' is not provider1[:provider2[:region[:service]]] of letters, digits, '-', '_' "
                + "and '.'; write e.g. aws:amz:us-east-1:s3"
        case .badRegion(let region):
            "the region '\(region)' (AWS_REGION or AWS_DEFAULT_REGION) is not a region name; fix it or name the "
                + "region in --aws-sigv4"
        case .noKeys:
            "--aws-sigv4 needs a key pair: give -u KEY:SECRET or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
        case .badKey:
            "the access key ID is empty or holds a control character; give -u KEY:SECRET"
        case .noSecret:
            "the secret access key is missing, empty or holds a control character; give -u KEY:SECRET"
        case .badToken:
            "AWS_SESSION_TOKEN holds a control character; set it to the token alone"
        }
    }
}
