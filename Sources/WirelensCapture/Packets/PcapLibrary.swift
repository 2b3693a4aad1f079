
/// Facts about the libpcap this process runs with.
package enum PcapLibrary {
    /// The running libpcap's version number, from pcap_lib_version at run time (e.g. "1.10.3"); "unknown" when
    /// libpcap cannot be loaded.
    package static var version: String {
        guard let pcap = try? PcapFunctions.load() else { return "unknown" }
        return pcap.lib_version().map { number(inVersionLine: String(cString: $0)) } ?? "unknown"
    }

    /// The version number in libpcap's version line ("libpcap version 1.10.3 (with TPACKET_V3)" gives "1.10.3"):
    /// the first word after "version", or the whole line when it has none.
    static func number(inVersionLine line: String) -> String {
        let words = line.split(separator: " ")
        guard let index = words.firstIndex(of: "version"), index + 1 < words.count else { return line }
        return String(words[index + 1])
    }
}
