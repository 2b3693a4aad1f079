import WirelensCore

/// The request headers every transfer of a run sends, built once as libcurl lists.
///
/// libcurl reads a CURLOPT_HTTPHEADER list while the transfer runs and never copies it, so the lists live
/// as long as the engine. The User-Agent is one of the headers rather than CURLOPT_USERAGENT, which libcurl
/// would copy and format again for every request; a `-H "User-Agent: …"` of the user's replaces it.
/// Each list comes in two sets: with the user's secret headers, and without them for redirect hops to another
/// origin (`RedirectPolicy.keepsCredentials`).
public final class RequestHeaderLists {
    /// For a proxy's CONNECT: the User-Agent alone (the other headers, credentials above all, are for the server).
    let proxy: CurlHeaderList?
    /// The lists by [keepsCredentials ? 1 : 0][hasBody ? 1 : 0]; the body lists also turn `Expect: 100-continue`
    /// off when the run asks so (nil when they would equal the plain ones).
    private let lists: [[CurlHeaderList?]]
    /// The lines of each list, same order, for transfers that add headers of their own.
    private let lines: [[[String]]]
    /// The run's `--resolve` entries (CURLOPT_RESOLVE) and `--connect-to` entries (CURLOPT_CONNECT_TO), kept as long
    /// as the header lists for the same reason: libcurl reads them when each transfer starts.
    let resolve: CurlHeaderList?
    let connectTo: CurlHeaderList?
    /// The User-Agent to set as CURLOPT_USERAGENT instead of a header line: in a signed run (`ProbeOptions.sigV4`)
    /// libcurl then leaves it out of the signed headers, as curl does, which signers that never sign it need
    /// (botocore's, so moto's, refuses a request that did). Nil when the lines carry it.
    let userAgentOption: String?

    /// The lists for the run's headers; the engine has checked their text (`RequestTextCheck`) already.
    public init(options: ProbeOptions) throws(CurlError) {
        let usersAgent = options.headers.last(where: { $0.name.lowercased() == "user-agent" })?.value
        let userAgent = usersAgent ?? options.userAgent
        userAgentOption = usersAgent == nil && options.sigV4 != nil ? userAgent : nil
        var lines: [[[String]]] = []
        for keepsCredentials in [false, true] {
            var plain = RedirectPolicy.headers(options.headers, keepsCredentials: keepsCredentials)
                .map { "\($0.name): \($0.value)" }
            if usersAgent == nil, userAgentOption == nil { plain.append("User-Agent: \(userAgent)") }
            lines.append([plain, options.expectContinue ? plain : plain + ["Expect:"]])
        }
        self.lines = lines
        var made: [CurlHeaderList?] = []
        for set in lines {
            made.append(try CurlHeaderList(set[0]))
            made.append(options.expectContinue ? nil : try CurlHeaderList(set[1]))
        }
        made.append(try CurlHeaderList(["User-Agent: \(userAgent)"]))
        lists = [[made[0], made[1]], [made[2], made[3]]]
        proxy = made[4]
        resolve = try CurlHeaderList(options.resolve)
        connectTo = try CurlHeaderList(options.connectTo)
    }

    /// The list for a transfer.
    func list(hasBody: Bool, keepsCredentials: Bool) -> CurlHeaderList? {
        let set = lists[keepsCredentials ? 1 : 0]
        return hasBody ? (set[1] ?? set[0]) : set[0]
    }

    /// A new list for a transfer with headers of its own: the run's lines, less those the task's replace by name,
    /// then the task's. The caller keeps it until the transfer ends.
    func list(hasBody: Bool, keepsCredentials: Bool, adding added: [HeaderField]) throws(CurlError) -> CurlHeaderList? {
        let own = RedirectPolicy.headers(added, keepsCredentials: keepsCredentials)
        let replaced = Set(own.map { $0.name.lowercased() })
        let kept = lines[keepsCredentials ? 1 : 0][hasBody ? 1 : 0].filter { line in
            let name = line.prefix { $0 != ":" }.lowercased()
            return !replaced.contains(name)
        }
        return try CurlHeaderList(kept + own.map { "\($0.name): \($0.value)" })
    }
}
