/// The link-layer framings Wirelens decodes, from libpcap's DLT_ numbers.
public enum LinkType: String, Sendable, Codable {
    /// DLT_EN10MB: Ethernet II, with any number of 802.1Q / 802.1ad tags.
    case ethernet
    /// DLT_LINUX_SLL: Linux "cooked" capture v1 (16-byte header; older `tcpdump -i any`).
    case linuxCooked = "linux-sll"
    /// DLT_LINUX_SLL2: Linux "cooked" capture v2 (20-byte header; `tcpdump -i any` with libpcap 1.10).
    case linuxCooked2 = "linux-sll2"
    /// DLT_NULL: BSD loopback, a 4-byte address family in the capturing host's byte order.
    case null
    /// DLT_LOOP: OpenBSD loopback, a 4-byte address family in network byte order.
    case loop
    /// DLT_RAW and LINKTYPE_RAW: the IP header first; the version nibble says which.
    case raw
    /// DLT_IPV4: IPv4 only, header first.
    case ipv4
    /// DLT_IPV6: IPv6 only, header first.
    case ipv6

    /// The link type for a DLT number, or nil when Wirelens does not decode it.
    public init?(dlt: Int32) {
        switch dlt {
        case 1: self = .ethernet
        case 113: self = .linuxCooked
        case 276: self = .linuxCooked2
        case 0: self = .null
        case 108: self = .loop
        case 12, 14, 101: self = .raw
        case 228: self = .ipv4
        case 229: self = .ipv6
        default: return nil
        }
    }
}
