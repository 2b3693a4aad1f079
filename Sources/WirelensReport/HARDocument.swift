import WirelensCore

/// A HAR 1.2 document (http://www.softwareishard.com/blog/har-12-spec/): the `log` object and its parts.
///
/// Only what Wirelens measures is filled in; the fields the spec requires are always present, and the
/// optional ones Wirelens does not know (pages, cookies, content text) are left out or empty.
package struct HARDocument: Sendable, Codable, Equatable {
    package var log: Log

    /// The top-level `log` object.
    package struct Log: Sendable, Codable, Equatable {
        package var version = "1.2"
        package var creator: Creator
        package var entries: [Entry]
    }

    /// The program that wrote the log.
    package struct Creator: Sendable, Codable, Equatable {
        package var name: String
        package var version: String
    }

    /// One request/response exchange: one Wirelens transaction (each redirect hop and retry is its own entry).
    package struct Entry: Sendable, Codable, Equatable {
        package var startedDateTime: String
        /// Milliseconds: the sum of the non-negative timings other than `ssl`.
        package var time: Double
        package var request: Request
        package var response: Response
        package var cache = Cache()
        package var timings: Timings
        package var serverIPAddress: String?
        /// The connection's id (libcurl's connection number), or the local port when there is none.
        package var connection: String?
        /// Why the transaction failed, when it did (a custom field, hence the underscore).
        package var _error: String?
        /// The kernel's facts of the connection over the transaction (custom field; as the report's `tcp`).
        package var _tcp: TCPFacts?
        /// Why the transaction took its time (custom field; as the report's `diagnosis`).
        package var _diagnosis: Diagnosis?
        /// HAR's own comment: the verdict, its sentence and what it rests on, for a HAR viewer that shows no custom
        /// field.
        package var comment: String?
    }

    /// The request half of an entry.
    package struct Request: Sendable, Codable, Equatable {
        package var method: String
        package var url: String
        package var httpVersion: String
        package var cookies: [NameValue] = []
        package var headers: [NameValue]
        package var queryString: [NameValue]
        package var headersSize: Int64
        package var bodySize: Int64
    }

    /// The response half of an entry.
    package struct Response: Sendable, Codable, Equatable {
        package var status: Int
        package var statusText: String
        package var httpVersion: String
        package var cookies: [NameValue] = []
        package var headers: [NameValue]
        package var content: Content
        package var redirectURL: String
        package var headersSize: Int64
        package var bodySize: Int64
    }

    /// The response body's description (Wirelens does not keep the body itself).
    package struct Content: Sendable, Codable, Equatable {
        package var size: Int64
        package var mimeType: String
    }

    /// The cache object the spec requires; Wirelens has no cache to describe.
    package struct Cache: Sendable, Codable, Equatable {}

    /// Phase durations in milliseconds; -1 where a phase that may be absent did not happen.
    package struct Timings: Sendable, Codable, Equatable {
        package var blocked: Double
        package var dns: Double
        /// TCP connect plus TLS handshake: HAR counts `ssl` inside `connect`.
        package var connect: Double
        package var send: Double
        package var wait: Double
        package var receive: Double
        package var ssl: Double
    }

    /// A header, query parameter or cookie.
    package struct NameValue: Sendable, Codable, Equatable {
        package var name: String
        package var value: String
    }
}
