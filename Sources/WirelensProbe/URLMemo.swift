/// Remembers values worked out from URL strings (parsed targets): a run repeats the same few URLs many times.
///
/// The latest URL is checked first: a repeated task hands over the very same string, which compares
/// equal without reading its bytes, so the common case costs no hashing.
struct URLMemo<Value> {
    private var latestURL: String?
    private var latestValue: Value?
    private var table: [String: Value] = [:]
    /// The table is emptied when it passes this size (a run through many distinct URLs).
    private static var limit: Int { 4096 }

    /// The value for `url`, made by `make` the first time it is asked for.
    mutating func value<E: Error>(for url: String, _ make: (String) throws(E) -> Value) throws(E) -> Value {
        // Compared in place: binding the latest pair would copy it, and a value may hold several strings.
        if latestURL == url, let value = latestValue { return value }
        let value: Value
        if let known = table[url] {
            value = known
        } else {
            value = try make(url)
            if table.count >= Self.limit { table.removeAll() }
            table[url] = value
        }
        latestURL = url
        latestValue = value
        return value
    }
}
