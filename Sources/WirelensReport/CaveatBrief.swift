import WirelensCore

/// The one-line form of a caveat for a text report, given only where the caveat changes how a number on the screen
/// reads; the full texts stay in the JSON and come with `--caveats`.
enum CaveatBrief {
    /// The queue wait, in milliseconds, from which Wirelens' own measure of it is worth a word.
    static let noticeableMillis = 1.0

    /// The caveat's line for this report, or nil when nothing on the screen depends on it.
    static func line(for caveat: Caveat, in report: Report) -> String? {
        let phases = report.summary.phases
        switch caveat.id {
        case "queue-time":
            guard let queue = phases["queue"], queue.max >= noticeableMillis else { return nil }
            return "Queue wait is Wirelens' own measure: libcurl \(report.libcurl.version) has no queue timer."
        case "send-buffer":
            return "Request sent ends when the last body byte reached the server (TCP_INFO)."
        case "send-overhead":
            guard report.summary.requestBodyBytes == 0, let send = phases["send"], send.max >= noticeableMillis
            else { return nil }
            return "Request sent without a body is libcurl's own work, not time on the wire."
        case "used-proxy":
            return "Proxy use follows the configuration: libcurl \(report.libcurl.version) cannot report it."
        case "h2c-joins":
            return "Prior knowledge went to each origin's first transfer; the rest joined as h2."
        case "h2-phases":
            return "HTTP/2 streams shared a connection: their send and receive phases overlap."
        case "starttransfer-upload", "request-end", "connection-id":
            // What Wirelens measures instead is what the screen shows; only a comparison with libcurl's own
            // timers or ids needs these.
            return nil
        default:
            // A caveat this table does not know (a capture's, a newer one) is about this run: shown in full.
            return caveat.text
        }
    }
}
