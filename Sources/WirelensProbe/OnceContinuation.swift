import Synchronization

/// A continuation resumed by whichever comes first, the work's result or a cancellation, and only once; a value that
/// comes before the continuation is attached is kept and handed over on attach.
final class OnceContinuation<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Value, Never>)
        case resolved(Value)
        case done
    }

    private let state = Mutex<State>(.empty)

    /// Attaches the continuation to resume; resumes it at once when a value already came.
    func attach(_ continuation: CheckedContinuation<Value, Never>) {
        let early: Value? = state.withLock { state in
            switch state {
            case .resolved(let value):
                state = .done
                return value
            default:
                state = .waiting(continuation)
                return nil
            }
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Resumes with `value` unless a value came first.
    func resume(_ value: Value) {
        let waiting: CheckedContinuation<Value, Never>? = state.withLock { state in
            switch state {
            case .empty:
                state = .resolved(value)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .resolved, .done:
                return nil
            }
        }
        waiting?.resume(returning: value)
    }
}
