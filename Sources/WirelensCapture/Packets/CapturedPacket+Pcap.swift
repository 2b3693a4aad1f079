internal import CPcap

extension CapturedPacket {
    /// The packet libpcap handed over with `header` and `data` (opened with nanosecond precision, so
    /// `tv_usec` holds nanoseconds); `bytes` points into libpcap's buffer.
    init(header: pcap_pkthdr, data: UnsafePointer<UInt8>) {
        self.init(timestampNanos: Int64(header.ts.tv_sec) * 1_000_000_000 + Int64(header.ts.tv_usec),
                  originalLength: Int(header.len),
                  bytes: UnsafeRawBufferPointer(start: data, count: Int(header.caplen)))
    }
}
