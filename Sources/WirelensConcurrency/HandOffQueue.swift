import Dispatch
import Synchronization

/// A bounded first-in first-out queue that hands values from one thread to another, blocking the sender while
/// it is full and the receiver while it is empty.
///
/// It is how a stage of a pipeline runs on a thread of its own (the capture reader reading ahead, the report
/// writer writing behind): the bound keeps memory flat when one side is faster. Closing it ends the stream:
/// `take` returns what is left, then nil; `put` after a close drops the value and returns false.
///
/// Values go in and come out as `sending`: the sender gives a value up, the receiver owns it, so values that are
/// not `Sendable` cross with the compiler's checks. Two counting semaphores do the waiting (`slots`: free places,
/// `filled`: values, each plus one once closed, which every waiter that finds the queue closed passes on), a
/// `Mutex` guards the values.
package final class HandOffQueue<Element>: Sendable {
    private struct State {
        var parcels: [Parcel<Element>] = []
        var closed = false
    }

    private let state = Mutex(State())
    private let slots: DispatchSemaphore
    private let filled = DispatchSemaphore(value: 0)

    /// A queue holding at most `capacity` values (at least 1).
    package init(capacity: Int) {
        slots = DispatchSemaphore(value: max(1, capacity))
    }

    /// Appends `value`, waiting while the queue is full; false (and the value dropped) once the queue is closed.
    @discardableResult
    package func put(_ value: sending Element) -> Bool {
        let parcel = Parcel(value)
        slots.wait()
        let queued = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.parcels.append(parcel)
            return true
        }
        if queued { filled.signal() } else { slots.signal() }  // closed: wake the next waiting sender too
        return queued
    }

    /// Removes the oldest value, waiting while the queue is empty and open; nil once it is closed and empty.
    package func take() -> sending Element? {
        filled.wait()
        let parcel = state.withLock { state in state.parcels.isEmpty ? nil : state.parcels.removeFirst() }
        guard let parcel else {
            filled.signal()  // closed and empty: wake the next waiting receiver too
            return nil
        }
        slots.signal()
        return parcel.take()
    }

    /// Ends the stream: waiting senders and receivers wake up; values already queued can still be taken.
    package func close() {
        let first = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        guard first else { return }
        filled.signal()
        slots.signal()
    }
}
