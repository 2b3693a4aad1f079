/// A string-keyed map encoded with its keys in a given order (by default sorted).
public struct OrderedMap<Value: Encodable>: Encodable {
    let entries: [(String, Value)]

    /// The map's entries, the keys named in `order` first in that order, the rest sorted.
    public init(_ map: [String: Value], order: [String]? = nil) {
        if let order {
            let known = order.compactMap { key in map[key].map { (key, $0) } }
            let rest = map.filter { !order.contains($0.key) }.sorted { $0.key < $1.key }
            entries = known + rest.map { ($0.key, $0.value) }
        } else {
            entries = map.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: AnyCodingKey.self)
        for (key, value) in entries { try c.encode(value, forKey: AnyCodingKey(stringValue: key)) }
    }
}
