import WirelensCore
import WirelensCurl

/// An h2c prior-knowledge transfer's part in its origin's connection on libcurl before 8.0: its role, the engine's
/// table of roles, the settings it was configured with (a joiner refused a new connection starts again with new
/// ones), whether an opener told the table of its socket or end, and how often a joiner started again.
struct PriorKnowledgeJoin {
    private(set) var role: PriorKnowledgeRole
    let roles: PriorKnowledgeRoles
    private(set) var settings: TransferSettings
    /// True once an opener's socket or end was told to the roles table.
    private var settled = false
    /// How often this transfer, joining an h2c connection, was refused a new one and started again.
    private(set) var rejoins = 0

    init(role: PriorKnowledgeRole, roles: PriorKnowledgeRoles, settings: TransferSettings) {
        self.role = role
        self.roles = roles
        self.settings = settings
    }

    /// An opener made `socket` for `origin`: the table hears of its first one as the origin's connection.
    mutating func opened(_ socket: Int32, origin: Origin) {
        guard role == .opens else { return }
        roles.opened(socket, origin: origin, first: !settled)
        settled = true
    }

    /// The transfer ended: an opener that made no socket tells the table so.
    mutating func ended(origin: Origin) {
        guard role == .opens, !settled else { return }
        settled = true
        roles.ended(withoutSocket: origin)
    }

    /// A joiner refused a new connection starts again in `role` with `settings`.
    mutating func rejoin(as role: PriorKnowledgeRole, settings: TransferSettings) {
        rejoins += 1
        self.role = role
        self.settings = settings
    }
}
