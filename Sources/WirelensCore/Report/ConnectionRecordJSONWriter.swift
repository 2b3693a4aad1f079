/// Writes a report's `connections` as compact JSON straight into bytes, field by field: their only writer
/// (`ConnectionRecord` hands these bytes over as its encoding).
///
/// A run of fresh connections lists up to `ConnectionLedger.defaultConnectionLimit` of them, each with totals and
/// a diagnosis; `ConnectionRecordJSONWriterTests` reads these bytes back with Foundation's decoder over seeded random values.
/// Keys follow `ConnectionRecord`'s coding order.
package enum ConnectionRecordJSONWriter {
    /// Appends the connections as a JSON array.
    package static func append(_ records: [ConnectionRecord], to b: inout [UInt8]) {
        append(records, to: &b, chunkSize: .max) { _ in }
    }

    /// Appends the connections as a JSON array; `handOver` gets `b` after each connection that leaves it holding
    /// `chunkSize` bytes or more (their lists of transactions grow with the run), to pass the bytes on and empty it.
    package static func append(_ records: [ConnectionRecord], to b: inout [UInt8], chunkSize: Int,
                       handOver: (inout [UInt8]) throws -> Void) rethrows {
        b.append(UInt8(ascii: "["))
        for i in records.indices {
            if i > 0 { b.append(UInt8(ascii: ",")) }
            append(records[i], to: &b)
            if b.count >= chunkSize { try handOver(&b) }
        }
        b.append(UInt8(ascii: "]"))
    }

    /// Appends one connection.
    package static func append(_ r: ConnectionRecord, to b: inout [UInt8]) {
        raw("{\"connectionId\":", &b); int(r.connectionId, &b)
        raw(",\"localAddress\":", &b); string(r.localAddress, &b)
        raw(",\"localPort\":", &b); JSONBytes.appendInt(Int64(r.localPort), to: &b)
        raw(",\"remoteAddress\":", &b); string(r.remoteAddress, &b)
        raw(",\"remotePort\":", &b); int(r.remotePort, &b)
        raw(",\"networkProtocolName\":", &b); string(r.networkProtocolName, &b)
        raw(",\"firstUsedAt\":", &b); JSONBytes.appendInstant(micros: r.firstUsedAt, to: &b)
        raw(",\"lastUsedAt\":", &b); JSONBytes.appendInstant(micros: r.lastUsedAt, to: &b)
        raw(",\"transactionCount\":", &b); JSONBytes.appendInt(Int64(r.transactionCount), to: &b)
        raw(",\"transactions\":[", &b)
        for i in r.transactions.indices {
            raw(i == 0 ? "{\"task\":" : ",{\"task\":", &b); JSONBytes.appendInt(Int64(r.transactions[i].task), to: &b)
            raw(",\"transaction\":", &b); JSONBytes.appendInt(Int64(r.transactions[i].transaction), to: &b)
            raw("}", &b)
        }
        raw("],\"shared\":", &b); raw(r.shared ? "true" : "false", &b)
        raw(",\"handshakeRTT\":", &b); unsigned(r.handshakeRTT, &b)
        raw(",\"pathMTU\":", &b); unsigned(r.pathMTU, &b)
        raw(",\"totals\":", &b)
        if let t = r.totals {
            raw("{\"bytesSent\":", &b); unsigned(t.bytesSent, &b)
            raw(",\"bytesAcked\":", &b); unsigned(t.bytesAcked, &b)
            raw(",\"bytesReceived\":", &b); unsigned(t.bytesReceived, &b)
            raw(",\"bytesRetransmitted\":", &b); unsigned(t.bytesRetransmitted, &b)
            raw(",\"segmentsRetransmitted\":", &b); unsigned(t.segmentsRetransmitted, &b)
            raw(",\"dataSegmentsOut\":", &b); unsigned(t.dataSegmentsOut, &b)
            raw(",\"dataSegmentsIn\":", &b); unsigned(t.dataSegmentsIn, &b)
            raw(",\"outOfOrderPacketsIn\":", &b); unsigned(t.outOfOrderPacketsIn, &b)
            raw(",\"minRTT\":", &b); unsigned(t.minRTT, &b)
            raw(",\"smoothedRTT\":", &b); unsigned(t.smoothedRTT, &b)
            raw(",\"busy\":", &b); unsigned(t.busy, &b)
            raw(",\"receiveWindowLimited\":", &b); unsigned(t.receiveWindowLimited, &b)
            raw(",\"sendBufferLimited\":", &b); unsigned(t.sendBufferLimited, &b)
            raw("}", &b)
        } else {
            raw("null", &b)
        }
        raw(",\"diagnosis\":", &b)
        if let d = r.diagnosis {
            raw("{\"verdict\":", &b); JSONBytes.appendString(d.verdict.rawValue, to: &b)
            raw(",\"share\":", &b)
            if !JSONBytes.appendDouble(d.share, to: &b) { raw("null", &b) }
            raw(",\"transactions\":", &b); JSONBytes.appendInt(Int64(d.transactions), to: &b)
            raw(",\"example\":", &b); KernelFactsJSONWriter.append(d.example, to: &b)
            raw("}", &b)
        } else {
            raw("null", &b)
        }
        raw("}", &b)
    }

    private static func raw(_ text: StaticString, _ b: inout [UInt8]) {
        b.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static func string(_ value: String?, _ b: inout [UInt8]) {
        if let value { JSONBytes.appendString(value, to: &b) } else { raw("null", &b) }
    }

    private static func int(_ value: Int?, _ b: inout [UInt8]) {
        if let value { JSONBytes.appendInt(Int64(value), to: &b) } else { raw("null", &b) }
    }

    private static func unsigned<T: UnsignedInteger & FixedWidthInteger>(_ value: T?, _ b: inout [UInt8]) {
        if let value { JSONBytes.appendUnsigned(UInt64(value), to: &b) } else { raw("null", &b) }
    }
}
