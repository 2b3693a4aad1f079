import ArgumentParser
import WirelensCore
import WirelensCurl

/// The connection reuse, per-host limit and HTTP version flags (named as curl's): the ones `compare` sets itself
/// per mode and limit, so it declares them hidden and refuses them with a pointer to --modes and --limits.
struct ProtocolFlags: ParsableArguments {
    @Option(name: .customLong("max-host-connections"), help: "Connections per host at most (0: unlimited).")
    var maxHostConnections = 0

    @Flag(name: .customLong("no-reuse"), help: "A fresh connection for every transaction (no keep-alive reuse).")
    var noReuse = false

    @Flag(name: .customLong("http1.1"), help: "Use HTTP/1.1 only.")
    var http11 = false

    @Flag(name: .customLong("http2"), help: "Use HTTP/2 over TLS (ALPN), HTTP/1.1 over clear text.")
    var http2 = false

    @Flag(name: .customLong("http2-prior-knowledge"), help: "Use HTTP/2 over clear text without upgrade (h2c).")
    var http2PriorKnowledge = false

    @Flag(name: .customLong("http3"),
          help: "Use HTTP/3 over QUIC, falling back to HTTP/2 or HTTP/1.1, as curl's (needs a libcurl with HTTP/3).")
    var http3 = false

    @Flag(name: .customLong("http3-only"), help: "Use HTTP/3 over QUIC only, as curl's (needs a libcurl with HTTP/3).")
    var http3Only = false

    /// True when a protocol or reuse flag was given (--max-host-connections aside).
    var choosesProtocol: Bool { http11 || http2 || http2PriorKnowledge || http3 || http3Only || noReuse }

    /// Sets the per-host limit, the HTTP version and reuse in `options`; bad values are usage errors.
    func apply(to options: inout ProbeOptions) throws(UsageError) {
        guard maxHostConnections >= 0 else { throw UsageError("--max-host-connections must be 0 (unlimited) or more") }
        let versions = [http11, http2, http2PriorKnowledge, http3, http3Only].filter { $0 }.count
        guard versions <= 1 else {
            throw UsageError("give only one of --http1.1, --http2, --http2-prior-knowledge, --http3, --http3-only")
        }
        if http3 || http3Only, !Libcurl.description.http3 {
            throw UsageError("\(http3 ? "--http3" : "--http3-only"): the running libcurl \(Libcurl.description.version) has no HTTP/3 "
                             + "(its features list no HTTP3); use --http2 or --http1.1")
        }
        options.maxHostConnections = maxHostConnections > 0 ? maxHostConnections : nil
        options.httpVersion = http11 ? .http1_1 : http2 ? .http2 : http2PriorKnowledge ? .http2PriorKnowledge
            : http3 ? .http3 : http3Only ? .http3Only : .auto
        options.reuseConnections = !noReuse
    }
}
