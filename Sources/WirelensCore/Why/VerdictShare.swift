/// The verdict that held the most transaction time over one or more runs, with its share of the diagnosed time.
///
/// Made from the summaries' `verdicts` (`leading(_:)`), so a comparison or an upload reads what each run already
/// tallied; the phrases are made from the figures when they are read.
public struct VerdictShare: Sendable, Equatable, Codable {
    public var verdict: Verdict
    /// Its transactions' time over the time of every diagnosed transaction, 0...1.
    public var share: Double
    /// How many transactions had it.
    public var transactions: Int

    public init(verdict: Verdict, share: Double, transactions: Int) {
        self.verdict = verdict
        self.share = share
        self.transactions = transactions
    }

    /// The verdict holding the most time over every tally (ties go to the name first in order), nil without any.
    public static func leading(_ tallies: [[String: VerdictStats]?]) -> VerdictShare? {
        var time: [Verdict: Double] = [:]
        var count: [Verdict: Int] = [:]
        for tally in tallies {
            for (name, stats) in tally ?? [:] {
                guard let verdict = Verdict(rawValue: name) else { continue }
                time[verdict, default: 0] += stats.timeMs
                count[verdict, default: 0] += stats.transactions
            }
        }
        let total = time.values.reduce(0, +)
        guard let top = time.max(by: { ($0.value, $1.key.rawValue) < ($1.value, $0.key.rawValue) }) else { return nil }
        return VerdictShare(verdict: top.key, share: total > 0 ? top.value / total : 1,
                            transactions: count[top.key] ?? 0)
    }

    /// What the verdict says happened, with its name and share: "each connection was held back by the server's
    /// receive window (server-window, 92% of the transaction time)".
    public var phrase: String { "\(what) (\(verdict.rawValue), \(percent) of the transaction time)" }

    /// The share as a whole percentage, "92%".
    public var percent: String { "\(Format.fixed(share * 100, digits: 0))%" }

    /// What the verdict says happened: "each connection was held back by the server's receive window".
    public var what: String {
        switch verdict {
        case .serverWindow: "each connection was held back by the server's receive window"
        case .sendBuffer: "each connection was held back by the client's socket send buffer"
        case .network: "the path was busy"
        case .roundTrips: "the transfers were mostly handshakes and round trips"
        case .serverThink: "the time went to the server's wait"
        case .client: "the client had nothing to send most of the time"
        case .unknown: "the kernel's facts did not tell"
        case .clientWindow: "each connection was held back by the client's own receive window"
        case .serverSend: "the server sent slower than the window and the path allowed"
        case .clientCPU: "this machine's CPU held the client back"
        case .h2Window: "each stream was held back by the server's HTTP/2 flow-control window"
        }
    }

    /// Whether more `things` in flight ("segments") help, by the verdict: nil when the verdict does not say.
    public func parallelismAdvice(_ things: String) -> String? {
        switch verdict {
        case .serverWindow, .sendBuffer: "more \(things) in flight help"
        case .network: "more \(things) in flight will not help"
        case .roundTrips: "fewer, larger \(things) help more than more in flight"
        case .serverThink: "more \(things) in flight help only as far as the server works in parallel"
        case .client: "the client's source is the limit, not the network"
        case .unknown: nil
        case .clientWindow: "more \(things) in flight help, and so does a larger client receive buffer"
        case .serverSend: "more \(things) in flight help only when the server paces each connection"
        case .clientCPU: "this machine is the limit: more \(things) in flight cannot be judged from here"
        case .h2Window: "more \(things) in flight help only on connections of their own (HTTP/1.1)"
        }
    }
}
