import CCurl
import CCurlShim
#if canImport(Glibc)
import Glibc
#endif
import WirelensCore

// libcurl's callbacks. Each receives the transfer's context as its user pointer; the engine keeps the
// context alive until the transfer has been removed from the multi handle.

/// Runs `body` on the context behind libcurl's user pointer without retaining it (the engine's `active` table
/// holds it for the whole transfer), or returns `fallback` when there is none.
@inline(__always)
private func withContext<R>(_ pointer: UnsafeMutableRawPointer?, else fallback: R,
                            _ body: (TransferContext) -> R) -> R {
    guard let pointer else { return fallback }
    return Unmanaged<TransferContext>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
}

func wlHeaderCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                      _ user: UnsafeMutableRawPointer?) -> Int {
    let length = size * count
    guard let data else { return length }
    withContext(user, else: ()) { ctx in
        data.withMemoryRebound(to: UInt8.self, capacity: length) {
            ctx.onHeader(UnsafeBufferPointer(start: $0, count: length))
        }
    }
    return length
}

func wlWriteCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                     _ user: UnsafeMutableRawPointer?) -> Int {
    withContext(user, else: size * count) { $0.onBody(data, count: size * count) }
}

func wlReadCallback(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                    _ user: UnsafeMutableRawPointer?) -> Int {
    withContext(user, else: wl_readfunc_abort()) { $0.onRead(buffer, capacity: size * count) }
}

func wlSeekCallback(_ user: UnsafeMutableRawPointer?, _ offset: curl_off_t, _ origin: Int32) -> Int32 {
    let moved = origin == SEEK_SET_VALUE && withContext(user, else: false) { $0.onSeek(to: Int64(offset)) }
    return moved ? wl_seekfunc_ok() : wl_seekfunc_cantseek()
}

/// A socket for a new connection of a transfer that refuses link-local addresses (set only on such transfers): made
/// as libcurl would, unless the address is link-local; then no socket, so no packet leaves, and the transfer fails.
func wlOpenSocketCallback(_ user: UnsafeMutableRawPointer?, _ purpose: curlsocktype,
                          _ address: UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t {
    guard let address else { return wl_socket_bad() }
    var bytes = [UInt8](repeating: 0, count: 16)
    let count = Int(wl_curl_sockaddr_ip(address, &bytes))
    if count > 0, !withContext(user, else: false, { $0.mayConnect(to: bytes[..<count]) }) { return wl_socket_bad() }
    return wl_curl_open_socket(address)
}

/// A socket libcurl made for a new connection: kept so the engine can read its kernel facts and watch its send queue.
func wlSockoptCallback(_ user: UnsafeMutableRawPointer?, _ socket: curl_socket_t, _ purpose: curlsocktype) -> Int32 {
    withContext(user, else: ()) {
        $0.socket = socket
        $0.sockets?.opened(socket)
        if var size = $0.sendBuffer.map(Int32.init) {
            _ = setsockopt(socket, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
    }
    return wl_sockopt_ok()
}

/// libcurl closes a connection's socket: the transfers on it take their last kernel snapshot first. The user pointer
/// is the engine's `ConnectionSockets` (a connection keeps the pointer of the transfer that made it, which may be
/// long gone), and this callback must close the socket itself.
func wlCloseSocketCallback(_ user: UnsafeMutableRawPointer?, _ socket: curl_socket_t) -> Int32 {
    if let user {
        Unmanaged<ConnectionSockets>.fromOpaque(user).takeUnretainedValue().closing(socket, at: MonotonicClock.now())
    }
    return close(socket)
}

func wlPrereqCallback(_ user: UnsafeMutableRawPointer?, _ remoteIP: UnsafeMutablePointer<CChar>?,
                      _ localIP: UnsafeMutablePointer<CChar>?, _ remotePort: Int32, _ localPort: Int32) -> Int32 {
    withContext(user, else: ()) {
        $0.onConnectionReady(remoteIP: remoteIP.map { String(cString: $0) }, localIP: localIP.map { String(cString: $0) },
                             remotePort: Int(remotePort), localPort: Int(localPort))
    }
    return wl_prereq_ok()
}

func wlDebugCallback(_ easy: UnsafeMutableRawPointer?, _ type: curl_infotype, _ data: UnsafeMutablePointer<CChar>?,
                     _ size: Int, _ user: UnsafeMutableRawPointer?) -> Int32 {
    guard let data else { return 0 }
    withContext(user, else: ()) { ctx in
        data.withMemoryRebound(to: UInt8.self, capacity: size) {
            ctx.onDebug(type: type, text: UnsafeBufferPointer(start: $0, count: size))
        }
    }
    return 0
}

/// SEEK_SET, which libcurl passes as the origin of every seek.
private let SEEK_SET_VALUE: Int32 = 0
