import Foundation
import WirelensCore
import WirelensTestSupport
import XCTest

/// `wirelens --version` names the libraries the process runs with, checked against the libraries themselves.
final class VersionLineTests: XCTestCase {
    /// Python loads the very libcurl, libcrypto and libnghttp2 files the executable resolves (ldd), and libpcap by
    /// the soname the executable loads it by when it needs it (`libpcap.so.0.8`, through the same loader), and asks
    /// each for its version: the line must name those, in that order.
    func testVersionNamesTheLibrariesItRunsWith() throws {
        let oracle = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", """
            import ctypes, re, subprocess, sys
            paths = {}
            for line in subprocess.run(["ldd", sys.argv[1]], capture_output=True, text=True, check=True).stdout.splitlines():
                m = re.match(r"\\s*(lib[a-z0-9]+)\\.so\\S* => (\\S+)", line)
                if m: paths[m.group(1)] = m.group(2)
            curl = ctypes.CDLL(paths["libcurl"]); curl.curl_version.restype = ctypes.c_char_p
            curl_version = curl.curl_version().decode().split()[0].split("/")[1]
            crypto = ctypes.CDLL(paths["libcrypto"]); crypto.OpenSSL_version.restype = ctypes.c_char_p
            openssl = crypto.OpenSSL_version(6).decode()  # OPENSSL_VERSION_STRING
            class Info(ctypes.Structure):
                _fields_ = [("age", ctypes.c_int), ("num", ctypes.c_int), ("str", ctypes.c_char_p), ("proto", ctypes.c_char_p)]
            ng = ctypes.CDLL(paths["libnghttp2"]); ng.nghttp2_version.restype = ctypes.POINTER(Info)
            nghttp2 = ng.nghttp2_version(0).contents.str.decode()
            pcap = ctypes.CDLL(paths.get("libpcap", "libpcap.so.0.8")); pcap.pcap_lib_version.restype = ctypes.c_char_p
            pcap_version = re.search(r"version (\\S+)", pcap.pcap_lib_version().decode()).group(1)
            print(f"libcurl {curl_version}, OpenSSL {openssl}, nghttp2 {nghttp2}, libpcap {pcap_version}")
            """, WirelensCLI.path])
        XCTAssertEqual(oracle.status, 0, oracle.stderr)
        let libraries = oracle.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let outcome = try WirelensCLI.run(["--version"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.stdout, "wirelens \(WirelensVersion.current) (\(libraries))\n")
    }
}
