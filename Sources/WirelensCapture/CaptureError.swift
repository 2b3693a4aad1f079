/// Why a capture could not be read; each case describes itself in one line naming the input.
package enum CaptureError: Error, Equatable, CustomStringConvertible {
    /// libpcap could not open the file: missing, unreadable, or not a pcap/pcapng file.
    case cannotOpen(path: String, reason: String)
    /// The BPF filter expression did not compile.
    case badFilter(expression: String, reason: String)
    /// The file's link type is not one Wirelens decodes.
    case unsupportedLinkType(path: String, dlt: Int32, name: String)
    /// A live capture could not start on the interface.
    case cannotCapture(interface: String, reason: String)
    /// Reading stopped part way (a file cut in the middle of a packet, a corrupt record).
    case readFailed(path: String, packetsRead: Int, reason: String)
    /// libpcap (loaded when a capture is first read or taken) is missing or lacks a function: the reason names it.
    case libpcapUnavailable(reason: String)

    package var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            "cannot read capture '\(path)': \(reason); give a .pcap or .pcapng file"
        case .badFilter(let expression, let reason):
            "bad --filter '\(expression)': \(reason); give a tcpdump/BPF expression such as 'tcp port 80'"
        case .unsupportedLinkType(let path, let dlt, let name):
            "capture '\(path)' has link type \(name) (\(dlt)), which Wirelens does not decode; "
                + "capture on an Ethernet, loopback or 'any' interface"
        case .cannotCapture(let interface, let reason):
            "cannot capture on '\(interface)': \(reason)"
        case .readFailed(let path, let packetsRead, let reason):
            "capture '\(path)' is damaged after \(packetsRead) packets: \(reason); the analysis covers those packets"
        case .libpcapUnavailable(let reason):
            reason
        }
    }
}
