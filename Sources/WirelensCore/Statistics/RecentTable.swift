/// A map that keeps what was stored or read recently, in memory bounded by `2 × limit` entries.
///
/// Two generations: entries go into the current one; once it holds `limit`, it becomes the previous one and
/// the entries of the one before are dropped. Reading an entry of the previous generation moves it into the
/// current one. So an entry stays while it is used at least once every `limit` stores.
package struct RecentTable<Key: Hashable, Value> {
    private var current: [Key: Value] = [:]
    private var previous: [Key: Value] = [:]
    /// Entries per generation.
    package let limit: Int

    package init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// The entries held now: at most `2 × limit`.
    package var count: Int { current.count + previous.count }

    /// The value stored for `key` and not dropped since, or nil.
    package subscript(key: Key) -> Value? {
        mutating get {
            if let value = current[key] { return value }
            guard let value = previous.removeValue(forKey: key) else { return nil }
            store(value, for: key)
            return value
        }
        set {
            if let newValue {
                previous.removeValue(forKey: key)
                store(newValue, for: key)
            } else {
                current.removeValue(forKey: key)
                previous.removeValue(forKey: key)
            }
        }
    }

    private mutating func store(_ value: Value, for key: Key) {
        if current[key] == nil, current.count >= limit {
            previous = current
            current = [:]
        }
        current[key] = value
    }
}

extension RecentTable: Sendable where Key: Sendable, Value: Sendable {}
