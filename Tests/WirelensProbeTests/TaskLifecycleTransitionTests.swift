import WirelensCore
import XCTest
@testable import WirelensProbe

/// Every (state, event) pair of `TaskLifecycle` and `AcknowledgementWatch`: each has a defined outcome, the pairs
/// that cannot happen answer `invalid` and leave the state as it was (as async-http-client tests its connection
/// state machines).
final class TaskLifecycleTransitionTests: XCTestCase {
    typealias F = LifecycleFixtures
    typealias Action = TaskLifecycle.Action

    /// An event of the lifecycle, at instants well inside a 60 s total timeout.
    enum Event: CaseIterable {
        case start, resolve, startFailed, ended, wake, checkTimeouts, cancel
    }

    /// What an event's action is, without its payload.
    enum Outcome: Equatable {
        case none, transact(TransactionKind), send, park, abort(ErrorClass), finish, invalid
    }

    private static let rules = F.rules { $0.totalTimeout = 60_000_000; $0.retry = RetryPolicy(maxRetries: 3) }

    /// A lifecycle brought into each state by events, with the state's name.
    private static func lifecycles() -> [(String, TaskLifecycle)] {
        var made: [(String, TaskLifecycle)] = []
        var life = TaskLifecycle(index: 0, url: "http://a.example/", method: "GET", sendsBody: false, rules: rules)
        made.append(("idle", life))
        _ = life.start(at: 0)
        made.append(("preparing initial", life))
        _ = life.access("http://a.example/", at: 0)
        made.append(("transferring initial", life))
        var finished = life
        _ = finished.end(F.transaction(status: 200), at: 1)
        made.append(("finished", finished))
        _ = life.end(F.transaction(status: 302), at: 1, location: "http://b.example/")
        made.append(("preparing redirect", life))
        _ = life.access("http://b.example/", at: 1)
        made.append(("transferring redirect", life))
        _ = life.end(F.transaction(.redirect, status: 503), at: 2)
        made.append(("parked", life))
        _ = life.wake(at: F.second)
        made.append(("preparing retry", life))
        _ = life.access("http://b.example/", at: F.second)
        made.append(("transferring retry", life))
        return made
    }

    private static func outcome(_ action: Action) -> Outcome {
        switch action {
        case .none: .none
        case .transact(let attempt): .transact(attempt.kind)
        case .send: .send
        case .park: .park
        case .abort(let reason): .abort(reason)
        case .finish: .finish
        case .invalid: .invalid
        }
    }

    private static func apply(_ event: Event, to life: inout TaskLifecycle) -> Action {
        let now = 2 * F.second
        switch event {
        case .start: return life.start(at: now)
        case .resolve: return life.resolve(origin: F.origin("http://a.example/"), userInfo: nil, at: now)
        case .startFailed: return life.startFailed(TransferError(errorClass: .other, message: "no handle"), at: now)
        case .ended: return life.end(F.transaction(status: 200), at: now)
        case .wake: return life.wake(at: now)
        case .checkTimeouts: return life.checkTimeouts(at: now)
        case .cancel: return life.cancel(at: now)
        }
    }

    /// The expected outcome of every pair; a pair not listed is invalid.
    private static func expected(_ state: String, _ event: Event) -> Outcome {
        switch (state, event) {
        case ("idle", .start): return .transact(.initial)
        case (let s, .resolve) where s.hasPrefix("preparing"): return .send
        case (let s, .startFailed) where s.hasPrefix("preparing") || s.hasPrefix("transferring"): return .finish
        case (let s, .ended) where s.hasPrefix("transferring"): return .finish
        case (let s, .checkTimeouts) where s.hasPrefix("transferring"): return .none
        case (let s, .cancel) where s.hasPrefix("transferring"): return .abort(.cancelled)
        case ("parked", .wake): return .transact(.retry)
        case ("parked", .checkTimeouts): return .none
        case ("parked", .cancel): return .finish
        default: return .invalid
        }
    }

    func testEveryStateAndEventPair() {
        let states = Self.lifecycles()
        XCTAssertEqual(states.count, 9, "idle, preparing ×3, transferring ×3, parked, finished")
        var pairs = 0
        for (name, life) in states {
            for event in Event.allCases {
                var copy = life
                let action = Self.apply(event, to: &copy)
                let outcome = Self.outcome(action)
                XCTAssertEqual(outcome, Self.expected(name, event), "\(event) in \(name): \(action)")
                if outcome == .invalid {
                    XCTAssertEqual(copy.state, life.state, "\(event) in \(name) changed the state")
                    XCTAssertEqual(copy.transactions.count, life.transactions.count)
                }
                if outcome == .finish { XCTAssertEqual(copy.state, .finished) }
                if case .transact(let kind) = outcome { XCTAssertEqual(copy.state, .preparing(kind)) }
                if outcome == .send, case .preparing(let kind) = life.state { XCTAssertEqual(copy.state, .transferring(kind)) }
                pairs += 1
            }
        }
        XCTAssertEqual(pairs, 9 * 7)
    }

    /// The states reached above are the ones named (the table's premise).
    func testStatesAreTheNamedOnes() {
        let states = Dictionary(uniqueKeysWithValues: Self.lifecycles().map { ($0.0, $0.1.state) })
        XCTAssertEqual(states["idle"], .idle)
        XCTAssertEqual(states["preparing initial"], .preparing(.initial))
        XCTAssertEqual(states["transferring redirect"], .transferring(.redirect))
        XCTAssertEqual(states["preparing retry"], .preparing(.retry))
        XCTAssertEqual(states["transferring retry"], .transferring(.retry))
        XCTAssertEqual(states["finished"], .finished)
        guard case .parked? = states["parked"] else { return XCTFail("not parked: \(String(describing: states["parked"]))") }
    }

    // MARK: AcknowledgementWatch

    enum Look: CaseIterable {
        case sending, responseBegan, written, uploadIncomplete, uploadedNoSocket, uploaded, bodyAcknowledged, bodyOnItsWay,
             kernelCannotTell
    }

    private static func watches() -> [(String, AcknowledgementWatch)] {
        var made: [(String, AcknowledgementWatch)] = []
        var watch = AcknowledgementWatch()
        made.append(("sending", watch))
        _ = watch.look(responseStart: nil, bodyReadEnd: 10)
        made.append(("countingUpload", watch))
        _ = watch.uploaded(complete: true, socketKnown: true, bodyReadEnd: 10)
        made.append(("readingSocket", watch))
        var arrived = watch
        _ = arrived.socket(BodyArrival.Sample(at: 20, acked: 100, inFlight: 0, notSent: 0), bodyReadEnd: 10)
        made.append(("arrived", arrived))
        _ = watch.socket(BodyArrival.Sample(at: 20, acked: 0, inFlight: 100, notSent: 0), bodyReadEnd: 10)
        made.append(("following", watch))
        _ = watch.look(responseStart: nil, bodyReadEnd: 10)
        made.append(("countingUpload after following", watch))
        var missed = AcknowledgementWatch()
        _ = missed.look(responseStart: 30, bodyReadEnd: nil)
        made.append(("missed", missed))
        return made
    }

    private static func apply(_ look: Look, to watch: inout AcknowledgementWatch) -> AcknowledgementWatch.Step {
        switch look {
        case .sending: watch.look(responseStart: nil, bodyReadEnd: nil)
        case .responseBegan: watch.look(responseStart: 30, bodyReadEnd: 10)
        case .written: watch.look(responseStart: nil, bodyReadEnd: 10)
        case .uploadIncomplete: watch.uploaded(complete: false, socketKnown: true, bodyReadEnd: 10)
        case .uploadedNoSocket: watch.uploaded(complete: true, socketKnown: false, bodyReadEnd: 10)
        case .uploaded: watch.uploaded(complete: true, socketKnown: true, bodyReadEnd: 10)
        case .bodyAcknowledged: watch.socket(BodyArrival.Sample(at: 25, acked: 100, inFlight: 0, notSent: 0), bodyReadEnd: 10)
        case .bodyOnItsWay: watch.socket(BodyArrival.Sample(at: 25, acked: 93, inFlight: 7, notSent: 0), bodyReadEnd: 10)
        case .kernelCannotTell: watch.socket(nil, bodyReadEnd: 10)
        }
    }

    private static func expected(_ state: String, _ look: Look) -> AcknowledgementWatch.Step {
        switch (state, look) {
        case ("arrived", .sending), ("arrived", .responseBegan), ("arrived", .written),
             ("missed", .sending), ("missed", .responseBegan), ("missed", .written):
            return .settled
        case ("sending", .sending), ("following", .sending): return .idle
        case ("sending", .responseBegan), ("following", .responseBegan): return .settled
        case ("sending", .written), ("following", .written): return .readUploaded
        case (let s, .uploadIncomplete) where s.hasPrefix("countingUpload"): return .waiting
        case (let s, .uploadedNoSocket) where s.hasPrefix("countingUpload"): return .settled
        case (let s, .uploaded) where s.hasPrefix("countingUpload"): return .readSocket
        case ("readingSocket", .bodyAcknowledged), ("readingSocket", .kernelCannotTell): return .settled
        case ("readingSocket", .bodyOnItsWay): return .waiting
        default: return .invalid
        }
    }

    func testEveryWatchStateAndLookPair() {
        var pairs = 0
        for (name, watch) in Self.watches() {
            for look in Look.allCases {
                var copy = watch
                let step = Self.apply(look, to: &copy)
                XCTAssertEqual(step, Self.expected(name, look), "\(look) in \(name)")
                if name == "following", look == .sending {
                    // The body is being read again (a rewind): what the looks followed was another send of it.
                    XCTAssertEqual(copy.state, .sending)
                } else if step == .invalid || (step == .settled && watch.isSettled) || step == .idle {
                    XCTAssertEqual(copy, watch, "\(look) in \(name) changed the watch")
                }
                if step == .settled { XCTAssertTrue(copy.isSettled, "\(look) in \(name)") }
                pairs += 1
            }
        }
        XCTAssertEqual(pairs, 7 * 9)
    }
}
