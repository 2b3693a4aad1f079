/// A limit of this run's measurements that a reader should know, with a stable identifier.
public struct Caveat: Sendable, Codable, Equatable {
    public var id: String
    public var text: String

    public init(id: String, text: String) {
        self.id = id
        self.text = text
    }
}
