internal import CPcapShim

/// libpcap's functions, bound the first time a capture is read or taken (`wl_pcap.h`): libpcap is not linked, so
/// the commands that never touch a capture do not load it and its libraries.
enum PcapFunctions {
    /// The table of functions, or `CaptureError.libpcapUnavailable` naming why libpcap could not be loaded.
    static func load() throws(CaptureError) -> wl_pcap_api {
        var reason: UnsafePointer<CChar>?
        guard let table = wl_pcap_api_get(&reason) else {
            throw .libpcapUnavailable(reason: reason.map { String(cString: $0) } ?? "libpcap cannot be loaded")
        }
        return table.pointee
    }
}

extension wl_pcap_api {
    /// libpcap's message for the last error on `handle`.
    func errorText(_ handle: OpaquePointer) -> String {
        geterr(handle).map { String(cString: $0) } ?? "libpcap gave no message"
    }
}
