extension Diagnosis {
    /// `client-cpu` in place of the kernel's verdict `d` when the host held the engine's loop thread back over the
    /// moving phase (`HostFacts.bound`), with `d`'s evidence (its shares stay: they are the kernel's numbers, and
    /// an `unknown`'s reason goes); else `d`.
    static func hostLimited(_ d: Diagnosis) -> Diagnosis {
        guard let host = d.evidence.host, host.bound else { return d }
        var evidence = d.evidence
        evidence.reason = nil
        return Diagnosis(verdict: .clientCPU, evidence: evidence)
    }
}

extension DiagnosisSentence {
    /// The sentence of `client-cpu`: how much of the phase the loop thread ran and waited for a CPU, and what held it.
    static func hostSentence(_ e: Diagnosis.Evidence) -> String {
        guard let h = e.host else { return "This machine's CPU was the limit." }
        // The host facts span the moving phase, or the request and the wait when the wait held most of the total
        // (the moving phase is then shorter than the wait).
        let overWait = (e.waitShare ?? 0) >= 0.5 && e.wait.map { h.span >= $0 } == true
        let phase = overWait ? "request and wait"
            : e.direction == "download" ? "receive" : "send"
        var text = "This machine was the limit: the probe's loop thread ran \(percent(h.cpuShare)) of the \(phase) time"
        if let wait = h.runQueueShare { text += " and waited for a CPU \(percent(wait))" }
        var held: [String] = []
        if let quota = h.cpuQuota {
            var clause = "its cgroup \(h.cgroup ?? "") allows \(Format.fixed(quota, digits: 2)) CPU"
            if let throttled = h.throttledPeriods, let periods = h.periods, periods > 0 {
                clause += " and throttled it in \(throttled) of \(periods) periods"
            }
            held.append(clause)
        }
        if let cpus = h.cpusAllowed { held.append("it may use \(cpus) CPU\(cpus == 1 ? "" : "s")") }
        if !held.isEmpty { text += " (" + held.joined(separator: "; ") + ")" }
        let rate = e.bodyRate.map { " at \(ByteSize.formatRate($0))" } ?? ""
        return text + ": the body moved\(rate) as fast as the client could work, so the path and the server cannot be "
            + "judged from here; more CPU for the probe, fewer busy neighbours on its CPUs, or probing from another "
            + "machine helps."
    }
}
