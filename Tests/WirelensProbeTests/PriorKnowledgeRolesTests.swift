import WirelensCore
import XCTest
@testable import WirelensProbe

/// Which h2c prior-knowledge transfers open their origin's connection and which join it (libcurl < 8).
final class PriorKnowledgeRolesTests: XCTestCase {
    private let a = Origin(scheme: "http", host: "127.0.0.1", port: 8080)
    private let b = Origin(scheme: "http", host: "127.0.0.1", port: 8081)

    func testOneOpenerPerOriginWhileItsConnectionLives() {
        let roles = PriorKnowledgeRoles()
        XCTAssertEqual(roles.role(for: a), .opens)
        XCTAssertEqual(roles.role(for: a), .joins, "the first one is still connecting")
        XCTAssertEqual(roles.role(for: b), .opens, "another origin has its own")
        roles.opened(7, origin: a)
        XCTAssertEqual(roles.role(for: a), .joins, "its connection is open")
        roles.closed(7)
        XCTAssertEqual(roles.role(for: a), .opens, "closed: the next one opens")
    }

    func testAnOpenersSecondAddressKeepsItsConnectionKnown() {
        let roles = PriorKnowledgeRoles()
        XCTAssertEqual(roles.role(for: a), .opens)
        roles.opened(5, origin: a)  // ::1, refused
        roles.opened(6, origin: a, first: false)  // 127.0.0.1, connected
        roles.closed(5)
        XCTAssertEqual(roles.role(for: a), .joins, "the second socket is the open connection")
    }

    func testAnOpenerThatMadeNoSocketLetsTheNextOneOpen() {
        let roles = PriorKnowledgeRoles()
        XCTAssertEqual(roles.role(for: a), .opens)
        roles.ended(withoutSocket: a)
        XCTAssertEqual(roles.role(for: a), .opens)
    }

    func testARefusedJoinerJoinsAPendingOpenerOrOpens() {
        let roles = PriorKnowledgeRoles()
        roles.opened(3, origin: a)  // an open connection that libcurl would not give another stream
        XCTAssertEqual(roles.rejoinRole(for: a, mayJoin: true), .opens, "no opener pending: it opens")
        XCTAssertEqual(roles.rejoinRole(for: a, mayJoin: true), .joins, "the first refused one is opening")
        XCTAssertEqual(roles.rejoinRole(for: a, mayJoin: false), .opens, "out of rejoins: it opens")
    }
}
