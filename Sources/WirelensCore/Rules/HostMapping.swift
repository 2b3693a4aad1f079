/// Checks the host mappings curl takes on its command line: `--resolve HOST:PORT:ADDR[,ADDR…]` and
/// `--connect-to HOST:PORT:CONNECT-HOST:CONNECT-PORT`, so that a bad one is refused before libcurl (which only warns
/// in its verbose text and resolves the name as usual) sees it.
package enum HostMapping {
    /// A `--resolve` entry that `resolveProblem` finds nothing wrong with, as written (libcurl takes it so).
    package struct Resolve: TextParsable, Equatable {
        package let entry: String

        package init(parsing entry: String) throws(ValueRefusal) {
            if let problem = HostMapping.resolveProblem(entry) { throw ValueRefusal(problem) }
            self.entry = entry
        }
    }

    /// A `--connect-to` entry that `connectToProblem` finds nothing wrong with, as written (libcurl takes it so).
    package struct ConnectTo: TextParsable, Equatable {
        package let entry: String

        package init(parsing entry: String) throws(ValueRefusal) {
            if let problem = HostMapping.connectToProblem(entry) { throw ValueRefusal(problem) }
            self.entry = entry
        }
    }

    /// Why `--resolve` refuses `entry`, or nil when it is `HOST:PORT:ADDR[,ADDR…]` with a port from 1 to 65535 and
    /// IP addresses (IPv6 with or without brackets). A leading `+` (curl's "add, time out later") is taken too.
    package static func resolveProblem(_ entry: String) -> String? {
        let text = entry.hasPrefix("+") ? String(entry.dropFirst()) : entry
        let fields = split(text, limit: 3)
        guard fields.count == 3, !fields[0].isEmpty else {
            return "'\(entry)' is not HOST:PORT:ADDRESS; write e.g. example.com:443:127.0.0.1"
        }
        guard isPort(fields[1]) else { return "'\(entry)': the port must be a number from 1 to 65535" }
        let addresses = fields[2].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        for address in addresses where !isIPAddress(address) {
            return "'\(entry)': '\(address)' is not an IP address; give e.g. 127.0.0.1 or [::1]"
        }
        return nil
    }

    /// Why `--connect-to` refuses `entry`, or nil when it is `HOST:PORT:CONNECT-HOST:CONNECT-PORT` (each part may be
    /// empty, as in curl: any host, any port, the same host, the same port) with ports from 1 to 65535.
    package static func connectToProblem(_ entry: String) -> String? {
        let fields = split(entry, limit: 4)
        guard fields.count == 4 else {
            return "'\(entry)' is not HOST:PORT:CONNECT-HOST:CONNECT-PORT; write e.g. example.com:443:127.0.0.1:8443"
        }
        for port in [fields[1], fields[3]] where !port.isEmpty && !isPort(port) {
            return "'\(entry)': the port '\(port)' must be a number from 1 to 65535"
        }
        return nil
    }

    /// The text split at colons into at most `limit` fields; a `[…]` (an IPv6 address) is one field whatever its
    /// colons, and the last field takes the rest.
    static func split(_ text: String, limit: Int) -> [String] {
        var fields: [String] = []
        var current = ""
        var bracketed = false
        for character in text {
            if fields.count == limit - 1 {
                current.append(character)
                continue
            }
            switch character {
            case "[": bracketed = true; current.append(character)
            case "]": bracketed = false; current.append(character)
            case ":" where !bracketed: fields.append(current); current = ""
            default: current.append(character)
            }
        }
        fields.append(current)
        return fields
    }

    /// True for a decimal port from 1 to 65535.
    static func isPort(_ text: String) -> Bool {
        guard !text.isEmpty, text.count <= 5, text.allSatisfy(\.isASCII), let port = Int(text) else { return false }
        return (1...65535).contains(port)
    }

    /// True for a dotted IPv4 address or an IPv6 address (bracketed or not, `::` at most once).
    static func isIPAddress(_ text: String) -> Bool {
        var address = Substring(text)
        if address.hasPrefix("["), address.hasSuffix("]") { address = address.dropFirst().dropLast() }
        if !address.contains(":") {
            let parts = address.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count == 4 && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && Int(part).map { $0 <= 255 } == true
            }
        }
        let compressions = address.components(separatedBy: "::").count - 1
        guard compressions <= 1 else { return false }
        var groups = address.split(separator: ":", omittingEmptySubsequences: true)
        // An embedded IPv4 tail (::ffff:1.2.3.4) counts as two groups.
        var count = groups.count
        if let last = groups.last, last.contains(".") {
            guard isIPAddress(String(last)) else { return false }
            groups.removeLast()
            count += 1
        }
        guard groups.allSatisfy({ $0.count <= 4 && $0.allSatisfy(\.isHexDigit) }) else { return false }
        return compressions == 1 ? count <= 7 : count == 8
    }
}
