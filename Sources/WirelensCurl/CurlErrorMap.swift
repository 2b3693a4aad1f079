import WirelensCore

/// Maps libcurl's CURLcode values to Wirelens' error classes.
package enum CurlErrorMap {
    /// The class of a failed transfer's CURLcode; `connected` tells whether a connection was ready when it failed,
    /// `message` is libcurl's error text (it tells a server's broken reply from a broken connection).
    package static func classify(code: Int, connected: Bool, message: String) -> ErrorClass {
        switch code {
        case 5: .proxy                       // COULDNT_RESOLVE_PROXY
        case 6: .dns                         // COULDNT_RESOLVE_HOST
        case 7, 45: .connect                 // COULDNT_CONNECT, INTERFACE_FAILED (--interface: cannot bind)
        case 8, 16, 92, 47, 1, 3: .protocol  // WEIRD_SERVER_REPLY, HTTP2, HTTP2_STREAM, TOO_MANY_REDIRECTS, …
        case 100: .protocol                  // TOO_LARGE (libcurl 8.6+: response headers over the limit)
        case 56 where isBrokenReply(message): .protocol
        case 18, 52, 55, 56: .network        // PARTIAL_FILE, GOT_NOTHING, SEND_ERROR, RECV_ERROR
        case 23, 26: .file                   // WRITE_ERROR, READ_ERROR (local file)
        case 77: .file                       // SSL_CACERT_BADFILE
        case 28: connected ? .totalTimeout : .connectTimeout
        case 35, 58, 59, 60, 64, 66, 80, 83, 90, 91, 98: .tls
        case 42: .cancelled                  // ABORTED_BY_CALLBACK
        case 97: .proxy                      // PROXY
        default: .other
        }
    }

    /// True when a RECV_ERROR's text says the server's bytes broke HTTP rather than the connection broke:
    /// libcurl 7.88 reports a bad chunk size ("Illegal or missing hexadecimal sequence in chunked-encoding") and
    /// response headers over its 300 kB limit ("Too large response headers: N > 307200") as RECV_ERROR, like a
    /// reset; later versions say "chunk hex-length …" and "Too many response headers".
    static func isBrokenReply(_ message: String) -> Bool {
        let lower = message.lowercased()
        return lower.contains("chunk") || lower.contains("response header")
    }
}
