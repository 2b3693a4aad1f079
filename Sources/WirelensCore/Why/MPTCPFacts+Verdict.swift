/// Each subflow's own verdict: the `Diagnosis` rules applied to the subflow's facts (`TCPFacts.subflow`) with the
/// transaction's phases and its share of the body.
extension MPTCPFacts {
    /// These facts with each subflow's verdict when there are two or more subflows (one subflow's verdict is the
    /// transaction's own), from `input`, the transaction's diagnosis input: its phases, write time and host facts,
    /// its body bytes scaled by the subflow's `bodyShare`, the subflow's facts in place of the connection's. The
    /// subflows' snapshots are dropped either way.
    public func judged(_ input: Diagnosis.Input) -> MPTCPFacts {
        var judged = self
        let several = subflows.count >= 2
        for i in judged.subflows.indices {
            defer { judged.subflows[i].snapshot = nil }
            guard several, let snapshot = judged.subflows[i].snapshot else { continue }
            let share = judged.subflows[i].bodyShare ?? 0
            var own = input
            own.tcp = TCPFacts.subflow(snapshot)
            own.missingReason = nil
            own.requestBodyBytes = Int64((Double(input.requestBodyBytes) * share).rounded())
            own.responseBodyBytes = Int64((Double(input.responseBodyBytes) * share).rounded())
            judged.subflows[i].verdict = Diagnosis.of(own).verdict
        }
        return judged
    }
}
