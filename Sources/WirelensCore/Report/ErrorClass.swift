/// What kind of failure ended a transaction or task; the JSON value is the raw value.
public enum ErrorClass: String, Sendable, Codable, CaseIterable, Comparable {
    case dns
    case connect
    case tls
    case proxy
    case connectTimeout = "timeout.connect"
    case idleTimeout = "timeout.idle"
    case totalTimeout = "timeout.total"
    case network
    case `protocol`
    case http
    case file
    case cancelled
    case other

    public static func < (lhs: ErrorClass, rhs: ErrorClass) -> Bool { lhs.rawValue < rhs.rawValue }

    /// True for failures that may pass on a second try: connect errors, timeouts, dropped connections.
    public var isTransient: Bool {
        switch self {
        case .connect, .connectTimeout, .idleTimeout, .network: true
        default: false
        }
    }
}

/// A failure of a transaction or a task.
public struct TransferError: Sendable, Codable, Equatable {
    /// The failure's class.
    public var errorClass: ErrorClass
    /// libcurl's CURLcode, when libcurl reported the failure.
    public var curlCode: Int?
    /// A one-line description, redacted (`Redactor.message`) whenever it is set.
    public var message: String {
        didSet { message = Redactor.message(message) }
    }

    /// An error whose message is redacted here, so that no caller can forget it (libcurl's texts and our own
    /// can carry URLs).
    public init(errorClass: ErrorClass, curlCode: Int? = nil, message: String) {
        self.errorClass = errorClass
        self.curlCode = curlCode
        self.message = Redactor.message(message)
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(errorClass: try c.decode(ErrorClass.self, forKey: .errorClass),
                  curlCode: try c.decodeIfPresent(Int.self, forKey: .curlCode),
                  message: try c.decode(String.self, forKey: .message))
    }

    private enum CodingKeys: String, CodingKey {
        case errorClass = "class"
        case curlCode
        case message
    }
}
