import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// How much of a connection's sent data the peer has not yet acknowledged, from the kernel's TCP_INFO.
///
/// An RST discards what is still queued for sending, so a reset "after N bytes" first waits until the send
/// queue is empty. Glibc's `struct tcp_info` stops before `tcpi_notsent_bytes`; the kernel's layout is stable
/// (fields are only ever appended), so the needed fields are read at their kernel offsets.
enum SendQueue {
    /// The first 160 bytes of the kernel's `struct tcp_info`.
    struct KernelTCPInfo: Sendable {
        var raw: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                  UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

        /// `tcpi_unacked` (segments in flight) and `tcpi_notsent_bytes` (bytes not yet sent); 0 when the kernel
        /// does not report them.
        var pending: (unacked: UInt32, notSent: UInt32) {
            withUnsafeBytes(of: raw) { ($0.load(fromByteOffset: 24, as: UInt32.self), $0.load(fromByteOffset: 144, as: UInt32.self)) }
        }
    }

    /// Succeeds once everything written on `channel` was acknowledged, or after `limit` polls 2 ms apart.
    static func drained(_ channel: Channel, limit: Int = 1500) -> EventLoopFuture<Void> {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        guard let provider = channel as? SocketOptionProvider else {
            promise.succeed()
            return promise.futureResult
        }
        @Sendable func poll(_ left: Int) {
            let info: EventLoopFuture<KernelTCPInfo> = provider.unsafeGetSocketOption(
                level: .tcp, name: NIOBSDSocket.Option(rawValue: CInt(TCP_INFO)))
            info.whenComplete { result in
                switch result {
                case .success(let info) where left > 0 && (info.pending.unacked > 0 || info.pending.notSent > 0):
                    channel.eventLoop.scheduleTask(in: .milliseconds(2)) { poll(left - 1) }
                default:
                    promise.succeed()
                }
            }
        }
        poll(limit)
        return promise.futureResult
    }
}
