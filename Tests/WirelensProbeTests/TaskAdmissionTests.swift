import Synchronization
import WirelensCore
import XCTest
@testable import WirelensProbe

/// `TaskAdmission` numbers and starts tasks without a transfer. Oracle: the engine's contract as `Engine.run`
/// documents it (task i of a submission runs `specs[i % specs.count]`, indices run on across submissions, at most
/// the concurrency at once, a submission after a cancel is dropped and its batch completes with no record).
final class TaskAdmissionTests: XCTestCase {
    private func profile() throws -> TaskProfile {
        try TaskProfile(options: ProbeOptions(), anchor: LifecycleFixtures.anchor)
    }

    private func specs(_ urls: String...) -> [TaskSpec] {
        urls.map { TaskSpec(url: $0, response: .discard) }
    }

    func testTasksStartInOrderUpToTheLimitAndIndicesRunOnAcrossSubmissions() throws {
        var admission = TaskAdmission()
        let profile = try profile()
        admission.admit(specs: specs("http://a.example/", "http://b.example/"), profile: profile, count: 3,
                        batch: Batch(count: 3, onTaskFinished: nil, completion: { _ in }))
        admission.admit(specs: specs("http://c.example/"), profile: profile, count: 1,
                        batch: Batch(count: 1, onTaskFinished: nil, completion: { _ in }))
        let first = try XCTUnwrap(admission.nextTask(limit: 2))
        let second = try XCTUnwrap(admission.nextTask(limit: 2))
        XCTAssertNil(admission.nextTask(limit: 2), "two run, the limit")
        XCTAssertEqual([first.spec.url, second.spec.url], ["http://a.example/", "http://b.example/"])
        XCTAssertEqual([first.batchSlot, second.batchSlot], [0, 1])
        admission.finished()
        let third = try XCTUnwrap(admission.nextTask(limit: 2))
        XCTAssertEqual(third.spec.url, "http://a.example/", "task 2 runs specs[2 % 2]")
        admission.finished()
        let fourth = try XCTUnwrap(admission.nextTask(limit: 2))
        XCTAssertEqual(fourth.spec.url, "http://c.example/")
        XCTAssertEqual(fourth.batchSlot, 0)
        XCTAssertEqual(admission.running, 2)
        XCTAssertEqual(fourth.lifecycle.index, 3, "the second submission's task follows the first's three")
        XCTAssertNil(admission.nextTask(limit: 9))
    }

    func testALimitBelowOneStillRunsOne() throws {
        var admission = TaskAdmission()
        admission.admit(specs: specs("http://a.example/"), profile: try profile(), count: 2,
                        batch: Batch(count: 2, onTaskFinished: nil, completion: { _ in }))
        XCTAssertNotNil(admission.nextTask(limit: 0))
        XCTAssertNil(admission.nextTask(limit: 0))
    }

    func testAfterACancelASubmissionIsDroppedAndUnstartedTasksSettleWithNothing() throws {
        let completed = Mutex<[Int]>([])
        var admission = TaskAdmission()
        let profile = try profile()
        admission.admit(specs: specs("http://a.example/"), profile: profile, count: 3,
                        batch: Batch(count: 3, onTaskFinished: nil, completion: { records in
                            completed.withLock { $0.append(records.count) }
                        }))
        let started = try XCTUnwrap(admission.nextTask(limit: 1))
        admission.dropUnstarted()
        XCTAssertEqual(completed.withLock { $0 }, [], "the started task has not settled")
        started.batch.settle(slot: started.batchSlot, record: nil)
        XCTAssertEqual(completed.withLock { $0 }, [0], "three slots settled, none with a record")
        admission.cancelled = true
        admission.admit(specs: specs("http://a.example/"), profile: profile, count: 2,
                        batch: Batch(count: 2, onTaskFinished: nil, completion: { records in
                            completed.withLock { $0.append(records.count) }
                        }))
        XCTAssertEqual(completed.withLock { $0 }, [0, 0], "dropped at once")
        XCTAssertNil(admission.nextTask(limit: 1))
    }

    func testParkedTasksAreTakenOutAndParkedAgain() throws {
        var admission = TaskAdmission()
        admission.admit(specs: specs("http://a.example/"), profile: try profile(), count: 1,
                        batch: Batch(count: 1, onTaskFinished: nil, completion: { _ in }))
        let task = try XCTUnwrap(admission.nextTask(limit: 1))
        admission.park(task)
        XCTAssertEqual(admission.takeParked().count, 1)
        XCTAssertTrue(admission.parked.isEmpty)
    }
}
