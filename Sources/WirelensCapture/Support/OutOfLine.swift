/// A value kept out of line: a large part of a struct that most instances never use costs them one reference
/// instead of its whole size (so that moving the struct, as the connection table does, stays cheap). Copied on
/// write when shared, so it keeps value semantics.
struct OutOfLine<Value> {
    private final class Storage {
        var value: Value

        init(_ value: Value) {
            self.value = value
        }
    }

    private var storage: Storage

    init(_ value: Value) {
        storage = Storage(value)
    }

    /// The value, changed in place unless another copy shares it.
    var value: Value {
        get { storage.value }
        _modify {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.value) }
            yield &storage.value
        }
    }
}
