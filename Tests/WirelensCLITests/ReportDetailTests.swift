import Foundation
import WirelensTestSupport
import XCTest
@testable import wirelens

/// `--detail` (issue 30 item 1): the default record leaves out what is for debugging a measurement (`offsetsMs`,
/// `curlTimersUs`, `tcp.samples`) and keeps the rest; `full` writes them, its offsets the timestamps less the task's
/// start as Python's datetime computes them; `render` converts a stored `wirelens.report/1` document without losing
/// a value of it. Held to nginx's access log (the requests made, each one's TLS version) and to Python's reading of
/// the documents.
final class ReportDetailTests: XCTestCase {
    /// A temporary path, removed when the test ends.
    private func path(_ name: String) -> String {
        let path = CLIHarness.temporaryPath(name)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// Runs Python's `script` with `arguments`; fails the test with its stderr unless it exits 0; its stdout.
    private func python(_ script: String, _ arguments: [String], file: StaticString = #filePath,
                        line: UInt = #line) throws -> String {
        let run = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", script] + arguments, timeout: 60)
        XCTAssertEqual(run.status, 0, run.stderr, file: file, line: line)
        return run.stdout
    }

    /// The two levels of the same kind of run (three GETs over TLS on one connection): standard has none of the debug
    /// members, full has them, and every other member is there in both, with the same timestamps and phases present
    /// (a value, or null for a phase that did not happen) in each task.
    func testTheDefaultRecordLeavesOutTheDebugMembersOnly() throws {
        let servers = try TestServers.get()
        let nginx = try OwnNginx([OwnNginx.Server(tls: true)])
        var reports: [String: String] = [:]
        for level in ["standard", "full"] {
            let report = path("detail-\(level).json")
            let flags = level == "full" ? ["--detail", "full"] : []
            let run = try CLIHarness.run(["probe", "-q", "--repeat", "3", "--concurrency", "1", "--format", "json",
                                          "--report", report, "--cacert", servers.certPath]
                                         + flags + [nginx.url(0, "/small.txt?\(level)", tls: true)])
            XCTAssertEqual(run.status, 0, run.stderr)
            try CLIHarness.assertValid(report, schema: "report.schema.json")
            reports[level] = report
            // nginx's account: three requests, each with the TLS version the report gives its transaction.
            let logged = nginx.logged("/small.txt?\(level)")
            XCTAssertEqual(logged.count, 3, "\(logged)")
            let versions = try python("""
                import json, sys
                d = json.load(open(sys.argv[1]))
                print(" ".join(x["tlsVersion"] for t in d["tasks"] for x in t["transactions"]))
                """, [report])
            XCTAssertEqual(versions.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) },
                           logged.map(\.tlsProtocol))
        }
        let checked = try python("""
            import json, sys
            from datetime import datetime
            std, full = (json.load(open(p)) for p in sys.argv[1:3])
            assert std["schema"] == full["schema"] == "wirelens.report/2", (std["schema"], full["schema"])
            assert (std["detail"], full["detail"]) == ("standard", "full")
            def micros(text):
                d = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ") - datetime(1970, 1, 1)
                return (d.days * 86400 + d.seconds) * 1_000_000 + d.microseconds
            debug = {"offsetsMs", "curlTimersUs"}
            samples = 0
            assert len(std["tasks"]) == len(full["tasks"]) == 3
            for s, f in zip(std["tasks"], full["tasks"]):
                start = micros(f["startedAt"])
                assert len(s["transactions"]) == len(f["transactions"])
                for a, b in zip(s["transactions"], f["transactions"]):
                    assert not (debug & a.keys()), a.keys()
                    assert a.get("tcp") is None or "samples" not in a["tcp"], a["tcp"].keys()
                    assert set(b) - set(a) == debug, set(b) ^ set(a)
                    assert set(a["timestamps"]) == set(b["timestamps"]) == set(b["offsetsMs"])
                    assert set(a["phasesMs"]) == set(b["phasesMs"])
                    for key in a["timestamps"]:
                        assert (a["timestamps"][key] is None) == (b["timestamps"][key] is None), key
                        stamp = b["timestamps"][key]
                        if stamp is None:
                            assert b["offsetsMs"][key] is None, key
                        else:
                            assert abs(b["offsetsMs"][key] - (micros(stamp) - start) / 1000) < 0.0005, \\
                                (key, b["offsetsMs"][key], micros(stamp) - start)
                    for key in a["phasesMs"]:
                        assert (a["phasesMs"][key] is None) == (b["phasesMs"][key] is None), key
                    assert a["reusedConnection"] == b["reusedConnection"]
                    assert set(b["curlTimersUs"]) == {"nameLookup", "connect", "appConnect", "preTransfer",
                                                      "startTransfer", "total"}
                    if b.get("tcp"):
                        assert set(b["tcp"]) - set(a["tcp"]) <= {"samples"}
                        samples += len(b["tcp"].get("samples", []))
            size = lambda d: sum(len(json.dumps(t, separators=(",", ":"))) for t in d["tasks"]) / len(d["tasks"])
            assert size(std) < size(full), (size(std), size(full))
            print(samples, round(size(std)), round(size(full)))
            """, [reports["standard"] ?? "", reports["full"] ?? ""])
        print("kernel samples at full, bytes per task standard and full:", checked)
    }

    /// `render --format json` of a stored `wirelens.report/1` document (a real download's, with samples) writes the
    /// current version: at `full` every member and value of the fixture, at `--detail standard` all but the debug
    /// members, each checked by Python against the fixture's own fields; its text and HAR are the fixture's; and a
    /// standard report cannot be written full.
    func testRenderConvertsAVersionOneReport() throws {
        let fixture = TestServers.repositoryRoot.appendingPathComponent("Tests/Fixtures/reports/report-v1-download.json").path
        let full = path("converted-full.json")
        let standard = path("converted-standard.json")
        for (output, flags) in [(full, [String]()), (standard, ["--detail", "standard"])] {
            let run = try CLIHarness.run(["render", fixture, "--format", "json"] + flags)
            XCTAssertEqual(run.status, 0, run.stderr)
            try run.stdout.write(toFile: output, atomically: true, encoding: .utf8)
            try CLIHarness.assertValid(output, schema: "report.schema.json")
        }
        let checked = try python("""
            import json, sys
            old, full, std = (json.load(open(p)) for p in sys.argv[1:4])
            assert old["schema"] == "wirelens.report/1" and "detail" not in old
            assert full.pop("schema") == std.pop("schema") == "wirelens.report/2"
            assert (full.pop("detail"), std.pop("detail")) == ("full", "standard")
            old.pop("schema")
            assert full == old, "the converted report differs from the stored one"
            samples = 0
            for t in old["tasks"]:
                for x in t["transactions"]:
                    del x["offsetsMs"], x["curlTimersUs"]
                    if x.get("tcp"):
                        samples += len(x["tcp"].pop("samples"))
            assert std == old, "the standard report differs from the stored one beyond the debug members"
            assert samples > 0
            print(samples)
            """, [fixture, full, standard])
        XCTAssertGreaterThan(Int(checked.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, 0)
        // Text and HAR need nothing standard leaves out: the stored report and its lean form give the same text, and
        // the same HAR but for the samples in its entries' `_tcp` (the report's `tcp`, as held).
        var outputs: [String: [String]] = [:]
        for format in ["text", "har"] {
            let runs = try [fixture, standard].map { try CLIHarness.run(["render", $0, "--format", format, "--no-color"]) }
            XCTAssertEqual(runs.map(\.status), [0, 0], runs.map(\.stderr).joined())
            outputs[format] = runs.map(\.stdout)
        }
        XCTAssertEqual(outputs["text"]?[0], outputs["text"]?[1])
        let hars = try (outputs["har"] ?? []).enumerated().map { index, text in
            let har = path("render-\(index).har")
            try text.write(toFile: har, atomically: true, encoding: .utf8)
            return har
        }
        _ = try python("""
            import json, sys
            whole, lean = (json.load(open(p)) for p in sys.argv[1:3])
            samples = 0
            for entry in whole["log"]["entries"]:
                samples += len((entry.get("_tcp") or {}).pop("samples", []))
            assert samples > 0 and whole == lean, "the HARs differ beyond the samples"
            """, hars)
        try CLIHarness.assertFails(["render", standard, "--format", "json", "--detail", "full"], code: .usage,
                                   mention: "--detail standard")
    }
    /// `compare --detail full` embeds full reports, four GETs in each run as nginx logged them; `render --detail
    /// standard` leans each embedded report, and a lean document cannot be rendered full.
    func testCompareEmbedsReportsAtItsDetail() throws {
        let nginx = try OwnNginx([OwnNginx.Server(tls: false)])
        let full = path("compare-full.json")
        let run = try CLIHarness.run(["compare", nginx.url(0, "/small.txt?compare", tls: false), "--limits", "1,2",
                                      "--modes", "h1", "--workload", "requests:4", "--repeat", "1", "-q",
                                      "--format", "json", "--detail", "full", "--report", full])
        XCTAssertEqual(run.status, 0, run.stderr)
        try CLIHarness.assertValid(full, schema: "compare.schema.json")
        XCTAssertEqual(nginx.logged("/small.txt?compare").count, 8, "two runs of four GETs")
        let lean = path("compare-standard.json")
        let rendered = try CLIHarness.run(["render", full, "--format", "json", "--detail", "standard"])
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        try rendered.stdout.write(toFile: lean, atomically: true, encoding: .utf8)
        try CLIHarness.assertValid(lean, schema: "compare.schema.json")
        _ = try python("""
            import json, sys
            full, lean = (json.load(open(p)) for p in sys.argv[1:3])
            assert len(full["runs"]) == len(lean["runs"]) == 2
            for f, l in zip(full["runs"], lean["runs"]):
                assert (f["report"]["detail"], l["report"]["detail"]) == ("full", "standard")
                ft = [x for t in f["report"]["tasks"] for x in t["transactions"]]
                lt = [x for t in l["report"]["tasks"] for x in t["transactions"]]
                assert len(ft) == len(lt) == 4
                assert all("offsetsMs" in x and "curlTimersUs" in x for x in ft)
                for a, b in zip(lt, ft):
                    del b["offsetsMs"], b["curlTimersUs"]
                    if b.get("tcp"):
                        b["tcp"].pop("samples", None)
                    assert a == b, "an embedded transaction differs beyond the debug members"
            """, [full, lean])
        try CLIHarness.assertFails(["render", lean, "--format", "json", "--detail", "full"], code: .usage,
                                   mention: "--detail standard")
    }
}
