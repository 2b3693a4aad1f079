internal import CPcap

/// Compiles a BPF expression and installs it on a libpcap handle.
enum PcapFilter {
    /// Applies `expression` to `handle`; the caller still owns (and closes) the handle when this throws.
    static func apply(_ expression: String, to handle: OpaquePointer) throws(CaptureError) {
        var program = bpf_program()
        guard pcap_compile(handle, &program, expression, 1, PCAP_NETMASK_UNKNOWN) == 0 else {
            throw .badFilter(expression: expression, reason: String(cString: pcap_geterr(handle)))
        }
        defer { pcap_freecode(&program) }
        guard pcap_setfilter(handle, &program) == 0 else {
            throw .badFilter(expression: expression, reason: String(cString: pcap_geterr(handle)))
        }
    }
}
