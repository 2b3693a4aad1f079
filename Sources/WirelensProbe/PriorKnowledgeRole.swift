/// How a transfer takes part in an h2c prior-knowledge connection on libcurl before 8.0.
///
/// libcurl 7.88 fails a prior-knowledge transfer that lands on an existing connection, because it switches the
/// connection to HTTP/2 a second time ("Error in the HTTP2 framing layer", curl PR #10643); a transfer asking for plain
/// HTTP/2 (CURL_HTTP_VERSION_2_0) joins the same connection without that switch, as curl's own
/// `--http2-prior-knowledge URL --next --http2 URL` does.
enum PriorKnowledgeRole: Sendable {
    /// Prior knowledge on a new connection (CURLOPT_FRESH_CONNECT), which stays open for the joiners.
    case opens
    /// CURL_HTTP_VERSION_2_0 on the origin's open connection; the transfer fails before any packet when libcurl
    /// would have to open a connection for it (`CurlEasy.refusedNewConnection`), to be started again as `opens`.
    case joins
}
