/// The TLS versions a transfer may negotiate with the server (curl's `--tlsv1.2`, `--tlsv1.3` and `--tls-max`,
/// libcurl's CURLOPT_SSLVERSION); a bound left nil is libcurl's and its TLS library's default.
public struct TLSBounds: Sendable, Codable, Equatable {
    /// The lowest version the handshake may settle on.
    public var minimum: TLSVersion?
    /// The highest version the client offers.
    public var maximum: TLSVersion?

    public init(minimum: TLSVersion? = nil, maximum: TLSVersion? = nil) {
        self.minimum = minimum
        self.maximum = maximum
    }

    /// True when neither bound is set.
    public var isDefault: Bool { minimum == nil && maximum == nil }

    /// True when a maximum below the minimum leaves no version to negotiate.
    public var isEmpty: Bool {
        guard let minimum, let maximum else { return false }
        return maximum < minimum
    }
}
