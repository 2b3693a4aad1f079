/// A TLS protocol version, named as curl's `--tls-max` takes it ("1.2").
public enum TLSVersion: String, Sendable, Codable, CaseIterable, Comparable {
    case tls1_0 = "1.0"
    case tls1_1 = "1.1"
    case tls1_2 = "1.2"
    case tls1_3 = "1.3"

    /// The version's minor number (TLS 1.x).
    public var minor: Int {
        switch self {
        case .tls1_0: 0
        case .tls1_1: 1
        case .tls1_2: 2
        case .tls1_3: 3
        }
    }

    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool { lhs.minor < rhs.minor }
}
