import Foundation
import WirelensTestSupport
import XCTest
@testable import WirelensProbe

/// The host sampler on this machine, against the kernel as Python reads it (os.sched_getaffinity, /proc/self/cgroup).
final class HostSamplerTests: XCTestCase {
    func testTheLimitsAreTheKernelsAndTheThreadsClockMoves() throws {
        let sampler = HostSampler()
        let python = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", """
            import os
            print(len(os.sched_getaffinity(0)))
            for line in open('/proc/self/cgroup'):
                n, controllers, path = line.rstrip('\\n').split(':', 2)
                if 'cpu' in controllers.split(','): print(path)
            """])
        XCTAssertEqual(python.status, 0, python.stderr)
        let lines = python.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(sampler.limits.cpusAllowed, Int(lines.first ?? ""), "os.sched_getaffinity")
        // The child's cgroup is the test process's (a child starts in its parent's).
        if lines.count > 1 { XCTAssertEqual(sampler.limits.cgroup, lines[1], "/proc/self/cgroup's cpu line") }
        let first = try XCTUnwrap(sampler.snapshot(now: 0))
        XCTAssertNotNil(first.runQueueWait, "this kernel keeps scheduler statistics (/proc/thread-self/schedstat)")
        // A snapshot younger than the reuse age is the same one; a later one has run the busy loop below.
        XCTAssertEqual(sampler.snapshot(now: HostSampler.reuseAge - 1)?.at, first.at)
        var x = 0.0
        for i in 0..<3_000_000 { x += Double(i).squareRoot() }
        XCTAssertGreaterThan(x, 0)
        let later = try XCTUnwrap(sampler.snapshot(now: 10 * HostSampler.reuseAge))
        XCTAssertGreaterThan(later.cpuTime, first.cpuTime)
    }
}
