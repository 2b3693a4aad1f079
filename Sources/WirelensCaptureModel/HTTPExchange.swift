/// One HTTP/1.x request and the response paired with it, as seen on the wire (times in µs since the epoch).
public struct HTTPExchange: Sendable, Equatable {
    /// Position in its connection, from 0.
    public var index: Int
    /// Request method; nil when the request was not captured (a response whose request came before the capture).
    public var method: String?
    /// Request target as sent (query values with secret-looking names masked).
    public var target: String?
    /// "HTTP/1.1" or "HTTP/1.0", from the request line (or the status line without a request).
    public var httpVersion: String?
    /// Final status code; nil when no final response was seen.
    public var statusCode: Int?
    /// Interim 1xx statuses before the final response (100 Continue, 103 Early Hints), with the first one's time.
    public var interimStatuses: [Int] = []
    public var interimAt: Int64?
    public var requestStartAt: Int64?
    public var requestEndAt: Int64?
    public var responseStartAt: Int64?
    public var responseEndAt: Int64?
    public var requestHeaderBytes = 0
    public var requestBodyBytes: Int64 = 0
    public var responseHeaderBytes = 0
    public var responseBodyBytes: Int64 = 0
    /// The request's first byte left before the previous response's last byte arrived.
    public var pipelined = false
    /// Requests outstanding (sent, response not complete) when this one started, itself included.
    public var pipelineDepth = 1
    /// The HTTP/2 stream identifier; nil for HTTP/1.x.
    public var stream: Int?
    /// HTTP/2: the credit the server's WINDOW_UPDATE frames granted this stream, bytes.
    public var serverWindowCredit: Int64 = 0
    /// True for an exchange inferred from encrypted records (TLS): a run of client application data and the run
    /// of server application data after it; sizes are record payload bytes, method and status unknown.
    public var inferred = false
    /// True when the connection was reset, or the sender closed it, before the exchange ended: a message was
    /// under way (its byte counts are what arrived) or the final response had not begun.
    public var cutShort = false
    /// True when the request and its final response were both seen to their last byte.
    public var complete: Bool { requestEndAt != nil && responseEndAt != nil }

    public init(index: Int) {
        self.index = index
    }
}

extension HTTPExchange {
    /// Last request byte to first response byte (µs): the server's time plus one network round trip.
    public var wait: Int64? {
        guard let requestEndAt, let responseStartAt else { return nil }
        return responseStartAt - requestEndAt
    }
}
