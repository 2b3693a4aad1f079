import WirelensCore

/// The limit `wirelens compare` recommends for one mode: the smallest limit within 5% of the best throughput,
/// with the regime the numbers show and a sentence saying why. Configurations with failed tasks are never
/// recommended; when every configuration of the mode had failures, there is no limit and the sentence says what
/// failed.
public struct CompareRecommendation: Sendable, Equatable, Codable {
    public var mode: CompareMode
    /// The recommended limit; nil when every configuration of the mode had failed tasks.
    public var limit: CompareLimit?
    public var throughput: Double
    /// The limit with the best throughput, and that throughput (among configurations without failed tasks).
    public var bestLimit: CompareLimit?
    public var bestThroughput: Double
    /// "bandwidth-bound" (each connection is capped: parallelism helps about linearly), "saturating"
    /// (parallelism helps, less than linearly), or when more connections do not help, by the smallest limit's
    /// leading verdict: "network-bound" (the path was busy), "client-bound" or "server-bound", and without a kernel
    /// verdict by the phases (more time in send than in wait: "network-bound"); "failed" when every configuration had
    /// failed tasks.
    public var regime: String
    public var reason: String

    /// A limit within this fraction of the best throughput counts as as good as the best.
    public static let tolerance = 0.05
    /// Gains above this fraction of linear (against the smallest limit) count as near-linear.
    public static let linearShare = 0.7

    /// The recommendation over one mode's results, nil when there are none. Configurations with failed tasks are
    /// left out (the sentence names them); when that leaves none, the recommendation has no limit and says what
    /// failed first.
    public static func make(_ results: [CompareResult]) -> CompareRecommendation? {
        let failed = results.filter { $0.failure != nil }.sorted { $0.limit.value < $1.limit.value }
        let clauses = failed.compactMap { r in r.failure.map { "\(r.limit.value) (\($0.description))" } }
        guard var rec = measured(results.filter { $0.failure == nil }) else {
            guard let first = failed.first, let failure = first.failure else { return nil }
            return CompareRecommendation(
                mode: first.mode, limit: nil, throughput: 0, bestLimit: nil, bestThroughput: 0, regime: "failed",
                reason: "no limit recommended: every configuration failed, the first at "
                    + "\(things(first.limit.value, first.mode)): \(failure.description)")
        }
        if !clauses.isEmpty { rec.reason += "; left out for failed tasks: " + clauses.joined(separator: ", ") }
        return rec
    }

    /// The recommendation over one mode's results whose tasks all succeeded, nil when there are none.
    static func measured(_ results: [CompareResult]) -> CompareRecommendation? {
        let sorted = results.sorted { $0.limit.value < $1.limit.value }
        guard let best = sorted.max(by: { $0.throughput < $1.throughput }), let base = sorted.first,
              let largest = sorted.last,
              let pick = sorted.first(where: { $0.throughput >= best.throughput * (1 - tolerance) }) else { return nil }
        let unit = pick.throughputUnit
        let gain = base.throughput > 0 ? pick.throughput / base.throughput : 0
        let ratio = Double(pick.limit.value) / Double(base.limit.value)
        let regime: String
        var reason: String
        if pick.limit == base.limit {
            regime = base.machineSaturated ? "host-bound" : flatRegime(base.leadingVerdict, phases: base.phaseMediansMs)
            let top = base.throughput > 0 ? best.throughput / base.throughput : 0
            reason = "\(regime == "server-bound" ? "server- or CPU-bound" : regime): \(things(base.limit.value, base.mode)) already "
                + "\(base.limit.value == 1 ? "moves" : "move") \(rate(base.throughput, unit)) and \(largest.limit.value) move "
                + "\(rate(largest.throughput, unit))"
                + " (best \(Format.fixed(top, digits: 2))x), so more connections only add queueing"
            if let low = base.latencyMs?.p90, let high = largest.latencyMs?.p90, largest.limit != base.limit {
                reason += " (p90 latency \(ms(low)) at \(base.limit.value), \(ms(high)) at \(largest.limit.value))"
            }
            // Only where the phases change the old answer (the server), so other sentences read as before.
            if regime == "network-bound", decidedByPhases(base.leadingVerdict) {
                reason += "; no kernel verdict, so the phases tell it: at \(base.limit.value) the median send took "
                    + "\(ms(base.phaseMediansMs["send"] ?? 0)) and wait \(ms(base.phaseMediansMs["wait"] ?? 0))"
            }
        } else if ratio > 1, (gain - 1) / (ratio - 1) >= linearShare {
            regime = "bandwidth-bound"
            reason = "per-connection bandwidth bound: parallelism helps, \(things(pick.limit.value, pick.mode)) move "
                + "\(Format.fixed(gain, digits: 2))x what \(base.limit.value) do"
            reason += pick.limit == largest.limit
                ? ", and the largest limit tried still gains: try higher limits"
                : ", and more than \(pick.limit.value) gain less than 5%"
        } else {
            regime = "saturating"
            reason = "parallelism helps up to \(things(pick.limit.value, pick.mode)) (\(Format.fixed(gain, digits: 2))x "
                + "\(base.limit.value), less than linear), then the link or the server saturates"
        }
        reason += verdictClause(base: base, pick: pick) + hostClause(sorted)
        if pick.limit != base.limit, largest.limit != pick.limit, let low = pick.latencyMs?.p90,
           let high = largest.latencyMs?.p90, high > 1.5 * low {
            reason += "; beyond \(pick.limit.value), more only add queueing (p90 latency \(ms(low)) at \(pick.limit.value), "
                + "\(ms(high)) at \(largest.limit.value))"
        }
        if largest.limit != pick.limit, largest.throughput < best.throughput * (1 - tolerance) {
            reason += "; \(things(largest.limit.value, largest.mode)) lose throughput (\(rate(largest.throughput, unit)))"
        }
        return CompareRecommendation(mode: pick.mode, limit: pick.limit, throughput: pick.throughput,
                                     bestLimit: best.limit, bestThroughput: best.throughput, regime: regime,
                                     reason: reason)
    }

    /// The regime of a mode in which more connections do not help, by the smallest limit's leading verdict:
    /// "network-bound" (the path was busy), "client-bound" (the client had nothing to send), else "server-bound".
    /// Without a kernel verdict (none, or `unknown`: `--tcp-sample off`, a download without a loss sign) the median
    /// phases decide: more time in send than in wait is the path (the body took the time, and more connections did
    /// not move it faster), else the server.
    static func flatRegime(_ lead: VerdictShare?, phases: [String: Double]) -> String {
        if decidedByPhases(lead) { return (phases["send"] ?? 0) > (phases["wait"] ?? 0) ? "network-bound" : "server-bound" }
        switch lead?.verdict {
        case .network: return "network-bound"
        case .client: return "client-bound"
        case .clientCPU: return "host-bound"
        default: return "server-bound"
        }
    }

    /// Whether the regime falls to the phases: no verdict at all, or `unknown` leading.
    static func decidedByPhases(_ lead: VerdictShare?) -> Bool { lead.map { $0.verdict == .unknown } ?? true }

    /// What the kernel's verdicts said at the smallest and the recommended limit ("; at 1 each connection was held
    /// back by the server's receive window (server-window, 92% of the transaction time); at 4 the path was busy
    /// (network, 81% of the transaction time): 4 is enough"; one clause when both have the same verdict), empty
    /// without verdicts.
    static func verdictClause(base: CompareResult, pick: CompareResult) -> String {
        if pick.limit != base.limit, let low = base.leadingVerdict, let high = pick.leadingVerdict,
           low.verdict == high.verdict {
            return "; at \(base.limit.value) and \(pick.limit.value) \(low.what) (\(low.verdict.rawValue), \(low.percent) "
                + "and \(high.percent) of the transaction time)" + (low.verdict == .network ? ": \(pick.limit.value) is enough" : "")
        }
        var parts: [String] = []
        if let lead = base.leadingVerdict { parts.append("at \(base.limit.value) \(lead.phrase)") }
        if pick.limit != base.limit, let lead = pick.leadingVerdict {
            var part = "at \(pick.limit.value) \(lead.phrase)"
            if lead.verdict == .network { part += ": \(pick.limit.value) is enough" }
            parts.append(part)
        }
        return parts.map { "; " + $0 }.joined()
    }

    /// The limits at which the measuring host led (`client-cpu`) or its CPUs were saturated with the server on it
    /// (`CompareResult.machineSaturated`): "; this machine was the limit at 4 and 8 (client-cpu): the result is
    /// bounded by this machine, and whether more connections help cannot be judged from here", the saturated ones
    /// "(its CPUs 97% busy, the server on it too)"; empty when it led at none.
    static func hostClause(_ results: [CompareResult]) -> String {
        let held = results.filter { $0.leadingVerdict?.verdict == .clientCPU || $0.machineSaturated }
        guard !held.isEmpty else { return "" }
        let limits = held.map { String($0.limit.value) }
        let list = limits.count == 1 ? limits[0] : limits.dropLast().joined(separator: ", ") + " and " + limits[limits.count - 1]
        let saturated = held.compactMap { $0.machineSaturated ? $0.machineBusyShare : nil }
        let why: String
        if saturated.isEmpty {
            why = "client-cpu"
        } else {
            let low = Int((saturated.min() ?? 0) * 100), high = Int((saturated.max() ?? 0) * 100)
            let busy = low == high ? "\(low)%" : "\(low)-\(high)%"
            why = (saturated.count < held.count ? "client-cpu, or " : "") + "its CPUs \(busy) busy, the server on it too"
        }
        return "; this machine was the limit at \(list) (\(why)): the result is bounded by this machine, and whether "
            + "more connections help cannot be judged from here"
    }

    /// One recommendation per mode, in the order the modes first appear in `results`; a mode whose best moves
    /// less than `modeShortfall` of another mode's best says so, and why (`modeClause`).
    public static func all(_ results: [CompareResult]) -> [CompareRecommendation] {
        var modes: [CompareMode] = []
        for r in results where !modes.contains(r.mode) { modes.append(r.mode) }
        var recommendations = modes.compactMap { mode in make(results.filter { $0.mode == mode }) }
        for i in recommendations.indices {
            recommendations[i].reason += modeClause(recommendations[i], among: recommendations, results: results)
        }
        return recommendations
    }

    /// A mode whose best throughput is under this share of another mode's best moves less, and its sentence says why.
    public static let modeShortfall = 0.8

    /// "; h2 moves 0.30x what h1 does at best (1.09 MB/s against 3.66 MB/s): at 2 each stream was held back by the
    /// server's HTTP/2 flow-control window (h2-window, 100% of the transaction time)" (": h2-window, as above" when the
    /// sentence already said it), against the mode with the best throughput; empty when `rec` is within
    /// `modeShortfall` of it, or is that mode.
    static func modeClause(_ rec: CompareRecommendation, among all: [CompareRecommendation],
                           results: [CompareResult]) -> String {
        guard rec.limit != nil, rec.bestThroughput > 0,
              let top = all.filter({ $0.limit != nil && $0.mode != rec.mode }).max(by: { $0.bestThroughput < $1.bestThroughput }),
              rec.bestThroughput < modeShortfall * top.bestThroughput,
              let unit = results.first(where: { $0.mode == rec.mode })?.throughputUnit else { return "" }
        var clause = "; \(rec.mode.rawValue) moves \(Format.fixed(rec.bestThroughput / top.bestThroughput, digits: 2))x "
            + "what \(top.mode.rawValue) does at best (\(rate(rec.bestThroughput, unit)) against "
            + "\(rate(top.bestThroughput, unit)))"
        if let best = results.first(where: { $0.mode == rec.mode && $0.limit == rec.bestLimit }),
           let lead = best.leadingVerdict, lead.verdict != .unknown {
            clause += rec.reason.contains(lead.what) ? ": \(lead.verdict.rawValue), as above"
                : ": at \(best.limit.value) \(lead.phrase)"
        }
        return clause
    }

    /// A throughput with its unit, e.g. "2.88 MB/s" or "412.0 req/s".
    public static func rate(_ value: Double, _ unit: String) -> String {
        unit == "B/s" ? ByteSize.formatRate(value) : "\(Format.fixed(value, digits: 1)) \(unit)"
    }

    /// "4 connections", "1 connection", or for HTTP/2 (one multiplexed connection) "4 streams".
    static func things(_ n: Int, _ mode: CompareMode) -> String {
        let noun = mode == .h2 ? "stream" : "connection"
        return "\(n) \(noun)\(n == 1 ? "" : "s")"
    }

    private static func ms(_ value: Double) -> String { "\(Format.fixed(value, digits: 1)) ms" }
}
