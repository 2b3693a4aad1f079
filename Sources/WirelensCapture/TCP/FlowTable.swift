/// Values by 4-tuple (the connections in progress, the tombstones of finished ones), stored flat: the values in one
/// array of slots, found through an open-addressing index of slot numbers.
///
/// The tracker looks a 4-tuple up for every packet. A `Dictionary` hashed the key with SipHash and compared keys
/// through generic code on every lookup (about a tenth of the analysis); here the key's own folded word picks the
/// bucket, linear probing compares keys in place, and a value is changed where it lies (`subscript(slot:)`). A
/// removal shifts the entries behind it back, so no deleted markers pile up as thousands of connections come and go.
struct FlowTable<Value> {
    /// The values by slot (nil: a free slot, listed in `freeSlots`).
    private var states: [Value?] = []
    private var keys: [FlowKey] = []
    private var freeSlots: [Int] = []
    /// Slot numbers by bucket (-1: empty); a power of two long, at most half full.
    private var buckets: [Int32] = Array(repeating: -1, count: 1024)
    /// The connections in the table.
    private(set) var count = 0

    /// The slot holding `key`'s connection, if any (inlined into the tracker's per-packet step).
    @inline(__always)
    func slot(of key: FlowKey) -> Int? {
        let mask = buckets.count - 1
        var bucket = Self.bucket(key, mask: mask)
        while true {
            let slot = Int(buckets[bucket])
            if slot < 0 { return nil }
            if keys[slot] == key { return slot }
            bucket = (bucket + 1) & mask
        }
    }

    /// The value in `slot` (which holds one), changed in place.
    subscript(slot slot: Int) -> Value {
        _read { yield states[slot]! }
        _modify { yield &states[slot]! }
    }

    /// The value at `key`, if any.
    subscript(key: FlowKey) -> Value? {
        slot(of: key).map { states[$0]! }
    }

    /// Puts `state` in the table at `key` (which holds none) and returns its slot.
    @discardableResult
    mutating func insert(_ state: consuming Value, at key: FlowKey) -> Int {
        if (count + 1) * 2 > buckets.count { grow() }
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            states[slot] = consume state  // moved in: a state holds many references, a copy retains each
            keys[slot] = key
        } else {
            slot = states.count
            states.append(consume state)
            keys.append(key)
        }
        place(slot, key: key)
        count += 1
        return slot
    }

    /// Puts `value` at `key`, in place of the value there if any.
    mutating func set(_ value: Value, at key: FlowKey) {
        if let slot = slot(of: key) {
            states[slot] = value
        } else {
            insert(value, at: key)
        }
    }

    /// Drops the value at `key`, if any.
    mutating func removeValue(at key: FlowKey) {
        _ = remove(key) { _ in () }
    }

    /// Takes the value at `key` out of the table: `body` reads it where it lies (it is not moved out, a connection's
    /// state being over a kilobyte), then it is dropped; returns what `body` returned, nil when `key` has none.
    mutating func remove<Result>(_ key: FlowKey, after body: (inout Value) -> Result) -> Result? {
        let mask = buckets.count - 1
        var bucket = Self.bucket(key, mask: mask)
        while true {
            let slot = Int(buckets[bucket])
            if slot < 0 { return nil }
            if keys[slot] == key { break }
            bucket = (bucket + 1) & mask
        }
        let slot = Int(buckets[bucket])
        let result = body(&states[slot]!)
        states[slot] = nil  // dropped in place, not moved out
        freeSlots.append(slot)
        count -= 1
        // Backward shift: the entries after the hole that would not be found past it move into it.
        var hole = bucket
        var next = (hole + 1) & mask
        while buckets[next] >= 0 {
            let home = Self.bucket(keys[Int(buckets[next])], mask: mask)
            // The entry at `next` may move to `hole` when its home is not in the cyclic range (hole, next].
            let stays = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next)
            if !stays {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        buckets[hole] = -1
        return result
    }

    /// Calls `body` with each value in the table and its key, in no particular order.
    func forEach(_ body: (FlowKey, Value) -> Void) {
        for slot in states.indices {
            if let state = states[slot] { body(keys[slot], state) }
        }
    }

    /// Calls `body` with each value in the table, where it lies (no copy), and its key, in no particular order.
    mutating func forEachInPlace(_ body: (FlowKey, inout Value) -> Void) {
        for slot in states.indices where states[slot] != nil {
            body(keys[slot], &states[slot]!)
        }
    }

    /// Empties the table.
    mutating func removeAll() {
        self = FlowTable()
    }

    private mutating func place(_ slot: Int, key: FlowKey) {
        let mask = buckets.count - 1
        var bucket = Self.bucket(key, mask: mask)
        while buckets[bucket] >= 0 { bucket = (bucket + 1) & mask }
        buckets[bucket] = Int32(slot)
    }

    private mutating func grow() {
        buckets = Array(repeating: -1, count: buckets.count * 2)
        for slot in states.indices where states[slot] != nil { place(slot, key: keys[slot]) }
    }

    /// The home bucket of `key`: the high bits of its folded word, which mixes every field.
    private static func bucket(_ key: FlowKey, mask: Int) -> Int {
        let word = key.foldedWord &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: word >> 32) & mask
    }
}

extension FlowTable where Value == ConnectionState {
    /// The number (`record.index`) of the connection in `slot` (which holds one), read where it lies: through the
    /// generic `subscript(slot:)` the whole state was copied first.
    func index(at slot: Int) -> Int {
        states[slot]!.record.index
    }

    /// Empties the table, calling `body` with each connection where it lies (no move or copy of its state), in
    /// order of their numbers (`record.index`): the slot numbers are sorted, not the states.
    mutating func removeAll(inOrder body: (inout ConnectionState) -> Void) {
        var order: [(index: Int, slot: Int)] = []
        order.reserveCapacity(count)
        for slot in states.indices {
            if let index = states[slot]?.record.index { order.append((index, slot)) }
        }
        order.sort { $0.index < $1.index }
        for (_, slot) in order { body(&states[slot]!) }
        self = FlowTable()
    }
}
