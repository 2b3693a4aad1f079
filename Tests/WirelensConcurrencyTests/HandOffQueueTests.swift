import XCTest
import WirelensConcurrency

final class HandOffQueueTests: XCTestCase {
    /// Values cross between threads in order, through a queue far smaller than the stream (so both sides wait).
    func testValuesArriveInOrderThroughASmallQueue() {
        let queue = HandOffQueue<Int>(capacity: 3)
        let count = 10_000
        let producer = BackgroundThread(name: "test-producer") {
            for i in 0..<count { queue.put(i) }
            queue.close()
        }
        var received: [Int] = []
        while let value = queue.take() { received.append(value) }
        producer.join()
        XCTAssertEqual(received, Array(0..<count))
    }

    /// After a close, what was queued can still be taken, then nil; a put is refused.
    func testCloseKeepsQueuedValuesAndRefusesNewOnes() {
        let queue = HandOffQueue<String>(capacity: 4)
        XCTAssertTrue(queue.put("a"))
        XCTAssertTrue(queue.put("b"))
        queue.close()
        XCTAssertFalse(queue.put("c"))
        XCTAssertEqual(queue.take(), "a")
        XCTAssertEqual(queue.take(), "b")
        XCTAssertNil(queue.take())
    }

    /// A sender blocked on a full queue wakes up when it is closed (and its value is refused).
    func testCloseWakesABlockedSender() {
        let queue = HandOffQueue<Int>(capacity: 1)
        queue.put(1)
        let outcome = HandOffQueue<Bool>(capacity: 1)
        let sender = BackgroundThread(name: "test-sender") { outcome.put(queue.put(2)) }
        queue.close()
        sender.join()
        XCTAssertEqual(outcome.take(), false)
        XCTAssertEqual(queue.take(), 1)
        XCTAssertNil(queue.take())
    }

    /// The consumer sees every value in order on its own thread; `finish` waits for the last one.
    func testWriteBehindConsumesEverythingInOrder() throws {
        let seen = HandOffQueue<Int>(capacity: 1000)
        let behind = WriteBehind<Int>(name: "test-write", capacity: 2) { value in
            XCTAssertFalse(Thread.isMainThread)
            seen.put(value)
        }
        for i in 0..<500 { behind.add(i) }
        try behind.finish()
        XCTAssertEqual(drain(seen), Array(0..<500))
    }

    /// The consumer's first error comes out of `finish`; the values after it are not consumed.
    func testWriteBehindReportsTheFirstError() {
        struct Full: Error, Equatable { let at: Int }
        let consumed = HandOffQueue<Int>(capacity: 100)
        let behind = WriteBehind<Int>(name: "test-write-error") { value in
            if value >= 3 { throw Full(at: value) }
            consumed.put(value)
        }
        for i in 0..<10 { behind.add(i) }
        XCTAssertThrowsError(try behind.finish()) { XCTAssertEqual($0 as? Full, Full(at: 3)) }
        XCTAssertEqual(drain(consumed), [0, 1, 2])
    }

    /// Batched by weight, values still arrive in order, and `finish` hands over the last, lighter batch.
    func testWriteBehindBatchesByWeightAndFlushesTheRest() throws {
        let seen = HandOffQueue<Int>(capacity: 1000)
        let behind = WriteBehind<Int>(name: "test-write-batches", capacity: 1, batchWeight: 10,
                                      weight: { $0 % 3 + 1 }) { seen.put($0) }
        for i in 0..<301 { behind.add(i) }
        try behind.finish()
        XCTAssertEqual(drain(seen), Array(0..<301))
    }

    /// Closes `queue` and takes everything in it.
    private func drain(_ queue: HandOffQueue<Int>) -> [Int] {
        queue.close()
        var values: [Int] = []
        while let value = queue.take() { values.append(value) }
        return values
    }
}
