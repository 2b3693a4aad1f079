import NIOHTTP1

/// An answer the target gives instead of the resource: a status and a one-line reason, sent as `{"error": reason}`.
package struct TargetFailure: Error, Equatable, Sendable {
    package var status: HTTPResponseStatus
    package var message: String
    /// Extra members of the JSON body (e.g. the missing ranges of a 409), already encoded as JSON values.
    package var extra: [(String, String)] = []

    package init(status: HTTPResponseStatus, message: String, extra: [(String, String)] = []) {
        self.status = status
        self.message = message
        self.extra = extra
    }

    /// 400 with `message`.
    package static func badRequest(_ message: String) -> TargetFailure {
        TargetFailure(status: .badRequest, message: message)
    }

    /// 404 with `message`.
    package static func notFound(_ message: String) -> TargetFailure {
        TargetFailure(status: .notFound, message: message)
    }

    package static func == (lhs: TargetFailure, rhs: TargetFailure) -> Bool {
        lhs.status == rhs.status && lhs.message == rhs.message
            && lhs.extra.map(\.0) == rhs.extra.map(\.0) && lhs.extra.map(\.1) == rhs.extra.map(\.1)
    }
}
