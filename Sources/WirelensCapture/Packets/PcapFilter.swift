internal import CPcap
internal import CPcapShim

/// Compiles a BPF expression and installs it on a libpcap handle.
enum PcapFilter {
    /// Applies `expression` to `handle` through libpcap's functions `pcap`; the caller still owns (and closes) the
    /// handle when this throws.
    static func apply(_ expression: String, to handle: OpaquePointer, _ pcap: wl_pcap_api) throws(CaptureError) {
        var program = bpf_program()
        guard pcap.compile(handle, &program, expression, 1, PCAP_NETMASK_UNKNOWN) == 0 else {
            throw .badFilter(expression: expression, reason: pcap.errorText(handle))
        }
        defer { pcap.freecode(&program) }
        guard pcap.setfilter(handle, &program) == 0 else {
            throw .badFilter(expression: expression, reason: pcap.errorText(handle))
        }
    }
}
