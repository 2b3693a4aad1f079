import WirelensCaptureModel
import XCTest
@testable import WirelensCapture
import WirelensTestSupport

/// The flat flow table against a Dictionary (the oracle) over a fixed-seed run of inserts and removals: keys that
/// collide in their buckets, removals from the middle of probe runs, growth while full runs are held.
final class FlowTableTests: XCTestCase {
    func testLookupsAndRemovalsAgreeWithADictionary() {
        var table = FlowTable<ConnectionState>()
        var model: [FlowKey: Int] = [:]
        var random = SplitMix64(seed: 0xF10A_7AB1)
        // 3000 client ports on 4 addresses: the table grows several times and its probe runs get long.
        let keys = Self.keys(3000, addresses: 4, firstPort: 20_000)
        var nextIndex = 0
        for step in 0..<40_000 {
            let key = keys[Int(random.next() % UInt64(keys.count))]
            if model[key] == nil, random.next() % 3 != 0 {
                table.insert(Self.state(index: nextIndex, key: key), at: key)
                model[key] = nextIndex
                nextIndex += 1
            } else if model[key] != nil {
                XCTAssertEqual(table.remove(key) { $0.record.index }, model[key], "step \(step)")
                model[key] = nil
                XCTAssertNil(table.remove(key) { _ in true }, "step \(step): removed twice")
            }
            if step % 1000 == 0 {
                for probe in keys {
                    XCTAssertEqual(table.slot(of: probe).map { table[slot: $0].record.index }, model[probe],
                                   "step \(step)")
                }
            }
        }
        XCTAssertEqual(table.count, model.count)
        var seen: [Int] = []
        table.forEach { key, state in
            XCTAssertEqual(model[key], state.record.index)
            seen.append(state.record.index)
        }
        XCTAssertEqual(seen.sorted(), model.values.sorted())
        var drained: [Int] = []
        table.removeAll { drained.append($0.record.index) }
        XCTAssertEqual(drained, model.values.sorted(), "in order of their numbers")
        XCTAssertEqual(table.count, 0)
        XCTAssertNil(table.slot(of: keys[0]))
    }

    /// `set`, `removeValue(at:)`, the subscript by key and `removeAll` (what the tombstones use) against a Dictionary
    /// over a fixed-seed run: values replaced in place, removals of absent keys, growth.
    func testSetAndRemoveByKeyAgreeWithADictionary() {
        var table = FlowTable<Int>()
        var model: [FlowKey: Int] = [:]
        var random = SplitMix64(seed: 0x70B5_70E5)
        let keys = Self.keys(2500, addresses: 3, firstPort: 30_000)
        for step in 0..<30_000 {
            let key = keys[Int(random.next() % UInt64(keys.count))]
            if random.next() % 3 == 0 {
                table.removeValue(at: key)
                model[key] = nil
            } else {
                table.set(step, at: key)
                model[key] = step
            }
            XCTAssertEqual(table[key], model[key], "step \(step)")
            if step % 1000 == 0 {
                for probe in keys { XCTAssertEqual(table[probe], model[probe], "step \(step)") }
                XCTAssertEqual(table.count, model.count, "step \(step)")
            }
        }
        table.removeAll()
        XCTAssertEqual(table.count, 0)
        XCTAssertTrue(keys.allSatisfy { table[$0] == nil })
    }

    /// Both directions of a flow make the same key, its ends ordered IPv4 before IPv6, then by address (high word
    /// first), then by port: the orders worked out by hand below.
    func testAKeyOrdersItsEndsTheSameWayForBothDirections() {
        let v4a80 = Endpoint(address: IPAddress(v4: 10, 0, 0, 1), port: 80)
        let v4a9000 = Endpoint(address: IPAddress(v4: 10, 0, 0, 1), port: 9000)
        let v4b80 = Endpoint(address: IPAddress(v4: 10, 0, 0, 2), port: 80)
        let v4c1 = Endpoint(address: IPAddress(v4: 192, 168, 0, 1), port: 1)
        // ::1 and 2001:db8::1: the low word of ::1 (1) is below 2001:db8::1's (1 too), its high word (0) lower.
        let v6loop = Endpoint(address: IPAddress(v6High: 0, low: 1), port: 443)
        let v6doc = Endpoint(address: IPAddress(v6High: 0x2001_0DB8_0000_0000, low: 1), port: 2)
        let v6docLow = Endpoint(address: IPAddress(v6High: 0x2001_0DB8_0000_0000, low: 0), port: 65535)
        let cases: [(Endpoint, Endpoint, lower: Endpoint)] = [
            (v4a80, v4a9000, v4a80), (v4a9000, v4b80, v4a9000), (v4b80, v4c1, v4b80), (v4c1, v6loop, v4c1),
            (v6loop, v6doc, v6loop), (v6docLow, v6doc, v6docLow), (v4c1, v6docLow, v4c1),
        ]
        for (a, b, lower) in cases {
            let upper = lower == a ? b : a
            for key in [FlowKey(a, b), FlowKey(b, a)] {
                XCTAssertEqual(key.lower, lower, "\(a) \(b)")
                XCTAssertEqual(key.upper, upper, "\(a) \(b)")
            }
            XCTAssertEqual(FlowKey(a, b), FlowKey(b, a))
            XCTAssertEqual(FlowKey(a, b).foldedWord, FlowKey(b, a).foldedWord)
        }
        XCTAssertNotEqual(FlowKey(v4a80, v4b80), FlowKey(v4a9000, v4b80))
    }

    /// `count` 4-tuples to one server: clients on `addresses` addresses, their ports counted up from `firstPort`.
    private static func keys(_ count: Int, addresses: Int, firstPort: Int) -> [FlowKey] {
        let server = Endpoint(address: IPAddress(v4: 10, 0, 0, 1), port: 80)
        return (0..<count).map { i in
            let client = IPAddress(v4: 10, 0, 1, UInt8(i % addresses))
            return FlowKey(Endpoint(address: client, port: UInt16(firstPort + i / addresses)), server)
        }
    }

    /// A connection numbered `index` on the 4-tuple `key`, begun by a SYN from its lower end.
    private static func state(index: Int, key: FlowKey) -> ConnectionState {
        let segment = TCPSegment(source: key.lower, destination: key.upper, sequence: 1, acknowledgement: 0,
                                 flags: .syn, window: 65535, windowScale: nil, payloadLength: 0,
                                 payload: UnsafeRawBufferPointer(start: nil, count: 0))
        return ConnectionState(index: index, first: segment, time: 0, clientIsSource: true, targets: TargetRedactor())
    }
}
