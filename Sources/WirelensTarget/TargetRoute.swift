import Foundation
import NIOHTTP1
import WirelensWire

/// An endpoint of the target server, parsed from a request's method and path.
package enum TargetRoute: Equatable, Sendable {
    case index
    case bytes(Int64)
    case delay(milliseconds: Int64)
    case status(Int)
    case redirect(Int)
    case upload(id: String)
    case uploadState(id: String)
    case part(id: String, index: Int)
    case complete(id: String)

    /// The largest `/bytes/{n}`: 1 TiB.
    package static let maxBytes: Int64 = 1 << 40

    /// The route for `method` and `path` (without the query), or the 404/405/400 to answer.
    package static func resolve(method: HTTPMethod, path: String) -> Result<TargetRoute, TargetFailure> {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let anyMethod: [HTTPMethod] = []
        func allow(_ methods: [HTTPMethod], _ route: TargetRoute) -> Result<TargetRoute, TargetFailure> {
            guard methods.isEmpty || methods.contains(method) else {
                let names = methods.map(\.rawValue).joined(separator: ", ")
                return .failure(TargetFailure(status: .methodNotAllowed,
                                              message: "\(method.rawValue) is not allowed on \(path); use \(names)",
                                              extra: [("allow", JSONValue.string(names).text)]))
            }
            return .success(route)
        }
        func number(_ text: String, _ what: String, _ range: ClosedRange<Int64>) -> Result<Int64, TargetFailure> {
            guard let value = ByteRangeRequest.digits(text), range.contains(value) else {
                return .failure(.badRequest("\(what) '\(text)' is not a number from \(range.lowerBound) to \(range.upperBound)"))
            }
            return .success(value)
        }
        let get: [HTTPMethod] = [.GET, .HEAD]
        switch segments.count {
        case 0:
            return allow(get, .index)
        case 2:
            let argument = segments[1]
            switch segments[0] {
            case "bytes":
                return number(argument, "byte count", 0...maxBytes).flatMap { allow(get, .bytes($0)) }
            case "delay":
                return number(argument, "delay in ms", 0...600_000).flatMap { allow(anyMethod, .delay(milliseconds: $0)) }
            case "status":
                return number(argument, "status", 100...599).flatMap { allow(anyMethod, .status(Int($0))) }
            case "redirect":
                return number(argument, "redirect count", 0...100).flatMap { allow(get, .redirect(Int($0))) }
            case "upload":
                return checkID(argument).flatMap { id in
                    method == .GET || method == .HEAD ? .success(.uploadState(id: id)) : allow([.PUT, .POST], .upload(id: id))
                }
            default:
                break
            }
        case 3 where segments[0] == "upload" && segments[2] == "complete":
            return checkID(segments[1]).flatMap { allow([.POST], .complete(id: $0)) }
        case 4 where segments[0] == "upload" && segments[2] == "part":
            return checkID(segments[1]).flatMap { id in
                number(segments[3], "part index", 0...10_000_000).flatMap { allow([.PUT], .part(id: id, index: Int($0))) }
            }
        default:
            break
        }
        return .failure(.notFound("no such endpoint: \(path); see GET / for the list"))
    }

    /// Checks an upload id: 1 to 128 of A-Z a-z 0-9 . _ ~ -, not only dots (it names a directory).
    static func checkID(_ id: String) -> Result<String, TargetFailure> {
        let allowed = id.utf8.allSatisfy { byte in
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
                || byte == 46 || byte == 95 || byte == 126 || byte == 45
        }
        guard allowed, (1...128).contains(id.utf8.count), !id.utf8.allSatisfy({ $0 == 46 }) else {
            return .failure(.badRequest("upload id '\(id)' must be 1 to 128 of the characters A-Z a-z 0-9 . _ ~ -"))
        }
        return .success(id)
    }

    /// Splits a request target into its path and its query parameters (names and values percent-decoded).
    package static func split(uri: String) -> (path: String, query: [(String, String)]) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri, []) }
        let query = uri[uri.index(after: mark)...].split(separator: "&").map { item -> (String, String) in
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pair[0]).removingPercentEncoding ?? String(pair[0])
            let value = pair.count > 1 ? (String(pair[1]).removingPercentEncoding ?? String(pair[1])) : ""
            return (name, value)
        }
        return (String(uri[..<mark]), query)
    }
}
