/// What the capture's packets were, for the report's account of what was and was not analysed.
public struct PacketCounts: Sendable, Equatable {
    /// Packets read (after the BPF filter).
    public var total = 0
    /// TCP segments analysed.
    public var tcp = 0
    /// Other traffic (UDP, ARP, ICMP, IP fragments...), skipped.
    public var other = 0
    /// Packets cut before the end of their TCP header, or with inconsistent lengths.
    public var undecodable = 0
    /// Packets shorter in the file than on the wire (snapshot length).
    public var cutBySnapshot = 0
    /// Bytes of the packets on the wire.
    public var wireBytes: Int64 = 0

    public init() {}
}
