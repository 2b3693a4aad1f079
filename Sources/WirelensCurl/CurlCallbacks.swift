internal import CCurl
internal import CCurlShim
#if canImport(Glibc)
import Glibc
#endif
import WirelensCore

// libcurl's callbacks. Each receives the transfer's `CurlEasy` as its user pointer and passes the event on to the
// handle's observer; the multi handle keeps every added easy handle alive until it is removed, so the pointer is
// valid whenever libcurl calls.

/// The observer of the easy handle behind libcurl's user pointer, if it has one.
@inline(__always)
private func observer(_ pointer: UnsafeMutableRawPointer?) -> (any TransferObserver)? {
    guard let pointer else { return nil }
    return Unmanaged<CurlEasy>.fromOpaque(pointer).takeUnretainedValue().observer
}

func wlHeaderCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                      _ user: UnsafeMutableRawPointer?) -> Int {
    let length = size * count
    guard let data, let target = observer(user) else { return length }
    data.withMemoryRebound(to: UInt8.self, capacity: length) {
        target.onHeader(UnsafeBufferPointer(start: $0, count: length))
    }
    return length
}

func wlWriteCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                     _ user: UnsafeMutableRawPointer?) -> Int {
    guard let target = observer(user) else { return size * count }
    return target.onBody(UnsafeRawPointer(data), count: size * count)
}

func wlReadCallback(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                    _ user: UnsafeMutableRawPointer?) -> Int {
    guard let buffer else { return 0 }
    guard let target = observer(user), let n = target.onRead(into: UnsafeMutableRawPointer(buffer), capacity: size * count)
    else { return wl_readfunc_abort() }
    return n
}

func wlSeekCallback(_ user: UnsafeMutableRawPointer?, _ offset: curl_off_t, _ origin: Int32) -> Int32 {
    let moved = origin == SEEK_SET_VALUE && observer(user)?.onSeek(to: Int64(offset)) == true
    return moved ? wl_seekfunc_ok() : wl_seekfunc_cantseek()
}

/// A socket for a new connection of a transfer that refuses link-local addresses or opens Multipath TCP sockets (set
/// only on such transfers): none to a link-local address the transfer refuses (no packet leaves, and the transfer
/// fails); else made as libcurl would, a TCP one as IPPROTO_MPTCP with `--mptcp` (plain TCP where the kernel refuses
/// MPTCP).
func wlOpenSocketCallback(_ user: UnsafeMutableRawPointer?, _ purpose: curlsocktype,
                          _ address: UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t {
    guard let address, let user else { return wl_socket_bad() }
    let easy = Unmanaged<CurlEasy>.fromOpaque(user).takeUnretainedValue()
    var bytes = [UInt8](repeating: 0, count: 16)
    let count = Int(wl_curl_sockaddr_ip(address, &bytes))
    if count > 0, easy.observer?.mayConnect(to: bytes[..<count]) != true { return wl_socket_bad() }
    return easy.multipath ? wl_curl_open_socket_protocol(address, multipathProtocol) : wl_curl_open_socket(address)
}

/// IPPROTO_MPTCP (Linux 5.6).
private let multipathProtocol: Int32 = 262

/// A socket libcurl made for a new connection: kept so the engine can read its kernel facts and follow an upload body's
/// end; SO_SNDBUF and SO_RCVBUF set when the transfer asked for them (before it connects: the window scale the SYN
/// offers follows the receive buffer); refused for a transfer that may only join a connection.
func wlSockoptCallback(_ user: UnsafeMutableRawPointer?, _ socket: curl_socket_t, _ purpose: curlsocktype) -> Int32 {
    guard let user else { return wl_sockopt_ok() }
    let easy = Unmanaged<CurlEasy>.fromOpaque(user).takeUnretainedValue()
    if easy.refusesNewConnection {
        // libcurl closes the socket before connecting it: no packet leaves, and the transfer fails.
        easy.refusedNewConnection = true
        return wl_sockopt_error()
    }
    if var size = easy.sendBuffer.map(Int32.init) {
        _ = setsockopt(socket, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    if var size = easy.receiveBuffer.map(Int32.init) {
        _ = setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    easy.observer?.onSocketOpened(socket)
    return wl_sockopt_ok()
}

/// libcurl closes a connection's socket. The user pointer is the multi handle's `SocketCloseRelay` (a connection
/// keeps the pointer of the transfer that made it, which may be long gone), and this callback must close the socket
/// itself.
func wlCloseSocketCallback(_ user: UnsafeMutableRawPointer?, _ socket: curl_socket_t) -> Int32 {
    if let user {
        Unmanaged<SocketCloseRelay>.fromOpaque(user).takeUnretainedValue().closing(socket)
    }
    return close(socket)
}

func wlPrereqCallback(_ user: UnsafeMutableRawPointer?, _ remoteIP: UnsafeMutablePointer<CChar>?,
                      _ localIP: UnsafeMutablePointer<CChar>?, _ remotePort: Int32, _ localPort: Int32) -> Int32 {
    guard let user else { return wl_prereq_ok() }
    let easy = Unmanaged<CurlEasy>.fromOpaque(user).takeUnretainedValue()
    guard let target = easy.observer else { return wl_prereq_ok() }
    for fact in easy.facts.factsWhenReady(easy) { target.onConnectionFact(fact) }
    target.onConnectionReady(remoteIP: remoteIP.map { String(cString: $0) }, localIP: localIP.map { String(cString: $0) },
                             remotePort: Int(remotePort), localPort: Int(localPort))
    return wl_prereq_ok()
}

func wlDebugCallback(_ handle: UnsafeMutableRawPointer?, _ type: curl_infotype, _ data: UnsafeMutablePointer<CChar>?,
                     _ size: Int, _ user: UnsafeMutableRawPointer?) -> Int32 {
    guard let data, let user else { return 0 }
    let easy = Unmanaged<CurlEasy>.fromOpaque(user).takeUnretainedValue()
    // The observer is reached only for what it wants: most lines carry no fact, and the incoming traffic matters only
    // to an observer that asked for it.
    if easy.verbose {
        let verbose: VerboseLine.Kind? = switch type {
        case CURLINFO_TEXT: .text
        case CURLINFO_HEADER_OUT: .headerOut
        case CURLINFO_HEADER_IN: .headerIn
        default: nil
        }
        if let verbose {
            data.withMemoryRebound(to: UInt8.self, capacity: size) {
                VerboseText.write(verbose, UnsafeBufferPointer(start: $0, count: size))
            }
        }
    }
    let kind: TrafficKind
    switch type {
    case CURLINFO_TEXT:
        let fact = data.withMemoryRebound(to: UInt8.self, capacity: size) {
            easy.facts.fact(inText: UnsafeBufferPointer(start: $0, count: size))
        }
        if let fact { easy.observer?.onConnectionFact(fact) }
        return 0
    case CURLINFO_HEADER_OUT: kind = .headerOut
    case CURLINFO_DATA_OUT: kind = .dataOut
    case CURLINFO_HEADER_IN: kind = .headerIn
    case CURLINFO_DATA_IN: kind = .dataIn
    case CURLINFO_SSL_DATA_IN: kind = .tlsIn
    case CURLINFO_SSL_DATA_OUT: kind = .tlsOut
    default: return 0
    }
    switch kind {
    case .headerIn, .dataIn, .tlsIn, .tlsOut: guard easy.reportsIncomingTraffic else { return 0 }
    case .headerOut, .dataOut: break
    }
    guard let target = easy.observer else { return 0 }
    data.withMemoryRebound(to: UInt8.self, capacity: size) {
        target.onTraffic(kind, UnsafeBufferPointer(start: $0, count: size))
    }
    return 0
}

/// SEEK_SET, which libcurl passes as the origin of every seek.
private let SEEK_SET_VALUE: Int32 = 0
