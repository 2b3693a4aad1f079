/// Writes tasks as compact JSON directly into bytes, field by field with keys as static text: the only writer of
/// the report schema's tasks (docs/report-schema.md).
///
/// A report of 20 000 tasks spends most of its encoding time in the tasks (through Codable, 2.3 times the
/// instructions of a JSON run: reports/bench/json-writers.md). `TaskRecord` and `TaskCoding` hand these bytes to
/// the one JSON writer (`CompactJSONWritable`), which indents them in an indented document; `TaskJSONWriterTests`
/// reads them back with Foundation's decoder.
package enum TaskJSONWriter {
    /// Appends one task as a compact JSON object, with the members `detail` keeps (`full`: every member).
    package static func append(_ task: TaskRecord, detail: ReportDetail, to bytes: inout [UInt8]) {
        let full = detail.keepsDebugMembers
        raw("{\"index\":", &bytes); JSONBytes.appendInt(Int64(task.index), to: &bytes)
        raw(",\"url\":", &bytes); JSONBytes.appendString(task.url, to: &bytes)
        raw(",\"method\":", &bytes); JSONBytes.appendString(task.method, to: &bytes)
        raw(",\"startedAt\":", &bytes); JSONBytes.appendInstant(micros: task.startedAt, to: &bytes)
        raw(",\"endedAt\":", &bytes); JSONBytes.appendInstant(micros: task.endedAt, to: &bytes)
        raw(",\"durationMs\":", &bytes); JSONBytes.appendMillis(micros: task.duration, to: &bytes)
        raw(",\"redirectCount\":", &bytes); JSONBytes.appendInt(Int64(task.redirectCount), to: &bytes)
        raw(",\"retries\":", &bytes); JSONBytes.appendInt(Int64(task.retries), to: &bytes)
        raw(",\"statusCode\":", &bytes); int(task.statusCode, &bytes)
        raw(",\"error\":", &bytes); error(task.error, &bytes)
        raw(",\"transactions\":[", &bytes)
        for i in task.transactions.indices {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            transaction(task.transactions[i], taskStart: task.startedAt, full: full, &bytes)
        }
        raw("]}", &bytes)
    }

    private static func transaction(_ m: TransactionMetrics, taskStart: Int64, full: Bool, _ bytes: inout [UInt8]) {
        raw("{\"kind\":", &bytes); JSONBytes.appendString(m.kind.rawValue, to: &bytes)
        raw(",\"url\":", &bytes); JSONBytes.appendString(m.url, to: &bytes)
        raw(",\"method\":", &bytes); JSONBytes.appendString(m.method, to: &bytes)
        raw(",\"timestamps\":", &bytes)
        timeline(m.timeline, &bytes) { value, bytes in JSONBytes.appendInstant(micros: value, to: &bytes) }
        if full {
            raw(",\"offsetsMs\":", &bytes)
            timeline(m.timeline, &bytes) { value, bytes in JSONBytes.appendMillis(micros: value - taskStart, to: &bytes) }
        }
        raw(",\"phasesMs\":{", &bytes)
        for i in Phases.names.indices {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            key(Phases.names[i], &bytes)
            millis(m.phases.value(at: i), &bytes)
        }
        raw("},\"networkProtocolName\":", &bytes); string(m.networkProtocolName, &bytes)
        raw(",\"domainResolutionProtocol\":", &bytes); string(m.domainResolutionProtocol?.rawValue, &bytes)
        if let doh = m.dohDuration { raw(",\"dohMs\":", &bytes); millis(doh, &bytes) }
        raw(",\"reusedConnection\":", &bytes); bool(m.reusedConnection, &bytes)
        raw(",\"connectionId\":", &bytes); int(m.connectionId, &bytes)
        raw(",\"proxyConnection\":", &bytes); bool(m.proxyConnection, &bytes)
        raw(",\"localAddress\":", &bytes); string(m.localAddress, &bytes)
        raw(",\"localPort\":", &bytes); int(m.localPort, &bytes)
        raw(",\"remoteAddress\":", &bytes); string(m.remoteAddress, &bytes)
        raw(",\"remotePort\":", &bytes); int(m.remotePort, &bytes)
        raw(",\"tlsVersion\":", &bytes); string(m.tlsVersion, &bytes)
        raw(",\"tlsCipher\":", &bytes); string(m.tlsCipher, &bytes)
        raw(",\"alpn\":", &bytes); string(m.alpn, &bytes)
        raw(",\"statusCode\":", &bytes); int(m.statusCode, &bytes)
        raw(",\"requestHeaderBytes\":", &bytes); JSONBytes.appendInt(m.requestHeaderBytes, to: &bytes)
        raw(",\"requestBodyBytes\":", &bytes); JSONBytes.appendInt(m.requestBodyBytes, to: &bytes)
        raw(",\"responseHeaderBytes\":", &bytes); JSONBytes.appendInt(m.responseHeaderBytes, to: &bytes)
        raw(",\"responseBodyBytes\":", &bytes); JSONBytes.appendInt(m.responseBodyBytes, to: &bytes)
        if let wire = m.responseBodyWireBytes {
            raw(",\"responseBodyWireBytes\":", &bytes); JSONBytes.appendInt(wire, to: &bytes)
        }
        raw(",\"uploadBytesPerSecond\":", &bytes); double(m.uploadSpeed?.rounded(), &bytes)
        raw(",\"downloadBytesPerSecond\":", &bytes); double(m.downloadSpeed?.rounded(), &bytes)
        raw(",\"expectContinueWaitMs\":", &bytes); millis(m.expectContinueWait, &bytes)
        if let wait = m.retryWait { raw(",\"retryWaitMs\":", &bytes); millis(wait, &bytes) }
        if let asked = m.retryAfter { raw(",\"retryAfterMs\":", &bytes); millis(asked, &bytes) }
        if let opened = m.connectionOpened {
            raw(",\"connectionOpenedAt\":", &bytes); JSONBytes.appendInstant(micros: opened, to: &bytes)
        }
        if let closed = m.connectionClosed {
            raw(",\"connectionClosedAt\":", &bytes); JSONBytes.appendInstant(micros: closed, to: &bytes)
        }
        if full {
            let t = m.curlTimers
            raw(",\"curlTimersUs\":{\"nameLookup\":", &bytes); JSONBytes.appendInt(t.nameLookup, to: &bytes)
            raw(",\"connect\":", &bytes); JSONBytes.appendInt(t.connect, to: &bytes)
            raw(",\"appConnect\":", &bytes); JSONBytes.appendInt(t.appConnect, to: &bytes)
            raw(",\"preTransfer\":", &bytes); JSONBytes.appendInt(t.preTransfer, to: &bytes)
            raw(",\"startTransfer\":", &bytes); JSONBytes.appendInt(t.startTransfer, to: &bytes)
            raw(",\"total\":", &bytes); JSONBytes.appendInt(t.total, to: &bytes)
            raw("}", &bytes)
        }
        if let headers = m.responseHeaders {
            raw(",\"responseHeaders\":[", &bytes)
            for (i, header) in headers.enumerated() {
                raw(i == 0 ? "{\"name\":" : ",{\"name\":", &bytes); JSONBytes.appendString(header.name, to: &bytes)
                raw(",\"value\":", &bytes); JSONBytes.appendString(header.value, to: &bytes)
                raw("}", &bytes)
            }
            raw("]", &bytes)
        }
        if let text = m.statusText { raw(",\"statusText\":", &bytes); JSONBytes.appendString(text, to: &bytes) }
        if let type = m.contentType { raw(",\"contentType\":", &bytes); JSONBytes.appendString(type, to: &bytes) }
        raw(",\"error\":", &bytes); error(m.error, &bytes)
        raw(",\"tcp\":", &bytes)
        if let tcp = m.tcp { KernelFactsJSONWriter.append(tcp, samples: full, to: &bytes) } else { raw("null", &bytes) }
        if let mptcp = m.mptcp { raw(",\"mptcp\":", &bytes); KernelFactsJSONWriter.append(mptcp, to: &bytes) }
        raw(",\"diagnosis\":", &bytes)
        if let diagnosis = m.diagnosis { KernelFactsJSONWriter.append(diagnosis, to: &bytes) } else { raw("null", &bytes) }
        raw("}", &bytes)
    }

    /// Writes the timeline's fields as an object, each present value through `write`, absent ones as null.
    private static func timeline(_ timeline: Timeline, _ bytes: inout [UInt8],
                                 _ write: (Int64, inout [UInt8]) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        for i in Timeline.names.indices {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            key(Timeline.names[i], &bytes)
            if let value = timeline.value(at: i) { write(value, &bytes) } else { raw("null", &bytes) }
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// A transfer error as `{"class":…,"curlCode":…,"message":…}`, curlCode only when there is one.
    private static func error(_ error: TransferError?, _ bytes: inout [UInt8]) {
        guard let error else { return raw("null", &bytes) }
        raw("{\"class\":", &bytes); JSONBytes.appendString(error.errorClass.rawValue, to: &bytes)
        if let code = error.curlCode { raw(",\"curlCode\":", &bytes); JSONBytes.appendInt(Int64(code), to: &bytes) }
        raw(",\"message\":", &bytes); JSONBytes.appendString(error.message, to: &bytes)
        raw("}", &bytes)
    }

    private static func key(_ name: String, _ bytes: inout [UInt8]) {
        JSONBytes.appendString(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    private static func raw(_ text: StaticString, _ bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static func bool(_ value: Bool, _ bytes: inout [UInt8]) { raw(value ? "true" : "false", &bytes) }

    private static func string(_ value: String?, _ bytes: inout [UInt8]) {
        if let value { JSONBytes.appendString(value, to: &bytes) } else { raw("null", &bytes) }
    }

    private static func int(_ value: Int?, _ bytes: inout [UInt8]) {
        if let value { JSONBytes.appendInt(Int64(value), to: &bytes) } else { raw("null", &bytes) }
    }

    private static func millis(_ micros: Int64?, _ bytes: inout [UInt8]) {
        if let micros { JSONBytes.appendMillis(micros: micros, to: &bytes) } else { raw("null", &bytes) }
    }

    private static func double(_ value: Double?, _ bytes: inout [UInt8]) {
        if let value, JSONBytes.appendDouble(value, to: &bytes) { return }
        raw("null", &bytes)
    }
}
