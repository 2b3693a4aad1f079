import Foundation
import WirelensTestSupport

/// tshark's own reading of a capture: the independent oracle the integration tests compare against.
enum TsharkOracle {
    /// One row of `tshark -z conv,tcp`: the two ends and the frames of the conversation.
    struct Conversation: Hashable {
        var ports: Set<Int>
        var frames: Int
    }

    private static func run(_ arguments: [String]) throws -> String {
        let outcome = try ProcessRunner.run("/usr/bin/tshark", arguments, timeout: 60)
        guard outcome.status == 0 else {
            throw LoopbackCapture.Failure(description: "tshark \(arguments) failed: \(outcome.stderr)")
        }
        return outcome.stdout
    }

    /// `tshark -r FILE -q -z conv,tcp`: one entry per TCP conversation (tshark splits reused 4-tuples by stream).
    static func conversations(_ path: String) throws -> [Conversation] {
        try run(["-r", path, "-q", "-z", "conv,tcp"]).split(separator: "\n").compactMap { line in
            guard line.contains("<->") else { return nil }
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // a <-> b  framesIn bytesIn unit? ... : the total frames column follows the two direction pairs.
            guard fields.count >= 4 else { return nil }
            let ports = Set([fields[0], fields[2]].compactMap { $0.split(separator: ":").last.flatMap { Int($0) } })
            // Columns: frames and bytes (with a unit) from b to a, from a to b, then in total.
            var values: [Int] = []
            var i = fields.index(fields.startIndex, offsetBy: 3)
            while i < fields.endIndex && values.count < 5 {
                if let v = Int(fields[i]) { values.append(v) }
                i += 1
                if i < fields.endIndex, ["bytes", "kB", "MB", "GB"].contains(String(fields[i])) { i += 1 }
            }
            guard values.count >= 5 else { return nil }
            return Conversation(ports: ports, frames: values[4])
        }
    }

    /// HTTP requests per TCP stream, in stream order: `[stream: [method target]]`.
    ///
    /// Every port a SYN went to is decoded as HTTP: by default tshark picks the dissector of the lower port, and an
    /// ephemeral client port can be one another protocol registered (3306 MySQL, 5060 SIP), which hid a stream's
    /// requests in a CI run.
    static func requestsPerStream(_ path: String) throws -> [Int: [String]] {
        var result: [Int: [String]] = [:]
        let decodeAs = try serverPorts(path).sorted().flatMap { ["-d", "tcp.port==\($0),http"] }
        let out = try run(["-r", path] + decodeAs + ["-Y", "http.request", "-T", "fields", "-E", "separator=|",
                           "-e", "tcp.stream", "-e", "http.request.method", "-e", "http.request.uri"])
        for line in out.split(separator: "\n") {
            let f = line.split(separator: "|", omittingEmptySubsequences: false)
            guard f.count == 3, let stream = Int(f[0]) else { continue }
            let methods = f[1].split(separator: ","), uris = f[2].split(separator: ",")
            for (m, u) in zip(methods, uris) { result[stream, default: []].append("\(m) \(u)") }
        }
        return result
    }

    /// The ports the capture's SYNs (without ACK) went to.
    static func serverPorts(_ path: String) throws -> Set<Int> {
        Set(try run(["-r", path, "-Y", "tcp.flags.syn==1 && tcp.flags.ack==0", "-T", "fields", "-e", "tcp.dstport"])
            .split(separator: "\n").compactMap { Int($0) })
    }

    /// Number of TCP streams tshark saw (`tcp.stream` indices).
    static func streamCount(_ path: String) throws -> Int {
        Set(try run(["-r", path, "-T", "fields", "-e", "tcp.stream"]).split(separator: "\n")).count
    }

    /// The client port of each TCP stream (the sender of the SYN without ACK).
    static func clientPorts(_ path: String) throws -> [Int: Int] {
        var result: [Int: Int] = [:]
        let out = try run(["-r", path, "-Y", "tcp.flags.syn==1 && tcp.flags.ack==0", "-T", "fields", "-E",
                           "separator=|", "-e", "tcp.stream", "-e", "tcp.srcport"])
        for line in out.split(separator: "\n") {
            let f = line.split(separator: "|")
            if f.count == 2, let s = Int(f[0]), let p = Int(f[1]), result[s] == nil { result[s] = p }
        }
        return result
    }

    /// SYN to SYN/ACK per client port, in µs, as the capture's timestamps show them (the first of each), and SYN to
    /// the client's first ACK after it (the handshake's third packet; nil when the capture does not hold it).
    static func handshakeTimes(_ path: String, serverPort: Int) throws -> [Int: (synAck: Int64, ack: Int64?)] {
        var syn: [Int: Double] = [:]
        var times: [Int: (synAck: Int64, ack: Int64?)] = [:]
        let rows = try run(["-r", path, "-Y", "tcp.flags.syn == 1 || tcp.flags.ack == 1", "-T", "fields",
                            "-e", "frame.time_epoch", "-e", "tcp.srcport", "-e", "tcp.dstport", "-e", "tcp.flags.syn",
                            "-e", "tcp.flags.ack"])
        func set(_ text: String) -> Bool { text == "1" || text == "True" }
        for line in rows.split(separator: "\n") {
            let f = line.split(separator: "\t").map(String.init)
            guard f.count == 5, let t = Double(f[0]), let src = Int(f[1]), let dst = Int(f[2]) else { continue }
            let (isSyn, isAck) = (set(f[3]), set(f[4]))
            let micros = { (sent: Double) in Int64(((t - sent) * 1e6).rounded()) }
            if isSyn, !isAck, dst == serverPort, syn[src] == nil { syn[src] = t }
            if isSyn, isAck, src == serverPort, let sent = syn[dst], times[dst] == nil {
                times[dst] = (micros(sent), nil)
            }
            if !isSyn, isAck, dst == serverPort, let sent = syn[src], let seen = times[src], seen.ack == nil {
                times[src] = (seen.synAck, micros(sent))
            }
        }
        return times
    }

    /// The values of `field` in the frames matching `filter`, one per frame in capture order; `decodeAs` is a
    /// `-d` argument (`tcp.port==55555,http`) for a port tshark would not read as HTTP on its own.
    static func values(_ path: String, filter: String, field: String, decodeAs: String? = nil) throws -> [String] {
        var arguments = ["-r", path, "-Y", filter, "-T", "fields", "-e", field]
        if let decodeAs { arguments += ["-d", decodeAs] }
        return try run(arguments).split(separator: "\n").map(String.init)
    }
}
