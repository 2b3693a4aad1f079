/// A `--listen` value: `HOST:PORT`, `[IPv6]:PORT`, `:PORT` or `PORT` (host 127.0.0.1).
package struct ListenAddress: Equatable, Sendable {
    package var host: String
    package var port: Int

    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses the text; nil when the port is not 0...65535 or the brackets do not match.
    package static func parse(_ text: String) -> ListenAddress? {
        var host = "127.0.0.1"
        var portText = Substring(text)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            if colon != text.startIndex { host = String(text[..<colon]) }
            guard !host.contains(":") else { return nil }
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = ByteRangeRequest.digits(portText), port <= 65535 else { return nil }
        return ListenAddress(host: host, port: Int(port))
    }
}
