import Foundation
import WirelensTestSupport
import XCTest

/// A test that runs the probe against the shared loopback servers while tcpdump records, and removes the files it
/// made when it ends.
class CapturedRunTestCase: XCTestCase {
    var servers: TestServers!
    /// Files removed after each test.
    var toRemove: [String] = []

    override func setUpWithError() throws {
        servers = try TestServers.get()
    }

    override func tearDown() {
        for path in toRemove { unlink(path) }
        toRemove = []
    }

    /// Records TCP `port` on loopback while `body` runs (`options`: more of tcpdump's, such as a snap length); the
    /// capture is removed after the test.
    func record(port: Int, options: [String] = [], during body: () throws -> Void) throws -> String {
        let path = try LoopbackCapture.record(filter: "tcp port \(port)", options: options, during: body)
        toRemove.append(path)
        return path
    }
}
