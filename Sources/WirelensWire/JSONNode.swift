/// A value under construction by `JSONValueEncoder`: containers write into nodes, which become a `JSONValue`.
final class JSONNode {
    enum Content {
        case empty
        case value(JSONValue)
        case object([(String, JSONNode)])
        case array([JSONNode])
    }

    var content: Content = .empty

    /// The finished value; a node nothing was written to is null.
    var value: JSONValue {
        switch content {
        case .empty: .null
        case .value(let value): value
        case .object(let members): .object(members.map { JSONValue.Member($0.0, $0.1.value) })
        case .array(let items): .array(items.map(\.value))
        }
    }

    var itemCount: Int {
        if case .array(let items) = content { return items.count }
        return 0
    }

    /// Makes this node an object (keeping its members if it is one already).
    func becomeObject() {
        if case .object = content { return }
        content = .object([])
    }

    /// Makes this node an array (keeping its items if it is one already).
    func becomeArray() {
        if case .array = content { return }
        content = .array([])
    }

    /// A new member `name` of this object, after the others (replacing one of the same name in place).
    func member(_ name: String) -> JSONNode {
        becomeObject()
        guard case .object(var members) = content else { return JSONNode() }
        let node = JSONNode()
        if let at = members.firstIndex(where: { $0.0 == name }) {
            members[at].1 = node
        } else {
            members.append((name, node))
        }
        content = .object(members)
        return node
    }

    /// A new last item of this array.
    func appendItem() -> JSONNode {
        becomeArray()
        guard case .array(var items) = content else { return JSONNode() }
        let node = JSONNode()
        items.append(node)
        content = .array(items)
        return node
    }
}
