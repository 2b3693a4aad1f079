import CCurl
import CCurlShim
import WirelensCore

// libcurl's callbacks. Each receives the transfer's context as its user pointer; the engine keeps the
// context alive until the transfer has been removed from the multi handle.

@inline(__always)
private func context(_ pointer: UnsafeMutableRawPointer?) -> TransferContext? {
    pointer.map { Unmanaged<TransferContext>.fromOpaque($0).takeUnretainedValue() }
}

func wlHeaderCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                      _ user: UnsafeMutableRawPointer?) -> Int {
    let length = size * count
    guard let ctx = context(user), let data else { return length }
    data.withMemoryRebound(to: UInt8.self, capacity: length) {
        ctx.onHeader(UnsafeBufferPointer(start: $0, count: length))
    }
    return length
}

func wlWriteCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                     _ user: UnsafeMutableRawPointer?) -> Int {
    guard let ctx = context(user) else { return size * count }
    return ctx.onBody(data, count: size * count)
}

func wlReadCallback(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                    _ user: UnsafeMutableRawPointer?) -> Int {
    guard let ctx = context(user) else { return wl_readfunc_abort() }
    return ctx.onRead(buffer, capacity: size * count)
}

func wlSeekCallback(_ user: UnsafeMutableRawPointer?, _ offset: curl_off_t, _ origin: Int32) -> Int32 {
    guard let ctx = context(user), origin == SEEK_SET_VALUE, ctx.onSeek(to: Int64(offset)) else {
        return wl_seekfunc_cantseek()
    }
    return wl_seekfunc_ok()
}

func wlPrereqCallback(_ user: UnsafeMutableRawPointer?, _ remoteIP: UnsafeMutablePointer<CChar>?,
                      _ localIP: UnsafeMutablePointer<CChar>?, _ remotePort: Int32, _ localPort: Int32) -> Int32 {
    context(user)?.onConnectionReady(remoteIP: remoteIP.map { String(cString: $0) },
                                     localIP: localIP.map { String(cString: $0) },
                                     remotePort: Int(remotePort), localPort: Int(localPort))
    return wl_prereq_ok()
}

func wlDebugCallback(_ easy: UnsafeMutableRawPointer?, _ type: curl_infotype, _ data: UnsafeMutablePointer<CChar>?,
                     _ size: Int, _ user: UnsafeMutableRawPointer?) -> Int32 {
    guard let ctx = context(user), let data else { return 0 }
    data.withMemoryRebound(to: UInt8.self, capacity: size) {
        ctx.onDebug(type: type, text: UnsafeBufferPointer(start: $0, count: size))
    }
    return 0
}

/// SEEK_SET, which libcurl passes as the origin of every seek.
private let SEEK_SET_VALUE: Int32 = 0
