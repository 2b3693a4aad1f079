import Synchronization

/// One value on its way from one thread to another: whoever takes it owns it from then on.
///
/// The value goes in as `sending` (nothing else refers to it) and comes out as `sending`, so a value that is
/// not `Sendable` (a buffer, a libpcap handle, a batch of packets) crosses threads with the compiler checking
/// that neither side keeps a reference: the hand-over the thread primitives here are built from.
package final class Parcel<Value>: Sendable {
    private let content: Mutex<Value?>

    package init(_ value: consuming sending Value) {
        content = Mutex(Optional(value))
    }

    /// The value, the first time; nil after.
    package func take() -> sending Value? {
        content.withLock { $0.take() }
    }
}
