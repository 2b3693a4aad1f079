import Synchronization

/// Run-wide byte and task counters that the engine's loop thread bumps and a progress display reads from
/// any thread.
package final class TransferProgress: Sendable {
    private let sentBytes = Atomic<Int64>(0)
    private let receivedBytes = Atomic<Int64>(0)
    private let unacknowledged = Atomic<Int64>(0)

    package init() {}

    /// Request body bytes handed to libcurl so far (a rewound body counts again).
    package var bytesSent: Int64 { sentBytes.load(ordering: .relaxed) }
    /// Request body bytes handed to libcurl that the server has not acknowledged yet: in libcurl's upload buffer or
    /// in the socket's send queue (SIOCOUTQ), over the uploads in flight; refreshed about every 100 ms.
    package var bytesUnacknowledged: Int64 { unacknowledged.load(ordering: .relaxed) }
    /// Request body bytes the server acknowledged so far (`bytesSent` less `bytesUnacknowledged`).
    package var bytesAcknowledged: Int64 { max(0, bytesSent - bytesUnacknowledged) }
    /// Response body bytes received so far.
    package var bytesReceived: Int64 { receivedBytes.load(ordering: .relaxed) }

    func sent(_ count: Int) { sentBytes.add(Int64(count), ordering: .relaxed) }
    func received(_ count: Int) { receivedBytes.add(Int64(count), ordering: .relaxed) }
    func unacknowledged(changedBy delta: Int64) { unacknowledged.add(delta, ordering: .relaxed) }
}
