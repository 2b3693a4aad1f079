import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest

/// The phase instants of a probe keep the physical order of the packets (issue 15 item 4), checked against a capture
/// on the client's interface taken during the run: connect start not after the SYN, connect end not before the
/// SYN/ACK, request start not after the first request byte, response start not before the first response byte,
/// 50 µs allowed for clock and capture-timestamp noise.
final class PhaseInstantOrderTests: CapturedRunTestCase {
    /// Python reads the report and tshark's rows of the capture and prints one line per broken order or request
    /// head spread over more than one write (and per h2 connection of which tshark decrypted nothing), then whether the report has the `send-overhead` caveat and
    /// `checked N` (connections matched by their client port). Request and response bytes are the TCP payloads each way,
    /// or in `h2` mode the HEADERS frames each way (tshark decrypts TLS with the key log).
    private static let oracle = """
        import json, sys, datetime
        report, rows, port, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
        def us(text):
            d = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
            return int(d.timestamp()) * 1000000 + d.microsecond
        wire = {}
        for line in open(rows):
            f = line.rstrip("\\n").split("\\t")
            if len(f) < 7: continue
            t = int(round(float(f[0]) * 1e6)); src, dst = int(f[1]), int(f[2])
            syn, ack, size, h2 = f[3] in ("1", "True"), f[4] in ("1", "True"), int(f[5] or 0), f[6]
            client = dst if src == port else src
            w = wire.setdefault(client, {})
            toServer = dst == port
            if syn and not ack and toServer: w.setdefault("syn", t)
            if syn and ack and not toServer: w.setdefault("synack", t)
            request = "1" in h2.split(",") if mode == "h2" else size > 0
            if request and toServer:
                w.setdefault("req", t)
                if "resp" not in w: w["reqlast"] = t
            if request and not toServer: w.setdefault("resp", t)
        doc = json.load(open(report))
        checked = 0
        for task in doc["tasks"]:
            for tx in task["transactions"]:
                ts, p = tx["timestamps"], tx["localPort"]
                w = wire.get(p)
                if w is None or ts["connectStart"] is None:
                    print("unmatched", p); continue
                if mode == "h2" and "req" not in w and "resp" not in w:
                    # tshark decrypted no HTTP/2 frame of this connection either way (its key or a packet of its
                    # records missing from the capture): its order cannot be read off the wire.
                    print("undecrypted", p); continue
                checked += 1
                pairs = [("connectStart", "syn", 1), ("connectEnd", "synack", -1),
                         ("requestStart", "req", 1), ("responseStart", "resp", -1)]
                for name, packet, sign in pairs:
                    if packet not in w:
                        print(p, "no", packet, "on the wire"); continue
                    d = us(ts[name]) - w[packet]
                    # sign 1: the instant must not be after the packet; -1: not before it.
                    if sign * d > 50:
                        print(p, name, "is", abs(d), "us", "after" if d > 0 else "before", packet)
                # A bodyless request's head leaves in one write (the send-overhead caveat says so).
                if "req" in w and w["reqlast"] - w["req"] > 50:
                    print(p, "request head spread over", w["reqlast"] - w["req"], "us on the wire")
        print("caveat", "send-overhead" in [c["id"] for c in doc["caveats"]])
        print("checked", checked)
        """

    /// Runs the probe with `arguments` while recording the server's port, and returns the oracle's lines.
    private func violations(port: Int, mode: String, arguments: [String], keyLog: String? = nil) throws
        -> (lines: [String], checked: Int) {
        let report = WirelensCLI.temporaryPath("order.json")
        let rows = WirelensCLI.temporaryPath("rows.tsv")
        toRemove += [report, rows]
        var outcome: ProcessRunner.Outcome?
        // Headers only where the payload is not read: tcpdump keeps up with 200 connections.
        let capture = try record(port: port, options: keyLog == nil ? ["-s", "128"] : []) {
            outcome = try WirelensCLI.run(["probe"] + arguments + ["--format", "json", "--report", report, "-q"],
                                          timeout: 90)
        }
        XCTAssertEqual(outcome?.status, 0, outcome?.stderr ?? "")
        var tshark = ["-r", capture, "-T", "fields", "-e", "frame.time_epoch", "-e", "tcp.srcport", "-e", "tcp.dstport",
                      "-e", "tcp.flags.syn", "-e", "tcp.flags.ack", "-e", "tcp.len", "-e", "http2.type"]
        if let keyLog { tshark += ["-o", "tls.keylog_file:\(keyLog)"] }
        let out = try ProcessRunner.run("/usr/bin/tshark", tshark, timeout: 60)
        XCTAssertEqual(out.status, 0, out.stderr)
        try out.stdout.write(toFile: rows, atomically: true, encoding: .utf8)
        let check = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", Self.oracle, report, rows, String(port), mode],
                                          timeout: 60)
        XCTAssertEqual(check.status, 0, check.stderr)
        var lines = check.stdout.split(separator: "\n").map(String.init)
        let last = lines.popLast() ?? ""
        let caveat = lines.popLast() ?? ""
        // Item 5: the send phase of these GETs is libcurl's own work, which the report must say.
        XCTAssertEqual(caveat, "caveat True", "the report's send-overhead caveat")
        return (lines, Int(last.split(separator: " ").last ?? "") ?? 0)
    }

    func testTwoHundredFreshConnectionsKeepThePacketOrder() throws {
        let result = try violations(port: servers.httpPort, mode: "h1", arguments: [
            servers.http("/small.txt"), "--no-reuse", "--repeat", "200", "--concurrency", "10"])
        XCTAssertEqual(result.checked, 200)
        XCTAssertEqual(result.lines, [], "instants out of the wire's order")
    }

    /// HTTP/2 over TLS, its request with 60 headers of 100 bytes: libcurl's set-up of the request between
    /// PREREQFUNCTION and PRETRANSFER is long, and on main, whose instants were counted back from PRETRANSFER, a
    /// tenth of the connections ended their connect phase before the SYN/ACK.
    func testTLSConnectionsKeepThePacketOrder() throws {
        let keyLog = WirelensCLI.temporaryPath("keys.log")
        toRemove.append(keyLog)
        setenv("SSLKEYLOGFILE", keyLog, 1)
        defer { unsetenv("SSLKEYLOGFILE") }
        let padding = String(repeating: "b", count: 100)
        let headers = (1...60).flatMap { ["-H", "X-Pad-\($0): \(padding)"] }
        let result = try violations(port: servers.httpsPort, mode: "h2", arguments: [
            servers.https("/small.txt"), "--cacert", servers.certPath, "--http2", "--no-reuse", "--repeat", "100",
            "--concurrency", "3"] + headers, keyLog: keyLog)
        // A connection tshark could not decrypt at all is left out (1 of 100 once in CI), never more than a few.
        let undecrypted = result.lines.filter { $0.hasPrefix("undecrypted ") }
        XCTAssertLessThanOrEqual(undecrypted.count, 3, "connections tshark could not decrypt")
        XCTAssertEqual(result.checked + undecrypted.count, 100)
        XCTAssertEqual(result.lines.filter { !$0.hasPrefix("undecrypted ") }, [], "instants out of the wire's order")
    }
}
