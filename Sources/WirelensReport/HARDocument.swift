import WirelensCore

/// A HAR 1.2 document (http://www.softwareishard.com/blog/har-12-spec/): the `log` object and its parts.
///
/// Only what Wirelens measures is filled in; the fields the spec requires are always present, and the
/// optional ones Wirelens does not know (pages, cookies, content text) are left out or empty.
public struct HARDocument: Sendable, Codable, Equatable {
    public var log: Log

    /// The top-level `log` object.
    public struct Log: Sendable, Codable, Equatable {
        public var version = "1.2"
        public var creator: Creator
        public var entries: [Entry]
    }

    /// The program that wrote the log.
    public struct Creator: Sendable, Codable, Equatable {
        public var name: String
        public var version: String
    }

    /// One request/response exchange: one Wirelens transaction (each redirect hop and retry is its own entry).
    public struct Entry: Sendable, Codable, Equatable {
        public var startedDateTime: String
        /// Milliseconds: the sum of the non-negative timings other than `ssl`.
        public var time: Double
        public var request: Request
        public var response: Response
        public var cache = Cache()
        public var timings: Timings
        public var serverIPAddress: String?
        /// The connection's id (libcurl's connection number), or the local port when there is none.
        public var connection: String?
        /// Why the transaction failed, when it did (a custom field, hence the underscore).
        public var _error: String?
        /// The kernel's facts of the connection over the transaction (custom field; as the report's `tcp`).
        public var _tcp: TCPFacts?
        /// Why the transaction took its time (custom field; as the report's `diagnosis`).
        public var _diagnosis: Diagnosis?
        /// HAR's own comment: the verdict, its sentence and what it rests on, for a HAR viewer that shows no custom
        /// field.
        public var comment: String?
    }

    /// The request half of an entry.
    public struct Request: Sendable, Codable, Equatable {
        public var method: String
        public var url: String
        public var httpVersion: String
        public var cookies: [NameValue] = []
        public var headers: [NameValue]
        public var queryString: [NameValue]
        public var headersSize: Int64
        public var bodySize: Int64
    }

    /// The response half of an entry.
    public struct Response: Sendable, Codable, Equatable {
        public var status: Int
        public var statusText: String
        public var httpVersion: String
        public var cookies: [NameValue] = []
        public var headers: [NameValue]
        public var content: Content
        public var redirectURL: String
        public var headersSize: Int64
        public var bodySize: Int64
    }

    /// The response body's description (Wirelens does not keep the body itself).
    public struct Content: Sendable, Codable, Equatable {
        public var size: Int64
        public var mimeType: String
    }

    /// The cache object the spec requires; Wirelens has no cache to describe.
    public struct Cache: Sendable, Codable, Equatable {}

    /// Phase durations in milliseconds; -1 where a phase that may be absent did not happen.
    public struct Timings: Sendable, Codable, Equatable {
        public var blocked: Double
        public var dns: Double
        /// TCP connect plus TLS handshake: HAR counts `ssl` inside `connect`.
        public var connect: Double
        public var send: Double
        public var wait: Double
        public var receive: Double
        public var ssl: Double
    }

    /// A header, query parameter or cookie.
    public struct NameValue: Sendable, Codable, Equatable {
        public var name: String
        public var value: String
    }
}
