import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest
@testable import wirelens
#if canImport(Glibc)
import Glibc
#endif

/// A check (and serve's /probe) refuses to follow a redirect into a link-local address (cloud metadata's
/// 169.254.169.254) or to a scheme other than http and https; the refusal is the check's failure reason and no
/// connection is attempted. `allow_link_local_redirects: true` follows it.
///
/// It all runs in a network namespace of its own (unshare) where 169.254.169.254 is an address of the loopback
/// interface with a listener that records every connection: nothing can leave the machine, and that listener is
/// the witness of whether anything connected. A name in a private /etc/hosts resolving to it checks the refusal of
/// names, made when libcurl asks for a socket, before any connect.
final class LinkLocalRedirectTests: XCTestCase {
    func testChecksRefuseRedirectsIntoLinkLocalAndOtherSchemes() throws {
        try XCTSkipUnless(geteuid() == 0, "a network namespace needs root")
        let directory = CLIHarness.temporaryPath("netns")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let peerScript = TestServers.repositoryRoot.appendingPathComponent("scripts/redirect-peer.py").path
        let a = "http://127.0.0.1:8080/redirect?to="
        try """
            checks:
              - name: metadata
                url: \(a)http://169.254.169.254/record/metadata
              - name: metadata-hex
                url: \(a)http://0xA9FEA9FE/record/metadata-hex
              - name: metadata-mapped
                url: \(a)http://%5B::ffff:169.254.169.254%5D/record/metadata-mapped
              - name: metadata-name
                url: \(a)http://metadata.wirelens.test/record/metadata-name
                expect: { status: 200 }
              - name: ftp
                url: \(a)ftp://127.0.0.1:8080/record/ftp
              - name: file
                url: \(a)file:///etc/passwd
              - name: allowed
                url: \(a)http://169.254.169.254/record/allowed
                allow_link_local_redirects: true
            """.write(toFile: "\(directory)/checks.yaml", atomically: true, encoding: .utf8)
        // serve gets the metadata check alone: its schedule would run the allowed one too.
        try "checks:\n  - name: metadata\n    url: \(a)http://169.254.169.254/record/metadata\n"
            .write(toFile: "\(directory)/serve.yaml", atomically: true, encoding: .utf8)
        try "127.0.0.1 localhost\n169.254.169.254 metadata.wirelens.test\n"
            .write(toFile: "\(directory)/hosts", atomically: true, encoding: .utf8)
        // Inside the namespace: loopback up, the metadata address on it, the peer on both, then the check and a
        // /probe through serve. Every wait is bounded.
        let script = """
            set -u
            cd \(directory)
            mount --bind hosts /etc/hosts
            ip link set lo up
            ip addr add 169.254.169.254/32 dev lo
            python3 \(peerScript) --listen 127.0.0.1@8080 --listen 169.254.169.254@80 --log peer.log --max-seconds 120 > peer.out &
            peer=$!
            for i in $(seq 100); do [ "$(wc -l < peer.out)" -ge 2 ] && break; sleep 0.05; done
            \(CLIHarness.binary) check checks.yaml --no-history > check.out 2> check.err
            echo $? > check.status
            \(CLIHarness.binary) serve --config serve.yaml --listen 127.0.0.1:9469 --no-history 2> serve.err &
            serve=$!
            for i in $(seq 200); do grep -q 'on http://' serve.err && break; sleep 0.05; done
            curl -sS --max-time 30 'http://127.0.0.1:9469/probe?target=metadata' > probe.out 2>&1
            kill $serve; wait $serve
            kill $peer; wait $peer
            """
        let outcome = try ProcessRunner.run("/usr/bin/unshare", ["--net", "--mount", "--", "/bin/sh", "-c", script],
                                            timeout: 120)
        XCTAssertFalse(outcome.signaled, outcome.stderr)
        func read(_ name: String) -> String { (try? String(contentsOfFile: "\(directory)/\(name)", encoding: .utf8)) ?? "" }
        let check = read("check.out")
        XCTAssertEqual(read("check.status").trimmingCharacters(in: .whitespacesAndNewlines),
                       String(ExitStatus.checkFailed.rawValue), check + read("check.err") + outcome.stderr)
        let refused = "refused to follow a redirect to"
        for name in ["metadata", "metadata-hex", "metadata-mapped", "metadata-name", "ftp", "file"] {
            let lines = check.split(separator: "\n")
            let start = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("FAIL  \(name)  ") }, "\(name) failed: \(check)")
            let reason = lines.count > start + 1 ? String(lines[start + 1]) : ""
            XCTAssertTrue(reason.contains(refused), "\(name): the refusal is the reason: \(reason)")
        }
        XCTAssertTrue(check.contains("\(refused) 169.254.169.254, a link-local address"), check)
        XCTAssertTrue(check.contains("\(refused) metadata.wirelens.test (169.254.169.254), a link-local address"), check)
        XCTAssertTrue(check.contains("\(refused) a ftp: URL"), check)
        XCTAssertTrue(check.contains("\(refused) a file: URL"), check)
        XCTAssertTrue(check.contains("PASS  allowed  200"), "allow_link_local_redirects follows it: \(check)")

        let probe = read("probe.out")
        XCTAssertTrue(probe.contains("probe_success{check=\"metadata\"} 0"), "/probe refuses too: \(probe)")
        let records = try RedirectPeer.records(inLog: read("peer.log"))
        let metadata = records.filter { $0.listener.hasPrefix("169.254.169.254:") }
        XCTAssertEqual(metadata.compactMap(\.path), ["/record/allowed"],
                       "only the allowed check reached 169.254.169.254: \(metadata)")
        XCTAssertEqual(metadata.filter { $0.connection == true }.count, 1, "one connection, the allowed check's")
    }
}
