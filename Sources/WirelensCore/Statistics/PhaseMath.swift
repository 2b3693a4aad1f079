/// Turns the engine's raw observations and libcurl's cumulative timers into a timeline and phase durations.
///
/// libcurl 7.88's timers count from the moment the transfer leaves its pending queue, and leave a phase
/// that did not happen at 0 or at the previous phase's value. The queue wait, the end of the request and
/// the start of the response come from the engine's own clock instead (see docs/architecture.md).
package enum PhaseMath {
    /// The timeline and phases of one transaction.
    package struct Result: Sendable, Equatable {
        package var timeline: Timeline
        package var phases: Phases
    }

    /// Computes the timeline (wall-clock µs) and the phases (µs) of one transaction.
    ///
    /// Each instant is anchored to what the engine observed, so that it keeps the order of the packets: a new
    /// connection's timers count from its first socket (made right after the name was resolved, before the SYN),
    /// its connect phase ends no earlier than libcurl said it was connected (after the SYN/ACK), and its set-up ends
    /// no later than PREREQFUNCTION (before the first request byte).
    package static func compute(_ raw: RawTimings, anchor: ClockAnchor) -> Result {
        let c = raw.curl
        // The instant libcurl started its own timers. For a new connection whose socket was seen: the socket was
        // made as NAMELOOKUP was stamped. Otherwise derived from the moment the connection was ready
        // (PREREQFUNCTION runs after PRETRANSFER is stamped, late by libcurl's request set-up on HTTP/2), or, for
        // a transfer that failed before that, from its end and libcurl's total.
        let curlStartNs: Int64
        if !raw.reusedConnection, let socket = raw.socketOpened {
            curlStartNs = socket - c.nameLookup * 1000
        } else if let ready = raw.connectionReady {
            curlStartNs = ready - c.preTransfer * 1000
        } else {
            curlStartNs = raw.end - c.total * 1000
        }
        let t0 = max(raw.fetchStart, min(curlStartNs, raw.end))
        // No set-up instant after the connection was ready (or the transfer ended).
        let setupLimit = min(raw.connectionReady ?? raw.end, raw.end)
        func at(_ offsetMicros: Int64) -> Int64 { min(t0 + offsetMicros * 1000, setupLimit) }

        var ns = NanoTimeline(fetchStart: raw.fetchStart)
        var setupEnd = t0
        if !raw.reusedConnection {
            // Name resolution: skipped for an IP literal; finished when libcurl stamped NAMELOOKUP.
            if !raw.hostIsIPLiteral, c.nameLookup > 0 {
                ns.domainLookupStart = t0
                ns.domainLookupEnd = at(c.nameLookup)
                setupEnd = ns.domainLookupEnd!
            } else if !raw.hostIsIPLiteral, raw.connectionReady == nil {
                // Failed while resolving: the lookup started and never ended.
                ns.domainLookupStart = t0
            }
            let tcpDone = c.connect > 0 && c.connect >= c.nameLookup
            if tcpDone || (raw.connectionReady == nil && (raw.hostIsIPLiteral || c.nameLookup > 0)) {
                ns.connectStart = setupEnd
                if tcpDone {
                    // Not before libcurl said it was connected (nor after the connection was ready).
                    let observed = raw.connected.map { min($0, setupLimit) } ?? setupEnd
                    ns.connectEnd = max(setupEnd, at(c.connect), observed)
                    setupEnd = ns.connectEnd!
                }
            }
            if tcpDone, c.appConnect > 0 {
                ns.secureStart = setupEnd
                ns.secureEnd = max(setupEnd, at(c.appConnect))
                setupEnd = ns.secureEnd!
            } else if tcpDone, raw.usesTLS, raw.connectionReady == nil {
                // Failed during the TLS handshake: it started and never finished.
                ns.secureStart = setupEnd
            }
        }
        if let ready = raw.connectionReady {
            let requestStart = max(ready, setupEnd)
            ns.requestStart = requestStart
            let requestEnd = max(requestStart, min(raw.requestEnd ?? requestStart, raw.end))
            ns.requestEnd = requestEnd
            if let first = raw.responseStart {
                let responseStart = max(requestEnd, min(first, raw.end))
                ns.responseStart = responseStart
                ns.responseEnd = raw.end
            }
        }

        var timeline = Timeline(fetchStart: anchor.wallMicros(ofMonotonic: ns.fetchStart))
        let wall = { (v: Int64?) in v.map { anchor.wallMicros(ofMonotonic: $0) } }
        timeline.domainLookupStart = wall(ns.domainLookupStart)
        timeline.domainLookupEnd = wall(ns.domainLookupEnd)
        timeline.connectStart = wall(ns.connectStart)
        timeline.connectEnd = wall(ns.connectEnd)
        timeline.secureConnectionStart = wall(ns.secureStart)
        timeline.secureConnectionEnd = wall(ns.secureEnd)
        timeline.requestStart = wall(ns.requestStart)
        timeline.requestEnd = wall(ns.requestEnd)
        timeline.responseStart = wall(ns.responseStart)
        timeline.responseEnd = wall(ns.responseEnd)

        func span(_ a: Int64?, _ b: Int64?) -> Int64? {
            guard let a, let b else { return nil }
            return (b - a) / 1000
        }
        var phases = Phases(total: (raw.end - raw.fetchStart) / 1000)
        phases.queue = (t0 - raw.fetchStart) / 1000
        phases.dns = span(ns.domainLookupStart, ns.domainLookupEnd)
        phases.connect = span(ns.connectStart, ns.connectEnd)
        phases.tls = span(ns.secureStart, ns.secureEnd)
        phases.send = span(ns.requestStart, ns.requestEnd)
        phases.wait = span(ns.requestEnd, ns.responseStart)
        phases.receive = span(ns.responseStart, ns.responseEnd)
        return Result(timeline: timeline, phases: phases)
    }

    private struct NanoTimeline {
        var fetchStart: Int64
        var domainLookupStart: Int64?
        var domainLookupEnd: Int64?
        var connectStart: Int64?
        var connectEnd: Int64?
        var secureStart: Int64?
        var secureEnd: Int64?
        var requestStart: Int64?
        var requestEnd: Int64?
        var responseStart: Int64?
        var responseEnd: Int64?
    }
}
