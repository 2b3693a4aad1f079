import WirelensCore

/// The request headers every transfer of a task profile sends, built once as libcurl lists.
///
/// libcurl reads a CURLOPT_HTTPHEADER list while the transfer runs and never copies it, so the lists live as long as
/// the profile. Each list comes in two sets: with the user's secret headers, and without them for redirect hops to
/// another origin; which lines each holds is decided by the layer above.
package final class RequestHeaderLists {
    /// For a proxy's CONNECT: the User-Agent alone (the other headers, credentials above all, are for the server).
    let proxy: CurlHeaderList?
    /// The lists by [keepsCredentials ? 1 : 0][hasBody ? 1 : 0]; a body list is nil when it would equal the plain one.
    private let lists: [[CurlHeaderList?]]
    /// The lines of each list, same order, for transfers that add headers of their own.
    private let lines: [[[String]]]
    /// The run's `--resolve` entries (CURLOPT_RESOLVE) and `--connect-to` entries (CURLOPT_CONNECT_TO), kept as long
    /// as the header lists for the same reason: libcurl reads them when each transfer starts.
    let resolve: CurlHeaderList?
    let connectTo: CurlHeaderList?
    /// The User-Agent to set as CURLOPT_USERAGENT instead of a header line (libcurl then leaves it out of the headers
    /// it signs); nil when the lines carry it.
    let userAgentOption: String?

    /// The lists for these lines, which the engine has checked already (`RequestTextCheck`).
    ///
    /// - Parameters:
    ///   - plain: the header lines of a transfer without credentials, then with them.
    ///   - bodyLines: lines a transfer with a body adds to either (`Expect:` to turn 100-continue off), or none.
    ///   - proxyLines: the lines of a proxy's CONNECT (CURLOPT_PROXYHEADER).
    ///   - resolve: CURLOPT_RESOLVE's entries; `connectTo`: CURLOPT_CONNECT_TO's.
    ///   - userAgentOption: a User-Agent to set as CURLOPT_USERAGENT rather than as a line.
    package init(plain: (withoutCredentials: [String], withCredentials: [String]), bodyLines: [String],
                proxyLines: [String], resolve: [String], connectTo: [String], userAgentOption: String?)
        throws(CurlError) {
        self.userAgentOption = userAgentOption
        let lines = [plain.withoutCredentials, plain.withCredentials].map { [$0, $0 + bodyLines] }
        self.lines = lines
        var made: [[CurlHeaderList?]] = []
        for set in lines {
            made.append([try CurlHeaderList(set[0]), bodyLines.isEmpty ? nil : try CurlHeaderList(set[1])])
        }
        lists = made
        proxy = try CurlHeaderList(proxyLines)
        self.resolve = try CurlHeaderList(resolve)
        self.connectTo = try CurlHeaderList(connectTo)
    }

    /// The list for a transfer.
    func list(hasBody: Bool, keepsCredentials: Bool) -> CurlHeaderList? {
        let set = lists[keepsCredentials ? 1 : 0]
        return hasBody ? (set[1] ?? set[0]) : set[0]
    }

    /// A new list for a transfer with headers of its own: the profile's lines, less those the transfer's replace by
    /// name, then the transfer's. The caller keeps it until the transfer ends.
    func list(hasBody: Bool, keepsCredentials: Bool, adding own: [HeaderField]) throws(CurlError) -> CurlHeaderList? {
        let replaced = Set(own.map { $0.name.lowercased() })
        let kept = lines[keepsCredentials ? 1 : 0][hasBody ? 1 : 0].filter { line in
            let name = line.prefix { $0 != ":" }.lowercased()
            return !replaced.contains(name)
        }
        return try CurlHeaderList(kept + own.map { "\($0.name): \($0.value)" })
    }
}
