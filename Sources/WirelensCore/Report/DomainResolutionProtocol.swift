/// How a transaction's host name was resolved, after Apple's `domainResolutionProtocol`.
public enum DomainResolutionProtocol: String, Sendable, Codable, Equatable {
    /// The system resolver (glibc's getaddrinfo through libcurl's resolver thread): DNS over UDP.
    case udp
    /// The system resolver with `options use-vc` in /etc/resolv.conf (or `RES_OPTIONS`): DNS over TCP.
    case tcp
    /// DNS over HTTPS (`--doh-url`, RFC 8484).
    case https

    /// The protocol of a transaction's name resolution, or nil when no resolver ran for it: a reused connection, a
    /// host that is an IP literal, a name libcurl answers itself (`localhost`, `*.localhost`), a `--resolve` entry for
    /// the host and port. Otherwise DoH when the run has a DoH URL, else the system resolver's (`systemResolver`). A
    /// name found in libcurl's DNS cache keeps the protocol of the lookup that filled it, which is the same resolver.
    public static func of(host: String, port: Int, hostIsIPLiteral: Bool, reusedConnection: Bool,
                          resolveEntries: [String], usesDoH: Bool,
                          systemResolver: DomainResolutionProtocol) -> DomainResolutionProtocol? {
        if reusedConnection || hostIsIPLiteral { return nil }
        let name = host.lowercased()
        if name == "localhost" || name.hasSuffix(".localhost") { return nil }
        if resolveEntries.contains(where: { Self.entry($0, matches: name, port: port) }) { return nil }
        return usesDoH ? .https : systemResolver
    }

    /// True when a `--resolve` entry (`[+]HOST:PORT:ADDR…`, `HOST` `*` for any) stands for this host and port.
    private static func entry(_ entry: String, matches host: String, port: Int) -> Bool {
        var text = Substring(entry)
        if text.hasPrefix("+") { text = text.dropFirst() }
        if text.hasPrefix("-") { return false }  // a removal: the name is resolved as usual
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, Int(parts[1]) == port else { return false }
        let name = parts[0].lowercased()
        return name == "*" || name == host
    }

    /// The system resolver's transport as resolv.conf's text (`options use-vc`) and `RES_OPTIONS` tell it.
    public static func systemResolver(resolvConf: String?, resOptions: String?) -> DomainResolutionProtocol {
        func usesVC(_ options: some StringProtocol) -> Bool {
            options.split(whereSeparator: { $0 == " " || $0 == "\t" }).contains { $0 == "use-vc" }
        }
        if let resOptions, usesVC(resOptions) { return .tcp }
        for line in (resolvConf ?? "").split(separator: "\n") {
            let words = line.split(maxSplits: 1, whereSeparator: { $0 == " " || $0 == "\t" })
            if words.count == 2, words[0] == "options", usesVC(words[1]) { return .tcp }
        }
        return .udp
    }
}
