/// One fact about a transfer's connection, or the name resolution before it, that libcurl tells.
package enum ConnectionFact: Equatable, Sendable {
    /// A new connection got number N (libcurl says so right after the TCP handshake, before TLS).
    case connected(id: Int)
    /// An existing connection N was taken from the pool.
    case reused(id: Int)
    /// The TLS version and cipher of the connection.
    case tls(version: String, cipher: String?)
    /// The protocol the server accepted by ALPN.
    case alpn(String)
    /// libcurl gave up on the request before any response byte and resends it on a fresh connection: the reused
    /// connection it went out on died (the server had closed or reset it: "Connection died, retrying a fresh connect
    /// (retry count: N)"), or the server refused its HTTP/2 stream (`refusedStream`: "REFUSED_STREAM, retrying a
    /// fresh connect"; the connection stays open).
    case retryingFreshConnect(refusedStream: Bool)
    /// One of the DNS-over-HTTPS requests made for the transfer's name ended ("a DoH request is completed, N to go").
    case dohRequestCompleted
    /// A DNS-over-HTTPS request failed, with libcurl's reason ("DoH request SSL peer certificate … was not OK").
    case dohRequestFailed(String)
}

/// Where the facts of a transfer's connection come from: the one seam between libcurl's way of telling them and
/// the engine, which only hears `ConnectionFact`s (`TransferObserver.onConnectionFact`).
///
/// libcurl 7.88 tells the connection number, TLS version, cipher and ALPN only in its verbose text
/// (`VerboseTextFacts`). A newer libcurl names the connection through `CURLINFO_CONN_ID` (8.2): a source for it
/// answers `factsWhenReady` from curl_easy_getinfo and ignores the text, and nothing above this layer changes.
protocol ConnectionFactsSource: Sendable {
    /// The fact in one line of libcurl's informational text (CURLINFO_TEXT), if any.
    func fact(inText bytes: UnsafeBufferPointer<UInt8>) -> ConnectionFact?
    /// Facts libcurl gives through curl_easy_getinfo once the connection is ready for the request
    /// (CURLOPT_PREREQFUNCTION time).
    func factsWhenReady(_ easy: CurlEasy) -> [ConnectionFact]
}

/// The 7.88 source: scrapes libcurl's verbose text with `DebugText`.
struct VerboseTextFacts: ConnectionFactsSource {
    func fact(inText bytes: UnsafeBufferPointer<UInt8>) -> ConnectionFact? {
        DebugText.parse(bytes: bytes)
    }

    func factsWhenReady(_ easy: CurlEasy) -> [ConnectionFact] { [] }
}
