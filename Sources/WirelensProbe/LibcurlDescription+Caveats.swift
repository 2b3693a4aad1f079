import WirelensCore
import WirelensCurl

/// The facts a libcurl version cannot give and the faults the engine works around, said in each report as caveats.
extension LibcurlDescription {
    /// The caveats that follow from the libcurl in use and the run's options.
    ///
    /// - Parameter protocolsUsed: the protocol names the run's transactions used, once known; the HTTP/2 caveat is
    ///   then given only when "h2" is among them.
    package func caveats(options: ProbeOptions, hasUploads: Bool, protocolsUsed: Set<String>? = nil) -> [Caveat] {
        let libcurl = self
        var list: [Caveat] = []
        let v = libcurl.versionTriple ?? (0, 0, 0)
        func older(_ major: Int, _ minor: Int) -> Bool { (v.0, v.1) < (major, minor) }
        if older(8, 6) {
            list.append(Caveat(id: "queue-time", text: "libcurl \(libcurl.version) has no CURLINFO_QUEUE_TIME_T: "
                + "queue wait is measured by Wirelens from the moment a transfer is added to the moment libcurl "
                + "starts it (for a new connection, its first socket less NAMELOOKUP; otherwise "
                + "CURLOPT_PREREQFUNCTION less PRETRANSFER)."))
        }
        if older(8, 3), hasUploads {
            list.append(Caveat(id: "starttransfer-upload", text: "libcurl \(libcurl.version) stamps STARTTRANSFER "
                + "at the first upload byte; responseStart comes from Wirelens' own clock (first response header)."))
        }
        if older(8, 10) {
            list.append(Caveat(id: "request-end", text: "libcurl \(libcurl.version) has no POSTTRANSFER time: "
                + "requestEnd is the moment the last request byte was written (libcurl's debug callback)."))
        }
        if older(8, 2) {
            list.append(Caveat(id: "connection-id", text: "libcurl \(libcurl.version) has no CURLINFO_CONN_ID: "
                + "connectionId is the number in libcurl's debug text, unique within this run only."))
        }
        if older(8, 7), options.proxy != nil {
            list.append(Caveat(id: "used-proxy", text: "libcurl \(libcurl.version) has no CURLINFO_USED_PROXY: "
                + "proxyConnection follows the configuration, not what libcurl did."))
        }
        if options.httpVersion == .http2PriorKnowledge, options.reuseConnections, libcurl.h2cReuseBroken {
            list.append(Caveat(id: "h2c-joins", text: "libcurl \(libcurl.version) fails a prior-knowledge transfer "
                + "that lands on an open h2c connection (\"Error in the HTTP2 framing layer\", fixed in curl 8.0.0): "
                + "the first transfer to an origin opens its connection with prior knowledge, and the others join "
                + "that connection as HTTP/2 without it (CURL_HTTP_VERSION_2_0), as curl's --http2-prior-knowledge "
                + "URL --next --http2 URL does."))
        }
        if !hasUploads, protocolsUsed?.isEmpty != true {
            list.append(Caveat(id: "send-overhead", text: "For a request without a body the send phase is libcurl's "
                + "own work, not time on the wire: it runs from the moment libcurl had the connection "
                + "(CURLOPT_PREREQFUNCTION) to its last write of the request head, and holds libcurl building the "
                + "request (on HTTP/2 also the stream and its header compression), its verbose text for Wirelens "
                + "and the write itself. The head leaves in one write: its first and last byte are on the wire at "
                + "once."))
        }
        if hasUploads {
            list.append(Caveat(id: "send-buffer", text: "For a request body, the send phase ends when its last byte "
                + "reached the server, as estimated from the kernel's TCP facts (TCP_INFO, looked at every 2 ms near the end), not "
                + "when libcurl wrote it to the socket nor when the server's TCP acknowledged it: bytes waiting in the "
                + "send buffer or a slow path's queue count as send, a delayed ACK does not. Bytes that reached the "
                + "server but were not yet read by it count as server wait."))
        }
        if options.httpVersion != .http1_1 && options.multiplex && options.reuseConnections
            && (protocolsUsed?.contains("h2") ?? true) {
            list.append(Caveat(id: "h2-phases", text: "On a multiplexed HTTP/2 connection the streams share one "
                + "TCP connection; per-stream send and receive phases overlap and do not add up to wall time."))
        }
        return list
    }
}
