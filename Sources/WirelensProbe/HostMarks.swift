import WirelensCore

/// The host's snapshots over one transfer (the loop thread's CPU, its cgroup's throttling), for the `client-cpu`
/// evidence: when the connection was ready and when the final response began.
struct HostMarks {
    var atReady: HostSnapshot?
    var atResponse: HostSnapshot?

    /// The host's facts over the transfer's send and receive sides, ended by `atEnd`: sending runs from the
    /// connection being ready to the response's start (or the end, without one), receiving from there to the end;
    /// each says whether the peer was on this machine (`peerLocal`).
    func facts(atEnd: HostSnapshot, limits: HostLimits, peerLocal: Bool) -> (send: HostFacts?, receive: HostFacts?) {
        var send = atReady.flatMap { HostFacts(from: $0, to: atResponse ?? atEnd, limits: limits) }
        var receive = atResponse.flatMap { HostFacts(from: $0, to: atEnd, limits: limits) }
        send?.peerOnThisMachine = peerLocal
        receive?.peerOnThisMachine = peerLocal
        return (send, receive)
    }
}
