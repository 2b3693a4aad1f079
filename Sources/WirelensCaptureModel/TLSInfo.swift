/// What a TLS connection shows in clear text: the ClientHello's server name and offered protocols, and the
/// version and protocol the ServerHello chose where it carries them (TLS 1.3 hides the chosen ALPN).
public struct TLSInfo: Sendable, Equatable {
    /// SNI from the ClientHello.
    public var serverName: String?
    /// ALPN protocols the client offered, in its order.
    public var offeredALPN: [String] = []
    /// "TLSv1.3", "TLSv1.2"…: the ServerHello's supported_versions extension, else its legacy version.
    public var version: String?
    /// The ALPN protocol in the ServerHello (TLS 1.2 and older only).
    public var chosenALPN: String?

    public init() {}

    /// The name of a TLS protocol version number.
    package static func versionName(_ v: UInt16) -> String {
        switch v {
        case 0x0304: "TLSv1.3"
        case 0x0303: "TLSv1.2"
        case 0x0302: "TLSv1.1"
        case 0x0301: "TLSv1.0"
        case 0x0300: "SSLv3"
        default: "0x" + String(v, radix: 16)
        }
    }
}
