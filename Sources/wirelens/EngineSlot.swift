import Synchronization
import WirelensProbe

/// The engine running now, so that a signal cancels it.
final class EngineSlot: Sendable {
    private let engine = Mutex<Engine?>(nil)

    /// Makes `engine` the one a signal cancels.
    func set(_ engine: Engine?) {
        self.engine.withLock { $0 = engine }
    }

    /// Cancels the engine running now, if any.
    func cancel() {
        engine.withLock { $0 }?.cancel()
    }
}
