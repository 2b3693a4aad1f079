import CCurl
import WirelensCore

/// The request headers every transfer of a run sends, built once as libcurl lists.
///
/// libcurl reads a CURLOPT_HTTPHEADER list while the transfer runs and never copies it, so the lists live
/// as long as the engine. The User-Agent is one of the headers rather than CURLOPT_USERAGENT, which libcurl
/// would copy and format again for every request; a `-H "User-Agent: …"` of the user's replaces it.
final class RequestHeaderLists {
    /// For transfers without a request body.
    let plain: UnsafeMutablePointer<curl_slist>?
    /// For transfers with a body: also turns `Expect: 100-continue` off when the run asks so.
    let withBody: UnsafeMutablePointer<curl_slist>?
    /// For a proxy's CONNECT: the User-Agent alone (the other headers, credentials above all, are for the server).
    let proxy: UnsafeMutablePointer<curl_slist>?
    /// The lines of `plain` and of `withBody`, for transfers that add headers of their own.
    private let plainLines: [String]
    private let bodyLines: [String]

    init(options: ProbeOptions) throws(ProbeError) {
        var lines = options.headers.map { "\($0.name): \($0.value)" }
        let usersAgent = options.headers.last(where: { $0.name.lowercased() == "user-agent" })?.value
        let userAgent = usersAgent ?? options.userAgent
        if usersAgent == nil { lines.append("User-Agent: \(userAgent)") }
        plainLines = lines
        bodyLines = options.expectContinue ? lines : lines + ["Expect:"]
        var made: [UnsafeMutablePointer<curl_slist>?] = []
        do {
            for set in [lines, options.expectContinue ? [] : bodyLines, ["User-Agent: \(userAgent)"]] {
                made.append(try Self.list(set))
            }
        } catch {
            made.forEach { curl_slist_free_all($0) }
            throw error
        }
        plain = made[0]
        withBody = made[1]
        proxy = made[2]
    }

    deinit {
        curl_slist_free_all(plain)
        curl_slist_free_all(withBody)
        curl_slist_free_all(proxy)
    }

    /// The list for a transfer.
    func list(hasBody: Bool) -> UnsafeMutablePointer<curl_slist>? {
        hasBody ? (withBody ?? plain) : plain
    }

    /// A new list for a transfer with headers of its own: the run's lines, less those the task's replace by name,
    /// then the task's. The caller frees it (curl_slist_free_all) when the transfer ends.
    func list(hasBody: Bool, adding own: [HeaderField]) throws(ProbeError) -> UnsafeMutablePointer<curl_slist>? {
        let replaced = Set(own.map { $0.name.lowercased() })
        let kept = (hasBody ? bodyLines : plainLines).filter { line in
            let name = line.prefix { $0 != ":" }.lowercased()
            return !replaced.contains(name)
        }
        return try Self.list(kept + own.map { "\($0.name): \($0.value)" })
    }

    /// A list of the lines, nil when there are none.
    private static func list(_ lines: [String]) throws(ProbeError) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let longer = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw ProbeError.engine("curl_slist_append failed (out of memory)")
            }
            list = longer
        }
        return list
    }
}
